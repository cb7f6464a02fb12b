import { Context } from 'effect'
import client from 'prom-client'

/**
 * Prometheus metrics of one service instance. A registry per instance (not the global one), so
 * several servers in one process (tests) do not collide.
 *
 * Every name below is read by `ops/prometheus/kotak.rules.yml` and `ops/grafana/kotak.json`
 * (test/ops/prometheus.test.ts runs their queries against a scraped cluster): renaming one is a
 * change of both. Levels (entities, shards, pool, lag) are read when Prometheus scrapes, never on
 * the path they describe; what happens per request or per write is counted through label children
 * found once.
 */
export interface Metrics {
  readonly registry: client.Registry
  /**
   * Requests the fast runner (engine/step.ts `runFast`) had to continue on a fiber: a route that
   * should answer without one and stops doing so shows here (test/http/fastPath.test.ts).
   */
  readonly requestsOnFiber: client.Counter
  /**
   * Counts one answered request and its duration (`kotak_http_requests_total`,
   * `kotak_http_request_duration_seconds`). The route's class is a function of (method, route), so
   * `classOf(target, method)` is asked only the first time a pair is seen: no work and no
   * allocation per request for it.
   */
  readonly recordHttp: <T>(
    method: string,
    route: string,
    status: number,
    seconds: number,
    target: T,
    classOf: (target: T, method: string) => string,
  ) => void
  /** Live entities of one actor type on this node (`kotak_actor_entities{actor}`). */
  readonly actorEntities: (actor: string, read: () => number) => Untrack
  /** WebSocket connections held by this node (`kotak_realtime_connections`). */
  readonly realtimeConnections: (read: () => number) => Untrack
  /** A clustered node's identity and shards (`kotak_cluster_*`). */
  readonly clusterNode: (node: ClusterReadings) => Untrack
  /** The metrics of one group-commit writer (engine/groupCommit.ts), by its name. */
  readonly groupCommit: (writer: string) => GroupCommitMetrics
  /** The bus between nodes (engine/bus/BusRedis.ts). */
  readonly bus: BusMetrics
  /** The database connection pool (store/pool.ts). */
  readonly pool: PoolMetrics
}

/** Stops a reading taken at scrape time (its series goes with the last reader of its labels). */
export type Untrack = () => void

export interface ClusterReadings {
  /** `CLUSTER_HOST:port`, the node's identity among the others. */
  readonly address: string
  readonly role: string
  readonly shardsHeld: () => number
  readonly shardsConfigured: number
  /** Whether the node coordinates through Redis now. */
  readonly redisUp: () => boolean
}

export interface GroupCommitMetrics {
  /** A flush starts with `items`, the oldest of which waited `waitedSeconds` for it. */
  readonly started: (items: number, waitedSeconds: number) => void
  /** A flush (its statement and commit) took `seconds`. */
  readonly flushed: (seconds: number) => void
  /** Items submitted and not yet in a flush. */
  readonly pending: (read: () => number) => Untrack
}

export interface BusMetrics {
  /** One message handed to the other nodes. */
  readonly published: () => void
  /** One message from another node delivered here. */
  readonly received: () => void
  /** Seconds from publish to delivery through the bus, as this node sees it now. */
  readonly lag: (read: () => number) => Untrack
}

export type PoolWaitFailure = 'acquire_timeout' | 'query_timeout' | 'held_idle'

export interface PoolReadings {
  readonly open: () => number
  readonly idle: () => number
  readonly waiting: () => number
  readonly max: number
}

export interface PoolMetrics {
  readonly track: (pool: PoolReadings) => Untrack
  /** A caller got a connection after waiting `seconds`. */
  readonly acquired: (seconds: number) => void
  /** A wait the pool broke (store/pool.ts): the caller failed with `DatabaseBusy` or a timeout. */
  readonly waitFailed: (reason: PoolWaitFailure) => void
  /**
   * The embedded database's thread (store/embeddedWorker.ts), asked once per scrape
   * (`kotak_embedded_*`); a node on PostgreSQL exports none of these series.
   */
  readonly embedded: (read: () => Promise<EmbeddedMemory>) => Untrack
}

/** The embedded database's thread's memory, as that thread reads it (store/embeddedWorker.ts). */
export interface EmbeddedMemory {
  /** PGlite's WebAssembly memory: PostgreSQL's whole address space; it never shrinks. */
  readonly wasmBytes: number
  /** What PostgreSQL's memory contexts hold inside it now; null when PGlite does not export them. */
  readonly contextBytes: number | null
  /** The thread's own V8 heap: in use, and reserved. */
  readonly heapUsedBytes: number
  readonly heapTotalBytes: number
}

export class MetricsTag extends Context.Tag('kotak/Metrics')<MetricsTag, Metrics>() {}

/** Short waits in milliseconds to a few seconds: database commits, queue waits, bus delivery. */
const WAIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/**
 * A gauge whose values are read when Prometheus scrapes: each reader adds its value to its labels'
 * sample. The gauge is registered with its first reader and removed with its last, so a node
 * without (say) a cluster exports no cluster series at all rather than zeros that look like one.
 */
const readAtScrape =
  (registry: client.Registry) =>
  (name: string, help: string, labelNames: readonly string[] = []) => {
    const readers = new Map<string, { labels: Record<string, string>; reads: Set<() => number> }>()
    let gauge: client.Gauge<string> | undefined
    return (labels: Record<string, string>, read: () => number): Untrack => {
      if (gauge === undefined) {
        gauge = new client.Gauge({
          name,
          help,
          labelNames,
          registers: [registry],
          collect() {
            this.reset()
            for (const { labels, reads } of readers.values()) {
              let sum = 0
              for (const r of reads) sum += r()
              this.set(labels, sum)
            }
          },
        })
      }
      const key = labelNames.map((l) => labels[l] ?? '').join('\u0000')
      let entry = readers.get(key)
      if (entry === undefined) {
        entry = { labels, reads: new Set() }
        readers.set(key, entry)
      }
      // A wrapper per reader, so the same function tracked twice counts twice and untracks once.
      const mine = () => read()
      entry.reads.add(mine)
      return () => {
        const e = readers.get(key)
        if (!e?.reads.delete(mine) || e.reads.size > 0) return
        readers.delete(key)
        if (readers.size === 0 && gauge !== undefined) {
          registry.removeSingleMetric(name)
          gauge = undefined
        }
      }
    }
  }

/**
 * A counter's child exported at 0 before its first increment: Prometheus then sees that increment
 * as a change (a series that starts at 1 shows no rate, and the first failure would go unnoticed).
 */
const exported = (child: client.Counter.Internal): client.Counter.Internal => {
  child.inc(0)
  return child
}

const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

/** What one (method, route) has answered since the node started. */
interface HttpSeries {
  readonly labels: { readonly method: string; readonly route: string; readonly class: string }
  /** Requests per duration bucket, not cumulative; the last is over the largest bound (`+Inf`). */
  readonly buckets: number[]
  sum: number
  count: number
  /** Requests per status. */
  readonly statuses: Map<number, number>
}

/** A value as prom-client's registry formats it (`sharedLabels` follow `labels` in the line). */
interface Sample {
  readonly value: number
  readonly labels: Readonly<Record<string, string | number>>
  readonly sharedLabels?: Readonly<Record<string, string>>
  readonly metricName?: string
}

/**
 * The request counter and duration histogram, kept in plain numbers per (method, route) and
 * turned into prom-client's samples only when Prometheus scrapes. prom-client's own label children
 * validate and hash their label object on every `inc` and `observe`: a sixth of the server's CPU
 * per `GET /v1/me` in the kernel profile (issue 49). Here a request is two map reads, a bucket
 * search and a few additions. The two metric objects have the shape the registry formats (name,
 * help, type, `get`), and their text is what prom-client's Counter and Histogram would print.
 */
const httpMetrics = (registry: client.Registry) => {
  const byRoute = new Map<string, Map<string, HttpSeries>>()
  const all = () => [...byRoute.values()].flatMap((m) => [...m.values()])
  const metric = (name: string, help: string, type: 'counter' | 'histogram', samples: () => Sample[]) => {
    const read = (values: readonly Sample[]) => ({ name, help, type, aggregator: 'sum' as const, values })
    const m = {
      name,
      help,
      type,
      aggregator: 'sum' as const,
      // The JSON form has each sample's labels whole, as prom-client's own metrics give them.
      get: async () =>
        read(samples().map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...sharedLabels, ...v.labels } }))),
      getForPromString: async () => read(samples()),
      reset: () => byRoute.clear(),
    }
    // The registry reads a metric through these members only (prom-client's Registry).
    registry.registerMetric(m as unknown as client.Metric)
  }
  metric(
    'kotak_http_requests_total',
    'HTTP requests by route template, route class and status',
    'counter',
    () =>
      all().flatMap((s) =>
        [...s.statuses].map(([status, value]) => ({
          value,
          labels: { ...s.labels, status: String(status) },
        })),
      ),
  )
  metric(
    'kotak_http_request_duration_seconds',
    'HTTP request duration by route template and route class',
    'histogram',
    () =>
      all().flatMap((s) => {
        let below = 0
        const buckets = s.buckets.map((n, i) => {
          below += n
          return {
            value: below,
            labels: { le: i < HTTP_BUCKETS.length ? HTTP_BUCKETS[i]! : '+Inf' },
            sharedLabels: s.labels,
            metricName: 'kotak_http_request_duration_seconds_bucket',
          }
        })
        return [
          ...buckets,
          { value: s.sum, labels: s.labels, metricName: 'kotak_http_request_duration_seconds_sum' },
          { value: s.count, labels: s.labels, metricName: 'kotak_http_request_duration_seconds_count' },
        ]
      }),
  )
  const record: Metrics['recordHttp'] = (method, route, status, seconds, target, classOf) => {
    let methods = byRoute.get(route)
    if (methods === undefined) {
      methods = new Map()
      byRoute.set(route, methods)
    }
    let s = methods.get(method)
    if (s === undefined) {
      s = {
        labels: { method, route, class: classOf(target, method) },
        buckets: new Array<number>(HTTP_BUCKETS.length + 1).fill(0),
        sum: 0,
        count: 0,
        statuses: new Map(),
      }
      methods.set(method, s)
    }
    let i = 0
    while (i < HTTP_BUCKETS.length && seconds > HTTP_BUCKETS[i]!) i++
    s.buckets[i]!++
    s.sum += seconds
    s.count++
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1)
  }
  return record
}

export const makeMetrics = (): Metrics => {
  const registry = new client.Registry()
  client.collectDefaultMetrics({ register: registry, prefix: 'kotak_' })
  const recordHttp = httpMetrics(registry)
  const requestsOnFiber = new client.Counter({
    name: 'kotak_http_requests_on_fiber_total',
    help: 'HTTP requests that could not be answered without a fiber (engine/step.ts runFast)',
    registers: [registry],
  })
  const gauge = readAtScrape(registry)

  const actors = gauge('kotak_actor_entities', 'Live actor entities on this node by actor type', ['actor'])
  const connections = gauge('kotak_realtime_connections', 'WebSocket connections held by this node')
  const nodeInfo = gauge(
    'kotak_cluster_node_info',
    "A clustered node's identity: its address among the nodes (CLUSTER_HOST:port) and role",
    ['address', 'role'],
  )
  const shardsHeld = gauge('kotak_cluster_shards_held', 'Shards this node holds now')
  const shardsConfigured = gauge(
    'kotak_cluster_shards_configured',
    'Shards of the deployment (CLUSTER_SHARDS times the shard groups), identical on every node',
  )
  const redisUp = gauge(
    'kotak_cluster_redis_up',
    'Whether this node coordinates through Redis now (1) or has given up its shards (0)',
  )

  const byWriter = (name: string, help: string, buckets: number[]) =>
    new client.Histogram({ name, help, labelNames: ['writer'], buckets, registers: [registry] })
  const batchItems = byWriter(
    'kotak_group_commit_batch_items',
    'Items written by one group-commit flush',
    [1, 2, 4, 8, 16, 32, 64, 128, 256],
  )
  const batchWait = byWriter(
    'kotak_group_commit_wait_seconds',
    "How long a flush's oldest item waited for the flush to start",
    WAIT_BUCKETS,
  )
  const batchFlush = byWriter(
    'kotak_group_commit_flush_seconds',
    'Duration of one group-commit flush (statement and commit)',
    WAIT_BUCKETS,
  )
  const batchPending = gauge(
    'kotak_group_commit_pending_items',
    'Items submitted to a group-commit writer and not yet in a flush',
    ['writer'],
  )

  const busMessages = new client.Counter({
    name: 'kotak_bus_messages_total',
    help: 'Messages between nodes: published by this node (out), delivered here from others (in)',
    labelNames: ['direction'],
    registers: [registry],
  })
  const busLag = gauge(
    'kotak_bus_lag_seconds',
    "Seconds a message takes from publish to delivery through the bus, as this node's probe sees it now",
  )
  const busOut = exported(busMessages.labels({ direction: 'out' }))
  const busIn = exported(busMessages.labels({ direction: 'in' }))

  const poolOpen = gauge(
    'kotak_db_pool_connections',
    'Open database connections of this node (idle and in use)',
  )
  const poolIdle = gauge('kotak_db_pool_idle_connections', 'Idle database connections')
  const poolMax = gauge('kotak_db_pool_max_connections', 'The pool size: most connections open at once')
  const poolWaiting = gauge('kotak_db_pool_waiting', 'Callers waiting for a database connection now')
  const poolAcquire = new client.Histogram({
    name: 'kotak_db_pool_acquire_seconds',
    help: 'How long a caller waited for a database connection (opening a new one included)',
    buckets: WAIT_BUCKETS,
    registers: [registry],
  })
  const poolFailures = new client.Counter({
    name: 'kotak_db_pool_wait_failures_total',
    help: 'Waits the pool broke: no connection in time (acquire_timeout), no answer in time (query_timeout), the only connection held idle (held_idle)',
    labelNames: ['reason'],
    registers: [registry],
  })
  const failures: Record<PoolWaitFailure, client.Counter.Internal> = {
    acquire_timeout: exported(poolFailures.labels({ reason: 'acquire_timeout' })),
    query_timeout: exported(poolFailures.labels({ reason: 'query_timeout' })),
    held_idle: exported(poolFailures.labels({ reason: 'held_idle' })),
  }

  const embedded = (read: () => Promise<EmbeddedMemory>): Untrack => {
    // One question to the thread per scrape: the four gauges' collections start together and
    // share it.
    let asked: Promise<EmbeddedMemory> | undefined
    const ask = () => {
      asked ??= read().finally(() => {
        asked = undefined
      })
      return asked
    }
    const gauges = [
      [
        'kotak_embedded_wasm_memory_bytes',
        "The embedded database's WebAssembly memory (PGlite; it never shrinks)",
        (m) => m.wasmBytes,
      ],
      [
        'kotak_embedded_memory_contexts_bytes',
        "What the embedded PostgreSQL's memory contexts hold now, inside its WebAssembly memory",
        (m) => m.contextBytes,
      ],
      [
        'kotak_embedded_worker_heap_used_bytes',
        "V8 heap in use on the embedded database's thread",
        (m) => m.heapUsedBytes,
      ],
      [
        'kotak_embedded_worker_heap_total_bytes',
        "V8 heap reserved by the embedded database's thread",
        (m) => m.heapTotalBytes,
      ],
    ] as const satisfies ReadonlyArray<readonly [string, string, (m: EmbeddedMemory) => number | null]>
    for (const [name, help, value] of gauges)
      new client.Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          const v = value(await ask())
          // Unknown (a PGlite without the symbols): no sample rather than a zero.
          if (v === null) this.reset()
          else this.set(v)
        },
      })
    return () => {
      for (const [name] of gauges) registry.removeSingleMetric(name)
    }
  }

  const all =
    (...untracks: readonly Untrack[]): Untrack =>
    () => {
      for (const u of untracks) u()
    }
  const none = {}

  return {
    registry,
    requestsOnFiber,
    recordHttp,
    actorEntities: (actor, read) => actors({ actor }, read),
    realtimeConnections: (read) => connections(none, read),
    clusterNode: (node) =>
      all(
        nodeInfo({ address: node.address, role: node.role }, () => 1),
        shardsHeld(none, node.shardsHeld),
        shardsConfigured(none, () => node.shardsConfigured),
        redisUp(none, () => (node.redisUp() ? 1 : 0)),
      ),
    groupCommit: (writer) => {
      for (const h of [batchItems, batchWait, batchFlush]) h.zero({ writer })
      const items = batchItems.labels({ writer })
      const wait = batchWait.labels({ writer })
      const flush = batchFlush.labels({ writer })
      return {
        started: (n, waited) => {
          items.observe(n)
          wait.observe(waited)
        },
        flushed: (seconds) => flush.observe(seconds),
        pending: (read) => batchPending({ writer }, read),
      }
    },
    bus: {
      published: () => busOut.inc(),
      received: () => busIn.inc(),
      lag: (read) => busLag(none, read),
    },
    pool: {
      track: (pool) =>
        all(
          poolOpen(none, pool.open),
          poolIdle(none, pool.idle),
          poolMax(none, () => pool.max),
          poolWaiting(none, pool.waiting),
        ),
      acquired: (seconds) => poolAcquire.observe(seconds),
      waitFailed: (reason) => failures[reason].inc(),
      embedded,
    },
  }
}
