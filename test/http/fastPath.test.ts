import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * The fast path (engine/step.ts) stays fast: the API channel's inbound message and `GET /v1/me`
 * answer without a fiber of their own once their caches are warm. Nothing in the types says so,
 * so this reads the runner's count of requests that went onto a fiber from `/metrics`: a hot
 * function rewritten with `Effect.gen` or `Effect.map` still answers correctly, and fails here.
 */
let s: TestServer
let channelKey: string
let owner: F.Session
let apiKey: string

const onFiber = async (): Promise<number> => {
  const text = await (await s.fetch('/metrics')).text()
  const m = /^kotak_http_requests_on_fiber_total (\d+)$/m.exec(text)
  if (!m) throw new Error('no kotak_http_requests_on_fiber_total in /metrics')
  return Number(m[1])
}

let sent = 0
const inbound = () => {
  const n = sent++
  return s.fetch(
    '/v1/channel-api/messages',
    F.json(
      { conversation_id: `fast-${n % 3}`, message: { id: `m-${n}`, text: `message ${n}` } },
      F.bearer(channelKey),
    ),
  )
}

beforeAll(async () => {
  // A single node, on either database: its rate limit is counted in memory. A node of a cluster
  // counts it in Redis, which is I/O, so there every request goes onto a fiber at that step.
  s = await startTestServer({ REDIS_URL: '' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  apiKey = await F.apiKey(s, w)
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop' }, owner.headers()))
  expect(made.status).toBe(201)
  channelKey = ((await made.json()) as { data: { credentials: { key: string } } }).data.credentials.key
})
afterAll(() => s?.stop())

describe('the fast path', () => {
  it('answers the inbound message and GET /v1/me without a fiber', async () => {
    // Warm: the keys, the sessions and the conversations' actors are known to this node. The
    // first of each may go onto a fiber (a database read), and so may an API key's first hit
    // (its `last_used_at`, written once a minute); the ones after must not.
    for (let i = 0; i < 3; i++) expect((await inbound()).status).toBe(201)
    expect((await s.fetch('/v1/me', { headers: owner.headers() })).status).toBe(200)
    for (let i = 0; i < 2; i++)
      expect((await s.fetch('/v1/me', { headers: F.bearer(apiKey) })).status).toBe(200)
    const before = await onFiber()
    for (let i = 0; i < 12; i++) {
      const res = await inbound()
      expect(res.status, await res.text()).toBe(201)
    }
    for (let i = 0; i < 5; i++) {
      expect((await s.fetch('/v1/me', { headers: owner.headers() })).status).toBe(200)
      expect((await s.fetch('/v1/me', { headers: F.bearer(apiKey) })).status).toBe(200)
    }
    // The one between the two counts: the second read of /metrics itself (it awaits prom-client).
    expect((await onFiber()) - before).toBe(1)
  })
})
