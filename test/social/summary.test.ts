import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ImportRecord } from '../../social/import'
import { addDays, dayOf } from '../../social/time'
import { get, importRecords, key, type SocialTestServer, startSocialServer, workspace } from './support'

/**
 * The summary figures (docs/decisions-social.md, "Summary figures") on a small data set whose
 * expected values are worked out by hand below. Range: 2026-03-02 … 2026-03-03 (+07:00), i.e.
 * [2026-03-02T00:00:00+07:00, 2026-03-04T00:00:00+07:00).
 *
 * Conversations (A, B = accounts; all times +07:00):
 * - c1 A reply   created 03-02 09:00:00. in 09:00; reply 09:10:00 (FRT 600); solved 10:00
 *                (resolution 3600). Ticket T1 created 03-02 09:30, resolved 11:30 (7200).
 * - c2 A reply   created 03-02 12:00:00. in 12:00; reply 12:30:01 (FRT 1801); solved 13:00;
 *                in 03-03 08:00 (reopens: reopened 1); reply 08:20 → status replied.
 * - c3 B mention created 03-02 20:00:00. in 20:00; in (hidden) 20:05; no reply → open.
 * - c4 B reply   created 03-03 10:00:00. in 10:00; reply failed 10:05 (not a reply);
 *                reply 10:45:01 (FRT 2701); closed 12:00 without solving (resolution 7200).
 *                Ticket T2 created 03-03 10:30, in_progress.
 * - c5 A mention created 03-03 23:59:59 (last second of the range). in 23:59:59; reply
 *                03-04 00:29:59 (FRT 1800, after the range); solved 03-04 01:00 (resolution
 *                3601); closed 03-06 01:00 → closed, solved_at kept.
 * - c6 A reply   created 03-01 23:59:59 (before the range: not in the cohort). in then; in
 *                03-02 00:05 and reply 03-02 08:00 (both inside: counted as traffic). Ticket T4
 *                created 03-02 09:00, closed 10:00:30 without resolved_at (3630).
 * - c7 B reply   created 03-04 00:00:00 (the range's end is exclusive). in then; ticket T3 03-04 01:00.
 * - c8 in another workspace, same times as c1: never counted.
 */
let s: SocialTestServer
let ws: number
let other: number
let A: number
let B: number

const at = (day: string, time: string) => `2026-03-${day}T${time}+07:00`
let n = 0
const msg = (
  conversation: string,
  direction: 'in' | 'out',
  postedAt: string,
  status?: 'received' | 'hidden' | 'published' | 'failed',
): ImportRecord => ({
  kind: 'message',
  id: `m${++n}`,
  conversation,
  direction,
  author: direction === 'in' ? 'pelanggan' : 'toko',
  text: direction === 'in' ? 'Kak, pesanan saya bagaimana?' : 'Baik Kak, kami cek dulu ya.',
  posted_at: postedAt,
  ...(status ? { status } : {}),
})
const change = (conversation: string, status: 'solved' | 'closed', changedAt: string): ImportRecord => ({
  kind: 'status_change',
  id: `s${++n}`,
  conversation,
  status,
  changed_at: changedAt,
})
const conv = (id: string, channel: string, type: 'reply' | 'mention', createdAt: string): ImportRecord => ({
  kind: 'conversation',
  id,
  channel,
  type,
  contact: `kontak_${id}`,
  created_at: createdAt,
})

const fixture: ImportRecord[] = [
  { kind: 'channel', id: 'acct-A', username: 'toko.a' },
  { kind: 'channel', id: 'acct-B', username: 'toko.b' },
  conv('c1', 'acct-A', 'reply', at('02', '09:00:00')),
  msg('c1', 'in', at('02', '09:00:00')),
  msg('c1', 'out', at('02', '09:10:00')),
  change('c1', 'solved', at('02', '10:00:00')),
  {
    kind: 'ticket',
    id: 'T1',
    conversation: 'c1',
    subject: 'Paket belum diterima',
    status: 'resolved',
    created_at: at('02', '09:30:00'),
    resolved_at: at('02', '11:30:00'),
  },
  conv('c2', 'acct-A', 'reply', at('02', '12:00:00')),
  msg('c2', 'in', at('02', '12:00:00')),
  msg('c2', 'out', at('02', '12:30:01')),
  change('c2', 'solved', at('02', '13:00:00')),
  msg('c2', 'in', at('03', '08:00:00')),
  msg('c2', 'out', at('03', '08:20:00')),
  conv('c3', 'acct-B', 'mention', at('02', '20:00:00')),
  msg('c3', 'in', at('02', '20:00:00')),
  msg('c3', 'in', at('02', '20:05:00'), 'hidden'),
  conv('c4', 'acct-B', 'reply', at('03', '10:00:00')),
  msg('c4', 'in', at('03', '10:00:00')),
  msg('c4', 'out', at('03', '10:05:00'), 'failed'),
  msg('c4', 'out', at('03', '10:45:01')),
  change('c4', 'closed', at('03', '12:00:00')),
  {
    kind: 'ticket',
    id: 'T2',
    conversation: 'c4',
    subject: 'Retur produk',
    status: 'in_progress',
    created_at: at('03', '10:30:00'),
  },
  conv('c5', 'acct-A', 'mention', at('03', '23:59:59')),
  msg('c5', 'in', at('03', '23:59:59')),
  msg('c5', 'out', at('04', '00:29:59')),
  change('c5', 'solved', at('04', '01:00:00')),
  change('c5', 'closed', at('06', '01:00:00')),
  conv('c6', 'acct-A', 'reply', at('01', '23:59:59')),
  msg('c6', 'in', at('01', '23:59:59')),
  msg('c6', 'in', at('02', '00:05:00')),
  msg('c6', 'out', at('02', '08:00:00')),
  {
    kind: 'ticket',
    id: 'T4',
    conversation: 'c6',
    subject: 'Pembayaran belum masuk',
    status: 'closed',
    created_at: at('02', '09:00:00'),
    closed_at: at('02', '10:00:30'),
  },
  conv('c7', 'acct-B', 'reply', at('04', '00:00:00')),
  msg('c7', 'in', at('04', '00:00:00')),
  { kind: 'ticket', id: 'T3', conversation: 'c7', subject: 'Lainnya', created_at: at('04', '01:00:00') },
]

const otherFixture: ImportRecord[] = [
  { kind: 'channel', id: 'acct-X', username: 'toko.x' },
  conv('c8', 'acct-X', 'reply', at('02', '09:00:00')),
  msg('c8', 'in', at('02', '09:00:00')),
  msg('c8', 'out', at('02', '09:01:00')),
  { kind: 'ticket', id: 'T8', conversation: 'c8', subject: 'Lain', created_at: at('02', '09:30:00') },
]

beforeAll(async () => {
  s = await startSocialServer()
  ws = await workspace(s)
  other = await workspace(s)
  const report = await importRecords(s, ws, fixture)
  expect(report.errors).toEqual([])
  expect((await importRecords(s, other, otherFixture)).errors).toEqual([])
  const k = await key(s, ws)
  const list = await get(s, k, '/api/v1/conversations')
  const byContact = new Map<string, number>(
    list.body.data.map((c: { contact: { username: string }; channel: { id: number } }) => [
      c.contact.username,
      c.channel.id,
    ]),
  )
  A = byContact.get('kontak_c1')!
  B = byContact.get('kontak_c3')!
})
afterAll(() => s?.stop())

const summary = async (query: string) => {
  const r = await get(s, await key(s, ws), `/api/v1/reports/summary${query}`)
  expect(r.status).toBe(200)
  return r.body
}

describe('summary figures on the hand-checked data set', () => {
  it('unfiltered', async () => {
    const r = await summary('?from=2026-03-02&to=2026-03-03')
    expect(r.filters).toEqual({ from: '2026-03-02', to: '2026-03-03', channels: null, type: null })
    expect(r.meta).toEqual({})
    expect(r.data).toEqual({
      // cohort c1..c5
      conversations: 5,
      // in-range incoming: c1 1 + c2 2 + c3 2 (one hidden) + c4 1 + c5 1 + c6 1 (00:05) = 8
      messages_in: 8,
      // in-range published replies: c1 1 + c2 2 + c4 1 (the failed one not) + c6 1 = 5 (c5's is after)
      replies_sent: 5,
      // c1, c2, c4, c5 have a published reply
      replied: 4,
      // c2 (replied) + c3 (open)
      backlog: 2,
      // c1
      solved: 1,
      // c4, c5
      closed: 2,
      // c1 (T1), c4 (T2); T4's c6 is not in the cohort
      escalated: 2,
      // c2
      reopened: 1,
      response_rate: 80, // 4 / 5
      solved_rate: 60, // (1 + 2) / 5
      escalation_rate: 40, // 2 / 5
      reopen_rate: 20, // 1 / 5
      // FRT: 600, 1801, 2701, 1800 → 6902 / 4 = 1725.5 → 1726 (half away from zero)
      avg_frt_seconds: 1726,
      // sorted 600, 1800, 1801, 2701 → (1800 + 1801) / 2 = 1800.5 → 1801
      median_frt_seconds: 1801,
      // resolution: c1 3600, c4 7200, c5 3601 → 14401 / 3 = 4800.33 → 4800
      avg_resolution_seconds: 4800,
      // sorted 3600, 3601, 7200 → 3601
      median_resolution_seconds: 3601,
      // created in range: T1, T2, T4 (T3 is after); open T2; done T1, T4: (7200 + 3630) / 2 = 5415
      tickets: { total: 3, open: 1, done: 2, avg_resolve_seconds: 5415 },
    })
  })

  it('one account', async () => {
    const r = await summary(`?from=2026-03-02&to=2026-03-03&channel=${A}`)
    expect(r.filters).toEqual({ from: '2026-03-02', to: '2026-03-03', channels: [A], type: null })
    expect(r.data).toEqual({
      conversations: 3, // c1, c2, c5
      messages_in: 5, // c1 1 + c2 2 + c5 1 + c6 1
      replies_sent: 4, // c1 1 + c2 2 + c6 1
      replied: 3,
      backlog: 1, // c2
      solved: 1, // c1
      closed: 1, // c5
      escalated: 1, // c1
      reopened: 1, // c2
      response_rate: 100, // 3 / 3
      solved_rate: 66.7, // 2 / 3 = 66.67 → one decimal
      escalation_rate: 33.3, // 1 / 3
      reopen_rate: 33.3, // 1 / 3
      avg_frt_seconds: 1400, // (600 + 1801 + 1800) / 3 = 1400.33
      median_frt_seconds: 1800, // 600, 1800, 1801
      avg_resolution_seconds: 3601, // (3600 + 3601) / 2 = 3600.5 → 3601
      median_resolution_seconds: 3601, // same two values
      tickets: { total: 2, open: 0, done: 2, avg_resolve_seconds: 5415 }, // T1, T4
    })
  })

  it('mentions only', async () => {
    const r = await summary('?from=2026-03-02&to=2026-03-03&type=mention')
    expect(r.filters).toEqual({ from: '2026-03-02', to: '2026-03-03', channels: null, type: 'mention' })
    expect(r.data).toEqual({
      conversations: 2, // c3, c5
      messages_in: 3, // c3 2 + c5 1
      replies_sent: 0, // c5's reply is after the range
      replied: 1, // c5
      backlog: 1, // c3
      solved: 0,
      closed: 1, // c5
      escalated: 0,
      reopened: 0,
      response_rate: 50,
      solved_rate: 50,
      escalation_rate: 0,
      reopen_rate: 0,
      avg_frt_seconds: 1800,
      median_frt_seconds: 1800,
      avg_resolution_seconds: 3601,
      median_resolution_seconds: 3601,
      tickets: { total: 0, open: 0, done: 0, avg_resolve_seconds: null },
    })
  })

  it('several accounts separated by commas, with a type', async () => {
    const r = await summary(`?from=2026-03-02&to=2026-03-03&channel=${A},${B},${A}&type=reply`)
    expect(r.filters).toEqual({ from: '2026-03-02', to: '2026-03-03', channels: [A, B], type: 'reply' })
    // c1, c2, c4: replied all three; c2 backlog; c1 solved; c4 closed; T1, T2 escalate.
    expect(r.data).toMatchObject({
      conversations: 3,
      messages_in: 5, // c1 1 + c2 2 + c4 1 + c6 1
      replies_sent: 5, // c1 1 + c2 2 + c4 1 + c6 1
      replied: 3,
      backlog: 1,
      solved: 1,
      closed: 1,
      escalated: 2,
      response_rate: 100,
      solved_rate: 66.7,
      escalation_rate: 66.7,
      avg_frt_seconds: 1701, // (600 + 1801 + 2701) / 3 = 1700.67
      median_frt_seconds: 1801,
      avg_resolution_seconds: 5400, // (3600 + 7200) / 2
      median_resolution_seconds: 5400,
    })
  })

  it('a single day and an empty range', async () => {
    const day = await summary('?from=2026-03-03&to=2026-03-03')
    // cohort c4, c5; traffic on 03-03: c2 in 08:00 + c4 in + c5 in = 3 in; c2 08:20 + c4 10:45 = 2 out
    expect(day.data).toMatchObject({
      conversations: 2,
      messages_in: 3,
      replies_sent: 2,
      replied: 2,
      closed: 2,
    })
    const empty = await summary('?from=2020-01-01&to=2020-01-01')
    expect(empty.data).toEqual({
      conversations: 0,
      messages_in: 0,
      replies_sent: 0,
      replied: 0,
      backlog: 0,
      solved: 0,
      closed: 0,
      escalated: 0,
      reopened: 0,
      response_rate: 0,
      solved_rate: 0,
      escalation_rate: 0,
      reopen_rate: 0,
      avg_frt_seconds: null,
      median_frt_seconds: null,
      avg_resolution_seconds: null,
      median_resolution_seconds: null,
      tickets: { total: 0, open: 0, done: 0, avg_resolve_seconds: null },
    })
  })

  it('defaults to the last 7 days, today included', async () => {
    const now = Date.now()
    const iso = (ms: number) => new Date(ms).toISOString()
    // One conversation an hour ago (inside), one 8 days ago (outside).
    await importRecords(s, ws, [
      conv('recent', 'acct-A', 'reply', iso(now - 3_600_000)),
      conv('old', 'acct-A', 'reply', iso(now - 8 * 86_400_000)),
    ])
    const r = await summary('')
    const today = dayOf(new Date())
    expect(r.filters).toEqual({ from: addDays(today, -6), to: today, channels: null, type: null })
    expect(r.data.conversations).toBe(1)
    expect(r.data.backlog).toBe(1)
    // Only `to`: the 7 days ending then. Only `from`: up to today.
    const onlyTo = await summary('?to=2026-03-03')
    expect(onlyTo.filters).toMatchObject({ from: '2026-02-25', to: '2026-03-03' })
    expect(onlyTo.data.conversations).toBe(6) // c1..c5 and c6 (03-01)
    const onlyFrom = await summary('?from=2026-03-03')
    expect(onlyFrom.filters).toMatchObject({ from: '2026-03-03', to: today })
  })

  it('the list shows the same per-conversation values', async () => {
    const k = await key(s, ws)
    const r = await get(s, k, '/api/v1/conversations?from=2026-03-02&to=2026-03-03')
    const by = new Map(r.body.data.map((c: { contact: { username: string } }) => [c.contact.username, c]))
    expect(by.get('kontak_c2')).toMatchObject({
      status: 'replied',
      reopened_count: 1,
      first_response_secs: 1801,
    })
    expect(by.get('kontak_c4')).toMatchObject({
      status: 'closed',
      first_response_secs: 2701,
      solved_at: null,
      closed_at: '2026-03-03T12:00:00+07:00',
    })
    expect(by.get('kontak_c5')).toMatchObject({
      status: 'closed',
      first_response_secs: 1800,
      solved_at: '2026-03-04T01:00:00+07:00',
      closed_at: '2026-03-06T01:00:00+07:00',
      last_message_at: '2026-03-04T00:29:59+07:00',
    })
    expect(by.get('kontak_c3')).toMatchObject({ status: 'open', first_response_secs: null })
  })

  it('another workspace sees only its own figures', async () => {
    const r = await get(s, await key(s, other), '/api/v1/reports/summary?from=2026-03-02&to=2026-03-03')
    expect(r.body.data).toMatchObject({ conversations: 1, messages_in: 1, replies_sent: 1, replied: 1 })
    expect(r.body.data.tickets.total).toBe(1)
  })
})

describe('durations past 2^31 seconds (years 0001–9999 are all stored)', () => {
  it('a conversation and a ticket opened in 1900 and resolved in 2026 are summed, not a 500', async () => {
    const own = await workspace(s)
    const opened = '1900-01-01T09:00:00+07:00'
    const resolvedAt = '2026-03-02T09:00:00+07:00'
    const report = await importRecords(s, own, [
      { kind: 'channel', id: 'acct-old', username: 'toko.lama' },
      conv('old', 'acct-old', 'reply', opened),
      msg('old', 'in', opened),
      change('old', 'solved', resolvedAt),
      {
        kind: 'ticket',
        id: 'T-old',
        conversation: 'old',
        subject: 'Lama sekali',
        status: 'resolved',
        created_at: opened,
        resolved_at: resolvedAt,
      },
    ])
    expect(report.errors).toEqual([])
    const span = (Date.parse(resolvedAt) - Date.parse(opened)) / 1000
    expect(span).toBeGreaterThan(2 ** 31)
    const r = await get(s, await key(s, own), '/api/v1/reports/summary?from=1900-01-01&to=1900-01-01')
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      conversations: 1,
      solved: 1,
      avg_resolution_seconds: span,
      median_resolution_seconds: span,
      tickets: { total: 1, open: 0, done: 1, avg_resolve_seconds: span },
    })
  })
})
