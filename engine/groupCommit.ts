import { Deferred, Effect, Exit, FiberId, Runtime, type Scope } from 'effect'

/**
 * Group commit: callers submit items one by one; a flush writes what has gathered as one unit
 * (one statement, one commit) and answers each item with its own exit. A flush starts as soon as
 * an item arrives and fewer than `concurrency` flushes run, so an idle writer adds no wait, and
 * under load the items that arrive during a flush (a millisecond or two) share the next one, up
 * to `maxItems`. There is no timer: the database's own pace sets the batch size.
 *
 * Guarantees: every submitted item is flushed exactly once and its submitter answered with what
 * the flush said of it (a flush's defect or missing exit answers its items with a defect). A
 * submitter interrupted while waiting does not withdraw its item: once submitted, it is written.
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
}

export const make = <I, O, E, R>(
  options: GroupCommitOptions<I, O, E, R>,
): Effect.Effect<GroupCommit<I, O, E>, never, R | Scope.Scope> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R>()
    const fork = Runtime.runFork(runtime)
    const pending: Array<{ readonly item: I; readonly done: Deferred.Deferred<O, E> }> = []
    let running = 0

    const kick = (): void => {
      while (running < options.concurrency && pending.length > 0) {
        const batch = pending.splice(0, options.maxItems)
        running++
        fork(
          Effect.suspend(() => options.flush(batch.map((p) => p.item))).pipe(
            Effect.exit,
            Effect.tap((exit) => {
              for (const [i, p] of batch.entries()) {
                const each = Exit.isSuccess(exit)
                  ? (exit.value[i] ?? Exit.die(new Error(`group commit: no answer for item ${i}`)))
                  : (exit as Exit.Exit<never, never>)
                Deferred.unsafeDone(p.done, each)
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
      }
    }

    return {
      submit: (item) =>
        Effect.suspend(() => {
          const done = Deferred.unsafeMake<O, E>(FiberId.none)
          pending.push({ item, done })
          kick()
          return Deferred.await(done)
        }),
    }
  })
