import { readFileSync } from 'node:fs'
import { PersistenceError } from '@effect/cluster/ClusterError'
import * as RunnerStorage from '@effect/cluster/RunnerStorage'
import * as ShardingConfig from '@effect/cluster/ShardingConfig'
import { Duration, Effect } from 'effect'
import type { Redis } from 'ioredis'
import { sourcePath } from '../sourceTree'

/**
 * `RunnerStorage` of @effect/cluster on one Redis: where the runners are and which runner holds
 * which shard. Keys (under `${prefix}cluster:`):
 * - `runners` (hash address → runner), `health` (hash address → 1/0), `heartbeats` (sorted set
 *   address → Redis time in ms of its last heartbeat), `machine` (counter for machine ids),
 *   `since` (hash address → Redis time in ms of its registration), `returning` (set of the runners
 *   that registered again and settle for `rejoinMs` from then);
 * - `shard:{group}:{n}`: one lock per shard holding the owner's address, taken with `SET NX PX`
 *   and extended, released or checked only by a Lua script that compares the owner first.
 *
 * Guarantees:
 * - A shard lock has at most one holder at a time (Redis is the arbiter, single instance). A lock
 *   lives `shardLockExpiration` (the lease) after its last refresh; a runner that stops refreshing
 *   (killed, cut off from Redis, frozen) loses its locks when the lease runs out, or sooner: once
 *   its heartbeat is older than `deadMs`, `acquire` by another runner takes them over. `refresh`
 *   never takes back a lock that expired or moved: the runner learns it lost it. Two runners may
 *   then both believe they own a shard for a moment; the shards' epochs in PostgreSQL
 *   (epochs.ts) decide which one may write.
 * - A runner counts as present while its heartbeat (`refresh`, with or without locks) is younger
 *   than `deadMs`; older runners are forgotten by `getRunners`, so the others recompute the shard
 *   assignment without them. A runner that was only slow registers again, and is listed unhealthy
 *   (given no shards) for `rejoinMs` while another runner is healthy and settled, if the cluster
 *   went on without it (another healthy runner registered longer ago than that): back from a
 *   freeze it first works through what piled up meanwhile, and the shards it would take back at
 *   once waited for it. After Redis lost every runner, they all come back as equals.
 * - Times are Redis server time: the nodes' clocks play no part.
 * - Every call fails with `PersistenceError` when Redis does not answer within `timeoutMs`.
 *
 * Not Redis Cluster (the scripts touch several keys); one Redis, optionally with replicas.
 */
export interface RedisRunnerStorageOptions {
  /** Prefix of every key; the same for every node of a deployment. Default `kotak:`. */
  readonly prefix?: string
  /** How long a call waits for Redis. Default a third of the lease. */
  readonly timeoutMs?: number
  /**
   * How old a runner's heartbeat may be before it counts as gone: forgotten by `getRunners`, its
   * locks taken over by `acquire` before their lease ends. Default the lease.
   */
  readonly deadMs?: number
  /**
   * How long a runner that registers again after being forgotten is given no shards, while
   * another runner is healthy and settled. Default five dead times.
   */
  readonly rejoinMs?: number
}

const script = (name: string) => readFileSync(sourcePath('engine', 'cluster', 'lua', `${name}.lua`), 'utf8')

const COMMANDS = {
  kotakClusterRegister: { lua: script('register'), numberOfKeys: 6 },
  kotakClusterGetRunners: { lua: script('getRunners'), numberOfKeys: 5 },
  kotakClusterUnregister: { lua: script('unregister'), numberOfKeys: 5 },
  kotakClusterSetHealth: { lua: script('setHealth'), numberOfKeys: 2 },
  // Variable key counts: the first argument is the number of keys.
  kotakClusterAcquire: { lua: script('acquire') },
  kotakClusterRefresh: { lua: script('refresh') },
  kotakClusterRelease: { lua: script('release') },
} as const

type Arg = string | number
type Command = (...args: Arg[]) => Promise<unknown>
type WithCommands = Redis & { readonly [K in keyof typeof COMMANDS]: Command }

/** Every shard id of the deployment, as `group:n`. */
export const allShardIds = (config: ShardingConfig.ShardingConfig['Type']): string[] => {
  const ids: string[] = []
  for (const group of ShardingConfig.shardGroupConfig(config).available)
    for (let n = 1; n <= config.shardsPerGroup; n++) ids.push(`${group}:${n}`)
  return ids
}

export const keysOf = (prefix: string) => {
  const base = `${prefix}cluster:`
  return {
    runners: `${base}runners`,
    health: `${base}health`,
    heartbeats: `${base}heartbeats`,
    machine: `${base}machine`,
    since: `${base}since`,
    returning: `${base}returning`,
    shard: (shardId: string) => `${base}shard:${shardId}`,
  }
}

/** The storage on `redis` (the caller owns the connection). */
export const make = (
  redis: Redis,
  options: RedisRunnerStorageOptions = {},
): Effect.Effect<RunnerStorage.RunnerStorage['Type'], never, ShardingConfig.ShardingConfig> =>
  Effect.gen(function* () {
    const config = yield* ShardingConfig.ShardingConfig
    const leaseMs = Math.max(1, Math.round(Duration.toMillis(config.shardLockExpiration)))
    const timeoutMs = options.timeoutMs ?? Math.max(100, Math.floor(leaseMs / 3))
    const deadMs = Math.min(options.deadMs ?? leaseMs, leaseMs)
    const rejoinMs = options.rejoinMs ?? 5 * deadMs
    // The addresses this storage has registered: registering one again means it was forgotten.
    const registered = new Set<string>()
    const keys = keysOf(options.prefix ?? 'kotak:')
    const everyShard = allShardIds(config).map(keys.shard)
    for (const [name, def] of Object.entries(COMMANDS)) {
      if (!(name in redis)) redis.defineCommand(name, def)
    }
    const r = redis as WithCommands

    const call = <A>(run: () => Promise<A>): Effect.Effect<A, PersistenceError> =>
      Effect.tryPromise(run).pipe(
        Effect.timeoutFail({
          duration: timeoutMs,
          onTimeout: () => new Error(`Redis did not answer within ${timeoutMs} ms`),
        }),
        Effect.mapError((cause) => new PersistenceError({ cause })),
      )

    const positions = (reply: unknown): number[] =>
      Array.isArray(reply) ? reply.map((n) => Number(n) - 1) : []

    return RunnerStorage.makeEncoded({
      register: (address, runner, healthy) =>
        call(() =>
          r.kotakClusterRegister(
            keys.runners,
            keys.health,
            keys.heartbeats,
            keys.machine,
            keys.since,
            keys.returning,
            address,
            runner,
            healthy ? '1' : '0',
            registered.has(address) ? rejoinMs : 0,
          ),
        ).pipe(
          Effect.map((n) => {
            registered.add(address)
            return Number(n) % 1024
          }),
        ),

      unregister: (address) =>
        call(() =>
          r.kotakClusterUnregister(
            keys.runners,
            keys.health,
            keys.heartbeats,
            keys.returning,
            keys.since,
            address,
            deadMs,
          ),
        ).pipe(Effect.asVoid),

      getRunners: call(() =>
        r.kotakClusterGetRunners(
          keys.runners,
          keys.health,
          keys.heartbeats,
          keys.returning,
          keys.since,
          deadMs,
          rejoinMs,
        ),
      ).pipe(
        Effect.map((reply) => {
          const flat = Array.isArray(reply) ? reply.map(String) : []
          const out: Array<readonly [string, boolean]> = []
          for (let i = 0; i + 1 < flat.length; i += 2) out.push([flat[i]!, flat[i + 1] === '1'])
          return out
        }),
      ),

      setRunnerHealth: (address, healthy) =>
        call(() => r.kotakClusterSetHealth(keys.runners, keys.health, address, healthy ? '1' : '0')).pipe(
          Effect.asVoid,
        ),

      acquire: (address, shardIds) =>
        call(() =>
          r.kotakClusterAcquire(
            shardIds.length + 1,
            keys.heartbeats,
            ...shardIds.map(keys.shard),
            address,
            leaseMs,
            deadMs,
          ),
        ).pipe(Effect.map((reply) => positions(reply).map((i) => shardIds[i]!))),

      refresh: (address, shardIds) =>
        call(() =>
          r.kotakClusterRefresh(
            shardIds.length + 1,
            keys.heartbeats,
            ...shardIds.map(keys.shard),
            address,
            leaseMs,
          ),
        ).pipe(Effect.map((reply) => positions(reply).map((i) => shardIds[i]!))),

      release: (address, shardId) =>
        call(() => r.kotakClusterRelease(1, keys.shard(shardId), address)).pipe(Effect.asVoid),

      releaseAll: (address) =>
        call(() => r.kotakClusterRelease(everyShard.length, ...everyShard, address)).pipe(Effect.asVoid),
    })
  })
