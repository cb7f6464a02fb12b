import * as fs from 'node:fs'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { PgClient } from '@effect/sql-pg'
import { Context, Effect, Layer } from 'effect'
import pg from 'pg'
import type { AppConfig } from '../engine/config'
import type { Logger } from '../engine/log'
import { type GuardedPool, guardedPool, type PoolGuard, type StuckReport } from './pool'

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
  /** Bounds on waiting for a connection (store/pool.ts); defaults: `defaultGuard`. */
  readonly guard?: PoolGuard
  /** Told when the pool's guard breaks a wait (the node logs it). */
  readonly onStuck?: (r: StuckReport) => void
}

/** DB_WAIT_MS, DB_QUERY_TIMEOUT_MS and DB_STRICT (engine/config.ts) set these for a node. */
export const defaultGuard: PoolGuard = {
  acquireTimeoutMs: 5_000,
  queryTimeoutMs: 30_000,
  idleHolderMs: 1_000,
  strict: false,
}

/** What the pool's guard has found on this node (the test server fails a file that has any). */
export class DatabaseGuard extends Context.Tag('kotak/DatabaseGuard')<
  DatabaseGuard,
  { readonly reports: () => readonly StuckReport[] }
>() {}

/** The SQL client over a guarded pool; the pool ends with the layer's scope. */
const clientLayer = (config: pg.PoolConfig, opts: DatabaseOptions) =>
  Layer.unwrapScoped(
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => guardedPool(config, opts.guard ?? defaultGuard, opts.onStuck ?? (() => {}))),
        (g) => Effect.promise(() => g.close()).pipe(Effect.timeoutOption(1000), Effect.ignore),
      ),
      (g: GuardedPool) =>
        Layer.merge(
          PgClient.layerFromPool({ acquire: Effect.succeed(g.pool), types }),
          Layer.succeed(DatabaseGuard, { reports: g.reports }),
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

const embedded = (opts: DatabaseOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const socketDir = opts.socketDir ?? (opts.dataDir === 'memory' ? undefined : opts.dataDir)
      if (!socketDir) return yield* Effect.dieMessage('embedded database needs a socket directory')
      fs.mkdirSync(socketDir, { recursive: true })
      if (opts.dataDir !== 'memory') yield* lockDataDir(opts.dataDir)
      const socketPath = path.join(socketDir, '.s.PGSQL.5432')
      fs.rmSync(socketPath, { force: true })
      // PGlite loads only in embedded mode: a node on PostgreSQL never loads it.
      const [{ PGlite }, { pg_trgm }, { unaccent }, { vector }, { PGLiteSocketServer }] =
        yield* Effect.promise(() =>
          Promise.all([
            import('@electric-sql/pglite'),
            import('@electric-sql/pglite/contrib/pg_trgm'),
            import('@electric-sql/pglite/contrib/unaccent'),
            import('@electric-sql/pglite-pgvector'),
            import('@electric-sql/pglite-socket'),
          ]),
        )
      const db = yield* Effect.acquireRelease(
        Effect.promise(async () => {
          // pg_trgm serves the inbox search's indexes (migration 0012), as on PostgreSQL; unaccent
          // and pgvector the knowledge base's keyword and semantic search (migration 0075).
          const options = {
            extensions: { pg_trgm, unaccent, vector },
            startParams: [
              ...PGlite.defaultStartParams,
              ...Object.entries(EMBEDDED_SETTINGS).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
            ],
          }
          const instance =
            opts.dataDir === 'memory'
              ? new PGlite(options)
              : new PGlite(path.join(opts.dataDir, 'pg'), options)
          await instance.waitReady
          return instance
        }),
        (instance) => Effect.promise(() => instance.close()).pipe(Effect.ignore),
      )
      yield* Effect.acquireRelease(
        Effect.promise(async () => {
          // The node's pool takes one connection; the others are for an operator's tool on the
          // same machine, and a reconnect while a closed connection is still being cleaned up.
          // PGlite runs one session's statements at a time (a transaction's to its end).
          const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: 4 })
          await server.start()
          return server
        }),
        (server) => Effect.promise(() => server.stop()).pipe(Effect.ignore),
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

export const layer = (opts: DatabaseOptions) =>
  opts.url ? clientLayer({ connectionString: withoutJit(opts.url), max: 20, types }, opts) : embedded(opts)

/**
 * A node's database: where it lives (`DATABASE_URL`, else the embedded one under `DATA_DIR`, or
 * the override tests give) and the pool's bounds from its configuration; a wait the guard breaks
 * is logged with the holder's last statements.
 */
export const forNode = (
  cfg: { readonly databaseUrl: string | undefined; readonly dataDir: string; readonly db: AppConfig['db'] },
  log: Logger,
  override?: DatabaseOptions,
) =>
  layer({
    ...(override ?? { url: cfg.databaseUrl, dataDir: cfg.dataDir }),
    guard: {
      acquireTimeoutMs: cfg.db.waitMs,
      queryTimeoutMs: cfg.db.queryTimeoutMs,
      idleHolderMs: defaultGuard.idleHolderMs,
      strict: cfg.db.strict,
    },
    onStuck: (r) => log.error('database connection held while waited for', { ...r }),
  })

/** One round trip to the database. */
export const ping = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`)

export type DatabaseState = 'ok' | 'slow' | 'down'

/**
 * What `/healthz` reports as `database`, kept by a probe that pings every second: `slow` when a
 * ping has not come back within `SLOW_MS` (the only connection held, a stuck server), `down` when
 * it failed. A request reads the last state and never waits for the database itself, so health
 * answers at once whatever the database does (and, answering without I/O, on a pipelined
 * connection too).
 */
export class DatabaseHealth extends Context.Tag('kotak/DatabaseHealth')<
  DatabaseHealth,
  { readonly state: () => DatabaseState }
>() {}

const PROBE_EVERY_MS = 1_000
const SLOW_MS = 1_500

export const healthLayer = Layer.scoped(
  DatabaseHealth,
  Effect.gen(function* () {
    let state: DatabaseState = 'ok'
    let inFlightSince: number | null = null
    const probe = Effect.gen(function* () {
      inFlightSince = Date.now()
      const outcome = yield* ping.pipe(
        Effect.as<DatabaseState>('ok'),
        Effect.timeoutTo({
          duration: `${SLOW_MS} millis`,
          onSuccess: (s) => s,
          onTimeout: (): DatabaseState => 'slow',
        }),
        Effect.catchAll(() => Effect.succeed<DatabaseState>('down')),
      )
      state = outcome
      inFlightSince = null
    })
    yield* probe
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(`${PROBE_EVERY_MS} millis`), probe)))
    return {
      state: () =>
        inFlightSince !== null && Date.now() - inFlightSince > SLOW_MS && state === 'ok' ? 'slow' : state,
    }
  }),
)
