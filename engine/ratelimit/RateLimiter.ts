import { Context, type Effect } from 'effect'

export interface RateLimitResult {
  readonly allowed: boolean
  readonly limit: number
  /** Hits left in this window after this one: `max(0, limit - count)`. */
  readonly remaining: number
  /** Start of the next window (the next wall-clock minute), epoch ms. */
  readonly resetAtMs: number
}

/**
 * Fixed-window request counting aligned to the wall-clock minute (window = floor(now / 60 000)).
 * `hit` counts this request and says whether it is within `limit` (`count <= limit`). `nowMs`
 * defaults to the Effect `Clock`; pass it only to pin the window (it must be close to real time for
 * the Redis adapter, whose keys expire by Redis' clock).
 *
 * Guarantees:
 * - The count for a key and window is atomic: concurrent hits never both take the last slot. The
 *   memory adapter holds this on one node, the Redis adapter across every node sharing the Redis.
 * - A fixed window allows up to `2 × limit` hits across a minute boundary; that is the spec's model.
 * - Memory is bounded by the keys hit in the current window: older windows are dropped (memory) or
 *   expire just after their minute ends (Redis).
 * - `hit` never fails. If Redis is unreachable or slower than the adapter's timeout, the Redis
 *   adapter fails open: it allows the request, reports `remaining = limit`, and logs one warning per
 *   outage (and one line when Redis answers again). Losing the limiter must not take the API down.
 */
export interface RateLimiterShape {
  readonly hit: (key: string, limit: number, nowMs?: number) => Effect.Effect<RateLimitResult>
  /**
   * `hit` at the wall clock's now, answered at once; only adapters that count without I/O (the
   * memory one) have it, so the request path needs no fiber for its rate limit on one node.
   */
  readonly hitNow?: (key: string, limit: number) => RateLimitResult
}

export class RateLimiter extends Context.Tag('kotak/RateLimiter')<RateLimiter, RateLimiterShape>() {}

export const WINDOW_MS = 60_000

export const windowOf = (nowMs: number): number => Math.floor(nowMs / WINDOW_MS)

/** The contract's arithmetic, shared by every adapter: `count` includes this hit. */
export const resultOf = (limit: number, count: number, window: number): RateLimitResult => ({
  allowed: count <= limit,
  limit,
  remaining: Math.max(0, limit - count),
  resetAtMs: (window + 1) * WINDOW_MS,
})
