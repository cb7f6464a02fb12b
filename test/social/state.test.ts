import { describe, expect, it } from 'vitest'
import { fold, type TimelineEvent } from '../../social/state'

/** The conversation state machine, on plain values (social/state.ts). */
const t = (minutes: number) => new Date(Date.UTC(2026, 2, 2, 2, 0, 0) + minutes * 60_000)
const start = t(0)
const inn = (m: number): TimelineEvent => ({ kind: 'in', at: t(m) })
const out = (m: number, published = true): TimelineEvent => ({ kind: 'out', at: t(m), published })
const to = (m: number, status: 'open' | 'replied' | 'solved' | 'closed'): TimelineEvent => ({
  kind: 'status',
  at: t(m),
  to: status,
})

describe('conversation state', () => {
  it('starts open, with its start as last message time', () => {
    expect(fold(start, [])).toEqual({
      status: 'open',
      firstResponseAt: null,
      lastMessageAt: start,
      solvedAt: null,
      closedAt: null,
      reopenedCount: 0,
    })
  })

  it('a published reply makes it replied and is the first response; a new question makes it open', () => {
    const s = fold(start, [inn(0), out(10), inn(20), out(30)])
    expect(s.firstResponseAt).toEqual(t(10))
    expect(s.status).toBe('replied')
    expect(s.lastMessageAt).toEqual(t(30))
    expect(fold(start, [inn(0), out(10), inn(20)]).status).toBe('open')
  })

  it('pending and failed replies change nothing', () => {
    const s = fold(start, [inn(0), out(5, false)])
    expect(s).toMatchObject({ status: 'open', firstResponseAt: null, lastMessageAt: t(5) })
  })

  it('solved then closed keeps the solved time; closed directly has none', () => {
    expect(fold(start, [inn(0), out(10), to(20, 'solved'), to(60, 'closed')])).toMatchObject({
      status: 'closed',
      solvedAt: t(20),
      closedAt: t(60),
    })
    expect(fold(start, [inn(0), to(20, 'closed')])).toMatchObject({
      status: 'closed',
      solvedAt: null,
      closedAt: t(20),
    })
  })

  it('an incoming message reopens a solved or closed conversation and counts it', () => {
    const s = fold(start, [inn(0), out(10), to(20, 'solved'), inn(30), out(40), to(50, 'closed'), inn(60)])
    expect(s).toMatchObject({ status: 'open', reopenedCount: 2, solvedAt: null, closedAt: null })
  })

  it('an explicit reopening counts; a change to the current status does not', () => {
    const s = fold(start, [inn(0), to(10, 'solved'), to(15, 'solved'), to(20, 'open'), to(25, 'open')])
    expect(s).toMatchObject({ status: 'open', reopenedCount: 1, solvedAt: null })
  })

  it('depends on the events, not on the order they arrive in; messages go before changes at the same instant', () => {
    const events = [inn(0), out(10), to(10, 'solved'), inn(30), out(40)]
    const shuffled = [events[4]!, events[2]!, events[0]!, events[3]!, events[1]!]
    expect(fold(start, shuffled)).toEqual(fold(start, events))
    expect(fold(start, events)).toMatchObject({ status: 'replied', reopenedCount: 1 })
  })
})
