import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { bulkContacts, ENV, get, sql, waitFor, warmedUp } from './support'

/**
 * The sender on real time (nothing moves the clock here): a retried broadcast is picked up by the
 * sender although nothing but the retry's own nudge looks at it (the supervisor's poll is set far
 * beyond the test), and the pace holds between the moments messages went out (`sent_at`), also
 * when the first one waited in the number's own pacing (`MSGAPP_PACE_MS`).
 */
let s: TestServer
let w: F.Seeded
let session: F.Session
let owner: Who
beforeAll(async () => {
  s = await startTestServer({
    ...ENV,
    REDIS_URL: '',
    BROADCAST_POLL_MS: '600000',
    // The number's own pacing (1.5 to 4.5 s after its last send; 1.5 s in production): long
    // enough that a message sent right after another always waits in it.
    MSGAPP_PACE_MS: '3000',
    // The waits below poll the broadcast every few milliseconds: past the app's 600 a minute.
    RATE_LIMIT_PER_SESSION: '100000000',
  })
  w = await F.workspace(s, { plan: 'pro' })
  session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
}, 60_000)
afterAll(() => s?.stop())

const setup = async (name: string, n: number, prefix: string, pace: number) => {
  const o = api(s, owner)
  const { ch, sock } = await linkedNumber(s, session, `62812${prefix}00001`)
  await warmedUp(s, ch.id)
  const label = (await o.post('/v1/labels', { name: `Promo ${name}` })).data.id
  await bulkContacts(s, w.workspaceId, n, prefix, label)
  const b = await o.post('/v1/broadcasts', {
    name,
    channel_id: ch.id,
    audience: { label_ids: [label] },
    messages: [{ text: 'Halo {{first_name}}, promo!' }],
    settings: { pace_per_minute: pace, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
  })
  expect(b.status, JSON.stringify(b.error)).toBe(201)
  return { sock, id: b.data.id as number }
}

let paceTries = 0
const detail = async (id: number) => (await get(s, owner, `/v1/broadcasts/${id}`)).data

describe('the sender', () => {
  it('sends again what /retry queued on a completed broadcast, with no poll in between', async () => {
    const o = api(s, owner)
    const { sock, id } = await setup('Retry', 1, '4', 30)
    sock.failures.push(new Error('connection reset'))
    expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
    const done = await waitFor('completion', async () => {
      const d = await detail(id)
      return d.status === 'completed' ? d : null
    })
    expect(done.counts).toMatchObject({ sent: 0, failed: 1 })
    expect(sock.sent).toHaveLength(0)
    const r = await o.post(`/v1/broadcasts/${id}/retry`)
    expect(r.status).toBe(200)
    expect(r.data.status).toBe('running')
    expect(r.meta.requeued).toBe(1)
    // The pace (2 s after the failed attempt) and the number's own pacing, then the send.
    const end = await waitFor(
      'the retried recipient sent and the broadcast completed',
      async () => {
        const d = await detail(id)
        return d.status === 'completed' ? d : null
      },
      15_000,
    )
    expect(end.counts).toMatchObject({ sent: 1, failed: 0 })
    expect(sock.sent).toHaveLength(1)
  }, 60_000)

  it('keeps the pace between the moments messages went out, the first gap after a test send included', async () => {
    // Issue 50 item 7: at 12 a minute the first gap read 3.7–4.0 s, because the first message
    // waited in the number's own pacing after the test send and the next one was paced from its
    // hand-over. The lower bound holds by construction once the pace counts from `sent_at`; with
    // the number's pacing at 1.5–4.5 s here the old code gives a first gap of at most ~3.6 s.
    const o = api(s, owner)
    const pace = 12
    const gap = 60_000 / pace
    // Names and phones of its own per attempt: CI retries a failed test once, in the same workspace.
    paceTries++
    const { sock, id } = await setup(`Pace ${paceTries}`, 3, `5${paceTries}`, pace)
    const t = await o.post(`/v1/broadcasts/${id}/test`, { phone: '+6281255500001' })
    expect(t.status, JSON.stringify(t.error)).toBe(200)
    expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
    await waitFor('completion', async () => (await detail(id)).status === 'completed', 3 * gap + 15_000)
    expect(sock.sent).toHaveLength(4)
    // The answers give whole seconds, cut (a true gap of 5 s never reads less than 5).
    const rows = (await get(s, owner, `/v1/broadcasts/${id}/recipients?status=sent`)).data as Array<{
      position: number
      sent_at: string
    }>
    const at = rows.sort((a, b) => a.position - b.position).map((r) => Date.parse(r.sent_at))
    expect(at).toHaveLength(3)
    const gaps = at.slice(1).map((x, i) => x - at[i]!)
    for (const g of gaps) expect(g, `answered gaps ${gaps.join(', ')} ms`).toBeGreaterThanOrEqual(gap)
    // The stored times have the milliseconds.
    const stored = (
      await sql<{ sent_at: Date }>(
        s,
        (db) => db`SELECT sent_at FROM broadcast_recipients WHERE broadcast_id = ${id} ORDER BY position`,
      )
    ).map((r) => new Date(r.sent_at).getTime())
    const exact = stored.slice(1).map((x, i) => x - stored[i]!)
    for (const g of exact) expect(g, `stored gaps ${exact.join(', ')} ms`).toBeGreaterThanOrEqual(gap - 5)
  }, 60_000)
})
