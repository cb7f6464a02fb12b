import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generate } from '../../social/demo'
import { type ImportRecord, importNdjson } from '../../social/import'
import {
  get,
  importRecords,
  key,
  ndjson,
  type SocialTestServer,
  startSocialServer,
  workspace,
} from './support'

/**
 * The NDJSON import: idempotent (a second run changes nothing), order-independent, refusing bad
 * lines with their line number while importing the rest. The CLI path is in cli.test.ts.
 */
let s: SocialTestServer

beforeAll(async () => {
  s = await startSocialServer()
})
afterAll(() => s?.stop())

/** A small data set; accounts belong to one workspace, so each workspace gets its own. */
const make = (account: string): ImportRecord[] => [
  { kind: 'channel', id: account, username: 'tokomaju.id' },
  {
    kind: 'conversation',
    id: 'c1',
    channel: account,
    type: 'reply',
    contact: 'rina_99',
    created_at: '2026-06-01T09:00:00+07:00',
    category: 'Pengiriman',
  },
  {
    kind: 'message',
    id: 'm1',
    conversation: 'c1',
    direction: 'in',
    author: 'rina_99',
    text: 'Ongkir ke Bandung berapa?',
    posted_at: '2026-06-01T09:00:00+07:00',
  },
  {
    kind: 'message',
    id: 'm2',
    conversation: 'c1',
    direction: 'out',
    author: 'tokomaju.id',
    text: 'Rp10.000 Kak',
    posted_at: '2026-06-01T09:03:00+07:00',
  },
  {
    kind: 'status_change',
    id: 's1',
    conversation: 'c1',
    status: 'solved',
    changed_at: '2026-06-01T09:30:00+07:00',
  },
  {
    kind: 'ticket',
    id: 't1',
    conversation: 'c1',
    subject: 'Cek ongkir',
    created_at: '2026-06-01T09:10:00+07:00',
  },
  {
    kind: 'ticket_comment',
    id: 'd1',
    ticket: 't1',
    author: 'Sari',
    body: 'Sudah',
    created_at: '2026-06-01T09:20:00+07:00',
  },
  {
    kind: 'note',
    id: 'n1',
    conversation: 'c1',
    body: 'Catatan',
    author: 'Sari',
    ticket: 't1',
    created_at: '2026-06-01T09:11:00+07:00',
  },
]

/** What the API shows of a workspace (a key per request: a snapshot may take more than 60). */
const snapshot = async (ws: number) => {
  const read = async (p: string) => (await get(s, await key(s, ws), p)).body
  const list = await read('/api/v1/conversations')
  const details = await Promise.all(
    list.data.map((c: { id: number }) => read(`/api/v1/conversations/${c.id}`)),
  )
  const tickets = await read('/api/v1/tickets')
  const ticketDetails = await Promise.all(
    tickets.data.map((t: { number: number }) => read(`/api/v1/tickets/${t.number}`)),
  )
  const summary = await read('/api/v1/reports/summary?from=2026-01-01&to=2026-12-31')
  return { list, details, tickets, ticketDetails, summary }
}

describe('import', () => {
  it('is idempotent: the second run creates nothing and changes nothing', async () => {
    const ws = await workspace(s)
    const base = make(`acct-${ws}`)
    const first = await importRecords(s, ws, base)
    expect(first).toEqual({
      lines: 8,
      created: {
        channel: 1,
        conversation: 1,
        message: 2,
        status_change: 1,
        ticket: 1,
        ticket_comment: 1,
        note: 1,
      },
      updated: {
        channel: 0,
        conversation: 0,
        message: 0,
        status_change: 0,
        ticket: 0,
        ticket_comment: 0,
        note: 0,
      },
      refused: 0,
      errors: [],
    })
    const before = await snapshot(ws)
    const second = await importRecords(s, ws, base)
    expect(second.created).toEqual({
      channel: 0,
      conversation: 0,
      message: 0,
      status_change: 0,
      ticket: 0,
      ticket_comment: 0,
      note: 0,
    })
    expect(second.updated).toEqual(first.created)
    expect(await snapshot(ws)).toEqual(before)
    expect(before.details[0].data).toMatchObject({ status: 'solved', first_response_secs: 180 })
    expect(before.details[0].data.notes[0].ticket).toEqual({ number: 1, code: 'TKT-000001' })
  })

  it('is idempotent on a realistic data set too (the demo generator)', async () => {
    const ws = await workspace(s)
    const records = generate({ seed: 4242, days: 10, now: new Date('2026-06-30T12:00:00+07:00') })
    const first = await importRecords(s, ws, records)
    expect(first.refused).toBe(0)
    expect(first.created.conversation).toBeGreaterThan(30)
    const before = await snapshot(ws)
    const second = await importRecords(s, ws, records)
    expect(Object.values(second.created).every((n) => n === 0)).toBe(true)
    expect(await snapshot(ws)).toEqual(before)
  })

  it('does not depend on the order of the lines', async () => {
    const inOrder = await workspace(s)
    const reversed = await workspace(s)
    const records = generate({ seed: 77, days: 5, now: new Date('2026-06-30T12:00:00+07:00') })
    // The same accounts cannot belong to two workspaces: rename them for the second one.
    const other = records.map((r) =>
      r.kind === 'channel'
        ? { ...r, id: `x${r.id}` }
        : r.kind === 'conversation'
          ? { ...r, channel: `x${r.channel}` }
          : r,
    )
    expect((await importRecords(s, inOrder, records)).refused).toBe(0)
    expect((await importRecords(s, reversed, [...other].reverse())).refused).toBe(0)
    const a = (await snapshot(inOrder)).summary
    const b = (await snapshot(reversed)).summary
    expect(b).toEqual(a)
  })

  it('updates a record imported again with other values', async () => {
    const ws = await workspace(s)
    const base = make(`acct-${ws}`)
    await importRecords(s, ws, base)
    const changed = base.map((r) =>
      r.kind === 'conversation' ? { ...r, category: 'Komplain', labels: ['prioritas'] } : r,
    )
    const report = await importRecords(s, ws, [
      ...changed,
      {
        kind: 'status_change',
        id: 's2',
        conversation: 'c1',
        status: 'closed',
        changed_at: '2026-06-02T09:00:00+07:00',
      },
    ])
    expect(report.created.status_change).toBe(1)
    const { list } = await snapshot(ws)
    expect(list.data[0]).toMatchObject({
      category: 'Komplain',
      labels: ['prioritas'],
      status: 'closed',
      solved_at: '2026-06-01T09:30:00+07:00',
      closed_at: '2026-06-02T09:00:00+07:00',
    })
  })

  it('numbers tickets after the highest number, keeps given numbers, refuses a taken one', async () => {
    const ws = await workspace(s)
    await importRecords(s, ws, make(`acct-${ws}`))
    const report = await importRecords(s, ws, [
      {
        kind: 'ticket',
        id: 't2',
        conversation: 'c1',
        subject: 'Dua',
        created_at: '2026-06-01T10:00:00+07:00',
      },
      {
        kind: 'ticket',
        id: 't9',
        conversation: 'c1',
        number: 9,
        subject: 'Sembilan',
        created_at: '2026-06-01T10:00:00+07:00',
      },
      {
        kind: 'ticket',
        id: 't3',
        conversation: 'c1',
        subject: 'Tiga',
        created_at: '2026-06-01T10:00:00+07:00',
      },
      {
        kind: 'ticket',
        id: 'tX',
        conversation: 'c1',
        number: 1,
        subject: 'Bentrok',
        created_at: '2026-06-01T10:00:00+07:00',
      },
    ])
    expect(report.errors).toEqual([{ line: 4, message: 'ticket number 1 is already ticket t1' }])
    const { tickets } = await snapshot(ws)
    expect(tickets.data.map((t: { number: number; subject: string }) => [t.number, t.subject])).toEqual([
      [9, 'Sembilan'],
      [3, 'Tiga'],
      [2, 'Dua'],
      [1, 'Cek ongkir'],
    ])
  })

  it('refuses bad lines with their number and imports the rest', async () => {
    const ws = await workspace(s)
    const taken = await workspace(s)
    await importRecords(s, taken, [{ kind: 'channel', id: 'acct-taken', username: 'lain' }])
    const lines = [
      ndjson(make(`acct-${ws}`)),
      '{not json',
      JSON.stringify({ kind: 'reaction', id: 'r1' }),
      JSON.stringify({
        kind: 'message',
        id: 'm9',
        conversation: 'c1',
        direction: 'in',
        author: 'x',
        posted_at: '2026-06-01 09:00',
      }),
      JSON.stringify({
        kind: 'message',
        id: 'm10',
        conversation: 'nope',
        direction: 'in',
        author: 'x',
        posted_at: '2026-06-01T09:00:00Z',
      }),
      JSON.stringify({
        kind: 'message',
        id: 'm11',
        conversation: 'c1',
        direction: 'in',
        status: 'published',
        author: 'x',
        posted_at: '2026-06-01T09:00:00Z',
      }),
      JSON.stringify({
        kind: 'conversation',
        id: 'c9',
        channel: 'acct-9',
        type: 'reply',
        contact: 'x',
        created_at: '2026-06-01T09:00:00Z',
      }),
      JSON.stringify({
        kind: 'conversation',
        id: 'c10',
        channel: `acct-${ws}`,
        type: 'dm',
        contact: 'x',
        created_at: '2026-06-01T09:00:00Z',
      }),
      JSON.stringify({
        kind: 'ticket_comment',
        id: 'd9',
        ticket: 'nope',
        author: 'x',
        body: 'y',
        created_at: '2026-06-01T09:00:00Z',
      }),
      JSON.stringify({ kind: 'channel', id: 'acct-taken', username: 'saya' }),
      '',
      JSON.stringify({
        kind: 'status_change',
        id: 's9',
        conversation: 'c1',
        status: 'closed',
        changed_at: '2026-06-03T09:00:00+07:00',
      }),
    ].join('\n')
    const report = await s.run(importNdjson(ws, lines))
    expect(report.refused).toBe(9)
    expect(report.errors.map((e) => e.line)).toEqual([9, 10, 11, 12, 13, 14, 15, 16, 17])
    expect(report.errors[0]!.message).toBe('not valid JSON')
    expect(report.errors[1]!.message).toMatch(/^kind must be one of: channel, conversation, message/)
    expect(report.errors[2]!.message).toMatch(/^posted_at: must be an ISO 8601 timestamp with an offset/)
    expect(report.errors[3]!.message).toBe('unknown conversation nope')
    expect(report.errors[4]!.message).toMatch(/status published does not fit direction in/)
    expect(report.errors[5]!.message).toMatch(/channel acct-9 is not an account of this workspace/)
    expect(report.errors[6]!.message).toMatch(/^type: /)
    expect(report.errors[7]!.message).toBe('unknown ticket nope')
    expect(report.errors[8]!.message).toBe(`account acct-taken belongs to workspace ${taken}`)
    expect(report.created).toMatchObject({ conversation: 1, message: 2, status_change: 2 })
    const { list } = await snapshot(ws)
    expect(list.data[0].status).toBe('closed')
  })

  it('refuses a ticket without a number when numbers are used up to 2147483647, imports the rest', async () => {
    const ws = await workspace(s)
    const ticket = (id: string, number?: number): ImportRecord => ({
      kind: 'ticket',
      id,
      conversation: 'c1',
      ...(number === undefined ? {} : { number }),
      subject: id,
      created_at: '2026-06-01T10:00:00+07:00',
    })
    await importRecords(s, ws, [...make(`acct-${ws}`), ticket('tMax', 2_147_483_647)])
    const message: ImportRecord = {
      kind: 'message',
      id: 'm3',
      conversation: 'c1',
      direction: 'in',
      author: 'rina_99',
      text: 'Halo lagi',
      posted_at: '2026-06-02T09:00:00+07:00',
    }
    // The next number after the highest, 2147483647, does not fit: that line is refused.
    const report = await importRecords(s, ws, [ticket('tNext'), message])
    expect(report.errors).toEqual([
      { line: 1, message: 'no ticket number is left after 2147483647: give this ticket a free number' },
    ])
    expect(report.refused).toBe(1)
    expect(report.created).toMatchObject({ message: 1, ticket: 0 })
    const { tickets, details } = await snapshot(ws)
    expect(tickets.data.map((t: { number: number }) => t.number)).toEqual([2_147_483_647, 1])
    expect(details[0].data.messages.map((m: { text: string }) => m.text)).toContain('Halo lagi')
    // The same ticket given a free number is taken.
    expect((await importRecords(s, ws, [ticket('tNext', 5)])).errors).toEqual([])
  })

  it('numbers a new ticket after 130,000 existing ones', async () => {
    // The highest number was found by spreading every number into Math.max, which overflows
    // the stack at about 120,000 arguments.
    const ws = await workspace(s)
    await importRecords(s, ws, make(`acct-${ws}`))
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`INSERT INTO social.tickets (workspace_id, number, external_id, conversation_id, subject,
            status, priority, created_at)
          SELECT ${ws}, g, 'bulk-' || g, c.id, 'bulk', 'open', 'normal', c.created_at
          FROM social.conversations c, generate_series(2, 130001) g WHERE c.workspace_id = ${ws}`,
      ),
    )
    const report = await importRecords(s, ws, [
      {
        kind: 'ticket',
        id: 'tNew',
        conversation: 'c1',
        subject: 'Baru',
        created_at: '2026-06-01T10:00:00+07:00',
      },
    ])
    expect(report).toMatchObject({ refused: 0, errors: [], created: { ticket: 1 } })
    const k = await key(s, ws)
    expect((await get(s, k, '/api/v1/tickets/130002')).body.data).toMatchObject({
      number: 130002,
      subject: 'Baru',
    })
  }, 120_000)

  it('refuses a timestamp past 9999-12-31T23:59:59+07:00 on its line, imports the rest', async () => {
    // 9999-12-31T20:00:00Z is year 10000 at +07:00, the zone every answer is written in; with a
    // -05:00 offset it is year 10000 in UTC too, sent to the database as `+010000-…`, and year 0
    // as `0000-…`: both failed the whole import.
    const ws = await workspace(s)
    const message = (id: string, posted_at: string): ImportRecord => ({
      kind: 'message',
      id,
      conversation: 'c1',
      direction: 'in',
      author: 'rina_99',
      text: id,
      posted_at,
    })
    const records = [
      ...make(`acct-${ws}`),
      message('late-z', '9999-12-31T20:00:00Z'),
      message('late-offset', '9999-12-31T20:00:00-05:00'),
      message('year-0', '0000-06-01T00:00:00Z'),
      message('last', '9999-12-31T23:59:59+07:00'),
    ]
    const report = await importRecords(s, ws, records)
    const refusal = 'posted_at: must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59+07:00'
    expect(report.errors).toEqual([
      { line: records.length - 3, message: refusal },
      { line: records.length - 2, message: refusal },
      { line: records.length - 1, message: refusal },
    ])
    expect(report.created).toMatchObject({ conversation: 1, message: 3, ticket: 1 })
    const { list, details } = await snapshot(ws)
    expect(list.data[0].last_message_at).toBe('9999-12-31T23:59:59+07:00')
    expect(details[0].data.messages.map((m: { posted_at: string }) => m.posted_at)).toEqual([
      '2026-06-01T09:00:00+07:00',
      '2026-06-01T09:03:00+07:00',
      '9999-12-31T23:59:59+07:00',
    ])
  })
})
