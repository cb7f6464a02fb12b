import { Context, Effect, Layer, type Scope } from 'effect'
import type { ErasedActor } from '../actor/internal.js'
import type { ClusterConfig } from '../config.js'
import type { Metrics } from '../metrics.js'

/*
 * The tags and types of cluster mode (Cluster.ts), apart from its implementation (ClusterLive.ts)
 * so that importing them loads neither @effect/cluster nor ioredis.
 */

/** The role of a process: a runner hosts entities; a client (the CLI) only sends to them. */
export type Role = 'runner' | 'client'

export interface ClusterOptions {
  readonly redisUrl: string
  /** Redis key prefix of the deployment (`REDIS_PREFIX`). */
  readonly prefix: string
  readonly role: Role
  readonly config: ClusterConfig
  /** The node's metrics: a runner reports its identity, its shards and its Redis coordination. */
  readonly metrics?: Metrics
}

/** What the cluster actors of this node register, for status and the test endpoint. */
export interface LocalActor {
  /** The local kit holding the entities this node owns. */
  readonly actor: ErasedActor
  /** The same actor through the cluster (what callers on this node use). */
  readonly cluster: ErasedActor
  /** Entity ids whose router entity lives on this node now, each with its shard (`group:n`). */
  readonly entities: ReadonlyMap<string | number, string>
}

export interface ClusterStatus {
  readonly role: Role
  /** This runner's address (`host:port`), absent for a client. */
  readonly address: string | undefined
  /** Whether Redis answered the last registry or lock call, within the lease. */
  readonly healthy: boolean
  /** Shards this node holds now. */
  readonly shards: number
  /** Entity ids per actor type whose entity lives on this node. */
  readonly entities: Readonly<Record<string, ReadonlyArray<string | number>>>
}

/**
 * The epoch at which this node took the shard of an entity (epochs.ts): a write for the entity
 * checks it in its own transaction (store/fence.ts), so a node that lost the shard between the
 * router's door and the commit writes nothing.
 */
export interface Fence {
  readonly shard: string
  readonly epoch: number
}

export interface ClusterNodeShape {
  readonly role: Role
  readonly address: string | undefined
  readonly askTimeoutMs: number
  /**
   * Whether this node may act for a shard (`group:n`) now: it holds the shard at an epoch still
   * current in the database (epochs.ts); fails with the reason otherwise.
   */
  readonly admit: (shard: string) => Effect.Effect<void, string>
  /**
   * The fence of an entity whose router lives here (`LocalActor.entities`): its shard at the
   * epoch this node holds it; epoch 0 (which no stored epoch has) when the node holds neither, so
   * that a write is refused.
   */
  readonly fence: (actor: string, id: string | number) => Fence
  /** Registers a cluster actor of this node (done by `ClusterActor.layer`). */
  readonly register: (name: string, actor: LocalActor) => Effect.Effect<void, never, Scope.Scope>
  readonly actors: ReadonlyMap<string, LocalActor>
  readonly status: Effect.Effect<ClusterStatus>
}

export class ClusterNode extends Context.Tag('kotak/ClusterNode')<ClusterNode, ClusterNodeShape>() {}

/**
 * For `/healthz`, in both modes: `off` on a single node, `ok` while this clustered node reaches
 * Redis (registry and shard locks), `down` when it does not (its actors answer 503 meanwhile).
 */
export interface ClusterHealthShape {
  readonly check: Effect.Effect<'off' | 'ok' | 'down'>
}

export class ClusterHealth extends Context.Tag('kotak/ClusterHealth')<ClusterHealth, ClusterHealthShape>() {}

/** Health of a node without a cluster. */
export const healthOff: Layer.Layer<ClusterHealth> = Layer.succeed(ClusterHealth, {
  check: Effect.succeed('off' as const),
})

/** Health of a clustered node, from its `ClusterNode`. */
export const health: Layer.Layer<ClusterHealth, never, ClusterNode> = Layer.effect(
  ClusterHealth,
  Effect.map(ClusterNode, (node) => ({
    check: Effect.map(node.status, (s): 'ok' | 'down' => (s.healthy ? 'ok' : 'down')),
  })),
)
