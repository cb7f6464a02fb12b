import { Runner } from '@effect/cluster/Runner'
import * as RunnerAddress from '@effect/cluster/RunnerAddress'
import * as ShardIdModule from '@effect/cluster/ShardId'
import * as ShardingConfig from '@effect/cluster/ShardingConfig'
import { Duration, Effect } from 'effect'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as RunnerStorageRedis from '../../engine/cluster/RunnerStorageRedis'
import { waitFor } from '../support/cluster'

// Cluster mode's runner storage lives in Redis by design: no Redis, nothing to test here.
const enabled = Boolean(process.env.REDIS_URL)
const LEASE_MS = 1_000

describe.skipIf(!enabled)('RunnerStorage on Redis', () => {
  let redis: Redis
  const prefix = `kotak_rs_${process.pid}_${Math.random().toString(36).slice(2, 8)}:`
  const config = ShardingConfig.layer({ shardsPerGroup: 12, shardLockExpiration: Duration.millis(LEASE_MS) })
  const storage = (options: { leaseMs?: number; deadMs?: number; rejoinMs?: number } = {}) =>
    Effect.runPromise(
      Effect.provide(
        RunnerStorageRedis.make(redis, {
          prefix,
          timeoutMs: 2_000,
          deadMs: options.deadMs,
          rejoinMs: options.rejoinMs,
        }),
        options.leaseMs === undefined
          ? config
          : ShardingConfig.layer({
              shardsPerGroup: 12,
              shardLockExpiration: Duration.millis(options.leaseMs),
            }),
      ),
    )
  const a = RunnerAddress.make('10.0.0.1', 7001)
  const b = RunnerAddress.make('10.0.0.2', 7002)
  const runner = (address: RunnerAddress.RunnerAddress) =>
    new Runner({ address, groups: ['default'], weight: 1 })
  const shard = (n: number) => ShardIdModule.make('default', n)
  const ids = (list: ReadonlyArray<ShardIdModule.ShardId>) => list.map((s) => s.id).sort((x, y) => x - y)
  const run = <A, E>(e: Effect.Effect<A, E>) => Effect.runPromise(e)

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!)
  })
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`)
    if (keys.length > 0) await redis.del(...keys)
    redis.disconnect()
  })

  it('registers runners with distinct machine ids and lists them with their health', async () => {
    const s = await storage()
    const m1 = await run(s.register(runner(a), true))
    const m2 = await run(s.register(runner(b), true))
    expect(m1).not.toBe(m2)
    await run(s.setRunnerHealth(b, false))
    const listed = await run(s.getRunners)
    expect(listed.map(([r, healthy]) => [r.address.port, healthy]).sort()).toEqual([
      [7001, true],
      [7002, false],
    ])
    await run(s.unregister(b))
    expect((await run(s.getRunners)).map(([r]) => r.address.port)).toEqual([7001])
    await run(s.unregister(a))
  })

  it('gives a shard lock to one runner; only the holder refreshes or releases it', async () => {
    // Both alive all along (a long lease and dead time): no lock moves for want of a heartbeat.
    const s = await storage({ leaseMs: 60_000 })
    await run(s.register(runner(a), true))
    await run(s.register(runner(b), true))
    expect(ids(await run(s.acquire(a, [1, 2, 3].map(shard))))).toEqual([1, 2, 3])
    expect(ids(await run(s.acquire(b, [2, 3, 4].map(shard))))).toEqual([4])
    // Acquiring again what one holds extends it.
    expect(ids(await run(s.acquire(a, [1, 4].map(shard))))).toEqual([1])
    expect(ids(await run(s.refresh(b, [1, 2, 3, 4].map(shard))))).toEqual([4])
    expect(ids(await run(s.refresh(a, [1, 2, 3, 4].map(shard))))).toEqual([1, 2, 3])
    await run(s.release(b, shard(1)))
    expect(ids(await run(s.acquire(b, [1].map(shard))))).toEqual([])
    await run(s.release(a, shard(1)))
    expect(ids(await run(s.acquire(b, [1].map(shard))))).toEqual([1])
    await run(s.releaseAll(a))
    expect(ids(await run(s.acquire(b, [2, 3].map(shard))))).toEqual([2, 3])
    expect(ids(await run(s.refresh(a, [2, 3].map(shard))))).toEqual([])
    await run(s.releaseAll(b))
    expect(await redis.keys(`${prefix}cluster:shard:*`)).toEqual([])
    await run(s.unregister(a))
    await run(s.unregister(b))
  })

  it('takes the locks of a runner whose heartbeat is older than the dead time, long before its lease ends', async () => {
    const leaseMs = 60_000
    const s = await storage({ leaseMs, deadMs: 300 })
    await run(s.register(runner(a), true))
    await run(s.register(runner(b), true))
    expect(ids(await run(s.acquire(a, [5, 6].map(shard))))).toEqual([5, 6])
    // a's heartbeat is fresh: its locks stay.
    expect(ids(await run(s.acquire(b, [5].map(shard))))).toEqual([])
    // b keeps its heartbeat going; a falls silent (frozen, or cut off from Redis).
    const started = performance.now()
    const taken = await waitFor(
      'b to take the locks of silent a',
      async () => {
        await run(s.refresh(b, []))
        const got = await run(s.acquire(b, [5, 6].map(shard)))
        return got.length === 2 ? got : undefined
      },
      { timeoutMs: 20_000, intervalMs: 50 },
    )
    expect(ids(taken)).toEqual([5, 6])
    // Taken over for want of a heartbeat, not because the lease ran out.
    expect(performance.now() - started).toBeLessThan(leaseMs / 2)
    expect((await run(s.getRunners)).map(([r]) => r.address.port)).toEqual([7002])
    // a wakes up: its refresh learns the locks are gone and takes none back.
    expect(ids(await run(s.refresh(a, [5, 6].map(shard))))).toEqual([])
    await run(s.releaseAll(b))
    await run(s.unregister(b))
  })

  it('moves nothing while every heartbeat is late (Redis slow, every node starved), and does once one is fresh', async () => {
    const s = await storage({ leaseMs: 60_000, deadMs: 300 })
    await run(s.register(runner(a), true))
    await run(s.register(runner(b), true))
    expect(ids(await run(s.acquire(a, [8].map(shard))))).toEqual([8])
    // Nobody's heartbeat reaches Redis for longer than the dead time.
    await new Promise((r) => setTimeout(r, 450))
    expect(ids(await run(s.acquire(b, [8].map(shard))))).toEqual([])
    expect((await run(s.getRunners)).map(([r]) => r.address.port).sort()).toEqual([7001, 7002])
    // b's heartbeat arrives: a's silence now means a is gone.
    await run(s.refresh(b, []))
    expect(ids(await run(s.acquire(b, [8].map(shard))))).toEqual([8])
    expect((await run(s.getRunners)).map(([r]) => r.address.port)).toEqual([7002])
    await run(s.releaseAll(b))
    await run(s.unregister(b))
  })

  it('gives a runner back from a freeze no shards while it settles, if the cluster went on without it', async () => {
    const listed = async (s: Awaited<ReturnType<typeof storage>>) =>
      (await run(s.getRunners)).map(([r, healthy]) => [r.address.port, healthy]).sort()
    const deadMs = 300
    const rejoinMs = 1_500
    // Each node has its own storage: a re-registration is what its own storage has seen before.
    const sa = await storage({ leaseMs: 60_000, deadMs, rejoinMs })
    const sb = await storage({ leaseMs: 60_000, deadMs, rejoinMs })
    await run(sa.register(runner(a), true))
    await run(sb.register(runner(b), true))
    // The cluster has run with both for longer than the rejoin time.
    const beat = setInterval(() => {
      void run(sa.refresh(a, [])).catch(() => undefined)
      void run(sb.refresh(b, [])).catch(() => undefined)
    }, 50)
    await new Promise((r) => setTimeout(r, rejoinMs + 100))
    clearInterval(beat)
    expect(await listed(sb)).toEqual([
      [7001, true],
      [7002, true],
    ])
    // a freezes; b beats on and forgets it.
    await waitFor(
      'b to forget a',
      async () => {
        await run(sb.refresh(b, []))
        return (await listed(sb)).length === 1 ? true : undefined
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    )
    // a wakes up and registers again: listed, but unhealthy (no shards) while it settles...
    await run(sa.register(runner(a), true))
    const back = performance.now()
    expect(await listed(sb)).toEqual([
      [7001, false],
      [7002, true],
    ])
    // ...then healthy, without anyone marking it so.
    await waitFor(
      'a to settle',
      async () => {
        await Promise.all([run(sa.refresh(a, [])), run(sb.refresh(b, []))])
        return (await listed(sb))[0]?.[1] === true ? true : undefined
      },
      { timeoutMs: 10_000, intervalMs: 50 },
    )
    expect(performance.now() - back).toBeGreaterThanOrEqual(rejoinMs - 100)
    // A runner's first registration never settles, nor does one whose cluster did not go on
    // without it (Redis lost every runner: they come back as equals).
    await run(sa.unregister(a))
    await run(sb.unregister(b))
    await redis.del(...(await redis.keys(`${prefix}cluster:*`)))
    await run(sa.register(runner(a), true))
    await run(sb.register(runner(b), true))
    expect(await listed(sa)).toEqual([
      [7001, true],
      [7002, true],
    ])
    await run(sa.unregister(a))
    await run(sb.unregister(b))
  })

  it('lets a lock and a runner lapse after the lease when nobody refreshes them', async () => {
    const s = await storage()
    await run(s.register(runner(a), true))
    await run(s.register(runner(b), true))
    expect(ids(await run(s.acquire(a, [7].map(shard))))).toEqual([7])
    // b keeps its heartbeat going; a falls silent.
    const lapsed = await waitFor(
      'the lease of a',
      async () => {
        await run(s.refresh(b, []))
        const got = await run(s.acquire(b, [7].map(shard)))
        return got.length === 1 ? got : undefined
      },
      { timeoutMs: 10 * LEASE_MS, intervalMs: 100 },
    )
    expect(ids(lapsed)).toEqual([7])
    expect((await run(s.getRunners)).map(([r]) => r.address.port)).toEqual([7002])
    // a's refresh does not take the lock back, and a can register again.
    expect(ids(await run(s.refresh(a, [7].map(shard))))).toEqual([])
    await run(s.register(runner(a), true))
    expect((await run(s.getRunners)).length).toBe(2)
    await run(s.releaseAll(b))
    await run(s.unregister(a))
    await run(s.unregister(b))
  })

  it('fails with PersistenceError when Redis does not answer', async () => {
    const dead = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null })
    dead.on('error', () => {})
    const s = await Effect.runPromise(
      Effect.provide(RunnerStorageRedis.make(dead, { prefix, timeoutMs: 500 }), config),
    )
    const exit = await Effect.runPromiseExit(s.acquire(a, [shard(1)]))
    expect(exit._tag).toBe('Failure')
    expect(JSON.stringify(exit)).toContain('PersistenceError')
    dead.disconnect()
  })
})
