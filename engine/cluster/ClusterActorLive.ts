/**
 * The implementation of ClusterActor.ts (read its guarantees there), loaded with the first
 * clustered layer: it is what brings @effect/cluster, @effect/rpc and msgpackr into a process.
 */
import * as ClusterSchema from '@effect/cluster/ClusterSchema'
import * as Entity from '@effect/cluster/Entity'
import { Sharding } from '@effect/cluster/Sharding'
import * as Socket from '@effect/platform/Socket'
import * as Rpc from '@effect/rpc/Rpc'
import { Cause, Duration, Effect, Schema } from 'effect'
import { ActorDefect, ActorStopped, type EntityId } from '../actor/Actor.js'
import * as internal from '../actor/internal.js'
import * as Codec from './codec.js'
import { ClusterNode } from './node.js'

/** No owner answered within the ask timeout, or the cluster could not route the message: safe to retry. */
export class ActorUnreachable extends ActorStopped {
  declare readonly reason: string
  override get message(): string {
    return `actor ${this.actor}/${this.id} did not answer: ${this.reason}`
  }
}

const unreachable = (actor: string, id: EntityId, reason: string): ActorUnreachable => {
  const fields = { actor, id: String(id), reason }
  return new ActorUnreachable(fields)
}

const Bytes = Schema.Uint8ArrayFromSelf

/** The router's protocol: opaque bytes both ways, so any definition fits. */
const AskRpc = Rpc.make('Ask', { payload: { message: Bytes }, success: Bytes })
const TellRpc = Rpc.make('Tell', { payload: { message: Bytes }, success: Bytes })
const StopRpc = Rpc.make('Stop')

export interface ClusterActorOptions {
  /**
   * Where the handlers' error classes come from: classes, or module namespaces whose exported
   * tagged error classes are all taken. Errors of other classes still cross nodes, as stand-ins
   * with the same `_tag` and fields (`catchTag` works; `instanceof` does not).
   */
  readonly errors?: ReadonlyArray<object>
}

const CLIENT_CACHE = 10_000

/** The entity type name in the cluster for a definition. */
export const entityType = (name: string) => `kotak/${name}`

/** The actor's service over the cluster (see ClusterActor.ts): its router entity and its local kit. */
export const make = <R>(definition: internal.ErasedDefinition<R>, options: ClusterActorOptions) =>
  Effect.gen(function* () {
    const name = definition.name
    const sharding = yield* Sharding
    const node = yield* ClusterNode
    const errors = Codec.registry(options.errors)
    // The local kit: the owner's entities live here. Made first, so it outlives the router.
    const local = yield* internal.make(definition)

    const entity = Entity.make(entityType(name), [AskRpc, TellRpc, StopRpc]).annotate(
      ClusterSchema.ClientTracingEnabled,
      false,
    )
    // Entities whose router lives here, with their shard (the fence of their writes: ClusterNode.fence).
    const here = new Map<EntityId, string>()

    const decodeMessage = (bytes: Uint8Array): internal.TaggedMessage => {
      const msg = Codec.unpack(bytes)
      if (msg === null || typeof msg !== 'object' || typeof (msg as { _tag?: unknown })._tag !== 'string')
        throw new Error(`actor ${name}: a message without a _tag arrived`)
      return msg as internal.TaggedMessage
    }
    // On the owner: decode, hand to the local kit, encode how it ended.
    const forward = (
      bytes: Uint8Array,
      run: (msg: internal.TaggedMessage) => Effect.Effect<unknown, unknown>,
    ) =>
      Effect.map(
        Effect.exit(
          Effect.flatMap(
            Effect.try(() => decodeMessage(bytes)),
            run,
          ),
        ),
        Codec.encodeOutcome,
      )

    yield* sharding.registerEntity(
      entity,
      Effect.gen(function* () {
        const address = yield* Entity.CurrentAddress
        const id = Codec.decodeId(address.entityId)
        here.set(id, address.shardId.toString())
        // The shard moved, the node stops, or the entity idled out: the local entity goes too
        // (after its mailbox), before the shard can be released to another node.
        // A handler stuck for longer than an ask may take does not hold the whole shard back: the
        // shard moves on, and the database fences whatever the stuck handler still writes.
        yield* Effect.addFinalizer(() =>
          // Finalizers run uninterruptibly: the wait is made interruptible for the timeout to end it.
          Effect.interruptible(local.stop(id)).pipe(
            Effect.timeoutFail({ duration: node.askTimeoutMs, onTimeout: () => 'timeout' as const }),
            Effect.catchAll(() =>
              Effect.logWarning('cluster: an entity did not stop in time; its shard moves on anyway').pipe(
                Effect.annotateLogs({ actor: name, entity: String(id) }),
              ),
            ),
            Effect.ensuring(Effect.sync(() => here.delete(id))),
          ),
        )
        // A node that lost the shard without knowing yet (frozen, cut off from Redis) must not act
        // for it: the shard's epoch in the database says who owns it (epochs.ts). Refused messages
        // answer like an unreachable owner, which callers retry.
        const shard = address.shardId.toString()
        const admitted = Effect.mapError(node.admit(shard), (reason) =>
          unreachable(name, id, `cluster: shard ${shard}: ${reason}`),
        )
        return {
          Ask: (request) =>
            forward(request.payload.message, (msg) => Effect.zipRight(admitted, local.ask(id, msg))),
          Tell: (request) =>
            forward(request.payload.message, (msg) => Effect.zipRight(admitted, local.tell(id, msg))),
          Stop: () => local.stop(id),
        }
      }),
      {
        maxIdleTime: definition.idleMs === undefined ? Duration.infinity : Duration.millis(definition.idleMs),
        // The local kit orders messages; the router only forwards, so it takes them all at once.
        concurrency: 'unbounded',
        mailboxCapacity: 'unbounded',
      },
    )
    const makeClient = yield* sharding.makeClient(entity)
    // A client per entity id carries its address (shard computed, schema-validated once): keep
    // the recent ones rather than rebuilding it on every message.
    const clients = new Map<EntityId, ReturnType<typeof makeClient>>()
    const clientFor = (id: EntityId): ReturnType<typeof makeClient> => {
      let client = clients.get(id)
      if (client === undefined) {
        if (clients.size >= CLIENT_CACHE) clients.clear()
        client = makeClient(Codec.encodeId(id))
        clients.set(id, client)
      }
      return client
    }
    const timeoutMs = node.askTimeoutMs

    /** Sends to the owner, waits at most the ask timeout, and turns routing trouble into `ActorError`s. */
    const send = (
      id: EntityId,
      call: (client: ReturnType<typeof makeClient>) => Effect.Effect<Uint8Array, unknown>,
    ): Effect.Effect<unknown, unknown> =>
      Effect.suspend(() => call(clientFor(id))).pipe(
        Effect.timeoutFail({
          duration: timeoutMs,
          onTimeout: () => unreachable(name, id, `no answer within ${timeoutMs} ms`),
        }),
        Effect.matchCauseEffect({
          onSuccess: (bytes): Effect.Effect<unknown, unknown> => {
            const outcome = Codec.decodeOutcome(bytes, errors)
            if (outcome._tag === 'Success') return Effect.succeed(outcome.value)
            if (outcome._tag === 'Failure') return Effect.fail(outcome.error)
            return Effect.fail(
              new ActorDefect({
                actor: name,
                id: String(id),
                tag: 'routing',
                cause: Cause.die(new Error(outcome.rendered)),
              }),
            )
          },
          onFailure: (cause): Effect.Effect<never, ActorUnreachable | ActorDefect> => {
            const failure = Cause.failureOption(cause)
            if (failure._tag === 'Some') {
              const e = failure.value
              if (e instanceof ActorUnreachable) return Effect.fail(e)
              const tagged = (e as { readonly _tag?: unknown })._tag
              return Effect.fail(unreachable(name, id, `cluster: ${String(tagged ?? e)}`))
            }
            if (Cause.isInterruptedOnly(cause))
              return Effect.fail(unreachable(name, id, 'the owner stopped it'))
            // The connection to the owner broke under the message (the owner died mid-write): the
            // RPC client reports it as a defect, but it is the cluster's trouble, not a bug, and as
            // safe to retry as a timeout.
            const defect = Cause.dieOption(cause)
            if (defect._tag === 'Some' && Socket.isSocketError(defect.value))
              return Effect.fail(unreachable(name, id, `cluster: ${String(defect.value)}`))
            return Effect.fail(new ActorDefect({ actor: name, id: String(id), tag: 'routing', cause }))
          },
        }),
      )

    const encode = (msg: internal.TaggedMessage) => ({ message: Codec.pack(msg) })

    const actor: internal.ErasedActor = {
      name,
      ask: (id, msg) => send(id, (client) => client.Ask(encode(msg))),
      tell: (id, msg) =>
        Effect.asVoid(send(id, (client) => client.Tell(encode(msg)))).pipe(
          Effect.catchAll((e) =>
            e instanceof ActorStopped ? Effect.fail(e) : Effect.fail(unreachable(name, id, String(e))),
          ),
        ),
      stop: (id) =>
        Effect.suspend(() => clientFor(id).Stop()).pipe(
          Effect.timeout(timeoutMs),
          Effect.catchAllCause((cause) =>
            Effect.logWarning('cluster: could not stop an entity on its owner', cause).pipe(
              Effect.annotateLogs({ actor: name, entity: String(id) }),
            ),
          ),
        ),
      size: local.size,
      passivateIdle: local.passivateIdle,
    }
    yield* node.register(name, { actor: local, cluster: actor, entities: here })
    return actor
  })
