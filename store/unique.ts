import type { SqlError } from '@effect/sql/SqlError'
import { Effect } from 'effect'

/**
 * A write refused by a unique index (PostgreSQL's 23505) answers `taken` instead of failing: the
 * check before it passed, and another write took the name meanwhile (two saves at once). The
 * caller answers that as the duplicate it is (a 422), not as a server fault.
 */
export const orIfTaken =
  <T>(taken: T) =>
  <A, R>(write: Effect.Effect<A, SqlError, R>): Effect.Effect<A | T, SqlError, R> =>
    Effect.catchTag(write, 'SqlError', (e) =>
      String((e.cause as { code?: string } | undefined)?.code) === '23505'
        ? Effect.succeed(taken)
        : Effect.fail(e),
    )
