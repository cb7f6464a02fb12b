/**
 * The actor kit across nodes: the same `Actor<Id, H>` as `Actor.layer`, with each entity living on
 * exactly one node of the cluster at a time (the node holding its shard's lock).
 *
 * An @effect/cluster entity per actor entity is a thin router: on the owner it forwards each
 * message to the local kit (`engine/actor`), which keeps doing the real work (mailbox, one fiber,
 * state, restarts, passivation). Handlers do not change and are not listed here: any definition
 * works. Callers on any node get the reply, or the handler's typed error re-created on their side
 * (`codec.ts`).
 *
 * Guarantees, beyond those of the local kit:
 * - Placement: while the cluster is stable an entity runs on one node only. When its shard moves
 *   (a node joins or leaves gracefully) the old owner finishes the requests it is handling (up to
 *   the ask timeout), stops the local entity (`onPassivate` runs), and only then releases the
 *   shard; the new owner loads the entity afresh. When an owner dies, its shards move after its
 *   lease; a node cut off from Redis stops serving before its lease ends. Timing and clock pauses
 *   make a brief double owner possible in the worst case: what must never break is guarded in
 *   PostgreSQL too (decisions-cluster.md).
 * - `ask` always completes within the ask timeout (`CLUSTER_ASK_TIMEOUT_MS`): with the reply, the
 *   handler's typed error, an `ActorError` from the owner's kit, or `ActorUnreachable` (an
 *   `ActorStopped`, so 503 `unavailable` with `Retry-After`) when no owner answered in time. An
 *   ask that ended with `ActorUnreachable` may or may not have been applied: retry it with the same
 *   idempotency key.
 * - Order: messages one fiber sends one after the other are handled in that order (it waits for
 *   each reply). `tell` waits until the owner's mailbox took the message (or the timeout).
 * - `stop` stops the entity on its owner. `size` and `passivateIdle` concern the entities living on
 *   this node.
 * - Messages, replies and errors must be data (codec.ts lists the types that keep their class).
 */
import type { Sharding } from '@effect/cluster/Sharding'
import { type Context, Layer } from 'effect'
import type { Actor, Definition, EntityId, Handlers, RequirementsOf } from '../actor/Actor.js'
import type * as internal from '../actor/internal.js'
import { lazyLayer } from '../lazyLayer.js'
import type { ClusterActorOptions } from './ClusterActorLive.js'
import type { ClusterNode } from './node.js'

export type { ClusterActorOptions }

/**
 * A layer providing the actor under `tag`, its entities spread over the cluster. Mirrors
 * `Actor.layer`; needs `Sharding` and `ClusterNode` (`Cluster.layer`).
 */
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
  options: ClusterActorOptions = {},
): Layer.Layer<I, never, LR | PR | RequirementsOf<H> | Sharding | ClusterNode> =>
  // The cluster libraries load with the first clustered layer, never on a single node.
  lazyLayer(
    () => import('./ClusterActorLive.js'),
    (live) =>
      Layer.scoped(
        tag,
        live.make(definition as unknown as internal.ErasedDefinition<LR | PR | RequirementsOf<H>>, options),
      ),
  ) as Layer.Layer<I, never, LR | PR | RequirementsOf<H> | Sharding | ClusterNode>
