import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ImportRecord } from '../../social/import'
import * as Keys from '../../social/store/keys'
import * as Workspaces from '../../social/store/workspaces'
import { addDays, dayOf } from '../../social/time'
import {
  bearer,
  body,
  get,
  importRecords,
  key,
  type SocialTestServer,
  startSocialServer,
  suffix,
  workspace,
} from './support'

/**
 * The five endpoints of spec 3 §4 through HTTP: every parameter, field, error and the order of
 * checks. Data: 55 conversations an hour apart from 2026-04-01T08:00+07:00 over two accounts,
 * one richly filled conversation, 53 tickets; a second workspace with data of its own.
 */
let s: SocialTestServer
let ws: number
let otherWs: number
let A: number
let B: number
let rich: number
let otherConversation: number

const STATUSES = ['solved', 'replied', 'open', 'closed'] as const
const TICKET_STATUSES = ['open', 'in_progress', 'waiting', 'resolved', 'closed'] as const
const COUNT = 55
const wib = (ms: number) => `${new Date(ms + 7 * 3_600_000).toISOString().slice(0, 19)}+07:00`
const start = Date.parse('2026-04-01T08:00:00+07:00')
const createdAt = (i: number) => start + i * 3_600_000

const records = (): ImportRecord[] => {
  const out: ImportRecord[] = [
    { kind: 'channel', id: 'ig-1', username: 'tokomaju.id' },
    { kind: 'channel', id: 'ig-2', username: 'kopimaju.official' },
  ]
  for (let i = 0; i < COUNT; i++) {
    const id = `c${i}`
    const t = createdAt(i)
    out.push({
      kind: 'conversation',
      id,
      channel: i % 2 === 0 ? 'ig-1' : 'ig-2',
      type: i % 5 === 0 ? 'mention' : 'reply',
      contact: `pelanggan${i}`,
      created_at: wib(t),
    })
    out.push({
      kind: 'message',
      id: `${id}-in`,
      conversation: id,
      direction: 'in',
      author: `pelanggan${i}`,
      text: 'Halo kak',
      posted_at: wib(t),
    })
    const status = STATUSES[i % 4]!
    if (status !== 'open') {
      out.push({
        kind: 'message',
        id: `${id}-out`,
        conversation: id,
        direction: 'out',
        author: 'tokomaju.id',
        text: 'Halo juga',
        posted_at: wib(t + 60_000),
      })
    }
    if (status === 'solved' || status === 'closed') {
      out.push({
        kind: 'status_change',
        id: `${id}-s`,
        conversation: id,
        status,
        changed_at: wib(t + 120_000),
      })
    }
    if (i < 52) {
      out.push({
        kind: 'ticket',
        id: `t${i}`,
        conversation: id,
        subject: `Tiket ${i}`,
        status: TICKET_STATUSES[i % 5]!,
        created_at: wib(t + 30_000),
      })
    }
  }
  // One conversation with everything the detail shows.
  out.push(
    {
      kind: 'conversation',
      id: 'rich',
      channel: 'ig-1',
      type: 'reply',
      contact: 'budi_s',
      created_at: '2026-05-10T10:00:00+07:00',
      category: 'Pengiriman',
      labels: ['prioritas', 'pelanggan-baru'],
      tags: ['ongkir'],
      assignee: 'Sari',
      context: {
        text: 'Koleksi batik terbaru sudah rilis!',
        username: 'tokomaju.id',
        permalink: 'https://www.instagram.com/p/ABC123/',
      },
    },
    {
      kind: 'message',
      id: 'rich-1',
      conversation: 'rich',
      direction: 'in',
      author: 'budi_s',
      text: 'Paket saya belum sampai, ini fotonya',
      media_type: 'image',
      attachments: [{ type: 'image', url: 'https://cdn.example.com/foto.jpg' }],
      permalink: 'https://www.instagram.com/p/ABC123/c/1/',
      posted_at: '2026-05-10T10:00:00+07:00',
    },
    {
      kind: 'message',
      id: 'rich-2',
      conversation: 'rich',
      direction: 'out',
      author: 'tokomaju.id',
      text: 'Mohon maaf Kak, kami cek ya',
      status: 'published',
      permalink: 'https://www.instagram.com/p/ABC123/c/2/',
      posted_at: '2026-05-10T10:07:30+07:00',
    },
    {
      kind: 'ticket',
      id: 'rich-t',
      conversation: 'rich',
      number: 1000,
      subject: 'Paket belum diterima',
      description: 'Paket tertahan di gudang transit.',
      status: 'waiting',
      priority: 'high',
      assignees: ['Sari', 'Dimas'],
      due_at: '2026-05-12T17:00:00+07:00',
      created_at: '2026-05-10T10:10:00+07:00',
    },
    {
      kind: 'ticket_comment',
      id: 'rich-d2',
      ticket: 'rich-t',
      author: 'Dimas',
      body: 'Ekspedisi konfirmasi kirim besok.',
      created_at: '2026-05-10T15:00:00+07:00',
    },
    {
      kind: 'ticket_comment',
      id: 'rich-d1',
      ticket: 'rich-t',
      author: 'Sari',
      body: 'Sudah dicek ke ekspedisi.',
      created_at: '2026-05-10T11:00:00+07:00',
    },
    {
      kind: 'note',
      id: 'rich-n1',
      conversation: 'rich',
      body: 'Pelanggan lama, tolong prioritaskan.',
      author: 'Sari',
      created_at: '2026-05-10T10:05:00+07:00',
    },
    {
      kind: 'note',
      id: 'rich-n2',
      conversation: 'rich',
      body: 'Tiket dibuat.',
      author: 'Sari',
      source: 'ticket',
      ticket: 'rich-t',
      created_at: '2026-05-10T10:10:00+07:00',
    },
  )
  return out
}

// Expected counts of the 55 generated conversations (i = 0..54).
const range = (n: number) => Array.from({ length: n }, (_, i) => i)
const expectedStatus = (status: string) => range(COUNT).filter((i) => STATUSES[i % 4] === status).length

beforeAll(async () => {
  s = await startSocialServer()
  ws = await workspace(s)
  otherWs = await workspace(s)
  const report = await importRecords(s, ws, records())
  expect(report.errors).toEqual([])
  const other = await importRecords(s, otherWs, [
    { kind: 'channel', id: 'ig-other', username: 'lain.id' },
    {
      kind: 'conversation',
      id: 'x',
      channel: 'ig-other',
      type: 'reply',
      contact: 'x',
      created_at: wib(start),
    },
    { kind: 'ticket', id: 'tx', conversation: 'x', number: 7777, subject: 'Lain', created_at: wib(start) },
  ])
  expect(other.errors).toEqual([])
  const k = await key(s, ws)
  const all = (await get(s, k, '/api/v1/conversations?from=2026-04-01&to=2026-04-01')).body.data
  A = all.find((c: { contact: { username: string } }) => c.contact.username === 'pelanggan0').channel.id
  B = all.find((c: { contact: { username: string } }) => c.contact.username === 'pelanggan1').channel.id
  rich = (await get(s, k, '/api/v1/conversations')).body.data[0].id
  otherConversation = (await get(s, await key(s, otherWs), '/api/v1/conversations')).body.data[0].id
})
afterAll(() => s?.stop())

const TS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+07:00$/

describe('GET /api/v1/conversations', () => {
  it('lists newest first, 50 a page, with page meta', async () => {
    const k = await key(s, ws)
    const p1 = await get(s, k, '/api/v1/conversations')
    expect(p1.status).toBe(200)
    expect(p1.headers.get('content-type')).toMatch(/^application\/json/)
    expect(p1.body.meta).toEqual({ page: 1, per_page: 50, total: COUNT + 1, has_more: true })
    expect(p1.body.data).toHaveLength(50)
    const times = p1.body.data.map((c: { created_at: string }) => Date.parse(c.created_at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(p1.body.data[0].id).toBe(rich)
    expect(p1.body.data[1].contact.username).toBe(`pelanggan${COUNT - 1}`)
    const p2 = await get(s, k, '/api/v1/conversations?page=2')
    expect(p2.body.meta).toEqual({ page: 2, per_page: 50, total: COUNT + 1, has_more: false })
    expect(p2.body.data).toHaveLength(6)
    expect(p2.body.data.at(-1).contact.username).toBe('pelanggan0')
    const p3 = await get(s, k, '/api/v1/conversations?page=3')
    expect(p3.body).toEqual({ data: [], meta: { page: 3, per_page: 50, total: COUNT + 1, has_more: false } })
  })

  it('has every field of spec 3 §2, timestamps in +07:00 and durations in seconds', async () => {
    const k = await key(s, ws)
    const { body: b } = await get(s, k, '/api/v1/conversations?from=2026-04-01&to=2026-04-01&type=reply')
    const c1 = b.data.find((c: { contact: { username: string } }) => c.contact.username === 'pelanggan1')
    expect(Object.keys(c1).sort()).toEqual(
      [
        'id',
        'channel',
        'type',
        'status',
        'contact',
        'category',
        'labels',
        'tags',
        'assignee',
        'first_response_secs',
        'reopened_count',
        'tickets',
        'created_at',
        'last_message_at',
        'solved_at',
        'closed_at',
      ].sort(),
    )
    expect(c1).toMatchObject({
      channel: { id: B, username: 'kopimaju.official' },
      type: 'reply',
      status: 'replied',
      contact: { username: 'pelanggan1' },
      category: null,
      labels: [],
      tags: [],
      assignee: null,
      first_response_secs: 60,
      reopened_count: 0,
      created_at: '2026-04-01T09:00:00+07:00',
      last_message_at: '2026-04-01T09:01:00+07:00',
      solved_at: null,
      closed_at: null,
      tickets: [
        { number: 2, code: 'TKT-000002', subject: 'Tiket 1', status: 'in_progress', priority: 'normal' },
      ],
    })
    expect(typeof c1.id).toBe('number')
    const solved = b.data.find((c: { contact: { username: string } }) => c.contact.username === 'pelanggan4')
    expect(solved).toMatchObject({
      status: 'solved',
      solved_at: '2026-04-01T12:02:00+07:00',
      closed_at: null,
    })
    for (const c of b.data) {
      expect(c.created_at).toMatch(TS)
      expect(c.last_message_at).toMatch(TS)
    }
  })

  it.each(STATUSES)('filters by status %s', async (status) => {
    const k = await key(s, ws)
    const r = await get(s, k, `/api/v1/conversations?status=${status}&from=2026-04-01&to=2026-04-03`)
    expect(r.body.meta.total).toBe(expectedStatus(status))
    expect(r.body.data.every((c: { status: string }) => c.status === status)).toBe(true)
  })

  it('filters by account, type and creation date (+07:00 days, both ends included)', async () => {
    const k = await key(s, ws)
    const byChannel = await get(s, k, `/api/v1/conversations?channel=${B}`)
    expect(byChannel.body.meta.total).toBe(27) // odd i of 0..54
    expect(byChannel.body.data.every((c: { channel: { id: number } }) => c.channel.id === B)).toBe(true)
    const mentions = await get(s, k, '/api/v1/conversations?type=mention')
    expect(mentions.body.meta.total).toBe(11) // i = 0, 5, …, 50
    expect(mentions.body.data.every((c: { type: string }) => c.type === 'mention')).toBe(true)
    // 08:00 + i h: 04-01 holds i = 0..15, 04-02 starts at i = 16 (00:00+07:00, 17:00Z the day before).
    const day2 = await get(s, k, '/api/v1/conversations?from=2026-04-02&to=2026-04-02')
    expect(day2.body.meta.total).toBe(24)
    expect(day2.body.data.at(-1).created_at).toBe('2026-04-02T00:00:00+07:00')
    expect(day2.body.data[0].created_at).toBe('2026-04-02T23:00:00+07:00')
    expect((await get(s, k, '/api/v1/conversations?from=2026-04-03')).body.meta.total).toBe(16) // 15 + rich
    expect((await get(s, k, '/api/v1/conversations?to=2026-04-01')).body.meta.total).toBe(16)
    const combined = await get(
      s,
      k,
      `/api/v1/conversations?status=open&channel=${A}&type=reply&from=2026-04-01&to=2026-04-02`,
    )
    // i in 0..39, even, i % 4 == 2 (open), i % 5 != 0: 2, 6, 14, 18, 22, 26, 34, 38
    expect(combined.body.meta.total).toBe(8)
    expect((await get(s, k, '/api/v1/conversations?channel=999999')).body.meta.total).toBe(0)
  })
})

describe('GET /api/v1/conversations/{id}', () => {
  it('shows the whole conversation: context, messages, notes, tickets', async () => {
    const k = await key(s, ws)
    const r = await get(s, k, `/api/v1/conversations/${rich}`)
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({})
    const d = r.body.data
    expect(d).toMatchObject({
      id: rich,
      channel: { id: A, username: 'tokomaju.id' },
      type: 'reply',
      status: 'replied',
      contact: { username: 'budi_s' },
      category: 'Pengiriman',
      labels: ['prioritas', 'pelanggan-baru'],
      tags: ['ongkir'],
      assignee: 'Sari',
      first_response_secs: 450,
      reopened_count: 0,
      created_at: '2026-05-10T10:00:00+07:00',
      last_message_at: '2026-05-10T10:07:30+07:00',
      solved_at: null,
      closed_at: null,
      context: {
        text: 'Koleksi batik terbaru sudah rilis!',
        username: 'tokomaju.id',
        permalink: 'https://www.instagram.com/p/ABC123/',
      },
      tickets: [
        {
          number: 1000,
          code: 'TKT-001000',
          subject: 'Paket belum diterima',
          status: 'waiting',
          priority: 'high',
        },
      ],
    })
    expect(d.messages).toHaveLength(2)
    expect(Object.keys(d.messages[0]).sort()).toEqual(
      [
        'id',
        'direction',
        'author',
        'text',
        'media_type',
        'attachments',
        'status',
        'permalink',
        'posted_at',
      ].sort(),
    )
    expect(d.messages[0]).toMatchObject({
      direction: 'in',
      author: 'budi_s',
      media_type: 'image',
      attachments: [{ type: 'image', url: 'https://cdn.example.com/foto.jpg' }],
      status: 'received',
      permalink: 'https://www.instagram.com/p/ABC123/c/1/',
      posted_at: '2026-05-10T10:00:00+07:00',
    })
    expect(d.messages[1]).toMatchObject({
      direction: 'out',
      status: 'published',
      media_type: 'text',
      attachments: [],
    })
    expect(d.notes).toEqual([
      {
        body: 'Pelanggan lama, tolong prioritaskan.',
        author: 'Sari',
        source: 'manual',
        ticket: null,
        created_at: '2026-05-10T10:05:00+07:00',
      },
      {
        body: 'Tiket dibuat.',
        author: 'Sari',
        source: 'ticket',
        ticket: { number: 1000, code: 'TKT-001000' },
        created_at: '2026-05-10T10:10:00+07:00',
      },
    ])
  })

  it.each(['999999', '0', 'abc', '1.5', '-1', '99999999999999999999'])(
    'answers 404 for id %s',
    async (id) => {
      const r = await get(s, await key(s, ws), `/api/v1/conversations/${id}`)
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('not_found')
    },
  )

  it("answers 404 for another workspace's conversation", async () => {
    const r = await get(s, await key(s, ws), `/api/v1/conversations/${otherConversation}`)
    expect(r.status).toBe(404)
    expect(r.body).toEqual({ error: { code: 'not_found', message: 'Not found.' } })
    expect((await get(s, await key(s, otherWs), `/api/v1/conversations/${otherConversation}`)).status).toBe(
      200,
    )
  })
})

describe('GET /api/v1/tickets and /api/v1/tickets/{number}', () => {
  it('lists highest number first, 50 a page', async () => {
    const k = await key(s, ws)
    const p1 = await get(s, k, '/api/v1/tickets')
    expect(p1.body.meta).toEqual({ page: 1, per_page: 50, total: 53, has_more: true })
    expect(p1.body.data.map((t: { number: number }) => t.number).slice(0, 3)).toEqual([1000, 52, 51])
    const t = p1.body.data[1]
    expect(Object.keys(t).sort()).toEqual(
      [
        'number',
        'code',
        'subject',
        'status',
        'priority',
        'conversation_id',
        'assignees',
        'due_at',
        'created_at',
        'resolved_at',
        'closed_at',
      ].sort(),
    )
    expect(t).toMatchObject({ number: 52, code: 'TKT-000052', subject: 'Tiket 51', priority: 'normal' })
    expect(t.created_at).toMatch(TS)
    const p2 = await get(s, k, '/api/v1/tickets?page=2')
    expect(p2.body.meta).toEqual({ page: 2, per_page: 50, total: 53, has_more: false })
    expect(p2.body.data.map((x: { number: number }) => x.number)).toEqual([3, 2, 1])
  })

  it.each(TICKET_STATUSES)('filters by status %s', async (status) => {
    const r = await get(s, await key(s, ws), `/api/v1/tickets?status=${status}`)
    // tickets t0..t51 cycle through the five statuses; the rich one is waiting
    const expected =
      range(52).filter((i) => TICKET_STATUSES[i % 5] === status).length + (status === 'waiting' ? 1 : 0)
    expect(r.body.meta.total).toBe(expected)
    expect(r.body.data.every((t: { status: string }) => t.status === status)).toBe(true)
  })

  it.each(['1000', 'TKT-001000'])('shows one ticket with description and discussion by %s', async (ref) => {
    const r = await get(s, await key(s, ws), `/api/v1/tickets/${ref}`)
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      number: 1000,
      code: 'TKT-001000',
      subject: 'Paket belum diterima',
      status: 'waiting',
      priority: 'high',
      conversation_id: rich,
      assignees: ['Sari', 'Dimas'],
      due_at: '2026-05-12T17:00:00+07:00',
      created_at: '2026-05-10T10:10:00+07:00',
      resolved_at: null,
      closed_at: null,
      description: 'Paket tertahan di gudang transit.',
      discussion: [
        {
          id: expect.any(Number),
          author: 'Sari',
          body: 'Sudah dicek ke ekspedisi.',
          created_at: '2026-05-10T11:00:00+07:00',
        },
        {
          id: expect.any(Number),
          author: 'Dimas',
          body: 'Ekspedisi konfirmasi kirim besok.',
          created_at: '2026-05-10T15:00:00+07:00',
        },
      ],
    })
  })

  it('accepts the six-digit code of a small number', async () => {
    const r = await get(s, await key(s, ws), '/api/v1/tickets/TKT-000007')
    expect(r.body.data).toMatchObject({ number: 7, code: 'TKT-000007', subject: 'Tiket 6' })
  })

  it.each(['TKT-7', 'tkt-000007', 'TKT-0000007', 'TKT000007', '7x', '0', '99999', '7777'])(
    'answers 404 for %s (malformed, unknown or another workspace’s)',
    async (ref) => {
      const r = await get(s, await key(s, ws), `/api/v1/tickets/${ref}`)
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('not_found')
    },
  )
})

describe('authentication (401) and plan (402)', () => {
  it.each([
    ['no header', undefined],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
    ['a short key', 'Bearer svcb_live_short'],
    ["the messaging service's key format", `Bearer svca_live_${'A'.repeat(43)}`],
    ['a well-formed unknown key', `Bearer svcb_live_${'A'.repeat(43)}`],
  ])('refuses %s with 401 unauthorized', async (_, authorization) => {
    const res = await s.fetch('/api/v1/conversations', {
      headers: authorization === undefined ? {} : { authorization },
    })
    expect(res.status).toBe(401)
    expect((await body(res)).error.code).toBe('unauthorized')
    expect(res.headers.get('x-ratelimit-limit')).toBeNull()
  })

  it('refuses a revoked key at once', async () => {
    const created = await s.run(Keys.create(ws, 'to revoke'))
    expect(created.key).toMatch(/^svcb_live_[A-Za-z0-9_-]{43}$/)
    expect((await get(s, created.key, '/api/v1/tickets')).status).toBe(200)
    expect(await s.run(Keys.revoke(ws, created.row.id))).toBe(true)
    const r = await get(s, created.key, '/api/v1/tickets')
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('unauthorized')
  })

  it('stores keys hashed: the secret appears nowhere in the table', async () => {
    const k = await key(s, ws)
    const rows = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ row: string }>`SELECT row_to_json(k)::text AS row FROM social.api_keys k`,
      ),
    )
    expect(rows.some((r) => r.row.includes(k))).toBe(false)
    expect(rows.some((r) => r.row.includes(k.slice(0, 16)))).toBe(true) // the shown prefix only
  })

  it('answers 402 plan_required for a Free workspace, with the rate headers', async () => {
    const free = await workspace(s, 'free')
    const r = await get(s, await key(s, free), '/api/v1/conversations')
    expect(r.status).toBe(402)
    expect(r.body.error.code).toBe('plan_required')
    expect(r.headers.get('x-ratelimit-limit')).toBe('60')
    expect(r.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  it('answers 402 once the Pro plan has ended; its last day still works', async () => {
    const today = dayOf(new Date())
    const ended = await workspace(s, 'pro', addDays(today, -2))
    expect((await get(s, await key(s, ended), '/api/v1/tickets')).status).toBe(402)
    const lastDay = await workspace(s, 'pro', addDays(today, 1))
    expect((await get(s, await key(s, lastDay), '/api/v1/tickets')).status).toBe(200)
    // Downgraded while a key exists: refused from the next request on.
    const k = await key(s, lastDay)
    await s.run(Workspaces.setPlan(lastDay, 'free', null))
    expect((await get(s, k, '/api/v1/tickets')).status).toBe(402)
    await s.run(Workspaces.setPlan(lastDay, 'pro', null))
    expect((await get(s, k, '/api/v1/tickets')).status).toBe(200)
  })
})

describe('methods, unknown paths and validation', () => {
  const endpoints = [
    '/api/v1/conversations',
    '/api/v1/conversations/1',
    '/api/v1/tickets',
    '/api/v1/tickets/1',
    '/api/v1/reports/summary',
  ]

  it.each(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])(
    'answers %s with 405 and Allow: GET, HEAD',
    async (method) => {
      const k = await key(s, ws)
      for (const p of endpoints) {
        const res = await s.fetch(p, { method, headers: bearer(k) })
        expect(res.status).toBe(405)
        expect(res.headers.get('allow')).toBe('GET, HEAD')
        expect((await body(res)).error.code).toBe('method_not_allowed')
      }
      // Without a key too: the method is wrong whoever asks.
      expect((await s.fetch('/api/v1/tickets', { method: 'POST' })).status).toBe(405)
    },
  )

  it('answers HEAD like the GET, with its status and headers and no body', async () => {
    const k = await key(s, ws)
    for (const p of [...endpoints, '/api/v1/tickets?status=x']) {
      const g = await s.fetch(p, { headers: bearer(k) })
      const h = await s.fetch(p, { method: 'HEAD', headers: bearer(k) })
      expect(h.status).toBe(g.status)
      expect(h.headers.get('content-type')).toBe(g.headers.get('content-type'))
      expect(h.headers.get('content-length')).toBe(String((await g.arrayBuffer()).byteLength))
      expect(h.headers.get('x-ratelimit-limit')).toBe('60')
      expect((await h.arrayBuffer()).byteLength).toBe(0)
    }
    expect((await s.fetch('/api/v1/tickets', { method: 'HEAD' })).status).toBe(401)
  })

  it.each(['/api/v1/nope', '/api/v2/conversations', '/api/v1/conversations/1/messages', '/v1/me', '/api'])(
    'answers 404 for the unknown path %s',
    async (p) => {
      const r = await get(s, await key(s, ws), p)
      expect(r.status).toBe(404)
      expect(r.body).toEqual({ error: { code: 'not_found', message: 'Not found.' } })
      expect(r.headers.get('x-ratelimit-remaining')).toBe('59')
    },
  )

  it.each([
    ['/api/v1/conversations?from=2026-3-1', 'from'],
    ['/api/v1/conversations?from=20260301', 'from'],
    ['/api/v1/conversations?to=2026-02-30', 'to'],
    ['/api/v1/conversations?to=2026-13-01', 'to'],
    ['/api/v1/conversations?from=2026-03-05&to=2026-03-04', 'to'],
    ['/api/v1/conversations?status=pending', 'status'],
    ['/api/v1/conversations?status=OPEN', 'status'],
    ['/api/v1/conversations?type=comment', 'type'],
    ['/api/v1/conversations?channel=abc', 'channel'],
    ['/api/v1/conversations?channel=0', 'channel'],
    ['/api/v1/conversations?page=0', 'page'],
    ['/api/v1/conversations?page=-1', 'page'],
    ['/api/v1/conversations?page=1.5', 'page'],
    ['/api/v1/conversations?page=x', 'page'],
    ['/api/v1/conversations?status=open&status=closed', 'status'],
    ['/api/v1/tickets?status=done', 'status'],
    ['/api/v1/tickets?page=0', 'page'],
    ['/api/v1/reports/summary?from=yesterday', 'from'],
    ['/api/v1/reports/summary?to=2026-02-29', 'to'],
    ['/api/v1/reports/summary?from=2026-03-05&to=2026-03-01', 'to'],
    ['/api/v1/reports/summary?type=reply,mention', 'type'],
    ['/api/v1/reports/summary?channel=1,,2', 'channel'],
    ['/api/v1/reports/summary?channel=a', 'channel'],
    ['/api/v1/reports/summary?channel=', 'channel'],
  ])('answers 422 validation_error for %s', async (p, field) => {
    const r = await get(s, await key(s, ws), p)
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('validation_error')
    expect(Object.keys(r.body.error.fields)).toContain(field)
  })

  it('names allowed values and speaks Indonesian with X-Locale: id', async () => {
    const k = await key(s, ws)
    const en = await get(s, k, '/api/v1/tickets?status=done')
    expect(en.body.error.fields.status).toBe('must be one of: open, in_progress, waiting, resolved, closed')
    const id = await get(s, k, '/api/v1/conversations?from=kemarin', { 'x-locale': 'id' })
    expect(id.body.error).toEqual({
      code: 'validation_error',
      message: 'Beberapa isian tidak valid.',
      fields: { from: 'harus berupa tanggal dengan format YYYY-MM-DD' },
    })
  })

  it('ignores unknown query parameters', async () => {
    const r = await get(s, await key(s, ws), '/api/v1/tickets?per_page=10&sort=asc')
    expect(r.status).toBe(200)
    expect(r.body.meta.per_page).toBe(50)
  })

  it('checks in order: route, key, plan, then parameters', async () => {
    const free = await key(s, await workspace(s, 'free'))
    expect((await get(s, free, '/api/v1/conversations?from=bad')).status).toBe(402)
    expect((await s.fetch('/api/v1/conversations?from=bad')).status).toBe(401)
    expect((await get(s, free, '/api/v1/conversations/abc')).status).toBe(402)
  })
})

describe('operations', () => {
  it('answers health and metrics without a key', async () => {
    expect(await body(await s.fetch('/healthz'))).toEqual({
      data: { status: 'ok', database: 'ok' },
      meta: {},
    })
    const metrics = await s.fetch('/metrics')
    expect(await metrics.text()).toContain('kotak_http_requests_total')
  })

  it('keeps a request id given by the caller', async () => {
    const res = await s.fetch('/api/v1/tickets', { headers: { 'x-request-id': `req-${suffix()}` } })
    expect(res.headers.get('x-request-id')).toMatch(/^req-/)
  })
})
