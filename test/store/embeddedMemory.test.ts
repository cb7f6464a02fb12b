import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compiled, freePort, startTestServer, type TestServer, tempDir } from '../support/server'
import { EMBEDDED_TEMPLATE } from '../support/template'

/**
 * The embedded database's thread reports its memory in the node's `/metrics`
 * (`kotak_embedded_*`: PGlite's WebAssembly memory, what PostgreSQL's memory contexts hold in it,
 * the thread's own V8 heap); a node on PostgreSQL exports none of them. And that thread keeps a
 * small young generation when the node runs as `npm start` runs it: V8's `--max-semi-space-size=64`,
 * given for the main thread, had grown it to 128 MB (docs/decisions.md, "Production start and
 * footprint").
 */
const root = path.resolve(__dirname, '../..')
const MB = 2 ** 20
const NAMES = [
  'kotak_embedded_wasm_memory_bytes',
  'kotak_embedded_memory_contexts_bytes',
  'kotak_embedded_worker_heap_used_bytes',
  'kotak_embedded_worker_heap_total_bytes',
] as const

const gauges = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  return Object.fromEntries(
    NAMES.map((n) => [n, Number(new RegExp(`^${n} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)]),
  ) as Record<(typeof NAMES)[number], number>
}

describe('the embedded database in /metrics', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(() => s?.stop())

  it.skipIf(Boolean(process.env.DATABASE_URL))(
    "reports PGlite's WebAssembly memory, its memory contexts and the thread's V8 heap",
    async () => {
      // Some statements first, so each figure has had work to show.
      for (let i = 0; i < 5; i++) expect((await s.fetch('/healthz')).status).toBe(200)
      const g = await gauges(s.url)
      // The module declares 128 MB and grows by 64 KB pages.
      expect(g.kotak_embedded_wasm_memory_bytes).toBeGreaterThanOrEqual(128 * MB)
      expect(g.kotak_embedded_wasm_memory_bytes % 65_536).toBe(0)
      expect(g.kotak_embedded_memory_contexts_bytes).toBeGreaterThan(64 * 1024)
      expect(g.kotak_embedded_memory_contexts_bytes).toBeLessThan(g.kotak_embedded_wasm_memory_bytes)
      expect(g.kotak_embedded_worker_heap_used_bytes).toBeGreaterThan(1 * MB)
      expect(g.kotak_embedded_worker_heap_used_bytes).toBeLessThanOrEqual(
        g.kotak_embedded_worker_heap_total_bytes,
      )
      expect(g.kotak_embedded_worker_heap_total_bytes).toBeLessThan(512 * MB)
    },
  )

  it.runIf(Boolean(process.env.DATABASE_URL))('are absent on PostgreSQL', async () => {
    const text = await (await s.fetch('/metrics')).text()
    expect(text).toContain('kotak_db_pool_connections')
    expect(text).not.toContain('kotak_embedded_')
  })
})

describe('the embedded database thread under `npm start`', () => {
  let dir: string
  let child: ChildProcess | undefined
  let url: string
  beforeAll(async () => {
    dir = tempDir('kotak-embedded-memory-')
    // The run's migrated template when there is one (no DATABASE_URL): a quicker first start.
    const template = process.env[EMBEDDED_TEMPLATE]
    if (template) fs.cpSync(template, path.join(dir, 'pg'), { recursive: true })
    const port = await freePort()
    url = `http://127.0.0.1:${port}`
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      LOG_LEVEL: 'warn',
    }
    delete env.DATABASE_URL
    delete env.REDIS_URL
    // package.json's `start`: the flag that sizes the main thread's young generation.
    child = spawn(process.execPath, ['--max-semi-space-size=64', ...compiled('main.js')], {
      env,
      cwd: root,
      stdio: 'ignore',
    })
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}`)
      if (
        await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break
      if (i > 600) throw new Error('the server did not start in 60 s')
      await new Promise((r) => setTimeout(r, 100))
    }
  }, 90_000)
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once('exit', r))
      child.kill('SIGTERM')
      await exited
    }
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('keeps its V8 heap small through 10,000 statements', async () => {
    // Operators' sessions on the node's socket (three of its four): 10,000 inserts, 64 at a time,
    // keep the thread as busy as a node's messages do (its heap grew to 181 MB here before the fix).
    const operators = new pg.Pool({ host: dir, port: 5432, user: 'postgres', database: 'postgres', max: 3 })
    try {
      await operators.query('CREATE TABLE IF NOT EXISTS probe (id serial PRIMARY KEY, body text)')
      const inFlight: Promise<unknown>[] = []
      for (let i = 0; i < 10_000; i++) {
        inFlight.push(
          operators.query('INSERT INTO probe (body) VALUES ($1) RETURNING id, body', [
            `${'x'.repeat(200)}${i}`,
          ]),
        )
        if (inFlight.length >= 64) await Promise.all(inFlight.splice(0))
      }
      await Promise.all(inFlight)
    } finally {
      await operators.end()
    }
    const g = await gauges(url)
    expect(g.kotak_embedded_worker_heap_total_bytes).toBeGreaterThan(0)
    expect(g.kotak_embedded_worker_heap_total_bytes).toBeLessThan(100 * MB)
  }, 60_000)
})
