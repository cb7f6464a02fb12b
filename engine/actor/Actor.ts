/**
 * A lean, in-process actor kit: one entity per (type, id), one bounded mailbox per entity and a
 * fiber while it has messages (none while idle), one message at a time.
 *
 * Guarantees (per entity, on one node):
 * - Messages are processed one at a time, in mailbox order (FIFO). Messages sent one after the
 *   other by a single fiber are processed in that order.
 * - A handler's state change is all or nothing: a handler returns the new state together with its
 *   reply; on a typed failure or a defect the old state stays (state must be treated as immutable).
 * - `ask` always completes: with the reply, the handler's typed error, or an `ActorError`.
 *   A defect in a handler fails that ask with `ActorDefect` and restarts the entity (state is
 *   reloaded from `load` before the next message), with exponential backoff when crashes repeat.
 *   A failure of `load` fails the ask with `ActorLoadFailed`; the next message retries the load:
 *   at once when `load` failed with a typed error (its store out of reach, say: waiting would
 *   only delay the first message after the store's return), after the backoff when it died.
 * - A full mailbox makes senders wait (backpressure); it never fails them.
 * - An ask whose caller is interrupted before the entity takes its message is dropped unapplied;
 *   once taken, the message is applied even if nobody waits for the reply any more.
 * - Idle entities (no ask in progress for `idleMs`) are passivated by one sweeper fiber:
 *   `onPassivate` runs with the last state, and the next message loads the entity again.
 *   A new incarnation never loads before the previous one has finished `onPassivate`.
 * - When the scope that made the actor closes, every entity fiber is interrupted and every pending
 *   ask fails with `ActorStopped`. Later asks fail with `ActorStopped` at once.
 *
 * Nothing here survives a process restart; durable state belongs to `load` / `onPassivate`.
 */
import type { Scope } from 'effect'
import { Context, type Effect, type Exit, Layer } from 'effect'
import type { ActorError, ActorStopped, EntityId, HandlerContext } from './ActorError.js'
import * as internal from './internal.js'

export {
  ActorDefect,
  type ActorError,
  ActorLoadFailed,
  ActorStopped,
  type EntityId,
  type HandlerContext,
} from './ActorError.js'

// ---------------------------------------------------------------------------------------------
// Definitions
// ---------------------------------------------------------------------------------------------

/**
 * A handler: `(state, message, ctx) => Effect<readonly [reply, newState], E, R>`.
 * The message parameter's type (minus `_tag`) is the payload callers send with that tag.
 */
export type Handler<Id extends EntityId, S> = (
  state: S,
  msg: never,
  ctx: HandlerContext<Id>,
) => Effect.Effect<readonly [unknown, S], unknown, unknown>

/** Handlers keyed by message `_tag`. */
export type Handlers<Id extends EntityId, S> = { readonly [tag: string]: Handler<Id, S> }

export interface Definition<Id extends EntityId, S, H extends Handlers<Id, S>, LE, LR, PR> {
  /** The entity type's name, used in errors and logs. */
  readonly name: string
  /** Loads an entity's state on first use and after a restart or passivation. */
  readonly load: (id: Id) => Effect.Effect<S, LE, LR>
  /** One handler per message `_tag`. */
  readonly handlers: H
  /** Mailbox capacity per entity; a full mailbox makes senders wait. Default 1024. */
  readonly mailbox?: number
  /** Passivate entities with no ask in progress for this long. Default: never. */
  readonly idleMs?: number
  /** How often the sweeper looks for idle entities. Default: `idleMs / 2`, within 10 ms … 60 s. */
  readonly sweepMs?: number
  /** Runs with the last state when an entity is passivated or stopped (errors are logged). */
  readonly onPassivate?: (id: Id, state: S) => Effect.Effect<void, unknown, PR>
  /**
   * Handlers that take a run of consecutive messages of their tag at once (those queued up when
   * the first is taken, at most 256), for work that costs less together — one commit for many appends. A tag listed here
   * must also have its single-message handler (which gives the message and reply types, and serves
   * nothing else); the run's replies come back in order, one `Exit` per message.
   */
  readonly batch?: { readonly [tag: string]: BatchHandler<Id, S> | undefined }
  /**
   * Backoff before reloading after consecutive crashes (defects of a handler or of `load`): the
   * first reload is immediate, then `baseMs`, `2 × baseMs`, … up to `maxMs`. Defaults 10 ms and
   * 5 s. A typed failure of `load` is its answer, not a crash, and adds no wait.
   */
  readonly restart?: { readonly baseMs?: number; readonly maxMs?: number }
}

// ---------------------------------------------------------------------------------------------
// Type-level helpers: a message's `_tag` decides its payload, reply and error types
// ---------------------------------------------------------------------------------------------

type Output<F> = F extends (...args: never) => Effect.Effect<readonly [infer A, unknown], infer E, infer R>
  ? { readonly reply: A; readonly error: E; readonly context: R }
  : never

/**
 * A run of messages of one tag: `(state, messages, ctx) => Effect<[exits, newState]>`, one exit
 * per message in order. A failure or defect of the effect itself fails every message of the run.
 * Loosely typed (inference of the handlers would suffer): annotate the messages, and keep the
 * replies, errors and requirements those of the tag's single-message handler, which calls the
 * same code.
 */
export type BatchHandler<Id extends EntityId, S> = (
  state: S,
  msgs: ReadonlyArray<never>,
  ctx: HandlerContext<Id>,
) => Effect.Effect<readonly [ReadonlyArray<Exit.Exit<unknown, unknown>>, S], unknown, unknown>

/** The payload a handler accepts (its second parameter); `unknown` when it takes none. */
export type PayloadOf<F> = F extends (state: never, msg: infer M, ctx: never) => unknown ? M : never

/** The message accepted for `_tag` K. */
export type MessageFor<H, K extends keyof H> = { readonly _tag: K } & PayloadOf<H[K]>

/** Every message an actor with handlers H accepts. */
export type MessageOf<H> = { [K in keyof H & string]: MessageFor<H, K> }[keyof H & string]

export type ReplyOf<H, K extends keyof H> = Output<H[K]>['reply']
export type ErrorOf<H, K extends keyof H> = Output<H[K]>['error']
export type RequirementsOf<H> = { [K in keyof H]: Output<H[K]>['context'] }[keyof H]

// ---------------------------------------------------------------------------------------------
// The actor
// ---------------------------------------------------------------------------------------------

export interface Actor<Id extends EntityId, H> {
  readonly name: string
  /** Sends a message and waits for its reply; starts the entity on first use. */
  readonly ask: <K extends keyof H & string>(
    id: Id,
    msg: MessageFor<H, K>,
  ) => Effect.Effect<ReplyOf<H, K>, ErrorOf<H, K> | ActorError>
  /**
   * Enqueues a message without waiting for the reply (waits only for mailbox space).
   * Its typed failures are dropped; its defects restart the entity like any other.
   */
  readonly tell: <K extends keyof H & string>(
    id: Id,
    msg: MessageFor<H, K>,
  ) => Effect.Effect<void, ActorStopped>
  /**
   * Stops one entity: messages already in its mailbox are processed, `onPassivate` runs, then the
   * entity is gone (the next message starts a new incarnation). Completes when it has stopped.
   */
  readonly stop: (id: Id) => Effect.Effect<void>
  /** Number of live entities. */
  readonly size: Effect.Effect<number>
  /** Passivates, now, the entities idle for at least `idleMs`; returns how many. Also run by the sweeper. */
  readonly passivateIdle: Effect.Effect<number>
}

/** The actor type a definition produces (for service tags). */
export type ActorOf<D> =
  D extends Definition<infer Id, infer _S, infer H, infer _LE, infer _LR, infer _PR> ? Actor<Id, H> : never

/** Requirements of the effects of a definition. */
export type DefinitionContext<D> =
  D extends Definition<infer _Id, infer _S, infer H, infer _LE, infer LR, infer PR>
    ? LR | PR | RequirementsOf<H>
    : never

// ---------------------------------------------------------------------------------------------
// Constructors
// ---------------------------------------------------------------------------------------------

/** Identity; fixes a definition's types so that `ActorOf<typeof definition>` can name its actor. */
export const define = <
  S,
  H extends Handlers<Id, S>,
  Id extends EntityId = string,
  LE = never,
  LR = never,
  PR = never,
>(
  definition: Definition<Id, S, H, LE, LR, PR>,
): Definition<Id, S, H, LE, LR, PR> => definition

/** Starts an actor for one entity type; it lives until the scope closes. */
export const make = <
  S,
  H extends Handlers<Id, S>,
  Id extends EntityId = string,
  LE = never,
  LR = never,
  PR = never,
>(
  definition: Definition<Id, S, H, LE, LR, PR>,
): Effect.Effect<Actor<Id, H>, never, Scope.Scope | LR | PR | RequirementsOf<H>> =>
  internal.make(
    definition as unknown as internal.ErasedDefinition<LR | PR | RequirementsOf<H>>,
  ) as Effect.Effect<Actor<Id, H>, never, Scope.Scope | LR | PR | RequirementsOf<H>>

/** A layer providing the actor under `tag`. */
export const layer = <
  I,
  S,
  H extends Handlers<Id, S>,
  Id extends EntityId = string,
  LE = never,
  LR = never,
  PR = never,
>(
  tag: Context.Tag<I, Actor<Id, H>>,
  definition: Definition<Id, S, H, LE, LR, PR>,
): Layer.Layer<I, never, LR | PR | RequirementsOf<H>> => Layer.scoped(tag, make(definition))

/** Convenience for a service tag holding an actor: `class Counter extends Actor.Tag('Counter')<Counter, typeof def>() {}`. */
export const Tag =
  <const Key extends string>(key: Key) =>
  <Self, D>(): Context.TagClass<Self, Key, ActorOf<D>> =>
    Context.Tag(key)<Self, ActorOf<D>>()
