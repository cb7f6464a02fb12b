import { execFile } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import { Effect } from 'effect'
import pg from 'pg'
import { type AppConfig, loadConfig } from '../../engine/config'
import { makeLogger } from '../../engine/log'
import { type RunningApp, start } from '../../http/app'
import { DatabaseGuard, type DatabaseOptions } from '../../store/database'
import { EMBEDDED_TEMPLATE, PG_TEMPLATE } from './template'

/**
 * A real server on a random loopback port with a database of its own: a fresh PostgreSQL database
 * when DATABASE_URL is set (CI), else an embedded one; both start from the run's migrated template
 * (template.ts) when there is one. Redis is used when REDIS_URL is set, under a key prefix of its
 * own.
 */
export interface TestServer extends Omit<RunningApp, 'stop'> {
  readonly stop: () => Promise<void>
  readonly cfg: AppConfig
  /** Environment for the CLI or a child server that must reach the same database. */
  readonly env: NodeJS.ProcessEnv
  readonly fetch: (p: string, init?: RequestInit) => Promise<Response>
  /**
   * Stops the node and starts a new one (on a new port) on the same database: PostgreSQL's, or the
   * embedded one of a server started with `durable` (the in-memory one does not outlive its node).
   * `meanwhile` runs while no node is up (an operator's command run with the server stopped).
   */
  readonly restart: (meanwhile?: () => Promise<unknown>) => Promise<void>
}

export interface TestServerOptions {
  /**
   * On the embedded database, keep it on disk under DATA_DIR (where the node, the operator CLI and
   * `restart()` find it) instead of in memory. Under vitest every server is on disk already (a
   * copy of the run's migrated template); outside it (bench/) only those that ask for this.
   */
  readonly durable?: boolean
  /**
   * Every line the node logs, from `debug` up, goes here instead of stdout (tests of what the
   * server logs, such as the first run's setup link).
   */
  readonly onLog?: (line: string) => void
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address() as net.AddressInfo
      srv.close(() => resolve(addr.port))
    })
    srv.on('error', reject)
  })

const suffix = () => `${process.pid}_${Math.random().toString(36).slice(2, 8)}`

/**
 * A fresh PostgreSQL database, empty or (`migrated`, when the run has one) a copy of the run's
 * migrated template (template.ts); returns its URL and a drop function.
 */
export const freshDatabase = async (adminUrl: string, opts: { readonly migrated?: boolean } = {}) => {
  const name = `kotak_t_${suffix()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  const template = opts.migrated ? process.env[PG_TEMPLATE] : undefined
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.href,
    drop: async () => {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

export const tempDir = (prefix = 'kotak-') => fs.mkdtempSync(path.join(os.tmpdir(), prefix))

export const startTestServer = async (
  env: Record<string, string> = {},
  opts: TestServerOptions = {},
): Promise<TestServer> => {
  const port = await freePort()
  const adminUrl = process.env.DATABASE_URL
  const db = adminUrl ? await freshDatabase(adminUrl, { migrated: true }) : undefined
  const dir = tempDir()
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dir,
    REDIS_PREFIX: `kotak_t_${suffix()}:`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...env,
  }
  if (!db) delete childEnv.DATABASE_URL
  const cfg = loadConfig(childEnv)
  // Durable: the embedded database as production lays it out under DATA_DIR (pg/, the lock file,
  // the socket), so a node started after this one stops, or the CLI, opens the same data.
  // The run's migrated template, copied, is on disk as well (a copy of files).
  const template = db ? undefined : process.env[EMBEDDED_TEMPLATE]
  if (template) fs.cpSync(template, path.join(dir, 'pg'), { recursive: true })
  const database: DatabaseOptions | undefined = db
    ? undefined
    : { url: undefined, dataDir: opts.durable || template ? dir : 'memory', socketDir: dir }
  const boot = (c: AppConfig) =>
    start(c, {
      ...(database ? { database } : {}),
      logger: opts.onLog ? makeLogger('debug', opts.onLog) : makeLogger(c.logLevel),
    })
  let app = await boot(cfg)
  return {
    get port() {
      return app.port
    },
    get url() {
      return app.url
    },
    run: (effect) => app.run(effect),
    pending: () => app.pending(),
    cfg,
    env: childEnv,
    fetch: (p, init) => fetch(`${app.url}${p}`, init),
    restart: async (meanwhile) => {
      if (!db && !opts.durable)
        throw new Error('restart needs startTestServer(env, { durable: true }) on the embedded database')
      // Stopping closes the embedded database (its data flushed to disk) and removes its lock.
      await app.stop()
      try {
        await meanwhile?.()
      } finally {
        // A new port: a client's kept-alive connections to the old node must not reach the new one.
        const port = await freePort()
        app = await boot({ ...cfg, port, publicUrl: `http://127.0.0.1:${port}` })
      }
    },
    stop: async () => {
      // A wait the pool's guard had to break (store/pool.ts) fails the file that caused it, even
      // when the request it failed was not looked at.
      const stuck = await app.run(Effect.flatMap(DatabaseGuard, (g) => Effect.sync(g.reports)))
      await app.stop()
      await db?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
      if (stuck.length > 0)
        throw new Error(
          `the database's only connection was held by an idle transaction while others waited for it: ${JSON.stringify(stuck)}`,
        )
    },
  }
}

/**
 * What `npm start`, `npm run kotak` and their social counterparts run: the compiled entry
 * `dist/<entry>` (built once per test run by globalSetup.ts), with source maps, as arguments for
 * `node`.
 */
export const compiled = (entry: string): string[] => [
  '--enable-source-maps',
  path.resolve(__dirname, '../../dist', entry),
]

/** Runs the operator CLI (compiled, `npm run kotak`) as a child process, as an operator would. */
export const runCli = (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      [...compiled('cli.js'), ...args],
      { env, cwd: path.resolve(__dirname, '../..') },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
      },
    )
  })
