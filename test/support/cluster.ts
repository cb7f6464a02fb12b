import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { Effect, type Layer, ManagedRuntime } from 'effect'
import { Redis } from 'ioredis'
import type { ClusterStatus } from '../../engine/cluster/Cluster'
import * as Database from '../../store/database'
import { type Watched, watch } from './child'
import { tcpProxy } from './proxy'
import { compiled, freePort, freshDatabase, type TestServer, tempDir } from './server'

/**
 * A cluster on loopback for tests: nodes are separate processes (`npm start`'s compiled dist/main.js),
 * each with its own HTTP port, internal port (any free one) and test endpoint, sharing a fresh
 * PostgreSQL database and a Redis key prefix of their own. Needs DATABASE_URL and REDIS_URL.
 */
const root = path.resolve(__dirname, '../..')

export interface ClusterNode {
  readonly name: string
  readonly port: number
  readonly url: string
  readonly testPort: number
  readonly proc: ChildProcess
  /** Resolves when the process has exited. */
  readonly exited: Promise<number | null>
  readonly alive: () => boolean
  readonly output: () => string
  readonly fetch: (p: string, init?: RequestInit) => Promise<Response>
  readonly status: () => Promise<ClusterStatus>
  /** Asks an actor through this node (test endpoint): `{status, body}`. */
  readonly ask: (
    actor: string,
    id: string | number,
    message: { readonly _tag: string } & Record<string, unknown>,
  ) => Promise<{ status: number; body: any }>
  /** A `TestServer` look-alike for the fixtures (they use `run` and `fetch`). */
  readonly server: TestServer
}

export interface TestCluster {
  readonly nodes: ClusterNode[]
  readonly prefix: string
  readonly redis: Redis
  readonly env: NodeJS.ProcessEnv
  /** Starts one more node, with extra environment of its own (e.g. a REDIS_URL through a proxy). */
  readonly start: (name: string, extraEnv?: Record<string, string>) => Promise<ClusterNode>
  /** Runs a store effect against the cluster's database. */
  readonly run: <A, E>(
    effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof Database.layer>>>,
  ) => Promise<A>
  readonly live: () => ClusterNode[]
  readonly stop: () => Promise<void>
}

/** Polls `check` until it returns a value other than undefined/false, or fails after `timeoutMs`. */
export const waitFor = async <A>(
  what: string,
  check: () => Promise<A | undefined | false> | A | undefined | false,
  { timeoutMs = 20_000, intervalMs = 100 } = {},
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await check()
      if (v !== undefined && v !== false) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, intervalMs))
  }
}

export interface ClusterOptions {
  readonly nodes?: number
  /** Extra environment for every node (e.g. CLUSTER_LEASE_MS). */
  readonly env?: Record<string, string>
  /**
   * The URL the nodes reach the cluster's fresh database by, given its own (a proxy in front of
   * it, to play an outage); `run` always reaches it directly.
   */
  readonly databaseVia?: (url: string) => Promise<string>
}

export const startCluster = async (options: ClusterOptions = {}): Promise<TestCluster> => {
  const adminUrl = process.env.DATABASE_URL
  const redisUrl = process.env.REDIS_URL
  if (!adminUrl || !redisUrl) throw new Error('startCluster needs DATABASE_URL and REDIS_URL')
  const db = await freshDatabase(adminUrl)
  const nodesDatabase = options.databaseVia ? await options.databaseVia(db.url) : db.url
  const prefix = `kotak_c_${process.pid}_${Math.random().toString(36).slice(2, 8)}:`
  const redis = new Redis(redisUrl)
  const dirs: string[] = []
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOST: '127.0.0.1',
    DATABASE_URL: nodesDatabase,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    CLUSTER_HOST: '127.0.0.1',
    CLUSTER_PORT: '0',
    // Three nodes and a test file or two beside them on two cores: a node's heartbeat can miss a
    // second now and then, and at the default dead time (1 s) the others would take its shards in
    // the middle of a test about something else. Suites about failover set their own.
    CLUSTER_DEAD_MS: '3000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
    ...options.env,
  }
  const runtime = ManagedRuntime.make(Database.layer({ url: db.url, dataDir: 'memory' }))
  const run: TestCluster['run'] = (effect) => runtime.runPromise(effect)
  const nodes: ClusterNode[] = []
  const stops = new Map<ClusterNode, Watched['stop']>()

  const start = async (name: string, extraEnv: Record<string, string> = {}): Promise<ClusterNode> => {
    const [port, testPort] = [await freePort(), await freePort()]
    const dir = tempDir('kotak-node-')
    dirs.push(dir)
    const proc = spawn(process.execPath, compiled('main.js'), {
      cwd: root,
      env: {
        ...env,
        PORT: String(port),
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        DATA_DIR: dir,
        CLUSTER_TEST_PORT: String(testPort),
        ...extraEnv,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const watched = watch(proc)
    const url = `http://127.0.0.1:${port}`
    const testUrl = `http://127.0.0.1:${testPort}`
    const node: ClusterNode = {
      name,
      port,
      url,
      testPort,
      proc,
      exited: watched.exited,
      alive: watched.alive,
      output: watched.output,
      fetch: (p, init) => fetch(`${url}${p}`, init),
      status: async () => (await (await fetch(`${testUrl}/status`)).json()) as ClusterStatus,
      ask: async (actor, id, message) => {
        const res = await fetch(`${testUrl}/ask`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ actor, id, message }),
        })
        return { status: res.status, body: await res.json() }
      },
      server: undefined as unknown as TestServer,
    }
    ;(node as { server: TestServer }).server = {
      run: (effect: Effect.Effect<unknown, unknown, never>) => runtime.runPromise(effect),
      fetch: node.fetch,
    } as unknown as TestServer
    try {
      await waitFor(
        `${name} to serve`,
        async () => {
          if (!watched.alive()) throw new Error(`${name} exited: ${watched.output()}`)
          const health = await fetch(`${url}/healthz`)
          const status = await node.status()
          return health.status === 200 && status.address !== undefined
        },
        { timeoutMs: 60_000, intervalMs: 200 },
      )
    } catch (e) {
      proc.kill('SIGKILL')
      throw new Error(`${String(e)}\n${watched.output()}`)
    }
    nodes.push(node)
    stops.set(node, watched.stop)
    return node
  }

  const cluster: TestCluster = {
    nodes,
    prefix,
    redis,
    env,
    start,
    run,
    live: () => nodes.filter((n) => n.alive()),
    stop: async () => {
      await Promise.all(nodes.map((n) => stops.get(n)?.(15_000)))
      await runtime.dispose()
      await db.drop()
      const keys = await redis.keys(`${prefix}*`)
      if (keys.length > 0) await redis.del(...keys)
      redis.disconnect()
      for (const d of dirs) fs.rmSync(d, { recursive: true, force: true })
    },
  }
  try {
    // The first node migrates the database; the others start together.
    await start('n0')
    await Promise.all(Array.from({ length: (options.nodes ?? 3) - 1 }, (_, i) => start(`n${i + 1}`)))
  } catch (e) {
    await cluster.stop()
    throw e
  }
  return cluster
}

/**
 * Waits until the live nodes hold every shard between them, each held once, each node some:
 * the cluster has settled after a change of membership.
 */
export const waitSettled = (cluster: TestCluster, shards = 300, timeoutMs = 30_000) =>
  waitFor(
    'the shards to settle on the live nodes',
    async () => {
      const statuses = await Promise.all(cluster.live().map((n) => n.status()))
      const total = statuses.reduce((sum, s) => sum + s.shards, 0)
      return total === shards && statuses.every((s) => s.shards > 0) ? statuses : undefined
    },
    { timeoutMs, intervalMs: 200 },
  )

/** The cluster's stored messages in order of conversation and sequence (what a write test checks). */
export const storedMessages = (cluster: TestCluster) =>
  cluster.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ conversation_id: number; seq: number; client_id: string; id: number }>`
          SELECT conversation_id, seq, client_id, id FROM messages ORDER BY conversation_id, seq`,
    ),
  )

/** Which live nodes hold an entity now (by their own account). */
export const ownersOf = async (cluster: TestCluster, actor: string, id: number | string) => {
  const owners: ClusterNode[] = []
  for (const n of cluster.live()) {
    const s = await n.status()
    if ((s.entities[actor] ?? []).includes(id)) owners.push(n)
  }
  return owners
}

/**
 * A TCP proxy in front of Redis whose link can be cut and restored, to play a Redis outage for
 * the nodes behind it without touching the Redis others use.
 */
export interface RedisProxy {
  readonly url: string
  /** Drops every connection and refuses new ones. */
  readonly cut: () => Promise<void>
  /** Accepts connections again, on the same port. */
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
}

export const redisProxy = async (target: string): Promise<RedisProxy> => {
  const to = new URL(target)
  const proxy = await tcpProxy({ host: to.hostname, port: Number(to.port || 6379) })
  const db = to.pathname.length > 1 ? to.pathname : ''
  return {
    url: `redis://127.0.0.1:${proxy.port}${db}`,
    cut: proxy.cut,
    restore: proxy.restore,
    close: proxy.close,
  }
}
