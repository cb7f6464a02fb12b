import { Deferred, Effect, Exit } from 'effect'

/**
 * A small keyed memo for expensive reads that many requests ask at once (the inbox's per-tab
 * counts): concurrent callers of one key share one computation, and a result is reused while its
 * `stamp` (a cheap "has anything changed?" value the caller reads first) is unchanged and it is
 * younger than `ttlMs`. Failures are not kept.
 */
interface Entry<A, E> {
  readonly stamp: string
  readonly until: number
  readonly value: Deferred.Deferred<A, E>
}

export interface Memo<A, E> {
  readonly get: <R>(key: string, stamp: string, compute: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = <A, E>(ttlMs: number, maxEntries = 10_000): Memo<A, E> => {
  const entries = new Map<string, Entry<A, E>>()
  return {
    get: (key, stamp, compute) =>
      Effect.suspend(() => {
        // An age, not a time of day: the monotonic clock.
        const now = performance.now()
        const hit = entries.get(key)
        if (hit && hit.stamp === stamp && hit.until > now) return Deferred.await(hit.value)
        return Effect.flatMap(Deferred.make<A, E>(), (value) => {
          entries.delete(key)
          // Oldest first out when full; a Map keeps insertion order.
          if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
          entries.set(key, { stamp, until: now + ttlMs, value })
          return compute.pipe(
            Effect.onExit((exit) =>
              Effect.zipRight(
                Deferred.done(value, exit),
                Effect.sync(() => {
                  if (Exit.isFailure(exit) && entries.get(key)?.value === value) entries.delete(key)
                }),
              ),
            ),
          )
        })
      }),
  }
}
