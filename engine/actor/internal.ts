/**
 * The actor kit's machinery, with types erased; `Actor.ts` holds the typed surface.
 *
 * Per entity: a mailbox (a plain array, bounded for senders that wait for room), a fiber only
 * while the mailbox has work (forked from the runtime captured by `make`, so entity fibers carry
 * the actor's services, not a caller's fiber refs; it ends when the mailbox is empty and the next
 * message forks another), a `OneShot` per reply. An idle entity is its state and a few fields:
 * no fiber, no queue (a parked fiber and its `Queue` cost about 8 KB an entity). The registry is a
 * plain `Map`; lookup, activation, the in-flight count, enqueueing and starting the fiber are one
 * synchronous step, and so are the fiber's "mailbox empty, so I end" and the sweeper's removal of
 * an entity, so an ask can never reach a retired entity nor wait on a fiber that has ended.
 */
import { Cause, Duration, Effect, Exit, Fiber, Option, Runtime, type Scope } from 'effect'
import { MetricsTag } from '../metrics.js'
import { OneShot } from '../oneShot.js'
import { Later } from '../step.js'
import {
  ActorDefect,
  ActorLoadFailed,
  ActorStopped,
  type EntityId,
  type HandlerContext,
} from './ActorError.js'

export interface TaggedMessage {
  readonly _tag: string
}

type ErasedHandler<R> = (
  state: unknown,
  msg: TaggedMessage,
  ctx: HandlerContext<EntityId>,
) => Effect.Effect<readonly [unknown, unknown], unknown, R>

type ErasedBatchHandler<R> = (
  state: unknown,
  msgs: readonly TaggedMessage[],
  ctx: HandlerContext<EntityId>,
) => Effect.Effect<readonly [ReadonlyArray<Exit.Exit<unknown, unknown>>, unknown], unknown, R>

export interface ErasedDefinition<R> {
  readonly batch?: { readonly [tag: string]: ErasedBatchHandler<R> | undefined }
  readonly name: string
  readonly load: (id: EntityId) => Effect.Effect<unknown, unknown, R>
  readonly handlers: { readonly [tag: string]: ErasedHandler<R> }
  readonly mailbox?: number
  readonly idleMs?: number
  readonly sweepMs?: number
  readonly onPassivate?: (id: EntityId, state: unknown) => Effect.Effect<void, unknown, R>
  readonly restart?: { readonly baseMs?: number; readonly maxMs?: number }
}

export interface ErasedActor {
  readonly name: string
  readonly ask: (id: EntityId, msg: TaggedMessage) => Effect.Effect<unknown, unknown>
  readonly tell: (id: EntityId, msg: TaggedMessage) => Effect.Effect<void, ActorStopped>
  readonly stop: (id: EntityId) => Effect.Effect<void>
  readonly size: Effect.Effect<number>
  readonly passivateIdle: Effect.Effect<number>
}

interface Envelope {
  readonly msg: TaggedMessage
  /** Absent for `tell`. */
  readonly reply: OneShot<unknown, unknown> | undefined
  /** Set when the caller was interrupted; an envelope not yet taken is then skipped. */
  cancelled: boolean
  /** A `tell` that found the mailbox full: completed when the envelope is within its capacity. */
  room: OneShot<void, ActorStopped> | undefined
}

interface Entity {
  readonly id: EntityId
  readonly ctx: HandlerContext<EntityId>
  /**
   * Envelopes not yet taken, oldest first. Those beyond the capacity belong to senders waiting for
   * room (an ask waits for its reply anyway; a tell waits on `room`).
   */
  readonly mailbox: Envelope[]
  /** The fiber working through the mailbox; none while the entity is idle. */
  fiber: Fiber.RuntimeFiber<void> | undefined
  /** The previous incarnation's fiber, still finishing `onPassivate`: the first fiber waits for it. */
  previous: Fiber.RuntimeFiber<void> | undefined
  state: unknown
  loaded: boolean
  /** Consecutive defects or load failures, for the restart backoff. */
  failures: number
  /** Asks and tells between registry lookup and completion (reply, or enqueued for tell). */
  inflight: number
  lastActive: number
  retiring: boolean
  /** The envelope being processed, failed with `ActorStopped` if the fiber is interrupted. */
  current: Envelope | undefined
  /** The rest of the run being processed by a batch handler (same failure duty as `current`). */
  run: readonly Envelope[]
}

const DEFAULT_BATCH = 256

/** No run in progress: one empty array for every entity. */
const NO_RUN: readonly Envelope[] = []

const DEFAULT_MAILBOX = 1024
const DEFAULT_RESTART_BASE_MS = 10
const DEFAULT_RESTART_MAX_MS = 5_000

const isDefect = (cause: Cause.Cause<unknown>): boolean => Cause.isDie(cause) || Cause.isInterrupted(cause)

export const make = <R>(def: ErasedDefinition<R>): Effect.Effect<ErasedActor, never, Scope.Scope | R> =>
  Effect.gen(function* () {
    const runtime = yield* Effect.runtime<R>()
    const clock = yield* Effect.clock
    const fork = Runtime.runFork(runtime)
    const name = def.name
    const handlers = def.handlers
    const capacity = def.mailbox ?? DEFAULT_MAILBOX
    const idleMs = def.idleMs
    const restartBase = def.restart?.baseMs ?? DEFAULT_RESTART_BASE_MS
    const restartMax = def.restart?.maxMs ?? DEFAULT_RESTART_MAX_MS

    const entities = new Map<EntityId, Entity>()
    /** Fibers of retired entities still finishing (`onPassivate`); a new incarnation waits for them. */
    const retiring = new Map<EntityId, Fiber.RuntimeFiber<void>>()
    let closed = false

    const now = (): number => clock.unsafeCurrentTimeMillis()
    const stopped = (id: EntityId): ActorStopped => new ActorStopped({ actor: name, id: String(id) })
    const backoffMs = (failures: number): number =>
      failures <= 1 ? 0 : Math.min(restartBase * 2 ** (failures - 2), restartMax)

    const settle = (e: Entity, env: Envelope, exit: Exit.Exit<unknown, unknown>): void => {
      e.current = undefined
      e.lastActive = now()
      if (env.reply !== undefined) env.reply.complete(exit)
    }

    // -- the entity fiber ------------------------------------------------------------------------

    const handle = (e: Entity, env: Envelope): Effect.Effect<void, never, R> => {
      const tag = env.msg._tag
      const handler = Object.hasOwn(handlers, tag) ? handlers[tag] : undefined
      if (handler === undefined) {
        const cause = Cause.die(new Error(`actor ${name} has no handler for ${String(tag)}`))
        settle(e, env, Exit.fail(new ActorDefect({ actor: name, id: String(e.id), tag: String(tag), cause })))
        return Effect.void
      }
      return Effect.matchCause(
        Effect.suspend(() => handler(e.state, env.msg, e.ctx)),
        {
          onSuccess: (result) => {
            e.state = result[1]
            e.failures = 0
            settle(e, env, Exit.succeed(result[0]))
          },
          onFailure: (cause) => {
            if (isDefect(cause)) {
              // Restart: forget the state; the next message reloads it (after a backoff if repeated).
              e.loaded = false
              e.state = undefined
              e.failures++
              settle(e, env, Exit.fail(new ActorDefect({ actor: name, id: String(e.id), tag, cause })))
            } else {
              e.failures = 0
              settle(e, env, Exit.failCause(cause))
            }
          },
        },
      )
    }

    /** A run of envelopes for one batch handler: one exit each, or the run's failure for all. */
    const handleRun = (
      e: Entity,
      envs: Envelope[],
      handler: ErasedBatchHandler<R>,
    ): Effect.Effect<void, never, R> => {
      const tag = envs[0]!.msg._tag
      const settleAll = (exits: (i: number) => Exit.Exit<unknown, unknown>) => {
        for (const [i, env] of envs.entries()) settle(e, env, exits(i))
        e.run = NO_RUN
      }
      return Effect.matchCause(
        Effect.suspend(() =>
          handler(
            e.state,
            envs.map((env) => env.msg),
            e.ctx,
          ),
        ),
        {
          onSuccess: ([exits, state]) => {
            e.state = state
            e.failures = 0
            settleAll(
              (i) => exits[i] ?? Exit.die(new Error(`actor ${name}: no reply for message ${i} of a run`)),
            )
          },
          onFailure: (cause) => {
            if (isDefect(cause)) {
              e.loaded = false
              e.state = undefined
              e.failures++
              const failure = Exit.fail(new ActorDefect({ actor: name, id: String(e.id), tag, cause }))
              settleAll(() => failure)
            } else {
              e.failures = 0
              const failure = Exit.failCause(cause)
              settleAll(() => failure)
            }
          },
        },
      )
    }

    /** The oldest envelope of the mailbox, if any; the first sender waiting for room gets it. */
    const take = (e: Entity): Envelope | undefined => {
      const env = e.mailbox.shift()
      if (env !== undefined && e.mailbox.length >= capacity) {
        const admitted = e.mailbox[capacity - 1]!
        if (admitted.room !== undefined) {
          admitted.room.complete(Exit.void)
          admitted.room = undefined
        }
      }
      return env
    }

    /**
     * The envelopes after `first` already in the mailbox that share its batch tag, in order; the
     * first other envelope stays next in line. Taken without waiting: a run is what has queued up.
     */
    const gatherRun = (e: Entity, first: Envelope): Envelope[] => {
      const run: Envelope[] = [first]
      while (run.length < DEFAULT_BATCH) {
        const next = e.mailbox[0]
        if (next === undefined || next.msg._tag !== first.msg._tag) break
        take(e)
        if (!next.cancelled) run.push(next)
      }
      return run
    }

    const loadThenHandle = (e: Entity, env: Envelope): Effect.Effect<void, never, R> => {
      const load = Effect.matchCauseEffect(
        Effect.suspend(() => def.load(e.id)),
        {
          onSuccess: (state) => {
            e.state = state
            e.loaded = true
            return dispatch(e, env)
          },
          onFailure: (cause) => {
            // A load that died is a crash and backs off when repeated; a typed failure (the store
            // out of reach) is retried with the next message at once, so that the first message
            // after the store's return is served without a wait grown during the outage.
            e.failures = isDefect(cause) ? e.failures + 1 : 0
            settle(e, env, Exit.fail(new ActorLoadFailed({ actor: name, id: String(e.id), cause })))
            return Effect.void
          },
        },
      )
      const delay = backoffMs(e.failures)
      return delay > 0 ? Effect.zipRight(Effect.sleep(Duration.millis(delay)), load) : load
    }

    /** One envelope, or the run it starts when its tag has a batch handler. */
    const dispatch = (e: Entity, env: Envelope): Effect.Effect<void, never, R> => {
      const batch = def.batch?.[env.msg._tag]
      if (batch === undefined) return handle(e, env)
      const run = gatherRun(e, env)
      e.current = undefined
      e.run = run
      return handleRun(e, run, batch)
    }

    const processEnvelope = (e: Entity, env: Envelope): Effect.Effect<void, never, R> => {
      if (env.cancelled) return Effect.void
      e.current = env
      return e.loaded ? dispatch(e, env) : loadThenHandle(e, env)
    }

    const passivate = (e: Entity): Effect.Effect<void, never, R> => {
      const onPassivate = def.onPassivate
      if (!e.loaded || onPassivate === undefined) return Effect.void
      return Effect.catchAllCause(
        Effect.suspend(() => onPassivate(e.id, e.state)),
        (cause) =>
          Effect.logWarning('actor onPassivate failed', cause).pipe(
            Effect.annotateLogs({ actor: name, entity: String(e.id) }),
          ),
      )
    }

    /** When an entity is gone (retired, or interrupted at shutdown): nothing is left waiting. */
    const cleanup = (e: Entity, fiber: Fiber.RuntimeFiber<void> | undefined): void => {
      if (entities.get(e.id) === e) entities.delete(e.id)
      if (fiber !== undefined && retiring.get(e.id) === fiber) retiring.delete(e.id)
      const failure = Exit.fail(stopped(e.id))
      if (e.current !== undefined) settle(e, e.current, failure)
      for (const env of e.run) settle(e, env, failure)
      e.run = NO_RUN
      for (const env of e.mailbox.splice(0)) {
        env.room?.complete(failure)
        env.reply?.complete(failure)
      }
    }

    /**
     * The entity's fiber: takes envelopes until the mailbox is empty, then ends — or, retiring,
     * passivates. Its end and the check that the mailbox is empty are one synchronous step, and
     * every enqueue starts a fiber when there is none (`wake`), so no message waits on a fiber
     * that has ended.
     */
    const work = (e: Entity): Effect.Effect<void, never, R> => {
      const loop: Effect.Effect<void, never, R> = Effect.suspend(() => {
        const env = take(e)
        if (env !== undefined) return Effect.zipRight(processEnvelope(e, env), loop)
        if (e.retiring) return passivate(e)
        e.fiber = undefined
        // Let go of the emptied array's backing store: an idle entity keeps the bare minimum.
        e.mailbox.length = 0
        return Effect.void
      })
      return loop
    }

    /** Starts the entity's fiber unless it runs already (after the previous incarnation, if any). */
    const wake = (e: Entity): void => {
      if (e.fiber !== undefined) return
      const previous = e.previous
      e.previous = undefined
      const body = previous === undefined ? work(e) : Effect.zipRight(Fiber.await(previous), work(e))
      const fiber: Fiber.RuntimeFiber<void> = fork(
        Effect.onExit(body, (exit) =>
          // Interrupted (shutdown), or retired and passivated: the entity is gone. Otherwise the
          // fiber ended on an empty mailbox and the entity lives on without one.
          Exit.isInterrupted(exit) || e.retiring ? Effect.sync(() => cleanup(e, fiber)) : Effect.void,
        ),
        { immediate: false },
      )
      e.fiber = fiber
    }

    // -- registry ----------------------------------------------------------------------------------

    const activate = (id: EntityId): Entity => {
      const e: Entity = {
        id,
        ctx: { actor: name, id },
        mailbox: [],
        fiber: undefined,
        previous: retiring.get(id),
        state: undefined,
        loaded: false,
        failures: 0,
        inflight: 0,
        lastActive: now(),
        retiring: false,
        current: undefined,
        run: NO_RUN,
      }
      entities.set(id, e)
      return e
    }

    /**
     * Takes `e` out of the registry at once; its fiber finishes the mailbox, then passivates. An
     * idle entity gets a fiber just for `onPassivate`, or, with nothing to run, is simply gone.
     */
    const retire = (e: Entity): void => {
      entities.delete(e.id)
      e.retiring = true
      if (e.fiber === undefined) {
        if (e.previous === undefined && (!e.loaded || def.onPassivate === undefined)) return
        wake(e)
      }
      retiring.set(e.id, e.fiber!)
    }

    /** An ask or tell is over for its caller (the reply came, or the caller stopped waiting). */
    const answered = (e: Entity): void => {
      e.inflight--
      e.lastActive = now()
    }

    const release = (e: Entity, env: Envelope, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> =>
      Effect.sync(() => {
        answered(e)
        if (Exit.isInterrupted(exit)) env.cancelled = true
      })

    const send = (e: Entity, msg: TaggedMessage, withReply: boolean): Effect.Effect<unknown, unknown> => {
      e.inflight++
      e.lastActive = now()
      const env: Envelope = {
        msg,
        reply: withReply ? new OneShot<unknown, unknown>() : undefined,
        cancelled: false,
        room: undefined,
      }
      // A full mailbox makes a tell wait for room (backpressure); an ask waits for its reply,
      // which comes after its envelope had room. The actor shutting down fails the wait.
      const room = !withReply && e.mailbox.length >= capacity ? new OneShot<void, ActorStopped>() : undefined
      env.room = room
      e.mailbox.push(env)
      wake(e)
      const waitForRoom = room?.await
      // An ask: its caller's steps (engine/step.ts) wait for the reply without a fiber; on a fiber
      // it is the same wait, released on interruption too.
      if (env.reply !== undefined) {
        const answer = env.reply
        return new Later<unknown, unknown>(
          (k) =>
            answer.listen((exit) => {
              answered(e)
              // The caller's rest (its steps are guarded; the transport's write is not) runs in
              // this entity's turn: whatever it throws is the caller's, logged, never the entity's.
              try {
                k(exit)
              } catch (thrown) {
                fork(
                  Effect.logError('actor: the caller of a reply threw', Cause.die(thrown)).pipe(
                    Effect.annotateLogs({ actor: name, entity: String(e.id) }),
                  ),
                )
              }
            }),
          () => Effect.onExit(answer.await, (exit) => release(e, env, exit)),
        )
      }
      // A tell: done once its envelope has room.
      return Effect.onExit(waitForRoom ?? Effect.void, (exit) => release(e, env, exit))
    }

    const deliver = (
      id: EntityId,
      msg: TaggedMessage,
      withReply: boolean,
    ): Effect.Effect<unknown, unknown> => {
      if (closed) return Effect.fail(stopped(id))
      return send(entities.get(id) ?? activate(id), msg, withReply)
    }

    // Lazy, as any effect: nothing is sent until it runs, and each run sends once. Run by the
    // request path's steps (engine/step.ts) an ask to a live entity with room waits for its reply
    // without a fiber; on a fiber it is what it always was.
    const route = (id: EntityId, msg: TaggedMessage, withReply: boolean): Effect.Effect<unknown, unknown> =>
      new Later<unknown, unknown>(
        (k) => {
          const sent = deliver(id, msg, withReply)
          if (sent instanceof Later) (sent as Later<unknown, unknown>).listen(k)
          else k(sent)
        },
        () => Effect.suspend(() => deliver(id, msg, withReply)),
      )

    const passivateIdle: Effect.Effect<number> = Effect.sync(() => {
      if (idleMs === undefined) return 0
      const t = now()
      let count = 0
      for (const e of entities.values()) {
        if (e.inflight === 0 && t - e.lastActive >= idleMs) {
          retire(e)
          count++
        }
      }
      return count
    })

    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => {
        closed = true
        const fibers: Array<Fiber.RuntimeFiber<void>> = []
        for (const e of entities.values()) if (e.fiber !== undefined) fibers.push(e.fiber)
        for (const fiber of retiring.values()) fibers.push(fiber)
        // Idle entities have no fiber to interrupt and nothing waiting: they just go.
        return Effect.ensuring(
          Fiber.interruptAll(fibers),
          Effect.sync(() => entities.clear()),
        )
      }),
    )

    // Counted when the node has metrics (a server); read at scrape time, so activation costs nothing.
    const metrics = yield* Effect.serviceOption(MetricsTag)
    if (Option.isSome(metrics)) {
      const untrack = metrics.value.actorEntities(name, () => entities.size)
      yield* Effect.addFinalizer(() => Effect.sync(untrack))
    }

    if (idleMs !== undefined) {
      const sweepMs = def.sweepMs ?? Math.min(Math.max(Math.floor(idleMs / 2), 10), 60_000)
      if (Number.isFinite(sweepMs) && sweepMs > 0) {
        yield* Effect.forkScoped(
          Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(sweepMs)), passivateIdle)),
        )
      }
    }

    const actor: ErasedActor = {
      name,
      ask: (id, msg) => route(id, msg, true),
      tell: (id, msg) => Effect.asVoid(route(id, msg, false)) as Effect.Effect<void, ActorStopped>,
      stop: (id) =>
        Effect.suspend(() => {
          const e = entities.get(id)
          if (e !== undefined) retire(e)
          const fiber = retiring.get(id)
          return fiber === undefined ? Effect.void : Fiber.await(fiber)
        }).pipe(Effect.asVoid),
      size: Effect.sync(() => entities.size),
      passivateIdle,
    }
    return actor
  })
