import { randomUUID } from 'node:crypto'
import { describe, expect, it } from '@effect/vitest'
import { Context, Effect, Layer, Logger } from 'effect'
import { Redis } from 'ioredis'
import { RateLimiter, type RateLimiterShape, WINDOW_MS } from '../../engine/ratelimit/RateLimiter'
import * as RateLimiterMemory from '../../engine/ratelimit/RateLimiterMemory'
import * as RateLimiterRedis from '../../engine/ratelimit/RateLimiterRedis'

const REDIS_URL = process.env.REDIS_URL

/** Builds `layer`, hands its limiter to `f`, and releases the layer afterwards. */
const withLimiter = <A>(
  layer: Layer.Layer<RateLimiter>,
  f: (limiter: RateLimiterShape) => Effect.Effect<A>,
) => Effect.scoped(Effect.flatMap(Layer.build(layer), (ctx) => f(Context.get(ctx, RateLimiter))))

// The next minute, not a fixed date: Redis expires counters by its own clock, so pinned times must
// stay near the real one; and the whole minute lies ahead, so no test runs into its end.
const nextMinute = () => (Math.floor(Date.now() / WINDOW_MS) + 1) * WINDOW_MS

/** Log lines written while `effect` runs, as `LEVEL message`. */
const captureLogs = <A, E>(effect: Effect.Effect<A, E>) => {
  const lines: string[] = []
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${[message].flat().join(' ')}`)
  })
  return Effect.map(
    Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)),
    (a) => [a, lines] as const,
  )
}

/** The contract, run against every adapter; `makeLayer` gives each test a limiter of its own. */
const rateLimiterSuite = (name: string, makeLayer: () => Layer.Layer<RateLimiter>) =>
  describe(name, () => {
    const run = <A>(f: (limiter: RateLimiterShape) => Effect.Effect<A>) => withLimiter(makeLayer(), f)

    it.live('counts this hit and allows up to the limit', () =>
      run((rl) =>
        Effect.gen(function* () {
          const t = nextMinute()
          const results = yield* Effect.forEach([0, 1, 30_000, 59_998, 59_999], (dt) =>
            rl.hit('k', 3, t + dt),
          )
          expect(results.map((r) => [r.allowed, r.remaining])).toEqual([
            [true, 2],
            [true, 1],
            [true, 0],
            [false, 0],
            [false, 0],
          ])
          for (const r of results) {
            expect(r.limit).toBe(3)
            expect(r.resetAtMs).toBe(t + WINDOW_MS)
          }
        }),
      ),
    )

    it.live('starts a new window on the minute', () =>
      run((rl) =>
        Effect.gen(function* () {
          const t = nextMinute()
          yield* rl.hit('k', 2, t + 59_999)
          expect((yield* rl.hit('k', 2, t + 59_999)).remaining).toBe(0)
          const next = yield* rl.hit('k', 2, t + WINDOW_MS)
          expect(next).toEqual({ allowed: true, limit: 2, remaining: 1, resetAtMs: t + 2 * WINDOW_MS })
        }),
      ),
    )

    it.live('counts keys apart', () =>
      run((rl) =>
        Effect.gen(function* () {
          const t = nextMinute()
          expect((yield* rl.hit('a', 1, t)).allowed).toBe(true)
          expect((yield* rl.hit('a', 1, t)).allowed).toBe(false)
          expect(yield* rl.hit('b', 1, t)).toEqual({
            allowed: true,
            limit: 1,
            remaining: 0,
            resetAtMs: t + WINDOW_MS,
          })
        }),
      ),
    )

    it.live('judges each hit by the limit it is given, over one count', () =>
      run((rl) =>
        Effect.gen(function* () {
          const t = nextMinute()
          yield* Effect.repeatN(rl.hit('k', 10, t), 2)
          expect(yield* rl.hit('k', 2, t)).toEqual({
            allowed: false,
            limit: 2,
            remaining: 0,
            resetAtMs: t + WINDOW_MS,
          })
          expect((yield* rl.hit('k', 10, t)).remaining).toBe(5)
        }),
      ),
    )

    it.live('never lets concurrent hits share the last slot', () =>
      run((rl) =>
        Effect.gen(function* () {
          const t = nextMinute()
          const results = yield* Effect.all(
            Array.from({ length: 50 }, () => rl.hit('k', 10, t)),
            { concurrency: 'unbounded' },
          )
          const allowed = results.filter((r) => r.allowed)
          expect(allowed).toHaveLength(10)
          expect(allowed.map((r) => r.remaining).sort((x, y) => x - y)).toEqual([
            0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
          ])
        }),
      ),
    )

    it.live('takes the time from the clock when none is given', () =>
      run((rl) =>
        Effect.gen(function* () {
          const before = Date.now()
          const first = yield* rl.hit('k', 5)
          expect(first.resetAtMs % WINDOW_MS).toBe(0)
          expect(first.resetAtMs).toBeGreaterThan(before)
          expect(first.resetAtMs - WINDOW_MS).toBeLessThanOrEqual(Date.now())
          // Pinned to the same window, the next hit shares its count.
          expect((yield* rl.hit('k', 5, first.resetAtMs - 1)).remaining).toBe(3)
        }),
      ),
    )
  })

rateLimiterSuite('RateLimiter (memory)', () => RateLimiterMemory.layerMemory)

// Cluster mode needs Redis by design; the in-memory limiter (a single node, either database) is above.
describe.skipIf(!REDIS_URL)('Redis', () => {
  rateLimiterSuite('RateLimiter (redis)', () =>
    RateLimiterRedis.layerRedis(REDIS_URL!, { prefix: `test:${randomUUID()}:` }),
  )

  it.live('keeps one counter per key and minute, expiring just after its minute', () =>
    Effect.gen(function* () {
      const prefix = `test:${randomUUID()}:`
      const t = nextMinute()
      const probe = new Redis(REDIS_URL!)
      try {
        yield* withLimiter(RateLimiterRedis.layerRedis(REDIS_URL!, { prefix }), (rl) =>
          Effect.repeatN(rl.hit('ip:1', 5, t), 1),
        )
        const key = `${prefix}rl:ip:1:${t / WINDOW_MS}`
        expect(yield* Effect.promise(() => probe.get(key))).toBe('2')
        const expireAt = yield* Effect.promise(() => probe.pexpiretime(key))
        expect(expireAt).toBeGreaterThanOrEqual(t + WINDOW_MS)
        expect(expireAt).toBeLessThanOrEqual(t + WINDOW_MS + 10_000)
      } finally {
        probe.disconnect()
      }
    }),
  )

  it.live('leaves a connection it was given open', () =>
    Effect.gen(function* () {
      const redis = new Redis(REDIS_URL!)
      try {
        yield* withLimiter(RateLimiterRedis.layerRedis(redis, { prefix: `test:${randomUUID()}:` }), (rl) =>
          rl.hit('k', 1),
        )
        expect(yield* Effect.promise(() => redis.ping())).toBe('PONG')
      } finally {
        redis.disconnect()
      }
    }),
  )
})

describe('RateLimiter (memory) sweep', () => {
  it.effect('drops older windows when a new one starts', () =>
    Effect.gen(function* () {
      const rl = RateLimiterMemory.make()
      const t = nextMinute()
      for (let i = 0; i < 100; i++) yield* rl.hit(`ip:${i}`, 10, t)
      expect(rl.size()).toBe(100)
      yield* rl.hit('ip:0', 10, t + WINDOW_MS)
      expect(rl.size()).toBe(1)
    }),
  )
})

describe('RateLimiter (redis) outage', () => {
  it.live('fails open and warns once per outage', () =>
    Effect.gen(function* () {
      // Nothing listens on port 1: every command fails.
      const layer = RateLimiterRedis.layerRedis('redis://127.0.0.1:1', { timeoutMs: 200 })
      const [results, logs] = yield* captureLogs(
        withLimiter(layer, (rl) => Effect.forEach([1, 2, 3], () => rl.hit('k', 1))),
      )
      for (const r of results) expect(r).toMatchObject({ allowed: true, limit: 1, remaining: 1 })
      expect(logs.filter((l) => l.startsWith('WARN'))).toHaveLength(1)
    }),
  )
})
