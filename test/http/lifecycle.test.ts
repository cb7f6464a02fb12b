import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { tcpProxy } from '../support/proxy'
import {
  compiled,
  freePort,
  freshDatabase,
  startTestServer,
  type TestServer,
  tempDir,
} from '../support/server'

/**
 * A server that never hangs (`npm start`'s compiled entry, as a child process): a second server on
 * a port in use refuses to start; with the database stuck, `/healthz` answers 503 within 2 s
 * saying so, a request waiting on the database answers 503 with `Retry-After` after the bound,
 * and SIGTERM ends the process within 10 s, naming the request still running. Both databases:
 * the embedded one is stuck by an operator's session holding a transaction open on its socket
 * (PGlite runs one session's statements at a time) or running a minute-long statement (PGlite
 * runs in a thread of its own), PostgreSQL by a proxy that stops passing bytes. A PostgreSQL that
 * does not answer is out of reach, not busy (docs/decisions.md, "A database outage"): once the
 * probe says so, a request is answered 503 at once instead of waiting, so nothing is left
 * running when the stop comes and the process ends with 0.
 */
const root = path.resolve(__dirname, '../..')

interface Node {
  readonly child: ChildProcess
  readonly url: string
  output: () => string
  exited: () => Promise<number | null>
}

const startNode = async (env: NodeJS.ProcessEnv): Promise<Node> => {
  const child = spawn(process.execPath, compiled('main.js'), { env, cwd: root, stdio: 'pipe' })
  let output = ''
  child.stdout?.on('data', (d) => {
    output += String(d)
  })
  child.stderr?.on('data', (d) => {
    output += String(d)
  })
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const node = { child, url: String(env.PUBLIC_URL), output: () => output, exited: () => exit }
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) return node
    try {
      if ((await fetch(`${node.url}/healthz`)).ok) return node
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`server did not start: ${output}`)
}

const nodeEnv = async (dir: string, extra: NodeJS.ProcessEnv = {}) => {
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    ...extra,
  }
  delete env.DATABASE_URL
  delete env.REDIS_URL
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) env[k] = v
  return env
}

describe('a second server on a port in use', () => {
  let s: TestServer
  let dir: string
  beforeAll(async () => {
    s = await startTestServer()
    dir = tempDir('kotak-port-')
  })
  afterAll(async () => {
    await s?.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('refuses to start with a clear message, and the first keeps its traffic', async () => {
    const env = await nodeEnv(dir, { PORT: String(s.port), PUBLIC_URL: s.url })
    const second = await startNode(env)
    expect(await second.exited()).toBe(1)
    expect(second.output()).toContain(`cannot listen on 127.0.0.1:${s.port}: the port is in use`)
    for (let i = 0; i < 20; i++) expect((await s.fetch('/healthz')).status).toBe(200)
  }, 60_000)
})

/** A fault planted by an operator's session on the embedded database's socket. */
const operatorSession = (plant: (operator: pg.Client) => Promise<void>) => async (dir: string) => {
  let operator: pg.Client | undefined
  return {
    env: {},
    stick: async () => {
      operator = new pg.Client({ host: dir, port: 5432, user: 'postgres', database: 'postgres' })
      // Its connection ends with the server's process.
      operator.on('error', () => {})
      await operator.connect()
      await plant(operator)
    },
    done: async () => {
      await operator?.end().catch(() => {})
    },
  }
}

const stuckCases: Array<{
  name: string
  enabled: boolean
  /** A request sent once health said so: still waiting on the database when the stop comes. */
  waits: boolean
  setup: (
    dir: string,
  ) => Promise<{ env: NodeJS.ProcessEnv; stick: () => Promise<void>; done: () => Promise<void> }>
}> = [
  {
    name: 'the embedded database',
    enabled: true,
    waits: true,
    // An operator's session on the embedded database's socket opens a transaction and leaves it.
    setup: operatorSession(async (operator) => {
      await operator.query('BEGIN')
      await operator.query('SELECT 1')
    }),
  },
  {
    name: 'the embedded database running a long statement',
    enabled: true,
    waits: true,
    // PGlite runs statements synchronously: in the node's own thread this one would hold the
    // event loop (no health answer, no signal handled) for its whole minute.
    setup: operatorSession(async (operator) => {
      void operator.query('SELECT pg_sleep(60)').catch(() => {})
    }),
  },
  {
    name: 'PostgreSQL',
    enabled: Boolean(process.env.DATABASE_URL),
    waits: false,
    setup: async () => {
      const db = await freshDatabase(process.env.DATABASE_URL!)
      const url = new URL(db.url)
      const proxy = await tcpProxy({ host: url.hostname, port: Number(url.port || 5432) })
      url.hostname = '127.0.0.1'
      url.port = String(proxy.port)
      return {
        env: { DATABASE_URL: url.href },
        stick: async () => proxy.blackhole(),
        done: async () => {
          await proxy.close()
          await db.drop()
        },
      }
    },
  },
]

describe.each(stuckCases)('with $name stuck', ({ enabled, waits, setup }) => {
  it.runIf(enabled)(
    'health says so within 2 s, a waiting request gets 503 with Retry-After, and SIGTERM ends the process within 10 s',
    async () => {
      const dir = tempDir('kotak-stuck-')
      const fault = await setup(dir)
      const env = await nodeEnv(dir, { ...fault.env, DB_QUERY_TIMEOUT_MS: '6000', DB_WAIT_MS: '6000' })
      const node = await startNode(env)
      try {
        expect(node.child.exitCode, node.output()).toBeNull()
        await fault.stick()
        // A request that needs the database: an API key is looked up by its hash.
        const key = { Authorization: `Bearer svca_live_${'0'.repeat(43)}` }
        const startedA = Date.now()
        const a = fetch(`${node.url}/v1/me`, { headers: key })
        await new Promise((r) => setTimeout(r, 300))
        // Every answer within 2 s; the probe (once a second, 1.5 s to answer) says so soon after.
        let health: { status: number; database: string } = { status: 200, database: 'ok' }
        const stuckAt = Date.now()
        while (health.status === 200 && Date.now() - stuckAt < 5_000) {
          const t0 = Date.now()
          const res = await fetch(`${node.url}/healthz`, { signal: AbortSignal.timeout(2_000) })
          expect(Date.now() - t0).toBeLessThan(2_000)
          health = {
            status: res.status,
            database: ((await res.json()) as { data: { database: string } }).data.database,
          }
          if (health.status === 200) await new Promise((r) => setTimeout(r, 250))
        }
        expect(health.status).toBe(503)
        const body = { data: health }
        expect(['slow', 'down']).toContain(body.data.database)
        const answerA = await a
        expect(answerA.status).toBe(503)
        expect(answerA.headers.get('retry-after')).toMatch(/^\d+$/)
        expect(((await answerA.json()) as { error: { code: string } }).error.code).toBe('unavailable')
        expect(Date.now() - startedA).toBeLessThan(15_000)
        // A request stuck when the stop comes: named, and the process still ends in time. Or, with
        // the database known out of reach, answered at once, and the process ends cleanly.
        const startedB = Date.now()
        const b = fetch(`${node.url}/v1/me?stuck=b`, { headers: key }).catch(() => null)
        await new Promise((r) => setTimeout(r, 300))
        const stopAt = Date.now()
        node.child.kill('SIGTERM')
        const code = await node.exited()
        expect(Date.now() - stopAt).toBeLessThan(10_000)
        if (waits) {
          expect(code).toBe(1)
          expect(node.output()).toContain('stopped before work finished')
          expect(node.output()).toContain('GET /v1/me')
          await b
        } else {
          const answerB = await b
          expect(answerB?.status).toBe(503)
          expect(answerB?.headers.get('retry-after')).toBe('1')
          expect(Date.now() - startedB).toBeLessThan(2_500)
          expect(code, node.output()).toBe(0)
        }
      } finally {
        if (node.child.exitCode === null) node.child.kill('SIGKILL')
        await fault.done()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    },
    90_000,
  )
})

describe('stopping the server', () => {
  let s: TestServer | undefined
  afterAll(async () => {
    await s?.stop()
  })

  it('keeps every message it accepted while stopping: each is there after a restart', async () => {
    s = await startTestServer({}, { durable: true })
    const server = s
    const w = await F.workspace(server, { plan: 'pro' })
    const owner = await F.signIn(server, w.ownerEmail)
    const made = await server.fetch('/v1/channels/api', F.json({ name: 'Shop' }, owner.headers()))
    expect(made.status).toBe(201)
    const key = ((await made.json()) as { data: { credentials: { key: string } } }).data.credentials.key
    const send = (n: number) =>
      server.fetch(
        '/v1/channel-api/messages',
        F.json(
          { conversation_id: `stop-${n % 5}`, message: { id: `stop-m-${n}`, text: `message ${n}` } },
          F.bearer(key),
        ),
      )
    // The conversations and their actors exist, so the burst goes to the group commit.
    for (let n = 0; n < 5; n++) expect((await send(n)).status).toBe(201)
    // A burst in flight, and the node stopped as its first answers come: what it accepted (201)
    // was written, whatever was still gathering or being flushed when the stop came.
    const burst = Array.from({ length: 60 }, (_, i) =>
      send(5 + i).then(
        (res) => ({ n: 5 + i, status: res.status }),
        () => ({ n: 5 + i, status: 0 }),
      ),
    )
    await Promise.race(burst)
    await server.restart()
    const answered = await Promise.all(burst)
    const accepted = answered.filter((a) => a.status === 201)
    expect(accepted.length).toBeGreaterThan(0)
    // A message stored before answers 200 when sent again (its `message.id` is known).
    for (const a of accepted) expect((await send(a.n)).status, `message ${a.n}`).toBe(200)
  }, 60_000)
})
