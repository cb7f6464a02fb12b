import { Cause, Context, Effect, Effectable, Exit, type ManagedRuntime, Option } from 'effect'

/*
 * The fast path: a second way of running effects, kept here and nowhere else. `runFast` is its
 * one entry (the transport runs every request through it); the steps below (`andThen`, `onExit`,
 * `recover`, `Later`) are what hot functions compose instead of `Effect.flatMap`, `Effect.exit`
 * and `Effect.catchTag`. Each takes and returns an ordinary Effect, so outside `runFast` they are
 * plain Effect composition, and:
 * - an effect that is already done (an `Exit`) is continued in plain JavaScript, at once;
 * - an effect whose outcome a callback brings (`Later`: an actor's reply) is continued by that
 *   callback, also without a fiber;
 * - a service tag is looked up in the services of the request being stepped (`withServices`);
 * - anything else is composed the usual way, and from there on runs on a fiber, as before.
 * A request of the API channel thereby reaches its conversation's actor and answers without ever
 * starting a fiber of its own (docs/decisions.md, "The inbound message without a fiber").
 *
 * What a hot function may return and stay fiberless (Effect 3: these constructors are `Exit`s):
 * `Effect.succeed`, `Effect.void`, `Effect.succeedNone`, `Effect.failCause`, `Exit.succeed`,
 * `Exit.fail`, `Exit.die`, a `Later`, a service tag given to `andThen`, and what the steps here
 * return from those. Not `Effect.fail` or `Effect.die` with an object (they read the fiber's
 * span), nor `Effect.map`, `Effect.flatMap`, `Effect.sync`, `Effect.suspend`, `Effect.gen`: each
 * is correct, but sends the request onto a fiber. Nothing fails to compile when that happens, so
 * the runner counts it (`onFiber`; `kotak_http_requests_on_fiber_total` in `/metrics`) and
 * test/http/fastPath.test.ts fails when the API channel's inbound message or `GET /v1/me` does.
 */
/**
 * An effect whose outcome a callback will bring, with two ways to run it: `listen`, for the steps
 * here (its callback receives the effect to go on with, usually an `Exit`), and the effect itself,
 * on a fiber (`onFiber`: the same work as an ordinary effect, interruption and all). Each run,
 * either way, does the work once, as running any effect does; a `Later` made for one waiter (an
 * ask's reply, engine/actor) is run once.
 */
export class Later<A, E = never, R = never> extends Effectable.Class<A, E, R> {
  constructor(
    readonly listen: (k: (next: Effect.Effect<A, E, R>) => void) => void,
    private readonly onFiber: () => Effect.Effect<A, E, R>,
  ) {
    super()
  }

  commit(): Effect.Effect<A, E, R> {
    return this.onFiber()
  }
}

/** The effect's outcome when it is one already (an `Exit` is an effect that has run). */
export const doneAlready = <A, E, R>(self: Effect.Effect<A, E, R>): Exit.Exit<A, E> | undefined =>
  Exit.isExit(self) ? (self as unknown as Exit.Exit<A, E>) : undefined

/**
 * The services of the request being stepped, while its steps run (synchronously, or in a
 * `Later`'s callback, which restores the ones it was made under): a step that asks for a service
 * (`andThen(SomeTag, f)`) gets it without a fiber.
 */
let current: Context.Context<never> | undefined

export const withServices = <A>(services: Context.Context<never> | undefined, f: () => A): A => {
  const outer = current
  current = services
  try {
    return f()
  } finally {
    current = outer
  }
}

/**
 * `f()` for a step, a throw becoming a defect as it would inside `Effect.gen`, so a bug answers
 * 500 instead of escaping the transport (or, in a `Later`'s callback, the actor that answered).
 */
export const attempt = <A, E, R>(f: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  try {
    return f()
  } catch (e) {
    return Exit.die(e)
  }
}

/**
 * A `Later` that goes on with `then(outcome)`, under the services current when it was made; on a
 * fiber, `onFiber` (the same composition as ordinary effects).
 */
const after = <A, E, R, B, E2, R2>(
  self: Later<A, E, R>,
  then: (next: Effect.Effect<A, E, R>) => Effect.Effect<B, E2, R2>,
  onFiber: () => Effect.Effect<B, E2, R2>,
): Later<B, E2, R2> => {
  const services = current
  return new Later<B, E2, R2>(
    (k) => self.listen((next) => k(withServices(services, () => attempt(() => then(next))))),
    onFiber,
  )
}

/** `Effect.flatMap`, run at once when `self` is done, in its callback when it is a `Later`. */
export const andThen = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>,
): Effect.Effect<B, E | E2, R | R2> => {
  const now = doneAlready(self)
  if (now) return Exit.isSuccess(now) ? attempt(() => f(now.value)) : (now as Exit.Exit<never, E>)
  if (self instanceof Later)
    return after(
      self as Later<A, E, R>,
      (next) => andThen(next, f),
      () => Effect.flatMap(self, f),
    )
  if (current !== undefined && Context.isTag(self)) {
    const service = Context.getOption(current, self as unknown as Context.Tag<unknown, A>)
    if (Option.isSome(service)) return attempt(() => f(service.value))
  }
  return Effect.flatMap(self, f)
}

/** `Effect.map(Effect.exit(self), f)`, run at once when `self` is done, or in a `Later`'s callback. */
export const onExit = <A, E, R, B>(
  self: Effect.Effect<A, E, R>,
  f: (exit: Exit.Exit<A, E>) => B,
): Effect.Effect<B, never, R> => {
  const now = doneAlready(self)
  if (now) return attempt(() => Exit.succeed(f(now)))
  if (self instanceof Later)
    return after(
      self as Later<A, E, R>,
      (next) => onExit(next, f),
      () => Effect.map(Effect.exit(self), f),
    )
  return Effect.map(Effect.exit(self), f)
}

/**
 * `Effect.catchIf` on the error's `_tag` (`Effect.catchTag`): the failure of `self`, when its
 * first error has that tag, handled by `f`; run at once or in a `Later`'s callback as above.
 */
export const recover = <A, E extends { readonly _tag: string }, R, K extends E['_tag'], B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  tag: K,
  f: (e: Extract<E, { readonly _tag: K }>) => Effect.Effect<B, E2, R2>,
): Effect.Effect<A | B, Exclude<E, { readonly _tag: K }> | E2, R | R2> => {
  const now = doneAlready(self)
  if (now) {
    if (Exit.isSuccess(now)) return now as unknown as Exit.Exit<A, never>
    const failure = Cause.failureOption(now.cause)
    if (Option.isNone(failure) || (failure.value as { readonly _tag?: unknown } | null)?._tag !== tag)
      return now as Exit.Exit<never, Exclude<E, { readonly _tag: K }>>
    return attempt(() => f(failure.value as Extract<E, { readonly _tag: K }>))
  }
  const onFiber = () =>
    Effect.catchIf(
      self,
      (e): e is Extract<E, { readonly _tag: K }> => (e as { readonly _tag?: unknown } | null)?._tag === tag,
      f,
    ) as Effect.Effect<A | B, Exclude<E, { readonly _tag: K }> | E2, R | R2>
  if (self instanceof Later) return after(self as Later<A, E, R>, (next) => recover(next, tag, f), onFiber)
  return onFiber()
}

/**
 * Runs a request's effect synchronously as far as it goes: a request that needs no I/O (a cached
 * credential, an in-process rate limit, a cached answer) completes in the same tick, with no
 * Promise and no microtask hop; one that waits for an actor's reply (`Later`) is answered from
 * that reply's callback; one that waits on anything else continues on a fiber (`onFiber` is told)
 * and answers when it ends. `done(null)` means the effect did not succeed (the pipeline never
 * fails, so only a fault of the runtime itself, such as a node shutting down).
 */
export const runFast =
  <R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>, onFiber?: () => void) =>
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
      onFiber?.()
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
