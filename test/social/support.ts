import { execFile } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { Effect } from 'effect'
import { makeLogger } from '../../engine/log'
import { type RunningSocialApp, start } from '../../social/app'
import { loadSocialConfig, type SocialConfigShape } from '../../social/config'
import { type ImportRecord, type ImportReport, importNdjson } from '../../social/import'
import * as Keys from '../../social/store/keys'
import * as Workspaces from '../../social/store/workspaces'
import { compiled, freePort, freshDatabase, tempDir } from '../support/server'

/**
 * A real social service on a random loopback port with a database of its own: a fresh
 * PostgreSQL database when DATABASE_URL is set, else an in-memory embedded one. Redis (REDIS_URL)
 * is used under a key prefix of its own. The webhook is on, with the secrets below.
 */
export const APP_SECRET = 'test-app-secret'
export const VERIFY_TOKEN = 'test-verify-token'

export interface SocialTestServer extends RunningSocialApp {
  readonly cfg: SocialConfigShape
  /** Environment for the CLI reaching the same database. */
  readonly env: NodeJS.ProcessEnv
  readonly fetch: (p: string, init?: RequestInit) => Promise<Response>
}

export const suffix = () => `${process.pid}_${Math.random().toString(36).slice(2, 8)}`

/** Environment of a fresh deployment: its own data directory and database, its own Redis prefix. */
export const freshEnv = async (extra: Record<string, string> = {}) => {
  const port = await freePort()
  const adminUrl = process.env.DATABASE_URL
  const db = adminUrl ? await freshDatabase(adminUrl) : undefined
  const dir = tempDir('kotak-social-')
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    REDIS_PREFIX: `kotak_t_${suffix()}:`,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    INSTAGRAM_APP_SECRET: APP_SECRET,
    INSTAGRAM_VERIFY_TOKEN: VERIFY_TOKEN,
    ...(db ? { DATABASE_URL: db.url } : {}),
    ...extra,
  }
  if (!db) delete env.DATABASE_URL
  return {
    env,
    dir,
    cleanup: async () => {
      await db?.drop()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Starts the service; `onDisk` keeps the embedded database under DATA_DIR (to share it with the CLI). */
export const startSocialServer = async (
  opts: { env?: NodeJS.ProcessEnv; onDisk?: boolean } = {},
): Promise<SocialTestServer> => {
  const fresh = opts.env ? undefined : await freshEnv()
  const env = opts.env ?? fresh!.env
  const cfg = loadSocialConfig(env)
  const memory = !cfg.databaseUrl && !opts.onDisk
  const app = await start(cfg, {
    ...(memory ? { database: { url: undefined, dataDir: 'memory', socketDir: cfg.dataDir } } : {}),
    logger: makeLogger(cfg.logLevel),
  })
  return {
    ...app,
    cfg,
    env,
    fetch: (p, init) => fetch(`${app.url}${p}`, init),
    stop: async () => {
      await app.stop()
      await fresh?.cleanup()
    },
  }
}

export const workspace = (
  s: SocialTestServer,
  plan: Workspaces.Plan = 'pro',
  proUntil: string | null = null,
) => s.run(Workspaces.create(`Toko ${suffix()}`, plan, proUntil)).then((w) => w.id)

/** A fresh key: tests use one each, so no test eats another's 60 requests a minute. */
export const key = (s: SocialTestServer, workspaceId: number) =>
  s.run(Effect.map(Keys.create(workspaceId, `test ${suffix()}`), (r) => r.key))

export const bearer = (k: string) => ({ authorization: `Bearer ${k}` })

export const ndjson = (records: readonly ImportRecord[]) => records.map((r) => JSON.stringify(r)).join('\n')

export const importRecords = (s: SocialTestServer, workspaceId: number, records: readonly ImportRecord[]) =>
  s.run(importNdjson(workspaceId, ndjson(records))) as Promise<ImportReport>

export const body = async (res: Response) => (await res.json()) as Record<string, any>

/** GET with a key; returns status, headers and the parsed body. */
export const get = async (
  s: SocialTestServer,
  k: string,
  p: string,
  headers: Record<string, string> = {},
) => {
  const res = await s.fetch(p, { headers: { ...bearer(k), ...headers } })
  return { status: res.status, headers: res.headers, body: await body(res) }
}

const root = path.resolve(__dirname, '../..')

/** Runs `npm run social -- …`'s entry (compiled) as a child process, as an operator would. */
export const runSocialCli = (
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...compiled('social/cli.js'), ...args],
      { env, cwd: root },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
      },
    )
    if (input !== undefined) child.stdin?.end(input)
  })
