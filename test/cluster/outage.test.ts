import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Conversations from '../../store/conversations'
import {
  type RedisProxy,
  redisProxy,
  startCluster,
  type TestCluster,
  waitFor,
  waitSettled,
} from '../support/cluster'
import * as F from '../support/fixtures'

/**
 * Two nodes reaching Redis through a proxy that plays an outage. While Redis is away a clustered
 * node reports itself unhealthy, its actor requests answer 503 within the ask timeout (none
 * hangs), plain reads keep working; once Redis is back the node serves actors again by itself.
 */
const LEASE_MS = 2_000
const ASK_TIMEOUT_MS = 1_500
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

describe.skipIf(!enabled)('cluster without Redis for a while', () => {
  let proxy: RedisProxy
  let c: TestCluster
  let w: F.Seeded
  let key: string
  let id: number

  beforeAll(async () => {
    proxy = await redisProxy(process.env.REDIS_URL!)
    c = await startCluster({
      nodes: 2,
      env: {
        REDIS_URL: proxy.url,
        CLUSTER_LEASE_MS: String(LEASE_MS),
        CLUSTER_ASK_TIMEOUT_MS: String(ASK_TIMEOUT_MS),
      },
    })
    w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
    key = await F.apiKey(c.nodes[0]!.server, w)
    id = await c.run(Effect.map(Conversations.create(w.workspaceId, null), (r) => r.id))
    await waitSettled(c)
  }, 120_000)
  afterAll(async () => {
    await proxy?.restore().catch(() => undefined)
    await c?.stop()
    await proxy?.close()
  }, 60_000)

  const append = (n: (typeof c.nodes)[number], body: string) =>
    n.ask('conversation', id, {
      _tag: 'Append',
      direction: 'out',
      type: 'text',
      body,
      sender: {},
      clientId: body,
    })

  it('answers 503 for actors (never hangs), keeps reads, and recovers by itself', async () => {
    for (const n of c.live()) expect((await append(n, `before-${n.name}`)).status).toBe(200)

    await proxy.cut()
    await waitFor('both nodes to notice', async () => {
      const statuses = await Promise.all(c.live().map((n) => n.status()))
      return statuses.every((s) => !s.healthy && s.shards === 0)
    })
    for (const n of c.live()) {
      // Bounded by the ask timeout: the answer arrives (the signal is only a safety net).
      const r = await fetch(`http://127.0.0.1:${n.testPort}/ask`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ actor: 'conversation', id, message: { _tag: 'WhoIsTyping' } }),
        signal: AbortSignal.timeout(ASK_TIMEOUT_MS * 4),
      })
      expect(r.status).toBe(503)
      expect(((await r.json()) as { error: { _tag: string } }).error._tag).toBe('ActorStopped')
      // Requests that need no actor go on (the rate limiter fails open).
      const me = await n.fetch('/v1/me', { headers: F.bearer(key) })
      expect(me.status).toBe(200)
      // The load balancer is told: the node cannot coordinate actors.
      const health = await n.fetch('/healthz')
      expect(health.status).toBe(503)
      expect(((await health.json()) as { data: unknown }).data).toEqual({
        status: 'unavailable',
        database: 'ok',
        cluster: 'down',
        unavailable: ['cluster'],
      })
    }

    await proxy.restore()
    await waitSettled(c)
    for (const n of c.live()) {
      const r = await waitFor(`${n.name} to serve actors again`, async () => {
        const a = await append(n, `after-${n.name}`)
        return a.status === 200 ? a : undefined
      })
      expect(r.body.data.body).toBe(`after-${n.name}`)
      expect(((await (await n.fetch('/healthz')).json()) as { data: { cluster: string } }).data.cluster).toBe(
        'ok',
      )
    }
    const messages = await c.run(Effect.map(Conversations.byId(id), (conv) => conv?.last_seq ?? 0))
    expect(messages).toBe(4)
  }, 120_000)
})
