import { describe, expect, it } from 'vitest'
import {
  canMove,
  decidePatch,
  type Editable,
  isActive,
  mentionedIn,
  nextUpdateRequestAt,
  STATUSES,
  TRANSITIONS,
  ticketSla,
  UPDATE_REQUEST_WINDOW_MS,
} from '../../actors/tickets/rules'

/** The ticket rules as plain values: the state table, mentions, the window, the log of a patch. */
describe('the state table', () => {
  it('lets active tickets move anywhere, resolved ones reopen or close, closed ones only reopen', () => {
    for (const s of ['open', 'in_progress', 'waiting'] as const) {
      expect(isActive(s)).toBe(true)
      for (const to of STATUSES) expect(canMove(s, to)).toBe(true)
    }
    expect(isActive('resolved')).toBe(false)
    expect(TRANSITIONS.resolved).toEqual(['open', 'in_progress', 'closed'])
    expect(canMove('resolved', 'waiting')).toBe(false)
    expect(TRANSITIONS.closed).toEqual(['open'])
    expect(canMove('closed', 'resolved')).toBe(false)
    expect(canMove('closed', 'closed')).toBe(true)
  })
})

describe('@Name mentions', () => {
  const people = [
    { id: 1, name: 'Siti' },
    { id: 2, name: 'Siti Rahma' },
    { id: 3, name: 'Budi' },
  ]
  it('takes the longest whole name after @, in any case', () => {
    expect(mentionedIn('hi @siti rahma and @BUDI.', people).sort()).toEqual([2, 3])
    expect(mentionedIn('@Siti, then @Siti Rahma', people).sort()).toEqual([1, 2])
    expect(mentionedIn('@Budiman is no one; mail budi@example.com', people)).toEqual([])
  })
})

describe('update requests', () => {
  it('once per 15 minutes', () => {
    const last = new Date(1_000_000)
    expect(nextUpdateRequestAt(null, 0)).toBeNull()
    expect(nextUpdateRequestAt(last, 1_000_000 + UPDATE_REQUEST_WINDOW_MS - 1)).toBe(
      1_000_000 + UPDATE_REQUEST_WINDOW_MS,
    )
    expect(nextUpdateRequestAt(last, 1_000_000 + UPDATE_REQUEST_WINDOW_MS)).toBeNull()
  })
})

describe('a patch and its log', () => {
  const t: Editable = {
    subject: 'a',
    description: '',
    status: 'closed',
    priority: 'normal',
    due_date: null,
    team_id: 1,
    custom: { x: 1, y: 'k' },
  }
  it('logs each changed field with old and new values, custom keys one by one, and skips the unchanged', () => {
    const d = decidePatch(t, {
      subject: 'b',
      priority: 'normal',
      customSet: { x: 2 },
      customClear: ['y', 'z'],
    })
    expect(d._tag).toBe('Changes')
    if (d._tag !== 'Changes') return
    expect(d.changes).toEqual([
      { field: 'subject', old: 'a', new: 'b' },
      { field: 'custom.x', old: 1, new: 2 },
      { field: 'custom.y', old: 'k', new: null },
    ])
    expect(d.next.custom).toEqual({ x: 2 })
  })
  it('refuses a move the table does not allow', () => {
    expect(decidePatch(t, { status: 'resolved' })).toEqual({
      _tag: 'BadTransition',
      from: 'closed',
      to: 'resolved',
    })
  })
})

describe('SLA', () => {
  it('uses the priority target and none for finished tickets', () => {
    const created = new Date('2026-01-05T00:00:00Z')
    const base = { warnRatio: 0.8, hours: null, zone: 'Asia/Jakarta' }
    const at = (min: number) => new Date(created.getTime() + min * 60_000)
    const t = { status: 'open' as const, priority: 'urgent' as const, created_at: created }
    expect(ticketSla(t, at(100), base)).toMatchObject({ level: null, minutes: 100, target_minutes: 240 })
    expect(ticketSla(t, at(200), base)?.level).toBe('warn')
    expect(ticketSla(t, at(240), base)).toMatchObject({ level: 'breach', due_at: at(240) })
    expect(ticketSla({ ...t, status: 'resolved' }, at(300), base)).toBeNull()
  })
})
