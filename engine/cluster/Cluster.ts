import * as MessageStorage from '@effect/cluster/MessageStorage'
import * as RunnerAddress from '@effect/cluster/RunnerAddress'
import * as RunnerHealth from '@effect/cluster/RunnerHealth'
import * as RunnerStorage from '@effect/cluster/RunnerStorage'
import type * as Runners from '@effect/cluster/Runners'
import { ShardId } from '@effect/cluster/ShardId'
import { Sharding } from '@effect/cluster/Sharding'
import * as ShardingConfig from '@effect/cluster/ShardingConfig'
import * as SocketRunner from '@effect/cluster/SocketRunner'
import { SocketServer } from '@effect/platform/SocketServer'
import { layerClientProtocol } from '@effect/platform-node/NodeClusterSocket'
import * as NodeSocketServer from '@effect/platform-node/NodeSocketServer'
import * as RpcSerialization from '@effect/rpc/RpcSerialization'
import { Context, Duration, Effect, Exit, Layer, Option, Runtime, type Scope } from 'effect'
import { Redis } from 'ioredis'
import type { ErasedActor } from '../actor/internal.js'
import type { ClusterConfig } from '../config.js'
import * as RedisConnection from '../redis'
import * as RunnerStorageRedis from './RunnerStorageRedis.js'
import * as TestEndpoint from './testEndpoint.js'

/**
 * Cluster mode: the nodes of a deployment place every actor entity on exactly one node, with
 * @effect/cluster doing the placement (a hash ring of the live nodes over a fixed number of shards)
 * and Redis holding the runner registry and one lock per shard (`RunnerStorageRedis`). Messages
 * between nodes travel runner to runner over a TCP port of their own, msgpack-framed
 * (@effect/rpc), carrying msgpackr-encoded actor messages and outcomes (`codec.ts`).
 *
 * Timing (lease L = `CLUSTER_LEASE_MS`):
 * - every node renews its shard locks and its heartbeat every L/3 and reads the registry every
 *   min(1 s, L/4);
 * - a node killed outright keeps its shards until its lease runs out (≤ L after its last renewal);
 *   the others then drop it from the ring and take its shards within about 2 s more;
 * - a node cut off from Redis stops serving its shards after about 2L/3 (its renewal failed) and
 *   takes them again, by itself, once Redis answers;
 * - a node leaving gracefully (SIGTERM) finishes what its entities are doing, then hands its shards
 *   over at once.
 */

/** The role of a process: a runner hosts entities; a client (the CLI) only sends to them. */
export type Role = 'runner' | 'client'

export interface ClusterOptions {
  readonly redisUrl: string
  /** Redis key prefix of the deployment (`REDIS_PREFIX`). */
  readonly prefix: string
  readonly role: Role
  readonly config: ClusterConfig
}

/** What the cluster actors of this node register, for status and the test endpoint. */
export interface LocalActor {
  /** The local kit holding the entities this node owns. */
  readonly actor: ErasedActor
  /** The same actor through the cluster (what callers on this node use). */
  readonly cluster: ErasedActor
  /** Entity ids whose router entity lives on this node now. */
  readonly entities: ReadonlySet<string | number>
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

export interface ClusterNodeShape {
  readonly role: Role
  readonly address: string | undefined
  readonly askTimeoutMs: number
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

/** The @effect/cluster settings this deployment runs with. */
export const shardingSettings = (config: ClusterConfig): Partial<ShardingConfig.ShardingConfig['Type']> => ({
  shardsPerGroup: config.shards,
  shardLockExpiration: Duration.millis(config.leaseMs),
  shardLockRefreshInterval: Duration.millis(Math.floor(config.leaseMs / 3)),
  refreshAssignmentsInterval: Duration.millis(Math.min(1_000, Math.floor(config.leaseMs / 4))),
  // An entity moving away waits this long for the requests it is handling.
  entityTerminationTimeout: Duration.millis(config.askTimeoutMs),
  // Local sends skip @effect/rpc's schema round trip: the actor codec already made bytes of them.
  simulateRemoteSerialization: false,
})

/** One connection for the registry and the locks; failures surface through the calls. */
const connection = (url: string): Effect.Effect<Redis, never, Scope.Scope> =>
  RedisConnection.scoped(() => new Redis(url, { maxRetriesPerRequest: 1 }))

/**
 * The storage, remembering whether Redis answers: one warning when it stops, one line when it is
 * back, and `healthy()` for the status.
 */
const watched = (
  storage: RunnerStorage.RunnerStorage['Type'],
  leaseMs: number,
  runFork: (e: Effect.Effect<void>) => unknown,
) => {
  let lastOk = Date.now()
  let down = false
  const observe = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.onExit(effect, (exit) =>
      Effect.sync(() => {
        if (exit._tag === 'Success') {
          lastOk = Date.now()
          if (down) {
            down = false
            runFork(Effect.logInfo('cluster: Redis answers again; this node takes its shards back'))
          }
        } else if (!down && !Exit.isInterrupted(exit)) {
          down = true
          runFork(
            Effect.logWarning(
              'cluster: Redis does not answer; this node gives up its shards and actor requests answer 503 until it is back',
            ),
          )
        }
      }),
    )
  const wrapped = RunnerStorage.RunnerStorage.of({
    register: (runner, healthy) => observe(storage.register(runner, healthy)),
    unregister: (address) => storage.unregister(address),
    getRunners: observe(storage.getRunners),
    setRunnerHealth: (address, healthy) => storage.setRunnerHealth(address, healthy),
    acquire: (address, shardIds) => storage.acquire(address, shardIds),
    refresh: (address, shardIds) => observe(storage.refresh(address, shardIds)),
    release: (address, shardId) => storage.release(address, shardId),
    releaseAll: (address) => storage.releaseAll(address),
  })
  return { storage: wrapped, healthy: () => !down && Date.now() - lastOk < leaseMs }
}

/**
 * Sharding for this process plus its `ClusterNode`. A runner listens on `CLUSTER_HOST:CLUSTER_PORT`
 * (port 0: any free port) and advertises the address it got.
 */
export const layer = (options: ClusterOptions): Layer.Layer<Sharding | ClusterNode> =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const { config, role } = options
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      const redis = yield* connection(options.redisUrl)
      const settings = shardingSettings(config)

      let address: RunnerAddress.RunnerAddress | undefined
      let runner: Layer.Layer<
        Sharding | Runners.Runners,
        never,
        | Runners.RpcClientProtocol
        | ShardingConfig.ShardingConfig
        | RpcSerialization.RpcSerialization
        | MessageStorage.MessageStorage
        | RunnerStorage.RunnerStorage
        | RunnerHealth.RunnerHealth
      >
      if (role === 'runner') {
        // Listen first, so that port 0 becomes a real port before the address is advertised.
        const server = yield* NodeSocketServer.make({ host: config.host, port: config.port }).pipe(
          Effect.orElse(() =>
            Effect.dieMessage(
              `cluster: cannot listen on ${config.host}:${config.port} for the other nodes (CLUSTER_HOST, CLUSTER_PORT)`,
            ),
          ),
        )
        const port = server.address._tag === 'TcpAddress' ? server.address.port : config.port
        address = RunnerAddress.make(config.host, port)
        runner = SocketRunner.layer.pipe(Layer.provide(Layer.succeed(SocketServer, server)))
      } else {
        runner = SocketRunner.layerClientOnly
      }
      const shardingConfig = ShardingConfig.layer({
        ...settings,
        runnerAddress: Option.fromNullable(address),
        runnerListenAddress: Option.none(),
      })

      let healthy = () => false
      const storage = Layer.effect(
        RunnerStorage.RunnerStorage,
        Effect.map(RunnerStorageRedis.make(redis, { prefix: options.prefix }), (s) => {
          const w = watched(s, config.leaseMs, runFork)
          healthy = w.healthy
          return w.storage
        }),
      )

      const sharding = runner.pipe(
        Layer.provide(layerClientProtocol),
        Layer.provide(RpcSerialization.layerMsgPack),
        Layer.provide(MessageStorage.layerMemory),
        Layer.provide(storage),
        Layer.provide(RunnerHealth.layerNoop),
        Layer.provide(shardingConfig),
      )

      const actors = new Map<string, LocalActor>()
      const shardIds = RunnerStorageRedis.allShardIds({ ...ShardingConfig.defaults, ...settings }).map(
        ShardId.fromString,
      )
      const addressText = address === undefined ? undefined : `${address.host}:${address.port}`
      const node = Layer.scoped(
        ClusterNode,
        Effect.flatMap(Sharding, (s) => {
          const shape = ClusterNode.of({
            role,
            address: addressText,
            askTimeoutMs: config.askTimeoutMs,
            actors,
            register: (name, actor) =>
              Effect.acquireRelease(
                Effect.sync(() => actors.set(name, actor)),
                () => Effect.sync(() => actors.delete(name)),
              ),
            status: Effect.sync(() => {
              const entities: Record<string, ReadonlyArray<string | number>> = {}
              for (const [name, a] of actors) entities[name] = [...a.entities]
              return {
                role,
                address: addressText,
                healthy: healthy(),
                shards: shardIds.filter((id) => s.hasShardId(id)).length,
                entities,
              }
            }),
          })
          const testPort = config.testPort
          if (testPort === undefined) return Effect.succeed(shape)
          return Effect.as(
            Effect.tap(TestEndpoint.serve(shape, testPort), (port) =>
              Effect.logInfo('cluster: test endpoint listening').pipe(Effect.annotateLogs({ port })),
            ),
            shape,
          )
        }),
      )
      return node.pipe(Layer.provideMerge(sharding))
    }),
  )
