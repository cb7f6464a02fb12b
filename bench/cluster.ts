/**
 * Micro-benchmark of cluster actors (engine/cluster): two runners in this process, reaching each
 * other over loopback TCP like two nodes, sharing a Redis prefix of their own.
 *
 *   DATABASE_URL=postgres://… REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/cluster.ts
 *
 * The database holds the shards' epochs (engine/cluster/epochs.ts); it is migrated first.
 *
 * Prints one JSON object: warm ask latency (median, p99) from runner A to entities A owns and to
 * entities B owns, the plain local kit for comparison, and the throughput of 1,000 concurrent
 * asks to remote entities.
 */
import { Duration, Effect, Layer, ManagedRuntime } from 'effect'
import { Redis } from 'ioredis'
import * as Actor from '../engine/actor/Actor.js'
import * as Cluster from '../engine/cluster/Cluster.js'
import * as ClusterActor from '../engine/cluster/ClusterActor.js'
import * as Database from '../store/database.js'
import { migrate } from '../store/migrate.js'

const ENTITIES = 200
const MEASURED_ASKS = 5_000
const CONCURRENT_ASKS = 1_000

const counter = Actor.define({
  name: 'bench',
  load: (_id: number) => Effect.succeed(0),
  handlers: {
    Inc: (n: number) => Effect.succeed([n + 1, n + 1] as const),
  },
})
class Counter extends Actor.Tag('bench/Counter')<Counter, typeof counter>() {}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN
const round = (n: number) => Number(n.toFixed(1))

const latency = async (ask: (i: number) => Promise<unknown>) => {
  const samples: number[] = []
  for (let i = 0; i < MEASURED_ASKS; i++) {
    const t = performance.now()
    await ask(i)
    samples.push((performance.now() - t) * 1000)
  }
  samples.sort((a, b) => a - b)
  return { medianUs: round(percentile(samples, 50)), p99Us: round(percentile(samples, 99)) }
}

const main = async () => {
  const redisUrl = process.env.REDIS_URL
  const databaseUrl = process.env.DATABASE_URL
  if (!redisUrl || !databaseUrl) throw new Error('bench/cluster.ts needs DATABASE_URL and REDIS_URL')
  const database = Database.layer({ url: databaseUrl, dataDir: 'memory' })
  await Effect.runPromise(Effect.provide(migrate, database))
  const prefix = `kotak_bench_${process.pid}:`
  const node = () =>
    ManagedRuntime.make(
      ClusterActor.layer(Counter, counter).pipe(
        Layer.provideMerge(
          Cluster.layer({
            redisUrl,
            prefix,
            role: 'runner',
            config: {
              host: '127.0.0.1',
              port: 0,
              leaseMs: 8_000,
              deadMs: 1_000,
              askTimeoutMs: 5_000,
              shards: 300,
              testPort: undefined,
            },
          }),
        ),
        Layer.provide(database),
      ),
    )
  const a = node()
  const b = node()
  const status = (rt: typeof a) => rt.runPromise(Effect.flatMap(Cluster.ClusterNode, (n) => n.status))
  const ask = (rt: ManagedRuntime.ManagedRuntime<Counter, unknown>, id: number) =>
    rt.runPromise(Effect.flatMap(Counter, (c) => c.ask(id, { _tag: 'Inc' })))
  try {
    // Settle: both runners hold shards, together all of them.
    for (;;) {
      const [sa, sb] = await Promise.all([status(a), status(b)])
      if (sa.shards > 0 && sb.shards > 0 && sa.shards + sb.shards === 300) break
      await Effect.runPromise(Effect.sleep(Duration.millis(100)))
    }
    for (let id = 0; id < ENTITIES; id++) await ask(a, id)
    const mine = new Set((await status(a)).entities.bench ?? [])
    const local = [...Array(ENTITIES).keys()].filter((id) => mine.has(id))
    const remote = [...Array(ENTITIES).keys()].filter((id) => !mine.has(id))
    const kit = ManagedRuntime.make(Actor.layer(Counter, counter))
    const result = {
      entities: { onA: local.length, onB: remote.length },
      kit: await latency((i) => ask(kit, local[i % local.length]!)),
      clusterLocalOwner: await latency((i) => ask(a, local[i % local.length]!)),
      clusterRemoteOwner: await latency((i) => ask(a, remote[i % remote.length]!)),
      remoteConcurrent: await (async () => {
        const t = performance.now()
        await Promise.all(
          Array.from({ length: CONCURRENT_ASKS }, (_, i) => ask(a, remote[i % remote.length]!)),
        )
        return {
          asks: CONCURRENT_ASKS,
          perSecond: Math.round(CONCURRENT_ASKS / ((performance.now() - t) / 1000)),
        }
      })(),
    }
    await kit.dispose()
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  } finally {
    await Promise.all([a.dispose(), b.dispose()])
    const r = new Redis(redisUrl)
    const keys = await r.keys(`${prefix}*`)
    if (keys.length > 0) await r.del(...keys)
    r.disconnect()
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`)
  process.exit(1)
})
