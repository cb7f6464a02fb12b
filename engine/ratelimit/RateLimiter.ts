import { Context, type Effect } from 'effect'

export interface RateLimitResult {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Start of the next window, epoch ms. */
  readonly resetAtMs: number
}

/**
 * Fixed-window request counting aligned to the wall-clock minute (window = floor(now / 60 000)).
 * `hit` counts this request and says whether it is within `limit`.
 *
 * Guarantees: the count for a key and window is atomic (concurrent hits never both take the last
 * slot). The memory adapter holds on one node; the Redis adapter holds across nodes. If Redis is
 * unreachable, the Redis adapter fails open (allows the request) and logs, so an outage of the
 * limiter store does not take the API down.
 */
export interface RateLimiterShape {
  readonly hit: (key: string, limit: number, nowMs?: number) => Effect.Effect<RateLimitResult>
}

export class RateLimiter extends Context.Tag('kotak/RateLimiter')<RateLimiter, RateLimiterShape>() {}

export const WINDOW_MS = 60_000
