import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { get, key, type SocialTestServer, startSocialServer, workspace } from './support'

/**
 * 60 requests per minute per key (spec 3 §8), in fixed windows aligned to the clock minute; in
 * Redis when REDIS_URL is set (under the service's own prefix), in memory otherwise.
 */
let s: SocialTestServer
let ws: number

beforeAll(async () => {
  s = await startSocialServer()
  ws = await workspace(s)
})
afterAll(() => s?.stop())

/**
 * A burst must fit in one window: near the end of a minute, wait for the next one to begin.
 * (This only places the burst; no assertion depends on timing.)
 */
const freshWindow = async () => {
  const into = Date.now() % 60_000
  if (into > 45_000) await new Promise((r) => setTimeout(r, 60_000 - into + 100))
}

describe('rate limit', () => {
  it('allows 60 requests a minute per key, then 429 with Retry-After', async () => {
    await freshWindow()
    const k = await key(s, ws)
    for (let i = 1; i <= 60; i++) {
      const r = await get(s, k, '/api/v1/tickets')
      expect(r.status).toBe(200)
      expect(r.headers.get('x-ratelimit-limit')).toBe('60')
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(60 - i))
    }
    const over = await get(s, k, '/api/v1/tickets')
    expect(over.status).toBe(429)
    expect(over.body.error.code).toBe('rate_limited')
    expect(over.headers.get('x-ratelimit-limit')).toBe('60')
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
    const retry = Number(over.headers.get('retry-after'))
    expect(Number.isInteger(retry)).toBe(true)
    expect(retry).toBeGreaterThanOrEqual(1)
    expect(retry).toBeLessThanOrEqual(60)
    expect(over.body.error.message).toContain(String(retry))
    // Every request counts, whatever it asks for.
    expect((await get(s, k, '/api/v1/nope')).status).toBe(429)
    expect((await get(s, k, '/api/v1/reports/summary')).status).toBe(429)
    // Another key of the same workspace has a budget of its own.
    const other = await get(s, await key(s, ws), '/api/v1/tickets')
    expect(other.status).toBe(200)
    expect(other.headers.get('x-ratelimit-remaining')).toBe('59')
  })

  it('sends the rate headers on every response to a key', async () => {
    await freshWindow()
    const k = await key(s, ws)
    const free = await key(s, await workspace(s, 'free'))
    const cases: Array<[string, string, number]> = [
      [k, '/api/v1/conversations', 200],
      [k, '/api/v1/conversations/424242', 404],
      [k, '/api/v1/unknown', 404],
      [k, '/api/v1/tickets?status=x', 422],
      [free, '/api/v1/tickets', 402],
    ]
    for (const [kk, p, status] of cases) {
      const r = await get(s, kk, p)
      expect(r.status).toBe(status)
      expect(r.headers.get('x-ratelimit-limit')).toBe('60')
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeLessThan(60)
    }
    const res = await s.fetch('/api/v1/tickets', {
      method: 'DELETE',
      headers: { authorization: `Bearer ${k}` },
    })
    expect(res.status).toBe(405)
    expect(res.headers.get('x-ratelimit-remaining')).toBe('55')
  })

  it('never rate limits /healthz and /metrics, even when the probe sends a key', async () => {
    await freshWindow()
    const k = await key(s, ws)
    for (let i = 0; i < 70; i++) {
      const res = await s.fetch(i % 2 ? '/metrics' : '/healthz', {
        headers: { authorization: `Bearer ${k}` },
      })
      expect(res.status).toBe(200)
      expect(res.headers.get('x-ratelimit-limit')).toBeNull()
      await res.arrayBuffer()
    }
    // The key's own budget is untouched by the probes.
    expect((await get(s, k, '/api/v1/tickets')).headers.get('x-ratelimit-remaining')).toBe('59')
  })

  // Cluster mode needs Redis by design; without it the counts are in memory (the tests above).
  it.runIf(process.env.REDIS_URL)('counts in Redis under the service’s own prefix', async () => {
    const k = await key(s, ws)
    await get(s, k, '/api/v1/tickets')
    const redis = new Redis(process.env.REDIS_URL!)
    try {
      const keys = await redis.keys(`${s.cfg.redisPrefix}rl:key:*`)
      expect(s.cfg.redisPrefix).toMatch(/social:$/)
      expect(keys.length).toBeGreaterThan(0)
    } finally {
      redis.disconnect()
    }
  })
})
