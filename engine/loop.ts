import { type Duration, Effect, Schedule } from 'effect'
import { Log } from './log'

/**
 * A node's background round (roll-ups, reminders, billing, the tab counts' fold): `work` every
 * `every` for the life of the node. A failed round is logged as "`what` failed" and the next one
 * runs as planned.
 */
export const everyLogged = <A, E, R>(
  what: string,
  every: Duration.DurationInput,
  work: Effect.Effect<A, E, R>,
) =>
  work.pipe(
    Effect.catchAllCause((cause) =>
      Effect.flatMap(Log, (log) => Effect.sync(() => log.error(`${what} failed`, { cause: String(cause) }))),
    ),
    Effect.repeat(Schedule.spaced(every)),
  )
