import { Effect, Exit, type ManagedRuntime } from 'effect'

/**
 * Runs a request's effect synchronously as far as it goes: a request that needs no I/O (a cached
 * credential, an in-process rate limit, a cached answer) completes in the same tick, with no
 * Promise and no microtask hop, and one that waits continues on its fiber and answers when it
 * ends. `done(null)` means the effect did not succeed (the pipeline never fails, so only a fault
 * of the runtime itself, such as a node shutting down).
 *
 * An effect that is already an `Exit` (what `Effect.succeed`, `Effect.fail` and the steps below
 * return when nothing waited) is answered without starting a fiber at all.
 */
export const runFast =
  <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>) =>
  <A>(effect: Effect.Effect<A, never, R>, done: (value: A | null) => void): void => {
    const now = doneAlready(effect)
    if (now) {
      done(Exit.isSuccess(now) ? now.value : null)
      return
    }
    // Started at once on this stack, so work that never waits is done when runFork returns. Not
    // `runSyncExit`: for a request that waits, that builds an AsyncFiberException (an Error, with
    // its stack captured) only to say so, on every such request.
    const fiber = runtime.runFork(effect)
    const exit = fiber.unsafePoll()
    if (exit) {
      done(Exit.isSuccess(exit) ? exit.value : null)
      return
    }
    fiber.addObserver((e) => done(Exit.isSuccess(e) ? e.value : null))
  }

/*
 * Steps of the request path. Each takes and returns an ordinary Effect, so callers compose them as
 * they would `Effect.flatMap`; when the effect is already an `Exit` (nothing waited) the next step
 * runs at once, in plain JavaScript, instead of on a fiber. A request whose every step is done
 * (a cached credential, the in-memory rate limit, a handler answering from memory) is thereby
 * answered without the Effect runtime; the first step that waits hands the rest to it.
 */

/** The effect's outcome when it is one already (an `Exit` is an effect that has run). */
const doneAlready = <A, E, R>(self: Effect.Effect<A, E, R>): Exit.Exit<A, E> | undefined =>
  Exit.isExit(self) ? (self as unknown as Exit.Exit<A, E>) : undefined

/** `Effect.flatMap`, run at once when `self` is already done. */
export const andThen = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>,
): Effect.Effect<B, E | E2, R | R2> => {
  const now = doneAlready(self)
  if (!now) return Effect.flatMap(self, f)
  return Exit.isSuccess(now) ? f(now.value) : (now as Exit.Exit<never, E>)
}

/** `Effect.map(Effect.exit(self), f)`, run at once when `self` is already done. */
export const onExit = <A, E, R, B>(
  self: Effect.Effect<A, E, R>,
  f: (exit: Exit.Exit<A, E>) => B,
): Effect.Effect<B, never, R> => {
  const now = doneAlready(self)
  return now ? Exit.succeed(f(now)) : Effect.map(Effect.exit(self), f)
}

/**
 * `Effect.suspend(f)` for a step that may throw while building its effect: a throw becomes a
 * defect, as it would inside `Effect.gen`, so a bug answers 500 instead of escaping the transport.
 */
export const attempt = <A, E, R>(f: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  try {
    return f()
  } catch (e) {
    return Exit.die(e)
  }
}
