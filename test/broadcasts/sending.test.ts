import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeError, type FakeSocket, socketsOf } from '../../connectors/msgapp/TransportTest'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import { linkedNumber, textFrom } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { advance, bulkContacts, ENV, get, recipients, sql, waitFor, warmedUp } from './support'

/**
 * Sending through the messaging-app test transport at a pace the test sets by moving the server's
 * clock: order, pacing, skip reasons, replies, `broadcasts.changed` at most about once a second,
 * a restriction mid-run pausing every broadcast of the number, and exactly once across a restart.
 */
// 200 by default: each send is one step of the clock and its round trips (about a quarter of a
// second under the suite's load), and 1,000 cost four minutes of every run on each database for
// nothing 200 does not show (order, pace, skips, replies, progress). BROADCAST_TEST_N=1000 for more.
const N = Number(process.env.BROADCAST_TEST_N ?? 200)
const PACE = 30
const GAP = 60_000 / PACE

let s: TestServer
let w: F.Seeded
let session: F.Session
let owner: Who
let advanced = 0
beforeAll(async () => {
  // One node (no Redis): the cluster's own suites cover sharded actors; this one is about pacing.
  // On disk when embedded, so the restart below resumes on the same database. (Not a server of
  // its own: the test transport knows sockets by channel id, which a second database repeats.)
  s = await startTestServer({ ...ENV, REDIS_URL: '' }, { durable: true })
  w = await F.workspace(s, { plan: 'pro' })
  session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
}, 60_000)
afterAll(() => s?.stop())

const move = async (ms: number) => {
  await advance(s, ms)
  advanced += ms
}

const jids = (socks: readonly FakeSocket[]) => socks.flatMap((k) => k.sent.map((x) => x.jid))
const phoneOf = (jid: string) => `+${jid.split('@')[0]}`

/**
 * Until no running broadcast has a message handed over without its outcome recorded: the pace
 * runs from when a message went out (`sent_at`, read on the clock after the hand-over), so moving
 * the clock between the number's send and that reading would push the next send a gap later.
 */
const settled = () =>
  waitFor(
    'the outcome recorded',
    async () =>
      (
        await sql<{ n: number }>(
          s,
          (db) => db`SELECT count(*)::int AS n FROM broadcast_recipients r
            JOIN broadcasts b ON b.id = r.broadcast_id WHERE r.state = 'sending' AND b.status = 'running'`,
        )
      )[0]!.n === 0,
    5_000,
  ).catch(() => false)

/** Moves the clock one gap at a time until `done`, each step waiting for the sender to use it. */
const drive = async (total: () => Promise<number>, target: number) => {
  for (let guard = 0; guard < target * 20 + 100; guard++) {
    await settled()
    const before = await total()
    if (before >= target) return
    // One gap, then small steps until the sender has used it (it records its sends a moment
    // after the clock reading they were paced on).
    await move(GAP)
    for (let i = 0; i < 20 && (await total()) === before; i++) {
      const moved = await waitFor('the next send', async () => (await total()) > before, 100).catch(
        () => false,
      )
      if (!moved) {
        await settled()
        await move(100)
      }
    }
  }
  throw new Error(`the sender stopped at ${await total()} of ${target}`)
}

const setup = async (name: string, n: number, prefix: string, settings: Record<string, unknown> = {}) => {
  const o = api(s, owner)
  const { ch, sock } = await linkedNumber(s, session, `62812${prefix}00001`)
  await warmedUp(s, ch.id)
  const label = (await o.post('/v1/labels', { name: `Promo ${name}` })).data.id
  const ids = await bulkContacts(s, w.workspaceId, n, prefix, label)
  const b = await o.post('/v1/broadcasts', {
    name,
    channel_id: ch.id,
    audience: { label_ids: [label] },
    messages: [
      { text: 'Halo {{first_name}}, promo!' },
      { text: 'Hai {{name}}, diskon!', footer: 'Balas STOP' },
    ],
    settings: {
      pace_per_minute: PACE,
      random_delay_seconds: 0,
      quiet_hours: null,
      skip_recent_hours: 24,
      ...settings,
    },
  })
  expect(b.status, JSON.stringify(b.error)).toBe(201)
  return { ch, sock, label, ids, b: b.data }
}

describe('a broadcast through the number', () => {
  it(`sends ${N} recipients in order at the set pace, skips with reasons, marks replies`, async () => {
    const o = api(s, owner)
    const { ch, sock, label, ids, b } = await setup('Big', N, '1', {})
    // Skip reasons: opted out, no phone, invalid number, duplicate phone, messaged recently.
    const extra = await sql<{ id: number; name: string }>(
      s,
      (db) => db`INSERT INTO contacts (workspace_id, name, phone, broadcast_opt_out) VALUES
        (${w.workspaceId}, 'Opted', '+6281399999901', true),
        (${w.workspaceId}, 'Nophone', NULL, false),
        (${w.workspaceId}, 'Invalid', '0812-abc', false),
        (${w.workspaceId}, 'Twin', ${`+628131${String(1).padStart(5, '0')}`}, false),
        (${w.workspaceId}, 'Recent', '+6281399999905', false) RETURNING id, name`,
    )
    for (const c of extra)
      await sql(
        s,
        (db) =>
          db`INSERT INTO contact_labels (contact_id, label_id) VALUES (${c.id}, ${label}) RETURNING contact_id`,
      )
    const recent = extra.find((c) => c.name === 'Recent')!.id
    const conv = await I.conversation(s, w, { channelId: ch.id, contactId: recent })
    await o.post(`/v1/interactions/${conv.id}/messages`, { text: 'kemarin' })
    const est = await o.post(`/v1/broadcasts/${b.id}/estimate`)
    expect(est.status, JSON.stringify(est.error)).toBe(200)
    expect(est.data).toMatchObject({
      audience: N + 5,
      recipients: N,
      skipped: { opted_out: 1, no_phone: 1, invalid_number: 1, duplicate: 1, recent: 1 },
    })
    expect(est.data.duration_minutes).toBeGreaterThanOrEqual(Math.floor((N - 1) / PACE))
    const { c: socket } = await I.socketFor(s, session, `ws:${w.workspaceId}`)
    const started = await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })
    expect(started.status, JSON.stringify(started.error)).toBe(200)
    expect(started.data.status).toBe('running')
    const before = sock.sent.length
    const sentCount = async () => sock.sent.length - before
    await drive(sentCount, N)
    const done = await waitFor('completion', async () => {
      const d = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
      return d.status === 'completed' ? d : null
    })
    expect(done.counts).toMatchObject({ total: N, sent: N, failed: 0, queued: 0, skipped: 5 })
    expect(done.skip_reasons).toMatchObject({
      opted_out: 1,
      no_phone: 1,
      invalid_number: 1,
      duplicate: 1,
      recent: 1,
    })
    // Order: contact id order, each once; the twin (same phone as the first contact) never.
    const sent = sock.sent.slice(before).map((x) => phoneOf(x.jid))
    const rows = await recipients(s, b.id)
    const queuedOrder = rows.filter((r) => r.state === 'sent').map((r) => r.phone)
    expect(sent).toEqual(queuedOrder)
    expect(new Set(sent).size).toBe(N)
    expect(rows.filter((r) => r.state === 'sent').length).toBe(N)
    void ids
    // Pacing: consecutive hand-overs at least the pace's gap apart on the server's clock.
    const handed = rows.filter((r) => r.handed_at).map((r) => new Date(r.handed_at!).getTime())
    for (let i = 1; i < handed.length; i++) expect(handed[i]! - handed[i - 1]!).toBeGreaterThanOrEqual(GAP)
    // Variants in turn, with variables filled.
    const first = sock.sent[before]!.content as { text: string }
    const second = sock.sent[before + 1]!.content as { text: string }
    expect(first.text).toBe('Halo Pelanggan, promo!')
    expect(second.text).toBe('Hai Pelanggan 2, diskon!\n\nBalas STOP')
    // Replies land in the inbox and mark the recipient replied.
    for (const jid of sock.sent.slice(before, before + 3).map((x) => x.jid))
      textFrom(sock, jid.split('@')[0]!, 'Mau!')
    await waitFor('replies', async () => {
      const r = await api(s, owner).get(`/v1/broadcasts/${b.id}/recipients?status=replied`)
      return r.meta?.total === 3 ? r : null
    })
    const rep = await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=replied`)
    expect(rep.data.map((r: { position: number }) => r.position)).toEqual([1, 2, 3])
    const conv1 = rep.data[0].interaction_id
    const msgs = await get(s, owner, `/v1/interactions/${conv1}/messages`)
    expect(msgs.data.map((m: { direction: string }) => m.direction)).toEqual(
      expect.arrayContaining(['out', 'in']),
    )
    // Cumulative: the replied are also sent.
    expect((await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=sent&per_page=1`)).meta.total).toBe(
      N,
    )
    expect((await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=skipped`)).meta.total).toBe(5)
    // Progress events: at most about one a second.
    const progress = socket.frames.filter(
      (f) => f.event === 'broadcasts.changed' && (f.data as { reason: string }).reason === 'progress',
    )
    const at = progress.map((f) => Date.parse(String(f.at)))
    for (let i = 1; i < at.length - 1; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(900)
    socket.close()
  }, 600_000)

  it('publishes receipts and replies as broadcasts.changed, at most about once a second each', async () => {
    const o = api(s, owner)
    const { sock, b } = await setup('Receipts', 6, '4')
    const before = sock.sent.length
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    await drive(async () => sock.sent.length - before, 6)
    await waitFor(
      'completion',
      async () => (await get(s, owner, `/v1/broadcasts/${b.id}`)).data.status === 'completed',
    )
    const sent = await sql<{ external_id: string; phone: string }>(
      s,
      (db) =>
        db`SELECT external_id, phone FROM broadcast_recipients WHERE broadcast_id = ${b.id} ORDER BY position`,
    )
    expect(sent.length).toBe(6)
    const { c: socket } = await I.socketFor(s, session, `ws:${w.workspaceId}`)
    type Changed = { broadcast_id: number; reason: string; counts: Record<string, number> }
    const changes = (reason: string) =>
      socket.frames.filter(
        (f) =>
          f.event === 'broadcasts.changed' &&
          (f.data as Changed).broadcast_id === b.id &&
          (f.data as Changed).reason === reason,
      )
    const jid = (phone: string) => `${phone.slice(1)}@s.whatsapp.net`
    // A burst of twelve receipts: each message delivered, then read.
    for (const status of [3, 4])
      sock.emit(
        'messages.update',
        sent.map((r) => ({
          key: { remoteJid: jid(r.phone), id: r.external_id, fromMe: true },
          update: { status },
        })),
      )
    // The last event carries the final figures (a burst ends with one event at the gap's end).
    const lastReceipt = await socket.next(
      (f) =>
        f.event === 'broadcasts.changed' &&
        (f.data as Changed).broadcast_id === b.id &&
        (f.data as Changed).reason === 'receipt' &&
        (f.data as Changed).counts.read === 6,
      10_000,
    )
    expect((lastReceipt.data as Changed).counts).toMatchObject({ delivered: 6, read: 6, replied: 0 })
    // Three contacts reply; a second message of one of them is not a new reply.
    for (const r of sent.slice(0, 3)) textFrom(sock, r.phone.slice(1), 'Mau!')
    const lastReply = await socket.next(
      (f) =>
        f.event === 'broadcasts.changed' &&
        (f.data as Changed).broadcast_id === b.id &&
        (f.data as Changed).reason === 'reply' &&
        (f.data as Changed).counts.replied === 3,
      10_000,
    )
    const replies = changes('reply').length
    textFrom(sock, sent[0]!.phone.slice(1), 'Masih ada?')
    await waitFor('the second message stored', async () => {
      const r = await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=replied`)
      const conv = r.data[0]?.interaction_id
      if (!conv) return false
      const msgs = await get(s, owner, `/v1/interactions/${conv}/messages`)
      return msgs.data.some((m: { body: string }) => m.body === 'Masih ada?')
    })
    await new Promise((r) => setTimeout(r, 1200))
    expect(changes('reply').length).toBe(replies)
    // At most about one a second per broadcast and reason.
    for (const [reason, last] of [
      ['receipt', lastReceipt],
      ['reply', lastReply],
    ] as const) {
      const at = [...changes(reason), last].map((f) => Date.parse(String(f.at)))
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!, reason).toBeGreaterThanOrEqual(900)
    }
    socket.close()
  }, 120_000)

  it('a message the service refuses after it left fails its recipient; a restriction pauses the number’s broadcasts', async () => {
    const o = api(s, owner)
    const { ch, sock, b } = await setup('Refused late', 4, '5')
    const before = sock.sent.length
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    await drive(async () => sock.sent.length - before, 4)
    await waitFor(
      'completion',
      async () => (await get(s, owner, `/v1/broadcasts/${b.id}`)).data.status === 'completed',
    )
    // A copy on the same number, running (it waits for its pace) when the refusals arrive.
    const other = (await o.post(`/v1/broadcasts/${b.id}/duplicate`)).data
    await o.patch(`/v1/broadcasts/${other.id}`, { settings: { skip_recent_hours: 0 } })
    expect((await o.post(`/v1/broadcasts/${other.id}/schedule`, { risk_ack: true })).status).toBe(200)
    await waitFor(
      'the copy running',
      async () => (await get(s, owner, `/v1/broadcasts/${other.id}`)).data.status === 'running',
    )
    const sent = await sql<{ external_id: string; phone: string }>(
      s,
      (db) =>
        db`SELECT external_id, phone FROM broadcast_recipients WHERE broadcast_id = ${b.id} ORDER BY position`,
    )
    // Baileys' send resolved; the service's refusal comes later as the ack's error (463).
    sock.emit(
      'messages.update',
      sent.slice(0, 2).map((r) => ({
        key: { remoteJid: `${r.phone.slice(1)}@s.whatsapp.net`, id: r.external_id, fromMe: true },
        update: { status: 0, messageStubParameters: ['463'] },
      })),
    )
    const end = await waitFor('the recipients failed', async () => {
      const d = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
      return d.counts.failed === 2 ? d : null
    })
    expect(end.counts).toMatchObject({ sent: 2, failed: 2 })
    const failed = await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=failed`)
    expect(failed.meta.total).toBe(2)
    for (const r of failed.data) {
      expect(r).toMatchObject({ status: 'failed', error: 'The messaging service refused the message (463).' })
      expect(r.failed_at).toEqual(expect.any(String))
    }
    // The number is restricted, and its running broadcasts pause as for a refused send.
    await waitFor(
      'restricted',
      async () => (await get(s, owner, `/v1/channels/${ch.id}/status`)).data.status === 'restricted',
    )
    const copy = await waitFor('the copy paused', async () => {
      const d = (await get(s, owner, `/v1/broadcasts/${other.id}`)).data
      return d.status === 'paused' ? d : null
    })
    expect(copy.pause_reason).toBe('number_restricted')
    // The two are sent again by a retry.
    expect((await o.post(`/v1/broadcasts/${b.id}/retry`)).status).toBe(200)
    expect((await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=failed`)).meta.total).toBe(0)
    expect((await o.post(`/v1/broadcasts/${other.id}/cancel`)).status).toBe(200)
  }, 120_000)

  it('pauses every broadcast of the number when the service restricts it mid-run, and notifies', async () => {
    const o = api(s, owner)
    const { sock, b } = await setup('Restricted', 20, '2')
    const other = (await o.post(`/v1/broadcasts/${b.id}/duplicate`)).data
    // The copy goes to the same contacts right after the first: not skipped as messaged recently.
    await o.patch(`/v1/broadcasts/${other.id}`, { settings: { skip_recent_hours: 0 } })
    const before = sock.sent.length
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    expect((await o.post(`/v1/broadcasts/${other.id}/schedule`, { risk_ack: true })).status).toBe(200)
    await drive(async () => sock.sent.length - before, 5)
    sock.failures.push(closeError(463, 'restricted'))
    await waitFor(
      'the pause',
      async () => {
        const a = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
        const c = (await get(s, owner, `/v1/broadcasts/${other.id}`)).data
        if (a.status !== 'paused' || c.status !== 'paused') {
          await move(GAP)
          return null
        }
        return [a, c]
      },
      20_000,
    )
    const a = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
    expect(a.pause_reason).toBe('number_restricted')
    expect(a.can).toMatchObject({ resume: true, pause: false })
    expect((await get(s, owner, `/v1/broadcasts/${other.id}`)).data.pause_reason).toBe('number_restricted')
    await waitFor('the managers’ notification', async () =>
      (await get(s, owner, '/v1/notifications')).data.some(
        (n: { kind: string }) => n.kind === 'broadcast.paused',
      ),
    )
    // Nothing more goes out while paused, however far the clock moves.
    const frozen = sock.sent.length
    await move(10 * GAP)
    await new Promise((r) => setTimeout(r, 200))
    expect(sock.sent.length).toBe(frozen)
    // The one refused message failed (in whichever broadcast met it); retry it, resume both.
    const both = [b.id, other.id]
    const failed = []
    for (const id of both) failed.push((await get(s, owner, `/v1/broadcasts/${id}`)).data.counts.failed)
    expect(failed.reduce((x, y) => x + y, 0)).toBe(1)
    const hit = both[failed.indexOf(1)]!
    expect((await o.post(`/v1/broadcasts/${hit}/retry`)).status).toBe(200)
    for (const id of both) expect((await o.post(`/v1/broadcasts/${id}/resume`)).status).toBe(200)
    const sentOf = async () =>
      (
        await sql<{ n: number }>(
          s,
          (db) =>
            db`SELECT count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id IN (${b.id}, ${other.id}) AND state = 'sent'`,
        )
      )[0]!.n
    await drive(sentOf, 40)
    for (const id of both) {
      const end = await waitFor('completion', async () => {
        const d = (await get(s, owner, `/v1/broadcasts/${id}`)).data
        return d.status === 'completed' ? d : null
      })
      expect(end.counts).toMatchObject({ sent: 20, failed: 0 })
    }
    // Each contact got each broadcast once: 40 sends to 20 phones after the refused one.
    const phones = sock.sent.slice(before).map((x) => x.jid)
    expect(phones.length).toBe(40)
    expect(new Set(phones).size).toBe(20)
    void socketsOf
  }, 120_000)
})

describe('exactly once', () => {
  it('resumes after a restart without sending anyone twice; an ambiguous hand-over is failed, not resent', async () => {
    const o = api(s, owner)
    const { ch, b } = await setup('Restart', 30, '3')
    const first = socketsOf(ch.id).at(-1)!
    expect((await o.post(`/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })).status).toBe(200)
    await drive(async () => first.sent.length, 10)
    await s.restart()
    // The new node starts with its own clock: bring it to where the test had moved it.
    const total = advanced
    advanced = 0
    await move(total)
    const rows = await recipients(s, b.id)
    // A crash in the middle: one recipient claimed and handed over with no outcome recorded (the
    // node died while the number sent), one claimed but never handed over.
    const queued = rows.filter((r) => r.state === 'queued')
    await sql(s, (db) => db`UPDATE broadcasts SET status = 'paused' WHERE id = ${b.id} RETURNING id`)
    await sql(
      s,
      (db) =>
        db`UPDATE broadcast_recipients SET state = 'sending', handed_at = now() WHERE id = ${queued[0]!.id} RETURNING id`,
    )
    await sql(
      s,
      (db) => db`UPDATE broadcast_recipients SET state = 'sending' WHERE id = ${queued[1]!.id} RETURNING id`,
    )
    const sock = await waitFor('the number to reconnect', async () => {
      const list = socketsOf(ch.id)
      return list.length >= 2 ? list.at(-1)! : null
    })
    sock.open(`6281230000001`)
    await waitFor(
      'active',
      async () => (await get(s, owner, `/v1/channels/${ch.id}/status`)).data.status === 'active',
    )
    expect((await o.post(`/v1/broadcasts/${b.id}/resume`)).status).toBe(200)
    await drive(async () => first.sent.length + sock.sent.length, 29)
    const end = await waitFor('completion', async () => {
      const d = (await get(s, owner, `/v1/broadcasts/${b.id}`)).data
      return d.status === 'completed' ? d : null
    })
    const all = jids([first, sock])
    expect(new Set(all).size).toBe(all.length)
    expect(all.length).toBe(29)
    expect(end.counts).toMatchObject({ sent: 29, failed: 1 })
    const failed = await get(s, owner, `/v1/broadcasts/${b.id}/recipients?status=failed`)
    expect(failed.data[0].error).toMatch(/not sent again/)
    expect(failed.data[0].position).toBe(queued[0]!.position)
  }, 180_000)
})
