import { type Effect, Exit, type ManagedRuntime } from 'effect'
import { doneAlready, Later } from '../engine/step'

/**
 * Runs a request's effect synchronously as far as it goes (its steps: engine/step.ts): a request
 * that needs no I/O (a cached credential, an in-process rate limit, a cached answer) completes in
 * the same tick, with no Promise and no microtask hop; one that waits for an actor's reply
 * (`Later`) is answered from that reply's callback; one that waits on anything else continues on
 * a fiber and answers when it ends. `done(null)` means the effect did not succeed (the pipeline
 * never fails, so only a fault of the runtime itself, such as a node shutting down).
 */
export const runFast =
  <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>) =>
  <A>(effect: Effect.Effect<A, never, R>, done: (value: A | null) => void): void => {
    const go = (next: Effect.Effect<A, never, R>): void => {
      const now = doneAlready(next)
      if (now) {
        done(Exit.isSuccess(now) ? now.value : null)
        return
      }
      if (next instanceof Later) {
        ;(next as Later<A, never, R>).listen(go)
        return
      }
      // Started at once on this stack, so work that never waits is done when runFork returns. Not
      // `runSyncExit`: for a request that waits, that builds an AsyncFiberException (an Error, with
      // its stack captured) only to say so, on every such request.
      const fiber = runtime.runFork(next)
      const exit = fiber.unsafePoll()
      if (exit) {
        done(Exit.isSuccess(exit) ? exit.value : null)
        return
      }
      fiber.addObserver((e) => done(Exit.isSuccess(e) ? e.value : null))
    }
    go(effect)
  }
