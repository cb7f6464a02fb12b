import { readFileSync } from 'node:fs'
import { Clock, Effect, Layer, type Scope } from 'effect'
import type { Redis } from 'ioredis'
import * as RedisConnection from '../redis'
import { sourcePath } from '../sourceTree'
import { RateLimiter, type RateLimiterShape, resultOf, WINDOW_MS, windowOf } from './RateLimiter'

const script = readFileSync(sourcePath('engine', 'ratelimit', 'fixedWindow.lua'), 'utf8')

export interface RedisRateLimiterOptions {
  /** Prefix of every key (`${prefix}rl:${key}:${window}`), so deployments and tests can share a Redis. */
  readonly prefix?: string
  /** How long a hit waits for Redis before failing open; 500 ms by default. */
  readonly timeoutMs?: number
}

/** Counters outlive their minute a little, so a Redis clock running ahead of ours cannot reset them early. */
const EXPIRY_GRACE_MS = 5_000

// defineCommand sends EVALSHA and falls back to EVAL once per connection when Redis lacks the script.
const COMMAND = 'kotakRateLimitFixedWindow'
type WithCommand = Redis & {
  readonly [COMMAND]: (key: string, expireAtMs: number) => Promise<number>
}

/** Counters shared by every node through one Redis; the caller owns `redis`. */
export const make = (redis: Redis, options: RedisRateLimiterOptions = {}): RateLimiterShape => {
  const prefix = options.prefix ?? 'kotak:'
  const timeoutMs = options.timeoutMs ?? 500
  redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: script })
  const command = redis as WithCommand

  // One warning per outage and one line on recovery: a limiter hit on every request must not flood the log.
  let down = false
  const failed = (error: unknown) =>
    Effect.suspend(() => {
      if (down) return Effect.void
      down = true
      return Effect.logWarning('rate limiter: Redis unavailable, allowing requests until it answers').pipe(
        Effect.annotateLogs({ error: String(error) }),
      )
    })
  const recovered = Effect.suspend(() => {
    if (!down) return Effect.void
    down = false
    return Effect.logInfo('rate limiter: Redis answers again')
  })

  return {
    hit: (key, limit, nowMs) =>
      Effect.flatMap(nowMs === undefined ? Clock.currentTimeMillis : Effect.succeed(nowMs), (now) => {
        const window = windowOf(now)
        const expireAtMs = (window + 1) * WINDOW_MS + EXPIRY_GRACE_MS
        return Effect.tryPromise(() => command[COMMAND](`${prefix}rl:${key}:${window}`, expireAtMs)).pipe(
          Effect.timeout(timeoutMs),
          Effect.tap(recovered),
          Effect.map((count) => resultOf(limit, count, window)),
          // Fail open, reported as if nothing had been counted yet.
          Effect.catchAll((error) => Effect.as(failed(error), resultOf(limit, 0, window))),
        )
      }),
  }
}

/** Opens a connection for a URL (closed with the scope); an instance passed in stays the caller's. */
const connection = (redis: Redis | string): Effect.Effect<Redis, never, Scope.Scope> =>
  typeof redis !== 'string'
    ? Effect.succeed(redis)
    : // Queued commands give up after one reconnect attempt, so an outage fails open quickly.
      // Failures surface through `hit` (logged once per outage).
      // ioredis loads here, with the first Redis layer: a single node never loads it.
      Effect.flatMap(
        Effect.promise(() => import('ioredis')),
        ({ Redis: IORedis }) => RedisConnection.scoped(() => new IORedis(redis, { maxRetriesPerRequest: 1 })),
      )

export const layerRedis = (
  redis: Redis | string,
  options: RedisRateLimiterOptions = {},
): Layer.Layer<RateLimiter> =>
  Layer.scoped(
    RateLimiter,
    Effect.map(connection(redis), (r) => make(r, options)),
  )
