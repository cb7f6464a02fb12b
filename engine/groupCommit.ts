import { Duration, Effect, Exit, Fiber, Runtime, type Scope } from 'effect'
import type { GroupCommitMetrics } from './metrics'
import { OneShot } from './oneShot'

/**
 * Group commit: callers submit items one by one; a flush writes what has gathered as one unit
 * (one statement, one commit) and answers each item with its own exit. A flush starts as soon as
 * an item arrives, fewer than `concurrency` flushes run and the last flush started at least
 * `gatherMs` ago, so an idle writer adds no wait; under load the items that arrive meanwhile
 * share the next flush, up to `maxItems` (which starts one at once). Without the gathering time
 * a moderate load (a message every few hundred microseconds) would commit nearly every message
 * alone, and a commit's fixed cost would be paid per message.
 *
 * Guarantees: every submitted item is flushed exactly once and its submitter answered with what
 * the flush said of it (a flush's defect or missing exit answers its items with a defect). A
 * submitter interrupted while waiting does not withdraw its item: once submitted, it is written.
 *
 * A scoped resource: when its scope closes (the node stopping), what waits is flushed at once,
 * without the gathering time, and the close waits for every flush under way, so a node that
 * stops has written what it was given before the database goes (docs/architecture.md, "Shutdown").
 */
export interface GroupCommit<I, O, E> {
  readonly submit: (item: I) => Effect.Effect<O, E>
}

export interface GroupCommitOptions<I, O, E, R> {
  readonly flush: (items: readonly I[]) => Effect.Effect<ReadonlyArray<Exit.Exit<O, E>>, never, R>
  /** Items per flush at most. */
  readonly maxItems: number
  /** Flushes under way at once (each holds a database connection). */
  readonly concurrency: number
  /** Least time between the starts of two flushes, unless `maxItems` are waiting (0: none). */
  readonly gatherMs?: number
  /** Where each flush's size, its oldest item's wait and its duration are counted. */
  readonly metrics?: GroupCommitMetrics
}

export const make = <I, O, E, R>(
  options: GroupCommitOptions<I, O, E, R>,
): Effect.Effect<GroupCommit<I, O, E>, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R>()
    const clock = yield* Effect.clock
    const fork = Runtime.runFork(runtime)
    // `at`: when the item arrived (monotonic ms), for the wait in the metrics; 0 without them.
    const pending: Array<{ readonly item: I; readonly done: OneShot<O, E>; readonly at: number }> = []
    const gatherMs = options.gatherMs ?? 0
    const metrics = options.metrics
    if (metrics !== undefined) {
      const untrack = metrics.pending(() => pending.length)
      yield* Effect.addFinalizer(() => Effect.sync(untrack))
    }
    let running = 0
    let lastStart = Number.NEGATIVE_INFINITY
    let waiting = false
    let closing = false
    // Flushes run as root fibers (started from plain callbacks, often with no fiber at hand); kept
    // here so that closing can wait for them. The gathering wait is cut short instead.
    const flushes = new Set<Fiber.RuntimeFiber<unknown, unknown>>()
    let gathering: Fiber.RuntimeFiber<unknown, unknown> | undefined

    const kick = (): void => {
      while (running < options.concurrency && pending.length > 0) {
        const wait = lastStart + gatherMs - clock.unsafeCurrentTimeMillis()
        if (wait > 0 && pending.length < options.maxItems && !closing) {
          if (!waiting) {
            waiting = true
            gathering = fork(
              Effect.sleep(Duration.millis(wait)).pipe(
                Effect.ensuring(
                  Effect.sync(() => {
                    waiting = false
                    kick()
                  }),
                ),
              ),
            )
          }
          return
        }
        lastStart = clock.unsafeCurrentTimeMillis()
        const batch = pending.splice(0, options.maxItems)
        running++
        const startedAt = metrics === undefined ? 0 : performance.now()
        if (metrics !== undefined) metrics.started(batch.length, (startedAt - batch[0]!.at) / 1000)
        const flushing = fork(
          Effect.suspend(() => options.flush(batch.map((p) => p.item))).pipe(
            Effect.exit,
            Effect.tap(() => {
              if (metrics !== undefined) metrics.flushed((performance.now() - startedAt) / 1000)
            }),
            Effect.tap((exit) => {
              for (const [i, p] of batch.entries()) {
                const each = Exit.isSuccess(exit)
                  ? (exit.value[i] ?? Exit.die(new Error(`group commit: no answer for item ${i}`)))
                  : (exit as Exit.Exit<never, never>)
                p.done.complete(each)
              }
            }),
            Effect.ensuring(
              Effect.sync(() => {
                running--
                kick()
              }),
            ),
          ),
        )
        flushes.add(flushing)
        flushing.addObserver(() => flushes.delete(flushing))
      }
    }

    // Until nothing waits and no flush runs: each flush that ends starts the next (`kick`), whose
    // fiber is in `flushes` before the one that started it leaves.
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      closing = true
      kick()
      return flushes.size === 0 ? Effect.void : Effect.zipRight(Fiber.awaitAll([...flushes]), drain)
    })
    const close = Effect.suspend(() => {
      closing = true
      // Its end kicks, now without a gathering time; the flush it starts is in `flushes`.
      return gathering === undefined ? drain : Effect.zipRight(Fiber.interrupt(gathering), drain)
    })
    yield* Effect.addFinalizer(() => close)

    return {
      submit: (item) =>
        Effect.suspend(() => {
          const done = new OneShot<O, E>()
          pending.push({ item, done, at: metrics === undefined ? 0 : performance.now() })
          kick()
          return done.await
        }),
    }
  })
