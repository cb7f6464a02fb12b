import { randomBytes, randomUUID } from 'node:crypto'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { describe, expect, it } from '@effect/vitest'
import { Chunk, Context, Effect, Exit, Layer, Logger, Queue, Schedule, Scope } from 'effect'
import { Redis } from 'ioredis'
import { Bus, type BusShape } from '../../engine/bus/Bus'
import * as BusMemory from '../../engine/bus/BusMemory'
import * as BusRedis from '../../engine/bus/BusRedis'
import * as BusRelay from '../../engine/bus/BusRelay'

const REDIS_URL = process.env.REDIS_URL

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const text = (s: string) => encoder.encode(s)

const build = <E>(layer: Layer.Layer<Bus, E>) =>
  Effect.map(Layer.build(layer), (ctx) => Context.get(ctx, Bus))

/** A handler that queues what it receives (as text), and ways to wait for it. */
const recorder = Effect.gen(function* () {
  const queue = yield* Queue.unbounded<string>()
  return {
    handler: (payload: Uint8Array) => {
      Queue.unsafeOffer(queue, decoder.decode(payload))
    },
    /** The next `n` messages, in arrival order; fails the test after 5 s. */
    next: (n: number) =>
      Queue.takeN(queue, n).pipe(
        Effect.map(Chunk.toArray),
        Effect.timeoutFail({
          duration: '5 seconds',
          onTimeout: () => new Error(`waited 5 s for ${n} messages`),
        }),
      ),
    /** Received and not taken yet. */
    pending: Queue.size(queue),
  }
})

/** Log lines written while `effect` runs (also by fibers of layers built inside it). */
const captureLogs = <A, E, R>(effect: Effect.Effect<A, E, R>) => {
  const lines: string[] = []
  const logger = Logger.make(({ logLevel, message }) => {
    lines.push(`${logLevel.label} ${[message].flat().join(' ')}`)
  })
  return Effect.map(
    Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger)),
    (a) => [a, lines] as const,
  )
}

/**
 * The contract, run against every adapter. `nodes` gives each test two nodes of one deployment;
 * for the memory adapter (one process is one node) both are the same bus.
 */
const busSuite = (
  name: string,
  nodes: () => Effect.Effect<readonly [BusShape, BusShape], never, Scope.Scope>,
) =>
  describe(name, () => {
    it.scopedLive("delivers to this node's handlers inside publish, in order", () =>
      Effect.gen(function* () {
        const [a] = yield* nodes()
        const r = yield* recorder
        yield* a.subscribe('t', r.handler)
        yield* a.publish('t', text('m1'))
        yield* a.publish('t', text('m2'))
        expect(yield* r.pending).toBe(2)
        expect(yield* r.next(2)).toEqual(['m1', 'm2'])
      }),
    )

    it.scopedLive('delivers to the other node in publish order', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const r = yield* recorder
        yield* b.subscribe('t', r.handler)
        const sent = Array.from({ length: 50 }, (_, i) => `m${i}`)
        for (const m of sent) yield* a.publish('t', text(m))
        expect(yield* r.next(50)).toEqual(sent)
      }),
    )

    it.scopedLive('delivers each message once on the node that published it (no echo)', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const ra = yield* recorder
        const rb = yield* recorder
        yield* a.subscribe('t', ra.handler)
        yield* b.subscribe('t', rb.handler)
        yield* a.publish('t', text('x'))
        // An echo of `x` would reach `a` before `marker`, which `b` publishes after `x` was sent.
        yield* b.publish('t', text('marker'))
        expect(yield* ra.next(2)).toEqual(['x', 'marker'])
        expect((yield* rb.next(2)).sort()).toEqual(['marker', 'x'])
        expect(yield* ra.pending).toBe(0)
        expect(yield* rb.pending).toBe(0)
      }),
    )

    it.scopedLive('stops delivery after unsubscribe, keeps it for the other handlers, and resubscribes', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const r1 = yield* recorder
        const r2 = yield* recorder
        const off1 = yield* a.subscribe('t', r1.handler)
        const off2 = yield* a.subscribe('t', r2.handler)
        yield* off1
        yield* off1
        yield* b.publish('t', text('y'))
        expect(yield* r2.next(1)).toEqual(['y'])
        expect(yield* r1.pending).toBe(0)

        yield* off2
        yield* b.publish('t', text('unheard'))
        const r3 = yield* recorder
        yield* a.subscribe('t', r3.handler)
        yield* b.publish('t', text('z'))
        expect(yield* r3.next(1)).toEqual(['z'])
        expect(yield* r2.pending).toBe(0)
        expect(yield* r3.pending).toBe(0)
      }),
    )

    it.scopedLive('counts the same function subscribed twice as two subscriptions', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const r = yield* recorder
        const off = yield* a.subscribe('t', r.handler)
        yield* a.subscribe('t', r.handler)
        yield* b.publish('t', text('twice'))
        expect(yield* r.next(2)).toEqual(['twice', 'twice'])
        yield* off
        yield* b.publish('t', text('once'))
        expect(yield* r.next(1)).toEqual(['once'])
      }),
    )

    it.scopedLive('keeps topics apart', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const r = yield* recorder
        yield* a.subscribe('t1', r.handler)
        yield* b.publish('t2', text('other'))
        yield* b.publish('t1', text('mine'))
        expect(yield* r.next(1)).toEqual(['mine'])
        expect(yield* r.pending).toBe(0)
      }),
    )

    it.scopedLive('carries bytes unchanged', () =>
      Effect.gen(function* () {
        const [a, b] = yield* nodes()
        const got = yield* Queue.unbounded<Uint8Array>()
        yield* b.subscribe('bin', (p) => {
          Queue.unsafeOffer(got, p)
        })
        const sent = [new Uint8Array(0), new Uint8Array([0, 1, 127, 128, 255]), randomBytes(64 * 1024)]
        for (const p of sent) yield* a.publish('bin', p)
        const received = Chunk.toArray(yield* Queue.takeN(got, sent.length).pipe(Effect.timeout('5 seconds')))
        expect(received.map((p) => Buffer.from(p).toString('hex'))).toEqual(
          sent.map((p) => Buffer.from(p).toString('hex')),
        )
      }),
    )

    it.scopedLive('logs a handler that throws and still delivers to the others', () =>
      Effect.gen(function* () {
        const [[ra, exits], logs] = yield* captureLogs(
          Effect.gen(function* () {
            const [a, b] = yield* nodes()
            const r = yield* recorder
            yield* a.subscribe('t', () => {
              throw new Error('boom')
            })
            yield* a.subscribe('t', r.handler)
            const exits = [
              yield* Effect.exit(a.publish('t', text('local'))),
              yield* Effect.exit(b.publish('t', text('remote'))),
            ]
            return [yield* r.next(2), exits] as const
          }),
        )
        expect(ra.sort()).toEqual(['local', 'remote'])
        expect(exits.every(Exit.isSuccess)).toBe(true)
        expect(logs.filter((l) => l.startsWith('ERROR')).length).toBeGreaterThanOrEqual(2)
      }),
    )
  })

busSuite('Bus (memory)', () => Effect.map(build(BusMemory.layerMemory), (bus) => [bus, bus] as const))

/** A directory for one test's hub socket, removed with the scope. */
const socketDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bus-'))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })),
)

// A node without Redis (hub) and the operator's CLI beside it (spoke), both ways round.
busSuite('Bus (relay: hub, then spoke)', () =>
  Effect.gen(function* () {
    const socket = BusRelay.socketOf(yield* socketDir)
    const hub = yield* build(BusRelay.layerHub(socket))
    const spoke = yield* build(BusRelay.layerBeside(socket, 'no hub'))
    return [hub, spoke] as const
  }).pipe(Effect.orDie),
)
busSuite('Bus (relay: spoke, then another spoke)', () =>
  Effect.gen(function* () {
    const socket = BusRelay.socketOf(yield* socketDir)
    yield* build(BusRelay.layerHub(socket))
    const a = yield* build(BusRelay.layerBeside(socket, 'no hub'))
    const b = yield* build(BusRelay.layerBeside(socket, 'no hub'))
    return [a, b] as const
  }).pipe(Effect.orDie),
)

describe('Bus (relay): edges', () => {
  it.scopedLive('drops a connection that sends a malformed frame, and keeps serving', () =>
    Effect.gen(function* () {
      const socket = BusRelay.socketOf(yield* socketDir)
      const hub = yield* build(BusRelay.layerHub(socket))
      const closed = yield* Effect.async<boolean>((resume) => {
        const raw = net.createConnection(socket, () => {
          // Length 12, then op 9 (no such op).
          raw.write(Buffer.from([0, 0, 0, 12, 9, 0, 0, 0, 1, 0, 1, 116, 0, 0, 0, 0]))
        })
        raw.on('close', () => resume(Effect.succeed(true)))
        raw.on('error', () => {})
      }).pipe(Effect.timeout('5 seconds'))
      expect(closed).toBe(true)
      const r = yield* recorder
      yield* hub.subscribe('t', r.handler)
      const spoke = yield* build(BusRelay.layerBeside(socket, 'no hub'))
      yield* spoke.publish('t', text('after'))
      expect(yield* r.next(1)).toEqual(['after'])
    }),
  )

  it.scopedLive('refuses a second hub on a served socket, and the first keeps serving', () =>
    Effect.gen(function* () {
      const socket = BusRelay.socketOf(yield* socketDir)
      const hub = yield* build(BusRelay.layerHub(socket))
      const second = yield* Effect.exit(build(BusRelay.layerHub(socket)).pipe(Effect.scoped))
      expect(String(Exit.isFailure(second) && second.cause)).toMatch(/another process serves/)
      const r = yield* recorder
      yield* hub.subscribe('t', r.handler)
      const spoke = yield* build(BusRelay.layerBeside(socket, 'no hub'))
      yield* spoke.publish('t', text('still here'))
      expect(yield* r.next(1)).toEqual(['still here'])
    }),
  )

  it.scopedLive('stands alone when no node listens, or fails when one was expected', () =>
    Effect.gen(function* () {
      const socket = BusRelay.socketOf(yield* socketDir)
      // A file left where a node that was killed listened: nobody answers on it.
      fs.writeFileSync(socket, '')
      const alone = yield* build(BusRelay.layerBeside(socket, null))
      const r = yield* recorder
      yield* alone.subscribe('t', r.handler)
      yield* alone.publish('t', text('self'))
      expect(yield* r.next(1)).toEqual(['self'])
      fs.rmSync(socket)
      const refused = yield* Effect.exit(build(BusRelay.layerBeside(socket, 'the node does not answer')))
      expect(refused).toMatchObject({ _tag: 'Failure' })
      expect(String(Exit.isFailure(refused) && refused.cause)).toMatch(/the node does not answer/)
    }),
  )

  it.scopedLive('logs a publish the hub never acknowledges, and does not fail it', () =>
    Effect.gen(function* () {
      const dir = yield* socketDir
      const socket = BusRelay.socketOf(dir)
      // Something that accepts connections and never answers.
      const mute = net.createServer(() => {})
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => {
          mute.listen(socket, () => resume(Effect.void))
        }),
        () => Effect.sync(() => mute.close()),
      )
      const [exit, logs] = yield* captureLogs(
        Effect.gen(function* () {
          const ctx = yield* Layer.build(
            Layer.scoped(
              Bus,
              Effect.map(BusRelay.connect(socket, { timeoutMs: 200 }), (b) => b!),
            ),
          )
          return yield* Effect.exit(Context.get(ctx, Bus).publish('t', text('lost')))
        }),
      )
      expect(Exit.isSuccess(exit)).toBe(true)
      expect(logs.some((l) => l.startsWith('ERROR') && l.includes('bus relay: pub failed'))).toBe(true)
    }),
  )
})

/** Redis subscribers of a topic's channel, seen from outside the nodes. */
const redisSubscribers = (probe: Redis, prefix: string, topic: string) =>
  Effect.promise(async () => {
    const [, n] = (await probe.pubsub('NUMSUB', BusRedis.channelOf(prefix, topic))) as [string, number]
    return Number(n)
  })

const probeConnection = Effect.acquireRelease(
  Effect.sync(() => new Redis(REDIS_URL!)),
  (r) => Effect.sync(() => r.disconnect()),
)

// Cluster mode needs Redis by design; the in-memory bus (a single node, either database) is above.
describe.skipIf(!REDIS_URL)('Redis', () => {
  // Two layers are two nodes: separate connections and node ids, one key prefix per test.
  busSuite('Bus (redis)', () =>
    Effect.gen(function* () {
      const prefix = `test:${randomUUID()}:`
      return [
        yield* build(BusRedis.layerRedis(REDIS_URL!, { prefix })),
        yield* build(BusRedis.layerRedis(REDIS_URL!, { prefix })),
      ] as const
    }),
  )

  it.scopedLive('holds one Redis subscription per topic while it has local handlers', () =>
    Effect.gen(function* () {
      const prefix = `test:${randomUUID()}:`
      const probe = yield* probeConnection
      const bus = yield* build(BusRedis.layerRedis(REDIS_URL!, { prefix }))
      const count = redisSubscribers(probe, prefix, 't')
      expect(yield* count).toBe(0)
      const off1 = yield* bus.subscribe('t', () => {})
      expect(yield* count).toBe(1)
      const off2 = yield* bus.subscribe('t', () => {})
      expect(yield* count).toBe(1)
      yield* off1
      expect(yield* count).toBe(1)
      yield* off2
      expect(yield* count).toBe(0)
      yield* bus.subscribe('t', () => {})
      expect(yield* count).toBe(1)
    }),
  )

  it.scopedLive('closes its connections when the layer is released', () =>
    Effect.gen(function* () {
      const prefix = `test:${randomUUID()}:`
      const probe = yield* probeConnection
      const scope = yield* Scope.make()
      const bus = yield* Scope.extend(build(BusRedis.layerRedis(REDIS_URL!, { prefix })), scope)
      yield* bus.subscribe('t', () => {})
      expect(yield* redisSubscribers(probe, prefix, 't')).toBe(1)
      yield* Scope.close(scope, Exit.void)
      // Redis drops a closed client's subscriptions just after answering its QUIT.
      const after = yield* redisSubscribers(probe, prefix, 't').pipe(
        Effect.repeat({
          until: (n) => n === 0,
          schedule: Schedule.spaced('20 millis').pipe(Schedule.upTo('2 seconds')),
        }),
      )
      expect(after).toBe(0)
    }),
  )

  it.scopedLive('publishes on a connection it was given and leaves it open', () =>
    Effect.gen(function* () {
      const prefix = `test:${randomUUID()}:`
      const given = yield* Effect.acquireRelease(
        Effect.sync(() => new Redis(REDIS_URL!)),
        (r) => Effect.sync(() => r.disconnect()),
      )
      const other = yield* build(BusRedis.layerRedis(REDIS_URL!, { prefix }))
      const r = yield* recorder
      yield* other.subscribe('t', r.handler)
      const scope = yield* Scope.make()
      const bus = yield* Scope.extend(build(BusRedis.layerRedis(given, { prefix })), scope)
      yield* bus.publish('t', text('hello'))
      expect(yield* r.next(1)).toEqual(['hello'])
      yield* Scope.close(scope, Exit.void)
      expect(yield* Effect.promise(() => given.ping())).toBe('PONG')
    }),
  )
})

describe('Bus (redis) outage', () => {
  it.scopedLive('keeps local delivery, fails nothing, and logs', () =>
    Effect.gen(function* () {
      const [received, logs] = yield* captureLogs(
        Effect.scoped(
          Effect.gen(function* () {
            // Nothing listens on port 1: every command fails or times out.
            const bus = yield* build(BusRedis.layerRedis('redis://127.0.0.1:1', { timeoutMs: 200 }))
            const r = yield* recorder
            const off = yield* bus.subscribe('t', r.handler)
            yield* bus.publish('t', text('local'))
            yield* bus.publish('t', text('again'))
            yield* off
            return yield* r.next(2)
          }),
        ),
      )
      expect(received).toEqual(['local', 'again'])
      expect(logs.some((l) => l.startsWith('WARN'))).toBe(true)
    }),
  )
})
