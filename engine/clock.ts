import { Context, Effect, Layer } from 'effect'

/**
 * The wall clock the domain reads for its time windows (message edit and unsend windows, the
 * per-number throttle, timestamps of new messages). System time plus an offset that only tests
 * move, so a 15-minute or 2-day window is checked without sleeping.
 *
 * Guarantees: `millis` never goes backwards on its own (it follows the system clock); `advance`
 * shifts every later reading of this node's clock by `ms` (negative moves back). Nothing is
 * shared between nodes: each node reads its own system clock.
 */
export interface WallClockShape {
  readonly millis: Effect.Effect<number>
  readonly now: Effect.Effect<Date>
  /** Tests only: shifts this node's clock. */
  readonly advance: (ms: number) => Effect.Effect<void>
}

export class WallClock extends Context.Tag('kotak/WallClock')<WallClock, WallClockShape>() {}

export const make = (): WallClockShape => {
  let offset = 0
  const millis = Effect.sync(() => Date.now() + offset)
  return {
    millis,
    now: Effect.map(millis, (ms) => new Date(ms)),
    advance: (ms) =>
      Effect.sync(() => {
        offset += ms
      }),
  }
}

export const layer: Layer.Layer<WallClock> = Layer.sync(WallClock, make)

/** The node's wall-clock time now (the one way domain code reads it). */
export const currentTime: Effect.Effect<Date, never, WallClock> = Effect.flatMap(WallClock, (c) => c.now)

/** The node's wall-clock time now, epoch milliseconds. */
export const currentMillis: Effect.Effect<number, never, WallClock> = Effect.flatMap(
  WallClock,
  (c) => c.millis,
)
