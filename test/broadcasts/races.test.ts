import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeSocket } from '../../connectors/msgapp/TransportTest'
import { api, type Who } from '../contacts/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { advance, bulkContacts, ENV, get, sql, waitFor, warmedUp } from './support'

/**
 * Requests that meet: test sends fired at once against their hourly cap, a pause or a cancel
 * landing while the sender is about to send, `/retry` against `/cancel`, and two retries against
 * the monthly quota. Each race is fired with Promise.all, enough times to show it.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '', RATE_LIMIT_PER_SESSION: '100000000' })
}, 60_000)
afterAll(() => s?.stop())

/** How far the tests moved the server's clock: its reading is `Date.now() + moved`. */
let moved = 0
const move = async (ms: number) => {
  await advance(s, ms)
  moved += ms
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Shop {
  readonly w: F.Seeded
  readonly owner: Who
  readonly ch: { id: number }
  readonly sock: FakeSocket
}

let shops = 0
/** A Pro workspace (Custom with `quota` a month) with a linked, warmed-up number of its own. */
const shop = async (quota?: number): Promise<Shop> => {
  const w = await F.workspace(s, { plan: 'pro' })
  // Before signing in: a session caches its workspace.
  if (quota !== undefined)
    await sql(
      s,
      (
        db,
      ) => db`UPDATE workspaces SET plan = 'custom', limits = ${JSON.stringify({ broadcasts_per_month: quota })}::jsonb
        WHERE id = ${w.workspaceId} RETURNING id`,
    )
  const session = await F.signIn(s, w.ownerEmail)
  const { ch, sock } = await linkedNumber(s, session, `628129${String(++shops).padStart(2, '0')}00001`)
  await warmedUp(s, ch.id)
  return { w, owner: session.headers(), ch, sock }
}

let prefixes = 0
/** A draft to `n` contacts of their own, 30 a minute, no random delay, no quiet hours. */
const broadcast = async (p: Shop, n: number) => {
  const o = api(s, p.owner)
  const prefix = `7${String(++prefixes).padStart(2, '0')}`
  const label = (await o.post('/v1/labels', { name: `Race ${prefix}` })).data.id
  await bulkContacts(s, p.w.workspaceId, n, prefix, label)
  const b = await o.post('/v1/broadcasts', {
    name: `Race ${prefix}`,
    channel_id: p.ch.id,
    audience: { label_ids: [label] },
    messages: [{ text: 'Halo {{first_name}}, promo!' }],
    settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
  })
  expect(b.status, JSON.stringify(b.error)).toBe(201)
  return b.data.id as number
}

const detail = async (p: Shop, id: number) => (await get(s, p.owner, `/v1/broadcasts/${id}`)).data

/** Moves the clock a minute at a time until the broadcast has ended (completed). */
const runToEnd = async (p: Shop, id: number) => {
  for (let i = 0; i < 400; i++) {
    const d = await detail(p, id)
    if (d.status === 'completed') return d
    await move(60_000)
    await sleep(20)
  }
  throw new Error(`broadcast ${id} did not complete`)
}

const rows = (id: number) =>
  sql<{ state: string; reason: string | null; handed_at: Date | null }>(
    s,
    (db) => db`SELECT state, reason, handed_at FROM broadcast_recipients WHERE broadcast_id = ${id}`,
  )

describe('test sends at once', () => {
  it('hold the hourly cap: 10 go out, the rest are 429 rate_limited', async () => {
    const p = await shop()
    const o = api(s, p.owner)
    const id = await broadcast(p, 1)
    const before = p.sock.sent.length
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        o.post(`/v1/broadcasts/${id}/test`, { phone: `+6281277${String(600 + i).padStart(6, '0')}` }),
      ),
    )
    const ok = answers.filter((r) => r.status === 200)
    const over = answers.filter((r) => r.status !== 200)
    expect(ok).toHaveLength(10)
    expect(over.map((r) => r.status)).toEqual(Array(6).fill(429))
    for (const r of over) expect(r.error.code).toBe('rate_limited')
    expect(ok.map((r) => r.meta.tests.used).sort((a: number, b: number) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ])
    expect(p.sock.sent.length - before).toBe(10)
  }, 60_000)
})

describe('/retry and /cancel at once', () => {
  it('never leave a cancelled broadcast with recipients queued: one wins, the other is 409', async () => {
    const p = await shop()
    const o = api(s, p.owner)
    for (let round = 0; round < 6; round++) {
      const id = await broadcast(p, 3)
      // The first message fails; the next waits for the pace (the clock does not move here).
      p.sock.failures.push(new Error('connection reset'))
      expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
      await waitFor('the first failure', async () => (await detail(p, id)).counts.failed === 1)
      const [retry, cancel] = await Promise.all([
        o.post(`/v1/broadcasts/${id}/retry`),
        o.post(`/v1/broadcasts/${id}/cancel`),
      ])
      expect(cancel.status, JSON.stringify(cancel.error)).toBe(200)
      if (retry.status !== 200) {
        expect(retry.status).toBe(409)
        expect(retry.error.code).toBe('conflict')
      }
      const d = await detail(p, id)
      expect(d.status).toBe('cancelled')
      expect(d.counts.queued, `round ${round}: retry ${retry.status}`).toBe(0)
      const left = (await rows(id)).filter((r) => r.state === 'queued' || r.state === 'sending')
      expect(left).toEqual([])
    }
  }, 120_000)
})

describe('two retries at once', () => {
  it('hold the monthly quota: one requeues, the other is 402 plan_required', async () => {
    const p = await shop(4)
    const o = api(s, p.owner)
    // Two broadcasts of 3 whose every message failed: 0 of the 4 used, 3 needed by each retry.
    const ids = [await broadcast(p, 3), await broadcast(p, 3)]
    for (const id of ids) {
      for (let i = 0; i < 3; i++) p.sock.failures.push(new Error('connection reset'))
      expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
      expect((await runToEnd(p, id)).counts).toMatchObject({ sent: 0, failed: 3 })
    }
    expect((await get(s, p.owner, '/v1/broadcasts/options')).data.quota).toMatchObject({ used: 0, limit: 4 })
    const answers = await Promise.all(ids.map((id) => o.post(`/v1/broadcasts/${id}/retry`)))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 402])
    const refused = answers.find((r) => r.status === 402)!
    expect(refused.error.code).toBe('plan_required')
    const q = (await get(s, p.owner, '/v1/broadcasts/options')).data.quota
    expect(q.used).toBeLessThanOrEqual(4)
  }, 120_000)
})

describe('a pause or a cancel while the sender sends', () => {
  /**
   * `k` broadcasts of one number, each free to send its next message (a minute of the clock
   * moved: pace and the number's 30 a minute allow one each), then `action` fired on all of them at
   * once, a few milliseconds apart, while their senders are on their way to the next message.
   * Answers what was handed to the number after each answer (on the server's clock).
   */
  const race = async (p: Shop, ids: readonly number[], action: 'pause' | 'cancel', round: number) => {
    await move(60_000)
    const o = api(s, p.owner)
    const answers = await Promise.all(
      ids.map(async (id, i) => {
        await sleep((i * 3 + round * 5) % 17)
        const r = await o.post(`/v1/broadcasts/${id}/${action}`)
        return { id, status: r.status, at: Date.now() + moved }
      }),
    )
    for (const a of answers) expect(a.status, `${action} ${a.id}`).toBe(200)
    // Whatever was in flight at the answer has time to finish; nothing new may start.
    await sleep(400)
    const late: string[] = []
    for (const a of answers)
      for (const r of await rows(a.id))
        if (r.handed_at && new Date(r.handed_at).getTime() > a.at)
          late.push(`${a.id}: handed ${new Date(r.handed_at).getTime() - a.at} ms after the answer`)
    return late
  }

  it('sends nothing new once the pause has answered', async () => {
    const p = await shop()
    const o = api(s, p.owner)
    const ids: number[] = []
    for (let i = 0; i < 8; i++) ids.push(await broadcast(p, 40))
    for (const id of ids)
      expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
    const before = p.sock.sent.length
    const late: string[] = []
    for (let round = 0; round < 6; round++) {
      late.push(...(await race(p, ids, 'pause', round)))
      for (const id of ids) expect((await o.post(`/v1/broadcasts/${id}/resume`)).status).toBe(200)
    }
    expect(late).toEqual([])
    // The senders were sending between the pauses.
    expect(p.sock.sent.length - before).toBeGreaterThanOrEqual(ids.length)
  }, 180_000)

  it('sends nothing new once the cancel has answered, and leaves no recipient sending', async () => {
    const p = await shop()
    const o = api(s, p.owner)
    const late: string[] = []
    const stuck: string[] = []
    for (let round = 0; round < 4; round++) {
      const ids: number[] = []
      for (let i = 0; i < 8; i++) ids.push(await broadcast(p, 5))
      for (const id of ids)
        expect((await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
      // Under way: each has sent its first message and waits for the pace.
      await waitFor('the first messages', async () =>
        (await Promise.all(ids.map((id) => rows(id)))).every((r) => r.some((x) => x.state === 'sent')),
      )
      late.push(...(await race(p, ids, 'cancel', round)))
      for (const id of ids) {
        const d = await detail(p, id)
        expect(d.status).toBe('cancelled')
        const left = (await rows(id)).filter((r) => r.state === 'queued' || r.state === 'sending')
        if (left.length > 0 || d.counts.queued !== 0)
          stuck.push(`${id}: ${left.map((r) => r.state).join(',')} (counts.queued ${d.counts.queued})`)
      }
    }
    expect({ late, stuck }).toEqual({ late: [], stuck: [] })
  }, 180_000)
})
