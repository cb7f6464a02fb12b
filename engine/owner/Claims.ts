import { Data, Effect, type Scope } from 'effect'

/**
 * Claims: which node of a cluster owns a key (a number) of one key space, so that long-lived work
 * for that key runs on exactly one node.
 *
 * Guarantees:
 * - At most one holder per key at a time, cluster-wide, while the backing store keeps its claims.
 * - A claim lasts until `release`, until the claims' scope closes, or until the store loses them
 *   all at once (a broken connection): then `onLost` is called, once, and the holder must stop its
 *   work at once, because another node may already hold the keys; `tryClaim` later competes again.
 * - Claiming a key this holder already holds is not idempotent in every adapter (PostgreSQL
 *   advisory locks stack): the caller keeps track of what it holds and claims a key once.
 * - `tryClaim` never waits for a holder to let go; it answers at once.
 *
 * Adapters: `local` (one node: every claim is granted) here, `ClaimsPg` (session-level advisory
 * locks on a dedicated connection) beside it.
 */
export interface ClaimsShape {
  readonly tryClaim: (key: number) => Effect.Effect<boolean, ClaimsUnavailable>
  /** Gives a held key up; a no-op when the claims are already lost. */
  readonly release: (key: number) => Effect.Effect<void>
}

/** The store could not be asked (connection refused, query failed): the claim is not granted. */
export class ClaimsUnavailable extends Data.TaggedError('ClaimsUnavailable')<{ readonly cause: unknown }> {
  override get message(): string {
    return `claims unavailable: ${this.cause instanceof Error ? this.cause.message : String(this.cause)}`
  }
}

/** Opens a set of claims for one holder; they are all given up when the scope closes. */
export type MakeClaims = (onLost: () => void) => Effect.Effect<ClaimsShape, never, Scope.Scope>

/** A single node owns everything (the embedded database, tests): every claim is granted. */
export const local: MakeClaims = () =>
  Effect.succeed({ tryClaim: () => Effect.succeed(true), release: () => Effect.void })
