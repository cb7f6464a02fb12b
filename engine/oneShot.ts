import { Effect, type Exit } from 'effect'

/**
 * One answer handed from one fiber to one waiting fiber: what `Deferred` does for a request and its
 * reply (the actor mailbox's asks, the group commit's submitters), without its fiber id, reference
 * cell and list of joiners. Every inbound message makes two; building a `Deferred` (a literal that
 * spreads its prototype's symbol-keyed fields) took V8's slow runtime path, a few per cent of the
 * server's CPU in profiles of the storm benchmark.
 *
 * Completed at most once (later completions are ignored, as `Deferred.unsafeDone`'s are). `await`
 * is meant for one waiter; a waiter interrupted before the answer simply stops waiting, and the
 * answer, when it comes, goes nowhere.
 */
export class OneShot<A, E> {
  private exit: Exit.Exit<A, E> | undefined = undefined
  private resume: ((exit: Exit.Exit<A, E>) => void) | undefined = undefined

  complete(exit: Exit.Exit<A, E>): void {
    if (this.exit !== undefined) return
    this.exit = exit
    const resume = this.resume
    if (resume !== undefined) {
      this.resume = undefined
      resume(exit)
    }
  }

  /**
   * Calls `k` with the answer, at once when it is in, else when it comes: the wait of a caller
   * without a fiber (engine/step.ts `Later`). Instead of `await`, never besides it.
   */
  listen(k: (exit: Exit.Exit<A, E>) => void): void {
    if (this.exit !== undefined) k(this.exit)
    else this.resume = k
  }

  /** The answer: at once when it is in, else when it comes. */
  get await(): Effect.Effect<A, E> {
    if (this.exit !== undefined) return this.exit
    // One parameter: a register function that takes two is handed an AbortSignal, made per call.
    return Effect.async<A, E>((resume) => {
      if (this.exit !== undefined) resume(this.exit)
      else this.resume = resume
    })
  }
}
