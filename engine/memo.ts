import { Deferred, Effect, Exit } from 'effect'

/**
 * A small keyed memo for expensive reads that many requests ask at once (the inbox's per-tab
 * counts): concurrent callers of one key share one computation, and a result is reused while its
 * `stamp` (a cheap "has anything changed?" value the caller reads first) is unchanged. After
 * `ttlMs` with the stamp unchanged the kept value is still answered at once while one refresh
 * runs behind it (stale while revalidating): a refresh the stamp did not ask for never holds a
 * caller, so many keys made together do not all recompute in the same request a TTL later.
 * Failures are not kept.
 */
interface Entry<A, E> {
  readonly stamp: string
  readonly until: number
  readonly value: Deferred.Deferred<A, E>
  /** The computed value once there is one. */
  settled?: { readonly value: A }
  refreshing?: boolean
}

export interface Memo<A, E> {
  readonly get: <R>(key: string, stamp: string, compute: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}

export const make = <A, E>(ttlMs: number, maxEntries = 10_000): Memo<A, E> => {
  const entries = new Map<string, Entry<A, E>>()
  const put = (key: string, entry: Entry<A, E>) => {
    entries.delete(key)
    // Oldest first out when full; a Map keeps insertion order.
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
    entries.set(key, entry)
  }
  /**
   * Computes the key's value. A first computation is in the map while it runs, so concurrent
   * callers share it; a refresh goes in only once it has its value, the kept one answering meanwhile.
   */
  const start = <R>(
    key: string,
    stamp: string,
    compute: Effect.Effect<A, E, R>,
    /** The kept entry this one refreshes: replaced only if nothing newer took its place. */
    refresh?: Entry<A, E>,
  ) =>
    Effect.flatMap(Deferred.make<A, E>(), (value) => {
      // An age, not a time of day: the monotonic clock.
      const entry: Entry<A, E> = { stamp, until: performance.now() + ttlMs, value }
      if (!refresh) put(key, entry)
      return compute.pipe(
        Effect.onExit((exit) =>
          Effect.zipRight(
            Deferred.done(value, exit),
            Effect.sync(() => {
              if (Exit.isSuccess(exit)) {
                entry.settled = { value: exit.value }
                if (refresh && entries.get(key) === refresh) put(key, entry)
              } else if (entries.get(key) === entry) entries.delete(key)
            }),
          ),
        ),
      )
    })
  return {
    get: (key, stamp, compute) =>
      Effect.suspend(() => {
        const hit = entries.get(key)
        if (hit && hit.stamp === stamp) {
          if (hit.until > performance.now() || !hit.settled) return Deferred.await(hit.value)
          const kept = Effect.succeed(hit.settled.value)
          if (hit.refreshing) return kept
          hit.refreshing = true
          // A failed refresh leaves the kept value for the next caller to refresh again.
          const refresh = start(key, stamp, compute, hit).pipe(
            Effect.catchAll(() =>
              Effect.sync(() => {
                hit.refreshing = false
              }),
            ),
          )
          return Effect.zipRight(Effect.forkDaemon(refresh), kept)
        }
        return start(key, stamp, compute)
      }),
  }
}
