/**
 * Micro-benchmark of the actor kit (engine/actor).
 *
 *   node --expose-gc --import tsx bench/actor.ts      (all figures)
 *   npx tsx bench/actor.ts                            (no heap figure: needs --expose-gc)
 *
 * Prints one JSON object: warm ask latency (median, p99), heap per idle entity over 50,000 live
 * entities, and the throughput of 1,000 concurrent asks to one entity, with the budgets.
 */
import { Effect } from 'effect'
import * as Actor from '../engine/actor/Actor.js'

const WARMUP_ASKS = 20_000
const MEASURED_ASKS = 100_000
const IDLE_ENTITIES = 50_000
const CONCURRENT_ASKS = 1_000
const CONCURRENT_ROUNDS = 20

const BUDGET = { warmAskMedianUs: 50, idleEntityBytes: 10 * 1024, liveEntities: 50_000 }

const counter = Actor.define({
  name: 'bench',
  load: (_id: string) => Effect.succeed(0),
  handlers: {
    Inc: (n: number) => Effect.succeed([n + 1, n + 1] as const),
  },
})

const gc = (): (() => void) | undefined => {
  const candidate: unknown = Reflect.get(globalThis, 'gc')
  return typeof candidate === 'function' ? () => Reflect.apply(candidate, globalThis, []) : undefined
}

const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN

const round = (n: number, digits = 2): number => Number(n.toFixed(digits))

const warmAsk = Effect.gen(function* () {
  const actor = yield* Actor.make(counter)
  const ask = actor.ask('warm', { _tag: 'Inc' })
  for (let i = 0; i < WARMUP_ASKS; i++) yield* ask
  const samples = new Float64Array(MEASURED_ASKS)
  const started = performance.now()
  for (let i = 0; i < MEASURED_ASKS; i++) {
    const t0 = performance.now()
    yield* ask
    samples[i] = performance.now() - t0
  }
  const totalMs = performance.now() - started
  const sorted = Array.from(samples).sort((a, b) => a - b)
  return {
    asks: MEASURED_ASKS,
    medianUs: round(percentile(sorted, 50) * 1000),
    p99Us: round(percentile(sorted, 99) * 1000),
    meanUs: round((totalMs / MEASURED_ASKS) * 1000),
  }
}).pipe(Effect.scoped)

const concurrentAsks = Effect.gen(function* () {
  const actor = yield* Actor.make(counter)
  const ids = Array.from({ length: CONCURRENT_ASKS }, (_, i) => i)
  const ask = actor.ask('hot', { _tag: 'Inc' })
  const roundOnce = Effect.forEach(ids, () => ask, { concurrency: 'unbounded', discard: true })
  yield* roundOnce // warm-up
  const times: Array<number> = []
  for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
    const t0 = performance.now()
    yield* roundOnce
    times.push(performance.now() - t0)
  }
  const last = yield* ask
  times.sort((a, b) => a - b)
  const medianMs = percentile(times, 50)
  return {
    concurrentAsks: CONCURRENT_ASKS,
    rounds: CONCURRENT_ROUNDS,
    medianRoundMs: round(medianMs),
    asksPerSecond: Math.round(CONCURRENT_ASKS / (medianMs / 1000)),
    allServed: last === CONCURRENT_ASKS * (CONCURRENT_ROUNDS + 1) + 1,
  }
}).pipe(Effect.scoped)

const idleEntities = Effect.gen(function* () {
  const collect = gc()
  if (collect === undefined) {
    return {
      entities: IDLE_ENTITIES,
      bytesPerEntity: null,
      note: 'run with node --expose-gc for the heap figure',
    }
  }
  const actor = yield* Actor.make(counter)
  // Touch one entity first so that the kit's own one-off allocations are not counted.
  yield* actor.ask('first', { _tag: 'Inc' })
  collect()
  collect()
  const before = process.memoryUsage().heapUsed
  const t0 = performance.now()
  for (let i = 0; i < IDLE_ENTITIES; i++) yield* actor.ask(`entity-${i}`, { _tag: 'Inc' })
  const activationMs = performance.now() - t0
  yield* Effect.yieldNow()
  collect()
  collect()
  const after = process.memoryUsage().heapUsed
  const live = (yield* actor.size) - 1
  return {
    entities: live,
    bytesPerEntity: Math.round((after - before) / live),
    activationUsPerEntity: round((activationMs / IDLE_ENTITIES) * 1000),
  }
}).pipe(Effect.scoped)

const main = Effect.gen(function* () {
  const warm = yield* warmAsk
  const concurrent = yield* concurrentAsks
  const idle = yield* idleEntities
  const within = {
    warmAskMedian: warm.medianUs < BUDGET.warmAskMedianUs,
    idleEntity: idle.bytesPerEntity === null ? null : idle.bytesPerEntity < BUDGET.idleEntityBytes,
    liveEntities: idle.entities >= BUDGET.liveEntities,
    concurrentAllServed: concurrent.allServed,
  }
  return {
    node: process.version,
    warmAsk: warm,
    concurrent,
    idle,
    budget: BUDGET,
    within,
  }
})

Effect.runPromise(main).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    if (Object.values(result.within).some((ok) => ok === false)) process.exitCode = 1
  },
  (error: unknown) => {
    process.stderr.write(`${String(error)}\n`)
    process.exitCode = 1
  },
)
