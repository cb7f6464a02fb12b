import { Clock, Context, Effect, Layer } from 'effect'

/**
 * The one clock of server code (issue 42). The domain reads wall-clock time here for its time
 * windows (message edit and unsend windows, the per-number throttle, timestamps of new messages).
 *
 * Why WallClock is built on Effect's `Clock` rather than the other way round: a unit test under
 * `TestClock` (or code run with `Effect.withClock`) moves this clock too, with no second mechanism;
 * the offset that `advance` adds is what lets an HTTP-level test move one node's time without
 * slowing or faking its sleeps and timeouts (replacing the runtime's `Clock` with one that jumps would
 * also move Effect's schedules and the libraries' leases). So: Effect's `Clock` is the time source,
 * WallClock is that time plus this node's test offset, and nothing in server code reads the system
 * clock except through this module (`npm run lint` forbids `Date.now()` and `new Date()` elsewhere).
 *
 * Guarantees: `millis` never goes backwards on its own (it follows the system clock); `advance`
 * shifts every later reading of this node's clock by `ms` (negative moves back). Nothing is
 * shared between nodes: each node reads its own system clock.
 */
export interface WallClockShape {
  readonly millis: Effect.Effect<number>
  readonly now: Effect.Effect<Date>
  /**
   * The same reading, synchronously: for hot paths (request pipeline, mailboxes) and callbacks
   * outside an Effect that hold this instance.
   */
  readonly unsafeMillis: () => number
  /** Tests only: shifts this node's clock. */
  readonly advance: (ms: number) => Effect.Effect<void>
}

export class WallClock extends Context.Tag('kotak/WallClock')<WallClock, WallClockShape>() {}

/** `base` is the Effect clock the node reads (the default clock; `TestClock` in a unit test). */
export const make = (base: Clock.Clock = Clock.make()): WallClockShape => {
  let offset = 0
  const unsafeMillis = () => base.unsafeCurrentTimeMillis() + offset
  const millis = Effect.sync(unsafeMillis)
  return {
    millis,
    now: Effect.map(millis, (ms) => new Date(ms)),
    unsafeMillis,
    advance: (ms) =>
      Effect.sync(() => {
        offset += ms
      }),
  }
}

/** Built on the `Clock` of the fiber that builds it. */
export const layer: Layer.Layer<WallClock> = Layer.effect(WallClock, Effect.map(Effect.clock, make))

/** The node's wall-clock time now (the one way domain code reads it). */
export const currentTime: Effect.Effect<Date, never, WallClock> = Effect.flatMap(WallClock, (c) => c.now)

/** The node's wall-clock time now, epoch milliseconds. */
export const currentMillis: Effect.Effect<number, never, WallClock> = Effect.flatMap(
  WallClock,
  (c) => c.millis,
)

const processClock = Clock.make()

/**
 * The process's wall-clock time, epoch milliseconds, for code that holds no WallClock instance:
 * log lines, module-level code, synchronous helpers of the engine's infrastructure (connection pool,
 * health probes). It is the system time WallClock is built on, without a test's offset; domain
 * decisions read `currentMillis`/`currentTime` (or the instance's `unsafeMillis`) instead.
 */
export const systemMillis = (): number => processClock.unsafeCurrentTimeMillis()

/**
 * The same process time as an Effect, for the store's fallbacks (a row written with no time given)
 * that must not require WallClock of their callers (the CLI, tests' database-only runtimes): Effect's
 * `Clock`, so a `TestClock` moves it.
 */
export const systemTime: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
