import { Cause, type Effect, Exit, type Fiber, type ManagedRuntime, Option, Runtime } from 'effect'

/**
 * Runs a request's effect synchronously as far as it goes: a request that needs no I/O (a cached
 * credential, an in-process rate limit, a cached answer) completes in the same tick, with no
 * Promise and no microtask hop, and one that waits continues on its fiber and answers when it
 * ends. `done(null)` means the effect did not succeed (the pipeline never fails, so only a fault
 * of the runtime itself, such as a node shutting down).
 */
export const runFast =
  <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>) =>
  <A>(effect: Effect.Effect<A, never, R>, done: (value: A | null) => void): void => {
    const exit = runtime.runSyncExit(effect)
    if (Exit.isSuccess(exit)) {
      done(exit.value)
      return
    }
    const defect = Cause.dieOption(exit.cause)
    if (Option.isSome(defect) && Runtime.isAsyncFiberException(defect.value)) {
      // The fiber is the one running `effect`, so what it ends with is an A.
      ;(defect.value.fiber as Fiber.RuntimeFiber<A, never>).addObserver((e) =>
        done(Exit.isSuccess(e) ? e.value : null),
      )
      return
    }
    done(null)
  }
