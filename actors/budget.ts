import { Clock, Effect } from 'effect'
import { RateLimiter } from '../engine/ratelimit/RateLimiter'
import { rateLimitedUntil } from './errors'

/**
 * Spends one of `key`'s `perMinute` (the node's rate limiter: memory, or Redis across nodes);
 * past it, 429 `rate_limited` with Retry-After. The domain's own budgets (sign-in links, passkey
 * sign-ins, the first-run claim, live chats started) beside the request pipeline's per caller.
 */
export const spend = (key: string, perMinute: number) =>
  Effect.flatMap(RateLimiter, (limiter) =>
    Effect.flatMap(limiter.hit(key, perMinute), (r) =>
      r.allowed
        ? Effect.void
        : // The limiter's window is on Effect's clock.
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.fail(rateLimitedUntil(r.resetAtMs, now))),
    ),
  )
