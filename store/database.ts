import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as v8 from 'node:v8'
import { Worker } from 'node:worker_threads'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Context, Effect, Layer } from 'effect'
import pg from 'pg'
import type { AppConfig } from '../engine/config'
import { Log, type Logger } from '../engine/log'
import type { EmbeddedMemory, PoolMetrics } from '../engine/metrics'
import { sourcePath } from '../engine/sourceTree'
import { type CountMemo, countMemoLayer } from './conversations'
import { type VectorModeMemo, vectorModeLayer } from './kbEmbeddings'
import { type KeyNames, keyNamesLayer } from './messages'
import { type GuardedPool, guardedPool, type PoolGuard, type PoolLink, type StuckReport } from './pool'
import * as Reachability from './reachability'
import { type SlaInputsMemo, slaInputsMemoLayer } from './reports'

/**
 * The database: PostgreSQL when a URL is given, otherwise the embedded PGlite under `dataDir`,
 * served over a unix socket so that one client (node-postgres through @effect/sql-pg) serves
 * both modes. PGlite is single-connection, hence the pool of 1.
 */
export interface DatabaseOptions {
  readonly url: string | undefined
  /** Embedded data directory; `memory` keeps the embedded database in memory (tests). */
  readonly dataDir: string | 'memory'
  /** Directory for the embedded server's unix socket (defaults to dataDir). */
  readonly socketDir?: string
  /**
   * The operator's CLI: when a running node holds the embedded database, use it through that
   * node's socket instead of refusing (a second server still refuses: it would lose its database
   * with the first).
   */
  readonly besideRunningNode?: boolean
  /** Bounds on waiting for a connection (store/pool.ts); defaults: `defaultGuard`. */
  readonly guard?: PoolGuard
  /** Told when the pool's guard breaks a wait (the node logs it). */
  readonly onStuck?: (r: StuckReport) => void
  /** Where the pool's levels, waits and broken waits are counted (a node's metrics). */
  readonly metrics?: PoolMetrics
}

/** DB_WAIT_MS, DB_QUERY_TIMEOUT_MS and DB_STRICT (engine/config.ts) set these for a node. */
export const defaultGuard: PoolGuard = {
  acquireTimeoutMs: 5_000,
  queryTimeoutMs: 30_000,
  // Two seconds: a real hold-and-wait never moves, so the bound only sets how soon it unwinds;
  // at one second a busy machine's slow step between two statements was taken for one.
  idleHolderMs: 2_000,
  strict: false,
}

/** What the pool's guard has found on this node (the test server fails a file that has any). */
export class DatabaseGuard extends Context.Tag('kotak/DatabaseGuard')<
  DatabaseGuard,
  { readonly reports: () => readonly StuckReport[] }
>() {}

/**
 * The pool's gate and its ping, for the node's probe (`healthLayer`); a layer without the probe
 * (the test harness's, the CLI's own queries) never closes the gate.
 */
export class DatabaseLink extends Context.Tag('kotak/DatabaseLink')<DatabaseLink, PoolLink>() {}

/** The SQL client over a guarded pool; the pool ends with the layer's scope. */
const clientLayer = (config: pg.PoolConfig, opts: DatabaseOptions) =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() =>
          guardedPool(config, opts.guard ?? defaultGuard, opts.onStuck ?? (() => {}), opts.metrics),
        ),
        (g) => Effect.promise(() => g.close()).pipe(Effect.timeoutOption(1000), Effect.ignore),
      ),
      (g: GuardedPool) =>
        Layer.mergeAll(
          PgClient.layerFromPool({ acquire: Effect.succeed(g.pool), types }),
          Layer.succeed(DatabaseGuard, { reports: g.reports }),
          Layer.succeed(DatabaseLink, g.link),
        ),
    ),
  )

// int8 (COUNT(*), bigint ids) as numbers: ids stay far below 2^53.
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The live process (not this one) that holds the embedded database in `dir`, if any. */
export const runningHolder = (dir: string): number | null => {
  const file = path.join(dir, 'kotak.lock')
  const holder = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0
  return holder && holder !== process.pid && alive(holder) && fs.existsSync(path.join(dir, '.s.PGSQL.5432'))
    ? holder
    : null
}

/**
 * PGlite must be opened by one process at a time: a second opener would corrupt it. The lock
 * file holds the owner's pid; a stale one (owner gone) is taken over.
 */
const lockDataDir = (dir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => {
        fs.mkdirSync(dir, { recursive: true })
        const file = path.join(dir, 'kotak.lock')
        const holder = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0
        if (holder && holder !== process.pid && alive(holder)) {
          throw new Error(
            `the embedded database in ${dir} is in use by process ${holder}; stop it first, or use DATABASE_URL`,
          )
        }
        fs.writeFileSync(file, String(process.pid))
        return file
      },
      catch: (e) => e as Error,
    }),
    (file) => Effect.sync(() => fs.rmSync(file, { force: true })),
  )

/**
 * The young generation (V8's new space and its large objects) of the embedded database's thread,
 * in MB. The thread makes short-lived garbage (each statement's messages and results copied
 * between the socket and PGlite): at 16 MB, 10,000 messages cost it the same CPU as at 128 MB
 * (docs/decisions.md, "Production start and footprint").
 */
const EMBEDDED_YOUNG_GENERATION_MB = 16

/**
 * The embedded database's thread: the compiled worker next to the compiled server, or, running
 * from source (tsx, tests), the TypeScript one through tsx's loader.
 */
const spawnEmbedded = (data: {
  readonly dataDir: string
  readonly socketPath: string
  readonly settings: Readonly<Record<string, string>>
}): Worker => {
  const here = fileURLToPath(import.meta.url)
  const compiled = sourcePath('dist', 'store', 'embeddedWorker.js')
  // `npm start` gives V8 `--max-semi-space-size=64` for the main thread's write path, and V8 lets
  // that flag override a worker's own limit: this thread grew a young generation of 128 MB as well
  // and kept it (docs/decisions.md, "Production start and footprint"). The main thread's heap was
  // sized when it started, so setting the flag back to V8's default (0: unset) changes only the
  // isolates created from now on, this thread's: its young generation is `resourceLimits`'.
  v8.setFlagsFromString('--max-semi-space-size=0')
  const resourceLimits = { maxYoungGenerationSizeMb: EMBEDDED_YOUNG_GENERATION_MB }
  if (here.includes(`${path.sep}dist${path.sep}`))
    return new Worker(compiled, { workerData: data, resourceLimits })
  // tsx's ESM API (its package exports name this file for `import`).
  const tsxRoot = path.dirname(createRequire(import.meta.url).resolve('tsx/package.json'))
  const tsx = pathToFileURL(path.join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href
  const source = pathToFileURL(sourcePath('store', 'embeddedWorker.ts')).href
  return new Worker(
    `import(${JSON.stringify(tsx)}).then((t) => { t.register(); return import(${JSON.stringify(source)}) })`,
    { eval: true, workerData: data, resourceLimits },
  )
}

/**
 * PostgreSQL settings of the embedded database, for a small server (docs/decisions.md, "Production
 * start and footprint"). PGlite otherwise runs with PostgreSQL's defaults: 128 MB of shared
 * buffers, touched at start, and connection slots for 100 sessions where it has one.
 */
export const EMBEDDED_SETTINGS: Readonly<Record<string, string>> = {
  shared_buffers: '16MB',
  max_connections: '8',
  // One session: a sort or hash may take this much before spilling to disk.
  work_mem: '4MB',
  // Index builds (migrations); wasm memory, once grown, stays with the process.
  maintenance_work_mem: '16MB',
  // WAL on disk between checkpoints: at least 32 MB kept, a checkpoint beyond 128 MB.
  min_wal_size: '32MB',
  max_wal_size: '128MB',
}

/**
 * The embedded database's thread's memory, asked of that thread (store/embeddedWorker.ts) for the
 * node's metrics. It answers between statements: while one runs longer than a second, the last
 * answer stands in.
 */
const memoryOfThread = (worker: Worker) => {
  let last: EmbeddedMemory = { wasmBytes: 0, contextBytes: null, heapUsedBytes: 0, heapTotalBytes: 0 }
  let next = 0
  return () =>
    new Promise<EmbeddedMemory>((resolve) => {
      const id = ++next
      const answer = (m: unknown) => {
        const a = m as { memory?: unknown; figures?: EmbeddedMemory } | null
        if (a?.memory !== id || !a.figures) return
        last = a.figures
        finish()
      }
      const finish = () => {
        clearTimeout(timer)
        worker.off('message', answer)
        resolve(last)
      }
      const timer = setTimeout(finish, 1_000)
      worker.on('message', answer)
      worker.postMessage({ memory: id })
    })
}

const embedded = (opts: DatabaseOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const socketDir = opts.socketDir ?? (opts.dataDir === 'memory' ? undefined : opts.dataDir)
      if (!socketDir) return yield* Effect.dieMessage('embedded database needs a socket directory')
      fs.mkdirSync(socketDir, { recursive: true })
      const socketPath = path.join(socketDir, '.s.PGSQL.5432')
      // The operator's CLI beside a running node: through that node's socket, as `psql` would.
      if (opts.dataDir !== 'memory' && opts.besideRunningNode && runningHolder(opts.dataDir) !== null)
        return clientLayer(
          { host: socketDir, port: 5432, database: 'postgres', user: 'postgres', max: 1, types },
          opts,
        )
      if (opts.dataDir !== 'memory') yield* lockDataDir(opts.dataDir)
      fs.rmSync(socketPath, { force: true })
      // PGlite runs in a thread of its own (store/embeddedWorker.ts): a long statement holds that
      // thread, not the node's event loop. It loads only in embedded mode.
      const worker = yield* Effect.acquireRelease(
        Effect.async<Worker, Error>((resume) => {
          const worker = spawnEmbedded({ dataDir: opts.dataDir, socketPath, settings: EMBEDDED_SETTINGS })
          const failed = (e: Error) => {
            void worker.terminate()
            resume(Effect.fail(new Error(`the embedded database did not start: ${e.message}`)))
          }
          worker.once('error', failed)
          worker.once('message', (m: unknown) => {
            worker.off('error', failed)
            if (m === 'ready') resume(Effect.succeed(worker))
            else failed(new Error(String((m as { failed?: string }).failed ?? m)))
          })
        }),
        (worker) =>
          Effect.async<void>((resume) => {
            // A checkpoint on close; a worker that does not answer is ended after a while.
            const done = () => {
              clearTimeout(timer)
              worker.off('message', closed)
              void worker.terminate().then(() => resume(Effect.void))
            }
            const closed = (m: unknown) => {
              if (m === 'closed') done()
            }
            const timer = setTimeout(done, 10_000)
            worker.on('message', closed)
            worker.once('exit', done)
            worker.postMessage('close')
          }),
      ).pipe(Effect.orDie)
      const metrics = opts.metrics
      if (metrics)
        yield* Effect.acquireRelease(
          Effect.sync(() => metrics.embedded(memoryOfThread(worker))),
          (untrack) => Effect.sync(untrack),
        )
      return clientLayer(
        { host: socketDir, port: 5432, database: 'postgres', user: 'postgres', max: 1, types },
        opts,
      )
    }),
  )

/**
 * The URL with `jit=off` among its connection options, unless it sets `jit` itself. PostgreSQL
 * compiles a plan with LLVM when its estimated cost passes `jit_above_cost`, on every execution:
 * estimates of the service's background queries (the API channels' reply cursor, run every
 * second by every node) pass it once `messages` is large, and each run then spent about 210 ms
 * compiling a query that executes in microseconds (docs/decisions.md, "No JIT"). The service's
 * queries are short and indexed, so JIT only ever costs.
 */
export const withoutJit = (url: string): string => {
  let u: URL
  try {
    u = new URL(url)
  } catch {
    // Not a URL this can read: the client reports it as it would have.
    return url
  }
  const options = u.searchParams.get('options') ?? ''
  if (/jit\s*=/.test(options)) return url
  u.searchParams.set('options', `${options} -c jit=off`.trim())
  return u.href
}

/**
 * What the store keeps of a node besides its connections (the count memo, the API keys' names,
 * the vector mode): made with the node's database, so two nodes in one process, or two
 * databases, never share them.
 */
export type StoreMemos = CountMemo | KeyNames | VectorModeMemo | SlaInputsMemo

const memos: Layer.Layer<StoreMemos> = Layer.mergeAll(
  countMemoLayer,
  keyNamesLayer,
  vectorModeLayer,
  slaInputsMemoLayer,
)

export const layer = (opts: DatabaseOptions) =>
  Layer.merge(
    opts.url ? clientLayer({ connectionString: withoutJit(opts.url), max: 20, types }, opts) : embedded(opts),
    memos,
  )

/**
 * A node's database: where it lives (`DATABASE_URL`, else the embedded one under `DATA_DIR`, or
 * the override tests give) and the pool's bounds from its configuration; a wait the guard breaks
 * is logged with the holder's last statements.
 */
export const forNode = (
  cfg: { readonly databaseUrl: string | undefined; readonly dataDir: string; readonly db: AppConfig['db'] },
  log: Logger,
  override?: DatabaseOptions,
  metrics?: PoolMetrics,
) =>
  layer({
    ...(override ?? { url: cfg.databaseUrl, dataDir: cfg.dataDir }),
    ...(metrics ? { metrics } : {}),
    guard: {
      acquireTimeoutMs: cfg.db.waitMs,
      queryTimeoutMs: cfg.db.queryTimeoutMs,
      idleHolderMs: defaultGuard.idleHolderMs,
      strict: cfg.db.strict,
      prepared: cfg.db.prepared,
    },
    onStuck: (r) => log.error('database connection held while waited for', { ...r }),
  })

/** One round trip to the database. */
export const ping = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`)

export type DatabaseState = Reachability.DatabaseState

/**
 * What `/healthz` reports as `database` (`ok`, `slow` or `down`, store/reachability.ts), kept by
 * a probe that pings every second, and at once when a query fails the way an unreachable database
 * fails. While it is `down` the pool refuses at once, so a request that needs the database answers
 * 503 without waiting. A request reads the last state and never waits for the database itself, so
 * health answers at once whatever the database does (and, answering without I/O, on a pipelined
 * connection too).
 */
export class DatabaseHealth extends Context.Tag('kotak/DatabaseHealth')<
  DatabaseHealth,
  { readonly state: () => DatabaseState }
>() {}

export const healthLayer = Layer.scoped(
  DatabaseHealth,
  Effect.gen(function* () {
    const link = yield* DatabaseLink
    const log = yield* Log
    const watch = yield* Effect.acquireRelease(
      Effect.sync(() =>
        Reachability.watch(link, {
          down: (reason) =>
            log.warn('database out of reach: requests that need it answer 503 until it is back', { reason }),
          up: (downForMs) => log.info('database reachable again', { down_ms: Math.round(downForMs) }),
        }),
      ),
      (w) => Effect.sync(w.stop),
    )
    yield* Effect.promise(() => watch.ready)
    return { state: watch.state }
  }),
)
