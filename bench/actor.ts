/**
 * Micro-benchmark of the actor kit (engine/actor).
 *
 *   node --expose-gc --import tsx bench/actor.ts      (all figures)
 *   npx tsx bench/actor.ts                            (no heap figure: needs --expose-gc)
 *
 * Prints one JSON object: warm ask latency (median, p99), heap per idle entity over 50,000 live
 * entities, and the throughput of 1,000 concurrent asks to one entity, with the budgets.
 */
import { Deferred, Effect, FiberId, Queue, Runtime } from 'effect'
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

/** Latency of `ask` issued one after the other from one fiber. */
const latency = <E>(ask: Effect.Effect<unknown, E>) =>
  Effect.gen(function* () {
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
      medianUs: round(percentile(sorted, 50) * 1000),
      p99Us: round(percentile(sorted, 99) * 1000),
      meanUs: round((totalMs / MEASURED_ASKS) * 1000),
    }
  })

/**
 * The kit's warm ask, next to the bare pattern it is built on (one `Queue.bounded`, one fiber, one
 * `Deferred` per reply, no kit): the gap is the kit's own cost; the tail (p99, mean) is mostly
 * Effect's runtime and V8's young-generation GC, and shows in the bare pattern too.
 */
const warmAsk = Effect.gen(function* () {
  const actor = yield* Actor.make(counter)
  const kit = yield* latency(actor.ask('warm', { _tag: 'Inc' }))

  const mailbox = yield* Queue.bounded<Deferred.Deferred<number>>(1024)
  let n = 0
  const serve: Effect.Effect<void> = Effect.flatMap(Queue.take(mailbox), (reply) =>
    Effect.zipRight(Deferred.succeed(reply, ++n), serve),
  )
  yield* Effect.forkScoped(serve)
  const bare = Effect.suspend(() => {
    const reply = Deferred.unsafeMake<number>(FiberId.none)
    return Effect.zipRight(Queue.offer(mailbox, reply), Deferred.await(reply))
  })
  const bareQueueDeferred = yield* latency(bare)
  return { asks: MEASURED_ASKS, ...kit, bareQueueDeferred }
}).pipe(Effect.scoped)

const medianMs = (times: Array<number>): number =>
  percentile(
    [...times].sort((a, b) => a - b),
    50,
  )

/**
 * 1,000 asks in flight at once to one entity, two ways: as children of one `Effect.forEach`
 * (which adds Effect's own fork/join cost, shown as `forEachBaselineMs` for 1,000 no-op fibers),
 * and as 1,000 independent root fibers, the way request handlers reach an actor.
 */
const concurrentAsks = Effect.gen(function* () {
  const actor = yield* Actor.make(counter)
  const runtime = yield* Effect.runtime<never>()
  const ids = Array.from({ length: CONCURRENT_ASKS }, (_, i) => i)
  const ask = actor.ask('hot', { _tag: 'Inc' })
  const viaForEach = Effect.forEach(ids, () => ask, { concurrency: 'unbounded', discard: true })
  const baseline = Effect.forEach(ids, () => Effect.yieldNow(), { concurrency: 'unbounded', discard: true })
  const viaRoots = Effect.async<void>((resume) => {
    let left = CONCURRENT_ASKS
    const done = () => {
      left--
      if (left === 0) resume(Effect.void)
    }
    for (let i = 0; i < CONCURRENT_ASKS; i++) Runtime.runCallback(runtime)(ask, { onExit: done })
  })
  const timed = <E>(effect: Effect.Effect<void, E>) =>
    Effect.gen(function* () {
      yield* effect // warm-up
      const times: Array<number> = []
      for (let r = 0; r < CONCURRENT_ROUNDS; r++) {
        const t0 = performance.now()
        yield* effect
        times.push(performance.now() - t0)
      }
      return medianMs(times)
    })
  const forEachMs = yield* timed(viaForEach)
  const baselineMs = yield* timed(baseline)
  const rootsMs = yield* timed(viaRoots)
  const last = yield* ask
  return {
    concurrentAsks: CONCURRENT_ASKS,
    rounds: CONCURRENT_ROUNDS,
    viaForEach: {
      medianRoundMs: round(forEachMs),
      asksPerSecond: Math.round(CONCURRENT_ASKS / (forEachMs / 1000)),
      forEachBaselineMs: round(baselineMs),
    },
    viaRootFibers: {
      medianRoundMs: round(rootsMs),
      asksPerSecond: Math.round(CONCURRENT_ASKS / (rootsMs / 1000)),
    },
    allServed: last === CONCURRENT_ASKS * (CONCURRENT_ROUNDS + 1) * 2 + 1,
  }
}).pipe(Effect.scoped)

/** 50,000 live, idle entities (each activated by one ask): heap per entity, activation cost. */
const idleEntities = Effect.gen(function* () {
  const collect = gc()
  const heap = (): number | undefined => {
    if (collect === undefined) return undefined
    collect()
    collect()
    return process.memoryUsage().heapUsed
  }
  const actor = yield* Actor.make(counter)
  // Touch one entity first so that the kit's own one-off allocations are not counted.
  yield* actor.ask('first', { _tag: 'Inc' })
  const before = heap()
  const t0 = performance.now()
  for (let i = 0; i < IDLE_ENTITIES; i++) yield* actor.ask(`entity-${i}`, { _tag: 'Inc' })
  const activationMs = performance.now() - t0
  yield* Effect.yieldNow()
  const after = heap()
  const live = (yield* actor.size) - 1
  return {
    entities: live,
    bytesPerEntity: before === undefined || after === undefined ? null : Math.round((after - before) / live),
    activationUsPerEntity: round((activationMs / IDLE_ENTITIES) * 1000),
    ...(collect === undefined ? { note: 'run with node --expose-gc for the heap figure' } : {}),
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
