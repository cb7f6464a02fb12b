import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compiled, freePort, freshDatabase, tempDir } from './support/server'

/**
 * What `npm start` loads: the compiled server (dist/main.js) on one node, on PostgreSQL when
 * DATABASE_URL is set, else on the embedded database, with every module it loads recorded
 * (test/support/loadedModules.mjs). The libraries of unused channels and features must not be
 * among them at idle; they load when a channel or setting needs them (docs/decisions.md,
 * "Production start and footprint"). A static import of one of them anywhere on the start path
 * fails this test.
 */
const root = path.resolve(__dirname, '..')
const preload = path.join(root, 'test', 'support', 'loadedModules.mjs')

/** Package directories under node_modules that a single idle node must not have loaded. */
const neverAtIdle = [
  // The messaging-app stack (Baileys' JID helpers, a leaf module, are allowed: see msgapp/jid.ts).
  'baileys',
  'libsignal',
  'whatsapp-rust-bridge',
  'protobufjs',
  'pino',
  'qrcode',
  // The e-mail stack and the sanitizer of received mail.
  'imapflow',
  'mailparser',
  'nodemailer',
  'sanitize-html',
  // Spreadsheets (broadcast and lead exports, lead imports): loaded on first use.
  'exceljs',
  // Sign-in through an OpenID Connect provider.
  'openid-client',
  // Passkeys (WebAuthn): loaded with the first passkey ceremony.
  '@simplewebauthn/server',
  // Redis and the cluster (REDIS_URL).
  'ioredis',
  '@effect/cluster',
  '@effect/rpc',
  '@effect/platform-node',
  'msgpackr',
]

const packageOf = (url: string) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? null

let dbUrl: string | undefined
let drop: (() => Promise<void>) | undefined
const dirs: string[] = []

beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const db = await freshDatabase(process.env.DATABASE_URL)
    dbUrl = db.url
    drop = db.drop
  }
})
afterAll(async () => {
  await drop?.()
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
})

/**
 * Starts the compiled server, lets `visit` use it (with what the process has written so far),
 * stops it and returns the file URLs it loaded.
 */
const loadedBy = async (
  env: Record<string, string>,
  visit: (url: string, output: () => string) => Promise<void> = async () => {},
): Promise<string[]> => {
  const dir = tempDir('kotak-startup-')
  dirs.push(dir)
  const port = await freePort()
  const out = path.join(dir, 'loaded.json')
  const childEnv: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
    LOADED_MODULES_FILE: out,
    ...(dbUrl ? { DATABASE_URL: dbUrl } : {}),
    ...env,
  }
  if (!dbUrl) delete childEnv.DATABASE_URL
  delete childEnv.REDIS_URL
  const child: ChildProcess = spawn(process.execPath, ['--import', preload, ...compiled('main.js')], {
    env: childEnv,
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += String(d)
  })
  child.stderr?.on('data', (d) => {
    output += String(d)
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  try {
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`server exited: ${output}`)
      if (i > 600) throw new Error(`server did not start: ${output}`)
      const up = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      if (up) break
      await new Promise((r) => setTimeout(r, 100))
    }
    await visit(url, () => output)
  } finally {
    child.kill('SIGTERM')
  }
  expect(await exited, output).toBe(0)
  return JSON.parse(fs.readFileSync(out, 'utf8')) as string[]
}

describe('start and idle footprint (compiled server)', () => {
  it('loads neither the channels’ libraries nor the cluster’s at idle', async () => {
    const loaded = await loadedBy({})
    const packages = new Set(loaded.map(packageOf).filter((p) => p !== null))
    // The record is real: the server's own code (Effect is bundled into it) and the packages every
    // request needs are in it.
    expect(loaded).toContain(`file://${path.join(root, 'dist', 'main.js')}`)
    for (const p of ['uWebSockets.js', 'pg', 'find-my-way', 'prom-client']) expect(packages).toContain(p)
    const eager = neverAtIdle.filter((p) =>
      p === 'baileys'
        ? loaded.some((u) => packageOf(u) === 'baileys' && !u.endsWith('/lib/WABinary/jid-utils.js'))
        : packages.has(p),
    )
    expect(eager, 'libraries loaded at start that only a channel or setting needs').toEqual([])
    // PGlite never in the node's own thread: in embedded mode it runs in a thread of its own
    // (store/embeddedWorker.ts), whose loads this record does not hold; on PostgreSQL, nowhere.
    expect(packages.has('@electric-sql/pglite')).toBe(false)
  }, 120_000)

  it('starts with a DATA_DIR that does not exist yet, and makes it (on PostgreSQL too)', async () => {
    const parent = tempDir('kotak-startup-')
    dirs.push(parent)
    const dataDir = path.join(parent, 'not', 'yet')
    // It once crashed on PostgreSQL without Redis: the bus socket's folder was not there.
    await loadedBy({ DATA_DIR: dataDir })
    expect(fs.statSync(dataDir).isDirectory()).toBe(true)
  }, 120_000)

  it('prints the first run’s setup link at the default log level, on a fresh install', async () => {
    // LOG_LEVEL empty: the default of `npm start` (info).
    await loadedBy({ LOG_LEVEL: '' }, async (url, output) => {
      const lines = output()
        .split('\n')
        .filter((l) => l.includes('First run'))
      expect(lines).toHaveLength(1)
      const msg = (JSON.parse(lines[0]!) as { msg: string }).msg
      const token = new RegExp(
        `^First run: open ${url}/app/setup/([A-Za-z0-9_-]{43}) to create the first workspace and its owner$`,
      ).exec(msg)?.[1]
      expect(token, msg).toBeDefined()
      expect(output().split(token!).length).toBe(2)
      // The link opens the app's page, and the token is the live one.
      const page = await fetch(`${url}/app/setup/${token}`)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toContain('text/html')
      expect((await fetch(`${url}/v1/setup/${token}`)).status).toBe(200)
    })
  }, 120_000)

  it('loads a feature’s library once it is configured and used', async () => {
    // SMTP configured: nodemailer (CommonJS) with the service's mail port. A sign-in through the
    // provider: openid-client (an ES module), even though the issuer cannot be reached.
    const loaded = await loadedBy(
      {
        SMTP_URL: 'smtp://127.0.0.1:9',
        OIDC_ISSUER: 'http://127.0.0.1:9',
        OIDC_CLIENT_ID: 'kotak',
        OIDC_CLIENT_SECRET: 'secret',
        OIDC_ALLOW_INSECURE: '1',
      },
      async (url) => {
        const res = await fetch(`${url}/auth/login`, { redirect: 'manual' })
        expect(res.status).toBe(500)
      },
    )
    const packages = new Set(loaded.map(packageOf))
    expect(packages).toContain('nodemailer')
    expect(packages).toContain('openid-client')
    // Nothing of the messaging-app stack: no number exists.
    expect(packages).not.toContain('libsignal')
  }, 120_000)
})
