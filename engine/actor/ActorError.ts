/**
 * The actor kit's errors and the few types its machinery shares with the typed surface: kept
 * apart so that `Actor.ts` (public) and `internal.ts` (machinery) both import them and not each
 * other. `Actor.ts` re-exports everything here.
 */
import type { Cause } from 'effect'
import { Data } from 'effect'

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/** The actor (or this entity) was stopped before the message could be answered. */
export class ActorStopped extends Data.TaggedError('ActorStopped')<{
  readonly actor: string
  readonly id: string
}> {
  override get message(): string {
    return `actor ${this.actor}/${this.id} is stopped`
  }
}

/** A handler died (threw or `Effect.die`); the entity was restarted. */
export class ActorDefect extends Data.TaggedError('ActorDefect')<{
  readonly actor: string
  readonly id: string
  readonly tag: string
  readonly cause: Cause.Cause<unknown>
}> {
  override get message(): string {
    return `actor ${this.actor}/${this.id} crashed handling ${this.tag}; it was restarted`
  }
}

/** `load` failed or died; the entity stays unloaded and the next message retries the load. */
export class ActorLoadFailed extends Data.TaggedError('ActorLoadFailed')<{
  readonly actor: string
  readonly id: string
  readonly cause: Cause.Cause<unknown>
}> {
  override get message(): string {
    return `actor ${this.actor}/${this.id} failed to load its state`
  }
}

/** Every error the kit itself adds to an `ask`. */
export type ActorError = ActorStopped | ActorDefect | ActorLoadFailed

/** Entity ids are primitives so that the registry can key on them. */
export type EntityId = string | number

/** What a handler knows besides its state and message. */
export interface HandlerContext<Id extends EntityId> {
  readonly actor: string
  readonly id: Id
}
