import { randomUUID } from 'node:crypto'
import { Duration, Effect, Layer, Runtime, type Scope } from 'effect'
import type { Redis } from 'ioredis'
import type { BusMetrics } from '../metrics'
import * as RedisConnection from '../redis'
import { Bus, type BusShape } from './Bus'
import { logThrown, makeRegistry } from './BusMemory'

export interface RedisBusOptions {
  /** Prefix of every channel (`${prefix}bus:${topic}`), so deployments and tests can share a Redis. */
  readonly prefix?: string
  /** Tells this node's messages from the others'; random by default. */
  readonly nodeId?: string
  /** How long publish/subscribe wait for Redis before giving up (logged); 1 s by default. */
  readonly timeoutMs?: number
  /**
   * Counts messages out and in, and measures the lag with a probe: every `PROBE_MS` the node
   * publishes its monotonic time on a channel of its own and times its return.
   */
  readonly metrics?: BusMetrics
}

const PROBE_MS = 1_000
/** Probes not back yet that are remembered: the oldest is what the lag reads. */
const PROBES_KEPT = 64

const VERSION = 1
/** What travels between nodes: msgpack of `[version, nodeId, topic, payload]`. */
type Envelope = readonly [version: typeof VERSION, nodeId: string, topic: string, payload: Uint8Array]

export const channelOf = (prefix: string, topic: string): string => `${prefix}bus:${topic}`

const decode = (unpack: (bytes: Uint8Array) => unknown, bytes: Uint8Array): Envelope | undefined => {
  let v: unknown
  try {
    v = unpack(bytes)
  } catch {
    return undefined
  }
  if (!Array.isArray(v) || v.length !== 4 || v[0] !== VERSION) return undefined
  const [, nodeId, topic, payload] = v
  if (typeof nodeId !== 'string' || typeof topic !== 'string' || !(payload instanceof Uint8Array))
    return undefined
  return [VERSION, nodeId, topic, payload]
}

/**
 * Local dispatch plus Redis pub/sub. `pub` carries commands; `sub` is put in subscriber mode and
 * holds one Redis subscription per topic that has local handlers (taken by the first handler,
 * dropped with the last). The caller owns both connections.
 */
export const make = (
  pub: Redis,
  sub: Redis,
  options: RedisBusOptions = {},
): Effect.Effect<BusShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const prefix = options.prefix ?? 'kotak:'
    const nodeId = options.nodeId ?? randomUUID()
    const timeoutMs = options.timeoutMs ?? 1_000
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    // msgpackr loads with the first Redis bus (cluster mode), not at start.
    const { pack, unpack } = yield* Effect.promise(() => import('msgpackr'))
    const local = makeRegistry()
    /** Topic → its SUBSCRIBE, awaited by every subscriber that arrives while it is under way. */
    const joined = new Map<string, Promise<unknown>>()

    const call = (what: string, topic: string, request: () => Promise<unknown>) =>
      Effect.tryPromise(request).pipe(
        Effect.timeout(timeoutMs),
        Effect.catchAll((error) =>
          Effect.logWarning(`bus: Redis ${what} failed`).pipe(
            Effect.annotateLogs({ topic, error: String(error) }),
          ),
        ),
        Effect.asVoid,
      )

    const metrics = options.metrics
    const probe = metrics === undefined ? undefined : probeOf(`${prefix}bus-probe:${nodeId}`)

    const onMessage = (channel: Buffer, message: Buffer) => {
      if (probe?.channelBytes.equals(channel)) return probe.arrived(message)
      const envelope = decode(unpack, message)
      if (!envelope || channelOf(prefix, envelope[2]) !== channel.toString()) {
        runFork(
          Effect.logWarning('bus: dropped a message it cannot read').pipe(
            Effect.annotateLogs({ channel: channel.toString() }),
          ),
        )
        return
      }
      const [, from, topic, payload] = envelope
      // Our own message: `publish` has already dispatched it here.
      if (from === nodeId) return
      metrics?.received()
      const thrown = local.dispatch(topic, payload)
      if (thrown.length > 0) runFork(logThrown(topic, thrown))
    }
    sub.on('messageBuffer', onMessage)
    yield* Effect.addFinalizer(() => Effect.sync(() => sub.off('messageBuffer', onMessage)))

    if (metrics !== undefined && probe !== undefined) {
      const untrack = metrics.lag(probe.lag)
      yield* Effect.addFinalizer(() => Effect.sync(untrack))
      // Through the same two connections as every message, so the probe queues behind what they
      // carry (this node's publishes, and the deliveries to it) and measures the lag they see;
      // one node's own clock at both ends, so the nodes' clocks need not agree. Lost probes (Redis
      // away) leave their send time behind, and the lag grows until one comes back.
      yield* Effect.forkScoped(
        Effect.zipRight(
          Effect.tryPromise(() => sub.subscribe(probe.channel)).pipe(Effect.ignore),
          Effect.forever(
            Effect.zipRight(
              Effect.sleep(Duration.millis(PROBE_MS)),
              Effect.tryPromise(() => pub.publish(probe.channel, probe.send())).pipe(
                Effect.timeout(timeoutMs),
                Effect.ignore,
              ),
            ),
          ),
        ),
      )
    }

    // Publishing runs on every event: one warning per outage and one line on recovery, not one per message.
    let publishDown = false
    const published = Effect.suspend(() => {
      if (!publishDown) return Effect.void
      publishDown = false
      return Effect.logInfo('bus: Redis publish works again')
    })
    const publishFailed = (topic: string, error: unknown) =>
      Effect.suspend(() => {
        if (publishDown) return Effect.void
        publishDown = true
        return Effect.logWarning('bus: Redis publish failed; other nodes miss messages until it works').pipe(
          Effect.annotateLogs({ topic, error: String(error) }),
        )
      })

    return {
      publish: (topic, payload) =>
        Effect.suspend(() => {
          const thrown = local.dispatch(topic, payload)
          metrics?.published()
          // One connection sends in order, so one node's messages to a topic stay in order.
          const envelope: Envelope = [VERSION, nodeId, topic, payload]
          return Effect.zipRight(
            logThrown(topic, thrown),
            Effect.tryPromise(() => pub.publish(channelOf(prefix, topic), pack(envelope))).pipe(
              Effect.timeout(timeoutMs),
              Effect.matchEffect({ onFailure: (e) => publishFailed(topic, e), onSuccess: () => published }),
            ),
          )
        }),
      subscribe: (topic, handler) =>
        Effect.suspend(() => {
          const channel = channelOf(prefix, topic)
          const { first, remove } = local.add(topic, handler)
          if (first) joined.set(topic, sub.subscribe(channel))
          const subscribed = joined.get(topic)!
          const unsubscribe = Effect.suspend(() => {
            if (!remove()) return Effect.void
            joined.delete(topic)
            // Sent after any earlier SUBSCRIBE of the topic on the same connection, so it cannot overtake it.
            return call('unsubscribe', topic, () => sub.unsubscribe(channel))
          })
          // A caller interrupted while Redis answers never gets `unsubscribe`, so the handler goes now.
          return call('subscribe', topic, () => subscribed).pipe(
            Effect.onInterrupt(() => unsubscribe),
            Effect.as(unsubscribe),
          )
        }),
    }
  })

/**
 * The bus lag probe of one node: its channel, the send times of the probes not back yet (oldest
 * first), and the lag = the last probe's round trip, or longer while an older one is still away.
 */
const probeOf = (channel: string) => {
  const away: number[] = []
  let last = 0
  return {
    channel,
    channelBytes: Buffer.from(channel),
    send: (): string => {
      const now = performance.now()
      if (away.length < PROBES_KEPT) away.push(now)
      return String(now)
    },
    arrived: (message: Buffer): void => {
      const sentAt = Number(message.toString())
      if (!Number.isFinite(sentAt)) return
      last = (performance.now() - sentAt) / 1000
      // Messages on one connection arrive in order: every probe sent before this one is back or lost.
      while (away.length > 0 && away[0]! <= sentAt) away.shift()
    },
    lag: (): number => {
      const oldest = away[0]
      return Math.max(last, oldest === undefined ? 0 : (performance.now() - oldest) / 1000)
    },
  }
}

// QUIT lets replies under way arrive; a connection that is down just drops. Finalizers run
// uninterruptibly, so the wait is made interruptible for the timeout to end it.
/** Opens a connection (closed with the scope) that logs once when Redis goes away and once when it is back. */
const open = (
  create: () => Redis,
  role: string,
  runFork: (e: Effect.Effect<void>) => unknown,
): Effect.Effect<Redis, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const r = create()
      let down = false
      r.on('error', (error: unknown) => {
        if (down) return
        down = true
        runFork(
          Effect.logWarning(
            `bus: Redis ${role} connection lost; messages between nodes are lost until it is back`,
          ).pipe(Effect.annotateLogs({ error: String(error) })),
        )
      })
      r.on('ready', () => {
        if (!down) return
        down = false
        runFork(Effect.logInfo(`bus: Redis ${role} connection back`))
      })
      return r
    }),
    RedisConnection.close,
  )

/**
 * The bus across nodes. Given a URL it opens both connections; given an instance it publishes on
 * it (the caller keeps it; it must not be in subscriber mode) and opens a duplicate to subscribe.
 */
export const layerRedis = (redis: Redis | string, options: RedisBusOptions = {}): Layer.Layer<Bus> =>
  Layer.scoped(
    Bus,
    Effect.gen(function* () {
      const runFork = Runtime.runFork(yield* Effect.runtime<never>())
      // ioredis loads here, with the first Redis layer: a single node never loads it.
      const { Redis: IORedis } = yield* Effect.promise(() => import('ioredis'))
      const pub =
        typeof redis === 'string'
          ? yield* open(() => new IORedis(redis, { maxRetriesPerRequest: 1 }), 'publish', runFork)
          : redis
      // The subscriber's commands wait out an outage (no retry limit); ioredis resubscribes on reconnect.
      // No ready check on it: its INFO, sent while a SUBSCRIBE issued during the connect is under
      // way, is refused ("Connection in subscriber mode") and the subscription is lost.
      const sub = yield* open(
        () =>
          typeof redis === 'string'
            ? new IORedis(redis, { maxRetriesPerRequest: null, enableReadyCheck: false })
            : redis.duplicate({ maxRetriesPerRequest: null, enableReadyCheck: false }),
        'subscribe',
        runFork,
      )
      return yield* make(pub, sub, options)
    }),
  )
