import { Effect, type Scope } from 'effect'
import type { Redis } from 'ioredis'

/**
 * Redis connections owned by a scope, opened and closed one way for every adapter (bus, rate
 * limiter, cluster storage).
 */

/**
 * QUIT lets replies under way arrive (for at most a second); a connection that is down just
 * drops. Finalizers run uninterruptibly, so the wait is made interruptible for the timeout.
 */
export const close = (r: Redis) =>
  Effect.interruptible(Effect.tryPromise(() => r.quit())).pipe(
    Effect.timeout(1_000),
    Effect.when(() => r.status === 'ready'),
    Effect.ignore,
    Effect.ensuring(Effect.sync(() => r.disconnect())),
  )

/**
 * A connection for the scope's life. `onError` hears connection errors; without a listener
 * ioredis prints every one of them, so the default listens and drops them (callers that care
 * surface failures through their own operations).
 */
export const scoped = (
  create: () => Redis,
  onError: (error: unknown) => void = () => {},
): Effect.Effect<Redis, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const r = create()
      r.on('error', onError)
      return r
    }),
    close,
  )
