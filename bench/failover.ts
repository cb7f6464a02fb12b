import { type ChildProcess, spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as net from 'node:net'
import * as os from 'node:os'
import * as path from 'node:path'
import * as readline from 'node:readline'
import pg from 'pg'
import { drive, type Plan } from './failoverClient'
import { sample, usageWindow, type Window } from './usage'

/**
 * `npm run bench -- failover` (issue 48): a 3-node cluster (the compiled server, one PostgreSQL
 * database, one Redis of the bench's own) takes inbound API messages at a fixed rate over a few
 * conversations from a client that resends each message, with the same id, to the next node until
 * one acknowledges it; one fault per run, each on a fresh cluster and database. Afterwards the
 * database says what became of every acknowledged message: stored once, lost, doubled, and whether
 * each conversation's sequence still runs 1..n.
 *
 * The nodes reach PostgreSQL through one TCP proxy and Redis through a proxy each (one process
 * apart, bench/tcpProxy.ts), so an outage can be played without touching the machine's PostgreSQL
 * or its Redis on 6379, which other work uses: a cut resets the open connections and refuses new
 * ones. The client runs in this process (Node's http: 100 messages a second need no driver).
 */

const SHARDS = 300
const benchDir = path.dirname(new URL(import.meta.url).pathname)
/** The node every node fault hits (not n0: it migrated the database, nothing else sets it apart). */
const VICTIM = 1

interface Seed {
  readonly workspaceId: number
  readonly key: string
  readonly cookie: string
  readonly csrf: string
}

/** What bench/run.ts lends this scenario: its settings, server start, seeding and result writing. */
export interface Harness {
  readonly smoke: boolean
  readonly adminUrl: string
  readonly log: (msg: string) => void
  readonly setting: (name: string, usual: number, tiny: number) => number
  readonly loadavg: () => string
  readonly freePort: () => Promise<number>
  readonly createDatabase: () => Promise<{ name: string; url: string; drop: () => Promise<void> }>
  readonly spawnKotak: (
    env: Record<string, string>,
    onOutput?: (chunk: Buffer) => void,
  ) => Promise<{ readonly url: string; readonly child: ChildProcess; readonly env: NodeJS.ProcessEnv }>
  readonly seed: (k: { url: string; env: NodeJS.ProcessEnv }) => Promise<Seed>
  readonly seedInbound: (
    k: { url: string },
    s: Seed,
    conversations: number,
  ) => Promise<{ channelKey: string; external: string[] }>
  readonly base: (scenario: string, loadStart: string) => Record<string, unknown>
  readonly heading: (scenario: string, loadStart: string) => string
  readonly write: (scenario: string, result: Record<string, unknown>, summaryMd: string) => void
  readonly check: (scenario: string, ok: boolean, what: string) => void
  readonly cpuBlock: (
    w: Window & { series: Array<[number, number]> },
    driver: { cpu_s: number; cpu_cores: number },
  ) => Record<string, unknown>
  readonly cpuNote: string
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)))
const round = (n: number, digits = 0) => Math.round(n * 10 ** digits) / 10 ** digits
const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

// ---------------------------------------------------------------------------------------------
// The pieces a fault acts on

/**
 * The run's TCP proxies (listen port → target port on 127.0.0.1), in a process of their own
 * (bench/tcpProxy.ts). `link(port).cut()` resets that proxy's open connections and refuses new
 * ones; `restore()` listens again on the same port.
 */
const startProxies = async (pairs: ReadonlyArray<readonly [number, number]>) => {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(benchDir, 'tcpProxy.ts'), ...pairs.map(([l, t]) => `${l}:${t}`)],
    { cwd: path.dirname(benchDir), stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const waiting = new Map<string, () => void>()
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const key = line.startsWith('ok ') ? line.slice(3) : line
    waiting.get(key)?.()
    waiting.delete(key)
  })
  const answered = (key: string) =>
    Promise.race([
      new Promise<void>((resolve) => waiting.set(key, resolve)),
      exited.then(() => Promise.reject(new Error(`the proxies exited before answering ${key}`))),
    ])
  await answered('ready')
  const command = (line: string) => {
    const done = answered(line)
    child.stdin!.write(`${line}\n`)
    return done
  }
  return {
    pid: child.pid!,
    link: (port: number) => ({
      port,
      cut: () => command(`cut ${port}`),
      restore: () => command(`restore ${port}`),
    }),
    close: async () => {
      child.stdin!.end()
      await exited
    },
  }
}
type Proxies = Awaited<ReturnType<typeof startProxies>>
type Link = ReturnType<Proxies['link']>

const answersPing = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = net.connect(port, '127.0.0.1')
    s.setTimeout(500, () => {
      s.destroy()
      resolve(false)
    })
    s.once('connect', () => s.write('PING\r\n'))
    s.once('data', (d) => {
      s.destroy()
      resolve(d.toString('utf8').startsWith('+PONG'))
    })
    s.once('error', () => resolve(false))
  })

/**
 * A redis-server of the run's own on `port`, keeping nothing on disk: killed and started again,
 * it comes back empty, as a Redis without persistence does after a crash.
 */
const redisServer = (port: number, dir: string) => {
  let proc: ChildProcess | undefined
  const start = async () => {
    const p = spawn(
      '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
      { stdio: 'ignore' },
    )
    proc = p
    for (let i = 0; i < 100; i++) {
      if (p.exitCode !== null) throw new Error(`redis-server on ${port} exited with ${p.exitCode}`)
      if (await answersPing(port)) return
      await sleep(50)
    }
    throw new Error(`redis-server on ${port} did not answer`)
  }
  const kill = async () => {
    const p = proc
    proc = undefined
    if (!p || p.exitCode !== null) return
    const gone = new Promise((r) => p.once('exit', r))
    p.kill('SIGKILL')
    await gone
  }
  return { start, kill }
}

// ---------------------------------------------------------------------------------------------
// The cluster

interface Node {
  readonly name: string
  readonly url: string
  readonly testPort: number
  readonly env: Record<string, string>
  /** Absent until its first start has answered. */
  child: ChildProcess | undefined
  state: 'up' | 'paused' | 'dead'
  /** The last lines it wrote, shown when a run fails. */
  tail: string
  /**
   * The first server faults it logged (`request failed`: what a 500 answer logs), kept whole: a
   * 500 among tens of thousands of answers is gone from the tail by the end of the run.
   */
  readonly faults: string[]
  /** The part of its output after its last newline, not yet searched for faults. */
  partial: string
  /** Where all it writes goes too (BENCH_NODE_LOGS=dir: `<dir>/<fault>-<node>.log`). */
  readonly logFile: string | undefined
}

interface Cluster {
  readonly nodes: Node[]
  readonly database: { name: string; url: string }
  readonly proxies: Proxies
  readonly pgProxy: Link
  readonly redisProxies: Link[]
  readonly redis: ReturnType<typeof redisServer>
  readonly cliEnv: NodeJS.ProcessEnv
}

const statusOf = async (n: Node) => {
  const res = await fetch(`http://127.0.0.1:${n.testPort}/status`, { signal: AbortSignal.timeout(1000) })
  return ((await res.json()) as { shards: number }).shards
}

const startCluster = async (
  h: Harness,
  fault: string,
  size: number,
  dir: string,
  cleanup: Array<() => Promise<void>>,
) => {
  const db = await h.createDatabase()
  cleanup.push(db.drop)
  const redisPort = await h.freePort()
  const redis = redisServer(redisPort, dir)
  cleanup.push(redis.kill)
  await redis.start()
  const pgPort = Number(new URL(h.adminUrl).port || 5432)
  const ports: number[] = []
  for (let i = 0; i <= size; i++) ports.push(await h.freePort())
  const [pgListen, ...redisListen] = ports
  const proxies = await startProxies([
    [pgListen!, pgPort],
    ...redisListen.map((l) => [l, redisPort] as const),
  ])
  cleanup.push(proxies.close)
  const pgProxy = proxies.link(pgListen!)
  const redisProxies = redisListen.map((l) => proxies.link(l))
  const viaProxy = new URL(db.url)
  viaProxy.hostname = '127.0.0.1'
  viaProxy.port = String(pgProxy.port)
  const nodes: Node[] = []
  // Before any starts, so a failed start still stops the ones already up (cleanup runs backwards).
  cleanup.push(() => stopNodes(nodes))
  const start = async (i: number) => {
    const dataDir = path.join(dir, `n${i}`)
    fs.mkdirSync(dataDir)
    const env = {
      DATABASE_URL: viaProxy.href,
      REDIS_URL: `redis://127.0.0.1:${redisProxies[i]!.port}`,
      REDIS_PREFIX: 'kotak_failover:',
      PORT: String(await h.freePort()),
      HOST: '127.0.0.1',
      CLUSTER_HOST: '127.0.0.1',
      CLUSTER_PORT: '0',
      // Loopback only, generic (engine/cluster/testEndpoint.ts): which shards each node holds.
      CLUSTER_TEST_PORT: String(await h.freePort()),
      DATA_DIR: dataDir,
    }
    const node: Node = {
      name: `n${i}`,
      url: `http://127.0.0.1:${env.PORT}`,
      testPort: Number(env.CLUSTER_TEST_PORT),
      env,
      child: undefined,
      state: 'up',
      tail: '',
      faults: [],
      partial: '',
      logFile: process.env.BENCH_NODE_LOGS && path.join(process.env.BENCH_NODE_LOGS, `${fault}-n${i}.log`),
    }
    nodes[i] = node
    node.child = (await spawnNode(h, node)).child
    return node
  }
  // The first node migrates the database; the others start together, as test/support/cluster.ts does.
  await start(0)
  await Promise.all(Array.from({ length: size - 1 }, (_, i) => start(i + 1)))
  // The CLI is a cluster client: no HTTP port, no test endpoint of its own. It runs while this
  // process waits for it (execFileSync), so not through the proxies this process serves.
  const { PORT: _port, CLUSTER_TEST_PORT: _test, ...nodeEnv } = nodes[0]!.env
  const cliEnv = { ...nodeEnv, DATABASE_URL: db.url, REDIS_URL: `redis://127.0.0.1:${redisPort}` }
  return {
    nodes,
    database: { name: db.name, url: db.url },
    proxies,
    pgProxy,
    redisProxies,
    redis,
    cliEnv: { ...process.env, LOG_LEVEL: 'warn', ...cliEnv },
  } satisfies Cluster
}

const spawnNode = (h: Harness, node: Node) => {
  node.tail = ''
  if (node.logFile) fs.mkdirSync(path.dirname(node.logFile), { recursive: true })
  return h.spawnKotak(node.env, (chunk) => {
    const text = chunk.toString('utf8')
    node.tail = (node.tail + text).slice(-8_000)
    if (node.logFile) fs.appendFileSync(node.logFile, chunk)
    const lines = (node.partial + text).split('\n')
    node.partial = (lines.pop() ?? '').slice(-100_000)
    for (const line of lines)
      if (node.faults.length < 5 && line.includes('"request failed"'))
        node.faults.push(`${node.name}: ${line}`)
  })
}

/** Every shard held by the live nodes, each node some: the cluster has settled. */
const settled = async (nodes: ReadonlyArray<Node>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const held = await Promise.all(nodes.map((n) => statusOf(n).catch(() => 0)))
    if (held.every((x) => x > 0) && held.reduce((a, b) => a + b, 0) === SHARDS) return
    if (Date.now() > deadline) throw new Error(`the cluster did not settle: shards held ${held.join('/')}`)
    await sleep(200)
  }
}

const stopNodes = async (nodes: ReadonlyArray<Node>) => {
  await Promise.all(
    nodes.map(async (n) => {
      const child = n.child
      // One killed has its signal, not an exit code.
      if (!child || n.state === 'dead' || child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      if (n.state === 'paused') child.kill('SIGCONT')
      child.kill('SIGTERM')
      const clean = await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)])
      if (!clean) {
        child.kill('SIGKILL')
        await exited
      }
      n.state = 'dead'
    }),
  )
}

// ---------------------------------------------------------------------------------------------
// Faults

interface Step {
  /** Seconds after the load started. */
  readonly at: number
  readonly what: string
  readonly run: (c: Cluster, h: Harness) => Promise<void>
}

interface Fault {
  readonly name: string
  readonly what: string
  /** The issue's ack p99 goal for this fault, when it sets one. */
  readonly p99GoalMs?: number
  readonly steps: ReadonlyArray<Step>
}

const signal = (sig: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT', state: Node['state']) => (c: Cluster) => {
  const n = c.nodes[VICTIM]!
  n.child?.kill(sig)
  n.state = state
  return Promise.resolve()
}

const kill = (at: number): Step => ({ at, what: `SIGKILL n${VICTIM}`, run: signal('SIGKILL', 'dead') })
const restart = (at: number): Step => ({
  at,
  what: `restart n${VICTIM} (same ports), until healthy`,
  run: async (c, h) => {
    const n = c.nodes[VICTIM]!
    n.child = (await spawnNode(h, n)).child
    n.state = 'up'
  },
})
const pgCut = (at: number, seconds: number): Step[] => [
  { at, what: 'PostgreSQL cut (connections reset, new ones refused)', run: (c) => c.pgProxy.cut() },
  { at: at + seconds, what: 'PostgreSQL restored', run: (c) => c.pgProxy.restore() },
]

/** The issue's faults, each at 10 s into the load. */
const faults: ReadonlyArray<Fault> = [
  { name: 'none', what: 'no fault (baseline)', steps: [] },
  {
    name: 'kill',
    what: `n${VICTIM} SIGKILLed at 10 s, restarted at 25 s`,
    p99GoalMs: 2000,
    steps: [kill(10), restart(25)],
  },
  {
    name: 'pause',
    what: `n${VICTIM} SIGSTOPped at 10 s for 15 s (past its lease), then SIGCONT`,
    p99GoalMs: 3000,
    steps: [
      { at: 10, what: `SIGSTOP n${VICTIM}`, run: signal('SIGSTOP', 'paused') },
      { at: 25, what: `SIGCONT n${VICTIM}`, run: signal('SIGCONT', 'up') },
    ],
  },
  {
    name: 'redis-partition',
    what: `n${VICTIM} cut off from Redis at 10 s for 20 s`,
    p99GoalMs: 3000,
    steps: [
      { at: 10, what: `n${VICTIM}'s Redis link cut`, run: (c) => c.redisProxies[VICTIM]!.cut() },
      { at: 30, what: `n${VICTIM}'s Redis link restored`, run: (c) => c.redisProxies[VICTIM]!.restore() },
    ],
  },
  {
    name: 'redis-restart',
    what: 'Redis SIGKILLed at 10 s, back empty at 16 s',
    steps: [
      { at: 10, what: 'SIGKILL redis-server', run: (c) => c.redis.kill() },
      { at: 16, what: 'redis-server started again, empty', run: (c) => c.redis.start() },
    ],
  },
  { name: 'pg-4s', what: 'PostgreSQL unreachable at 10 s for 4 s', steps: pgCut(10, 4) },
  { name: 'pg-15s', what: 'PostgreSQL unreachable at 10 s for 15 s', steps: pgCut(10, 15) },
]

/** Smoke: does the harness work (cluster, proxy, client, checks)? One short database cut. */
const smokeFault: Fault = { name: 'pg-1s', what: 'PostgreSQL unreachable at 2 s for 1 s', steps: pgCut(2, 1) }

// ---------------------------------------------------------------------------------------------
// One run

/** What PostgreSQL holds of the run's messages: per client id how often, and each conversation's sequence. */
const stored = async (url: string) => {
  const db = new pg.Client({ connectionString: url })
  await db.connect()
  try {
    const byId = await db.query<{ client_id: string; n: number }>(
      "SELECT client_id, count(*)::int AS n FROM messages WHERE client_id LIKE 'api:fo-%' GROUP BY client_id",
    )
    // Every conversation, seeded message included: 1..n with none missing or twice.
    const seqs = await db.query<{ conversations: number; gaps: number; twice: number; broken: number }>(
      `SELECT count(*)::int AS conversations,
              coalesce(sum(last - distinct_seqs), 0)::int AS gaps,
              coalesce(sum(seqs - distinct_seqs), 0)::int AS twice,
              count(*) FILTER (WHERE first <> 1 OR last <> seqs OR seqs <> distinct_seqs)::int AS broken
       FROM (SELECT min(seq) AS first, max(seq) AS last, count(*) AS seqs, count(DISTINCT seq) AS distinct_seqs
             FROM messages GROUP BY conversation_id) c`,
    )
    return { byId: new Map(byId.rows.map((r) => [r.client_id.slice('api:'.length), r.n])), ...seqs.rows[0]! }
  } finally {
    await db.end()
  }
}

const runFault = async (h: Harness, fault: Fault, p: Plan) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `kotak-failover-${fault.name}-`))
  const cleanup: Array<() => Promise<void>> = []
  const cleanUp = async () => {
    // Taken out first, so a signal during the ordinary clean-up does not run a step twice.
    for (const f of cleanup.splice(0).reverse())
      await f().catch((e: unknown) => h.log(`cleanup: ${String(e)}`))
    fs.rmSync(dir, { recursive: true, force: true })
  }
  // Stopped from outside: the nodes, the redis-server and the database would outlive this process.
  const stopped = (signal: NodeJS.Signals) => {
    h.log(`failover ${fault.name}: ${signal}, cleaning up`)
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143))
  }
  process.once('SIGINT', stopped)
  process.once('SIGTERM', stopped)
  let cluster: Cluster | undefined
  try {
    h.log(`failover ${fault.name}: starting 3 nodes, PostgreSQL and Redis behind proxies`)
    cluster = await startCluster(h, fault.name, 3, dir, cleanup)
    await settled(cluster.nodes, 60_000)
    const seeded = await h.seedInbound(
      cluster.nodes[0]!,
      await h.seed({ url: cluster.nodes[0]!.url, env: cluster.cliEnv }),
      p.conversations,
    )
    const c = cluster
    const target = { urls: c.nodes.map((n) => n.url), ...seeded }
    const loadAverage = h.loadavg()
    // Every node's request path compiled and every conversation's actor loaded before the measured
    // load: a cold start is not what a fault costs. Patient (no second node before 10 s): a cold
    // node's first answers are slow, and sending them elsewhere too only adds to what every node
    // has to do before it is warm.
    const warm = await drive(
      target,
      { ...p, hedgeMs: 10_000 },
      { prefix: 'warm', seconds: p.warmupS, t0: performance.now() },
    )
    h.log(
      `failover ${fault.name}: ${p.rate} msg/s for ${p.durationS} s over ${p.conversations} conversations; ${fault.what}`,
    )
    const window = await usageWindow({
      serverPids: () => c.nodes.flatMap((n) => (n.state !== 'dead' && n.child?.pid ? [n.child.pid] : [])),
      database: c.database.name,
      adminUrl: h.adminUrl,
    })
    const cpu0 = process.cpuUsage()
    const proxyCpu = () => sample(c.proxies.pid)?.cpuSeconds ?? 0
    const proxyCpu0 = proxyCpu()
    const t0 = performance.now()
    const at = () => round((performance.now() - t0) / 1000, 1)
    // Shards each node says it holds, about every half second (-1: no answer within a second, e.g.
    // paused or dead).
    const shards: Array<[number, ...number[]]> = []
    let watching = true
    const watch = (async () => {
      while (watching) {
        const t = at()
        shards.push([t, ...(await Promise.all(c.nodes.map((n) => statusOf(n).catch(() => -1))))])
        await sleep(500)
      }
    })()
    const events: Array<{ at_s: number; done_s: number; what: string }> = []
    const timeline = (async () => {
      for (const step of fault.steps) {
        await sleep(t0 + step.at * 1000 - performance.now())
        const started = at()
        await step.run(c, h)
        events.push({ at_s: started, done_s: at(), what: step.what })
      }
    })()
    // Awaited once the load is over; a step failing before then must not end the process.
    timeline.catch(() => undefined)
    const sent = await drive(target, p, { prefix: 'fo', seconds: p.durationS, t0 })
    await timeline
    watching = false
    await watch
    const usage = await window.stop()
    const cpu = process.cpuUsage(cpu0)
    const clientCpuS = (cpu.user + cpu.system) / 1e6 + proxyCpu() - proxyCpu0
    // The final state once every node has stopped: nothing still in flight can change it.
    await stopNodes(c.nodes)
    const db = await stored(c.database.url)
    const serverFaults = c.nodes.flatMap((n) => n.faults)
    return { fault, sent, warm, loadAverage, db, events, shards, usage, clientCpuS, serverFaults }
  } catch (e) {
    for (const n of cluster?.nodes ?? []) h.log(`${n.name} (${n.state}) last output:\n${n.tail}`)
    // fetch's own message ("fetch failed") says nothing; its cause does.
    const cause = (e as { cause?: unknown }).cause
    h.log(`failover ${fault.name} failed: ${String(e)}${cause ? ` (${String(cause)})` : ''}`)
    throw e
  } finally {
    process.off('SIGINT', stopped)
    process.off('SIGTERM', stopped)
    await cleanUp()
  }
}

/**
 * A percentile of every message's ack latency, one never acknowledged counting as slower than any
 * (null when the percentile falls on one): a fault that loses track of many messages must not
 * look fast by counting only those that got through.
 */
const ackPercentile = (latencies: ReadonlyArray<number | undefined>, p: number) => {
  const v = percentile(
    latencies.map((l) => l ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b),
    p,
  )
  return Number.isFinite(v) ? round(v) : null
}

const figures = (h: Harness, r: Awaited<ReturnType<typeof runFault>>) => {
  const { sent, db } = r
  const acked = new Set<number>()
  sent.latencies.forEach((l, i) => {
    if (l !== undefined) acked.add(i)
  })
  let lost = 0
  let doubled = 0
  let storedUnacked = 0
  for (const i of acked) if (!db.byId.has(`fo-${i}`)) lost++
  for (const [id, count] of db.byId) {
    if (count > 1) doubled += count - 1
    if (!acked.has(Number(id.slice('fo-'.length)))) storedUnacked++
  }
  // Per second of first send, the slowest ack (ms; -1 when one of them never was).
  const slowest: number[] = []
  sent.firstSent.forEach((t, i) => {
    const s = Math.floor(t / 1000)
    const l = sent.latencies[i]
    const was = slowest[s] ?? 0
    slowest[s] = l === undefined || was < 0 ? -1 : Math.max(was, Math.round(l))
  })
  const p99 = ackPercentile(sent.latencies, 99)
  return {
    fault: r.fault.name,
    what: r.fault.what,
    sent: sent.sent,
    acked: acked.size,
    unacked: sent.sent - acked.size,
    lost,
    doubled,
    gaps: db.gaps,
    seq_twice: db.twice,
    conversations: db.conversations,
    conversations_broken: db.broken,
    stored_never_acked: storedUnacked,
    p50_ms: ackPercentile(sent.latencies, 50),
    p99_ms: p99,
    max_ms: ackPercentile(sent.latencies, 100),
    p99_goal_ms: r.fault.p99GoalMs ?? null,
    p99_met: r.fault.p99GoalMs === undefined ? null : p99 !== null && p99 <= r.fault.p99GoalMs,
    resent_messages: sent.attemptsOf.filter((a) => a > 1).length,
    hedges: sent.hedges,
    hedges_withheld: sent.hedgesWithheld,
    attempts: sent.attemptsOf.reduce((a, b) => a + b, 0),
    errors: sent.errors,
    // What the nodes logged for their 500 answers (the first five of each node), to find the fault.
    server_faults: r.serverFaults,
    schedule_lag_max_ms: sent.scheduleLagMaxMs,
    drain_s: sent.drainS,
    // How the cluster and the machine were doing before the fault: the same load, no fault.
    load_average_start: r.loadAverage,
    warmup: {
      sent: r.warm.sent,
      acked: r.warm.latencies.filter((l) => l !== undefined).length,
      p50_ms: ackPercentile(r.warm.latencies, 50),
      p99_ms: ackPercentile(r.warm.latencies, 99),
      errors: r.warm.errors,
    },
    events: r.events,
    slowest_ack_ms_by_second: slowest,
    shards_by_node: r.shards,
    cpu: h.cpuBlock(r.usage, {
      cpu_s: round(r.clientCpuS, 3),
      cpu_cores: round(r.clientCpuS / Math.max(r.usage.window_s, 0.001), 2),
    }),
  }
}
type Figures = ReturnType<typeof figures>

/** A latency figure, or what stands in it when it falls on a message never acknowledged. */
const ms = (v: number | null) => (v === null ? 'never' : String(v))

const errorsText = (e: Record<string, number>) =>
  Object.entries(e)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k.replace(/^http_/, '')} × ${v}`)
    .join(', ') || 'none'

const markdown = (h: Harness, loadStart: string, p: Plan, rows: ReadonlyArray<Figures>) =>
  h.heading('failover', loadStart) +
  `3 nodes (compiled server, defaults: CLUSTER_LEASE_MS 8000, CLUSTER_ASK_TIMEOUT_MS 5000), one PostgreSQL database, one Redis; ` +
  `${p.rate} inbound API messages/s for ${p.durationS} s over ${p.conversations} conversations; each run a fresh cluster and database. ` +
  `The client sends a message to a second node when the first has not answered within ${p.hedgeMs} ms (BENCH_HEDGE_MS), and to the next one after a failure. ` +
  `Goals (issue 48): 0 lost, 0 doubled, 0 gaps; ack p99 ≤ 2 s for SIGKILL, ≤ 3 s for pause and Redis partition. ` +
  `Percentiles count every message sent, an unacknowledged one as slower than any ("never": the percentile falls on one).\n\n` +
  '| fault | acked | unacked | lost | doubled | gaps | p50 ms | p99 ms (goal) | max ms | sent again | errors seen by the client |\n' +
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n' +
  rows
    .map(
      (r) =>
        `| ${r.what} | ${r.acked} | ${r.unacked} | ${r.lost} | ${r.doubled} | ${r.gaps}${r.seq_twice ? ` (+${r.seq_twice} twice)` : ''} | ` +
        `${ms(r.p50_ms)} | ${ms(r.p99_ms)}${r.p99_goal_ms === null ? '' : ` (≤ ${r.p99_goal_ms}: ${r.p99_met ? 'met' : 'missed'})`} | ${ms(r.max_ms)} | ` +
        `${r.resent_messages} (${r.hedges} hedges, ${r.hedges_withheld} withheld) | ${errorsText(r.errors)} |`,
    )
    .join('\n') +
  "\n\nThe warm-up before each run (same rate, no fault, not counted above) and the machine's load average as the run began, " +
  "to tell a fault's cost from a machine busy with other work:\n\n" +
  '| fault | load average | warm-up acked | warm-up p50 ms | warm-up p99 ms |\n| --- | --- | --- | --- | --- |\n' +
  rows
    .map(
      (r) =>
        `| ${r.fault} | ${r.load_average_start} | ${r.warmup.acked} of ${r.warmup.sent} | ${ms(r.warmup.p50_ms)} | ${ms(r.warmup.p99_ms)} |`,
    )
    .join('\n') +
  '\n\n' +
  `The client (Node's http in the bench process, bench/failoverClient.ts) sends message i at its time, first to node i mod 3. ` +
  `It never throws an answer away: an attempt unanswered after ${p.hedgeMs} ms stays open while the same message (same \`message.id\`) also goes to the next node ` +
  `not already working on it (a hedge, paid for by acknowledgements: each costs a token, each acknowledgement earns half of one, at most 100 held); a refused or reset connection or any non-2xx answer is followed, after a backoff of 25 ms doubling to 500 ms ` +
  (p.honorRetryAfter
    ? `(jittered; after a refusal with \`Retry-After\`, at least half to all of it: BENCH_RETRY_AFTER=1), `
    : `(jittered; \`Retry-After\` not waited for: BENCH_RETRY_AFTER=1 waits), `) +
  `by an attempt on the next node; the first 2xx acknowledges the message and ends its other attempts. ` +
  `An attempt is ended after ${p.attemptTimeoutMs} ms, and the client gives up ${p.drainS} s after sending ended (then "unacked"). ` +
  `A client that instead gave up each attempt after 2 s and resent never saw the cluster recover from a SIGKILL, a pause or either Redis fault on this machine ` +
  `(1,100 to 2,700 of 4,000 acknowledged): the answers to its resends all came too late to count, and it measured itself. ` +
  `Latency runs from a message's first send to its acknowledgement, so a node that does not answer at all (paused) costs a message sent to it first about ${p.hedgeMs} ms. ` +
  `The warm-up (${p.warmupS} s at the same rate, no hedge before 10 s) compiles every node's request path and loads every conversation's actor; the measured load starts once all of it is acknowledged. ` +
  `"sent again" counts messages that needed more than one attempt; the errors are per attempt (refused, reset and timeout are connection-level; numbers are HTTP statuses).\n\n` +
  `After the nodes have stopped, PostgreSQL is asked for every message's client id: lost = acknowledged but not stored, ` +
  `doubled = stored copies beyond the first; gaps = sequence numbers missing from 1..n, summed over every conversation ` +
  `(stored but never acknowledged, for information: ${rows.map((r) => `${r.fault} ${r.stored_never_acked}`).join(', ')}).\n\n` +
  `PostgreSQL reaches the nodes through one TCP proxy, Redis (a redis-server of the run's own, without persistence) through one per node, ` +
  `all in one process apart from the client (bench/tcpProxy.ts); a cut resets the open connections and refuses new ones. What happened when (seconds after the load started):\n\n` +
  rows
    .filter((r) => r.events.length > 0)
    .map(
      (r) =>
        `- ${r.fault}: ${r.events.map((e) => `${e.what} at ${e.at_s}${e.done_s > e.at_s + 0.5 ? `–${e.done_s}` : ''}`).join('; ')}`,
    )
    .join('\n') +
  '\n\nSlowest ack (ms) per second of first send (-1: a message of that second was never acknowledged):\n\n' +
  rows.map((r) => `- ${r.fault}: ${r.slowest_ack_ms_by_second.join(' ')}`).join('\n') +
  '\n\nServer faults (a 500 answer; what the node logged, the first five per node):\n\n' +
  rows
    .map((r) =>
      r.server_faults.length === 0
        ? `- ${r.fault}: none`
        : `- ${r.fault}:\n${r.server_faults.map((f) => `  - \`${f.slice(0, 2_000)}\``).join('\n')}`,
    )
    .join('\n') +
  `\n\nThe machine has 2 cores shared with other work, and the 3 nodes, PostgreSQL, Redis, the proxies and the client all run on it: ` +
  `the latencies are noisy from run to run. Per run the JSON carries the shards each node said it held every half second ` +
  `(-1: no answer) and the CPU of the nodes and of the database's backends (\`cpu\`; the client's figure is the bench process and the proxies' process together). ` +
  `${h.cpuNote}\n`

export const failover = async (h: Harness) => {
  const loadStart = h.loadavg()
  const plan: Plan = {
    rate: h.setting('BENCH_RATE', 100, 20),
    conversations: h.setting('BENCH_CONVERSATIONS', 40, 4),
    durationS: h.setting('BENCH_DURATION_S', 40, 5),
    warmupS: h.setting('BENCH_WARMUP_S', 5, 2),
    hedgeMs: h.setting('BENCH_HEDGE_MS', 1000, 1000),
    attemptTimeoutMs: h.setting('BENCH_ATTEMPT_TIMEOUT_MS', 30_000, 30_000),
    drainS: h.setting('BENCH_DRAIN_S', 60, 20),
    honorRetryAfter: h.setting('BENCH_RETRY_AFTER', 0, 0) === 1,
  }
  // BENCH_FAULTS=kill,pause: only those (a result of its own wants BENCH_TAG too).
  const only = process.env.BENCH_FAULTS?.split(',')
  const chosen = h.smoke ? [smokeFault] : faults.filter((f) => !only || only.includes(f.name))
  if (chosen.length === 0)
    throw new Error(`BENCH_FAULTS names none of ${faults.map((f) => f.name).join(',')}`)
  const rows: Figures[] = []
  for (const f of chosen) {
    const row = figures(h, await runFault(h, f, plan))
    h.log(
      `failover ${f.name}: acked ${row.acked}/${row.sent}, lost ${row.lost}, doubled ${row.doubled}, gaps ${row.gaps}, ` +
        `p50 ${ms(row.p50_ms)} ms, p99 ${ms(row.p99_ms)} ms; ${row.hedges} hedges; errors ${errorsText(row.errors)}`,
    )
    rows.push(row)
  }
  for (const r of rows)
    h.check(
      'failover',
      r.acked > 0 && r.unacked === 0 && r.lost === 0 && r.doubled === 0 && r.gaps === 0 && r.seq_twice === 0,
      `${r.fault}: acked ${r.acked} of ${r.sent}, lost ${r.lost}, doubled ${r.doubled}, gaps ${r.gaps}, twice ${r.seq_twice}`,
    )
  const met = rows.every(
    (r) =>
      r.unacked === 0 &&
      r.lost === 0 &&
      r.doubled === 0 &&
      r.gaps === 0 &&
      r.seq_twice === 0 &&
      r.p99_met !== false,
  )
  h.write(
    'failover',
    {
      ...h.base('failover', loadStart),
      driver: 'Node http in the bench process (bench/failover.ts)',
      plan: { ...plan, nodes: 3, victim: `n${VICTIM}` },
      faults: rows,
      targets: { lost: 0, doubled: 0, gaps: 0, p99_ms: { kill: 2000, pause: 3000, 'redis-partition': 3000 } },
      met,
    },
    markdown(h, loadStart, plan, rows),
  )
}
