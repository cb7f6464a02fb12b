import * as fs from 'node:fs'
import { Effect, Layer } from 'effect'
import { Redis } from 'ioredis'
import { RateLimiter, type RateLimiterShape, WINDOW_MS } from './RateLimiter'

const script = fs.readFileSync(new URL('./fixedWindow.lua', import.meta.url), 'utf8')

export interface RedisLimiterOptions {
  readonly prefix: string
  readonly onError?: (e: unknown) => void
}

/** Counters shared by every node through Redis: one key per limited key and minute. */
export const make = (redis: Redis, opts: RedisLimiterOptions): RateLimiterShape => {
  redis.defineCommand('kotakFixedWindow', { numberOfKeys: 1, lua: script })
  const run = redis as Redis & { kotakFixedWindow: (key: string, resetAt: number) => Promise<number> }
  return {
    hit: (key, limit, nowMs) =>
      Effect.promise(async () => {
        const now = nowMs ?? Date.now()
        const w = Math.floor(now / WINDOW_MS)
        const resetAtMs = (w + 1) * WINDOW_MS
        try {
          const count = await run.kotakFixedWindow(`${opts.prefix}rl:${key}:${w}`, resetAtMs)
          return { allowed: count <= limit, limit, remaining: Math.max(0, limit - count), resetAtMs }
        } catch (e) {
          // Fail open: an unreachable limiter store must not take the API down (see RateLimiter).
          opts.onError?.(e)
          return { allowed: true, limit, remaining: limit, resetAtMs }
        }
      }),
  }
}

export const layerRedis = (url: string, opts: RedisLimiterOptions) =>
  Layer.scoped(
    RateLimiter,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(
          () => new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false }),
        ),
        (redis) => Effect.promise(() => redis.quit()).pipe(Effect.ignore),
      ),
      (redis) => make(redis, opts),
    ),
  )
