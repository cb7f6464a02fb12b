/**
 * The implementation of Cluster.ts `layer` (read how cluster mode works there), loaded with the
 * first clustered layer: it is what brings @effect/cluster, @effect/rpc, the node sockets and
 * ioredis into a process. A single node (no REDIS_URL) never loads it.
 */
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
import type { SqlClient } from '@effect/sql'
import { Duration, Effect, Exit, Layer, Option, Runtime, type Scope } from 'effect'
import { Redis } from 'ioredis'
import type { ClusterConfig } from '../config.js'
import * as RedisConnection from '../redis'
import * as Epochs from './epochs.js'
import { ClusterNode, type ClusterOptions, type LocalActor } from './node.js'
import * as RunnerStorageRedis from './RunnerStorageRedis.js'
import * as TestEndpoint from './testEndpoint.js'

/** The @effect/cluster settings this deployment runs with. */
export const shardingSettings = (config: ClusterConfig): Partial<ShardingConfig.ShardingConfig['Type']> => ({
  shardsPerGroup: config.shards,
  shardLockExpiration: Duration.millis(config.leaseMs),
  shardLockRefreshInterval: Duration.millis(Math.floor(config.leaseMs / 3)),
  // The registry is read every quarter of the dead time: a node gone silent leaves the ring about
  // a quarter second after it counts as dead.
  refreshAssignmentsInterval: Duration.millis(
    Math.max(50, Math.min(1_000, Math.floor(config.leaseMs / 4), Math.floor(config.deadMs / 4))),
  ),
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
  // How long since Redis last answered: a duration, on the monotonic clock.
  let lastOk = performance.now()
  let down = false
  const observe = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
    Effect.onExit(effect, (exit) =>
      Effect.sync(() => {
        if (exit._tag === 'Success') {
          lastOk = performance.now()
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
  return {
    storage: wrapped,
    healthy: () => !down && performance.now() - lastOk < leaseMs,
    heartbeat: (address: RunnerAddress.RunnerAddress) => observe(storage.refresh(address, [])),
  }
}

/**
 * The storage, with each shard this node locks taken in PostgreSQL too (a new epoch, epochs.ts)
 * before the node starts acting for it, and forgotten when the locks say it is gone.
 */
const fenced = (storage: RunnerStorage.RunnerStorage['Type'], epochs: Epochs.Epochs) =>
  RunnerStorage.RunnerStorage.of({
    ...storage,
    acquire: (address, shardIds) =>
      Effect.flatMap(storage.acquire(address, shardIds), (locked) =>
        Effect.map(epochs.take(locked.map(String)), (taken) => {
          const ok = new Set(taken)
          return locked.filter((id) => ok.has(String(id)))
        }),
      ),
    refresh: (address, shardIds) =>
      Effect.tap(storage.refresh(address, shardIds), (held) => epochs.keep(held.map(String))),
    release: (address, shardId) =>
      Effect.ensuring(
        storage.release(address, shardId),
        Effect.sync(() => epochs.forget([String(shardId)])),
      ),
    releaseAll: (address) =>
      Effect.ensuring(
        storage.releaseAll(address),
        Effect.sync(() => epochs.forget('all')),
      ),
  })

/** `Cluster.layer`: Sharding for this process plus its `ClusterNode` (see Cluster.ts). */
export const layer = (
  options: ClusterOptions,
): Layer.Layer<Sharding | ClusterNode, never, SqlClient.SqlClient> =>
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
      let epochs: Epochs.Epochs | undefined
      const storage = Layer.scoped(
        RunnerStorage.RunnerStorage,
        Effect.gen(function* () {
          // A dead time past the lease means nothing: the locks lapse first.
          const deadMs = Math.min(config.deadMs, config.leaseMs)
          const s = yield* RunnerStorageRedis.make(redis, { prefix: options.prefix, deadMs })
          const w = watched(s, config.leaseMs, runFork)
          healthy = w.healthy
          if (address === undefined) return w.storage
          const self = address
          const made = yield* Epochs.make({
            owner: `${self.host}:${self.port}`,
            deadMs,
            heartbeat: w.heartbeat(self),
            onMoved: (shard, to) =>
              runFork(
                Effect.logWarning(
                  'cluster: a shard moved to another node; this node stops acting for it',
                ).pipe(Effect.annotateLogs({ shard, to })),
              ),
          })
          epochs = made
          return fenced(w.storage, made)
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
          const shardsHeld = () => shardIds.filter((id) => s.hasShardId(id)).length
          const shape = ClusterNode.of({
            role,
            address: addressText,
            askTimeoutMs: config.askTimeoutMs,
            admit: (shard) => (epochs ? epochs.admit(shard) : Effect.fail('this node hosts no entities')),
            fence: (actor, id) => {
              const shard = actors.get(actor)?.entities.get(id) ?? ''
              return { shard, epoch: (shard && epochs?.epochOf(shard)) || 0 }
            },
            actors,
            register: (name, actor) =>
              Effect.acquireRelease(
                Effect.sync(() => actors.set(name, actor)),
                () => Effect.sync(() => actors.delete(name)),
              ),
            status: Effect.sync(() => {
              const entities: Record<string, ReadonlyArray<string | number>> = {}
              for (const [name, a] of actors) entities[name] = [...a.entities.keys()]
              return {
                role,
                address: addressText,
                healthy: healthy(),
                shards: shardsHeld(),
                entities,
              }
            }),
          })
          const metrics = options.metrics
          const counted =
            metrics === undefined || addressText === undefined
              ? Effect.void
              : Effect.acquireRelease(
                  Effect.sync(() =>
                    metrics.clusterNode({
                      address: addressText,
                      role,
                      shardsHeld,
                      shardsConfigured: shardIds.length,
                      redisUp: () => healthy(),
                    }),
                  ),
                  (untrack) => Effect.sync(untrack),
                )
          const testPort = config.testPort
          if (testPort === undefined) return Effect.as(counted, shape)
          return Effect.as(
            Effect.zipRight(
              counted,
              Effect.tap(TestEndpoint.serve(shape, testPort), (port) =>
                Effect.logInfo('cluster: test endpoint listening').pipe(Effect.annotateLogs({ port })),
              ),
            ),
            shape,
          )
        }),
      )
      return node.pipe(Layer.provideMerge(sharding))
    }),
  )
