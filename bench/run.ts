import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import pg from 'pg'
import { builtCentrifugo, CENTRIFUGO_VERSION, installCentrifugo, startCentrifugo } from './centrifugo'
import { failover } from './failover'
import * as perf from './perf'
import { markdown as profileMarkdown, summarise } from './profile'
import { seedReports } from './reports'
import { perUnit, sample, sampler, type Usage, usageWindow } from './usage'

/**
 * `npm run bench -- <scenario> [--smoke]`: builds the load driver (bench/driver, Go), starts Kotak
 * against the local PostgreSQL (fresh database), seeds through the operator CLI and the public API,
 * runs the driver, samples the CPU and RSS of the server, of the PostgreSQL backends serving its
 * database (bench/usage.ts) and of the driver, and
 * writes bench/results/<scenario>.json and .md. The driver shares the machine with the server, so
 * its CPU is reported beside the server's, and each one's CPU per unit of work apart.
 * `--smoke` (or BENCH_SMOKE=1): a few seconds at a tiny rate, results in a temporary directory,
 * failing when the harness itself is broken; `all` runs every scenario.
 */
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const smoke = process.argv.includes('--smoke') || process.env.BENCH_SMOKE === '1'
const resultsDir = smoke
  ? path.join(os.tmpdir(), 'kotak-bench-smoke')
  : (process.env.BENCH_RESULTS_DIR ?? path.join(root, 'bench', 'results'))
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
/**
 * The database of the servers `startKotak` starts: a fresh one on the local PostgreSQL (the
 * default), or `BENCH_DATABASE=embedded`, the embedded one `npm start` gives without DATABASE_URL.
 */
const benchDatabase = (() => {
  const v = process.env.BENCH_DATABASE ?? 'postgres'
  if (v !== 'postgres' && v !== 'embedded') throw new Error(`BENCH_DATABASE: postgres or embedded, not ${v}`)
  return v
})()

type Json = Record<string, unknown>

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`)

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

/** A setting from the environment, with its usual value and a tiny one for smoke runs. */
const setting = (name: string, usual: number, tiny: number) =>
  Number(process.env[name] ?? (smoke ? tiny : usual))

/**
 * What `npm start` and `npm run kotak` run: the compiled entry points (`dist/`), built from the
 * current code before any scenario runs.
 */
// As `npm start` runs the server (package.json).
const compiled = (entry: string) => [
  '--enable-source-maps',
  '--max-semi-space-size=64',
  path.join(root, 'dist', entry),
]
const buildServer = () => {
  log('building the server (node build.mjs)')
  execFileSync(process.execPath, ['build.mjs'], { cwd: root, stdio: 'inherit' })
}

const driverDir = path.join(root, 'bench', 'driver')
const driverBin = path.join(driverDir, 'bin', 'kotak-bench')

/** Builds the driver with the Go toolchain on PATH or in /usr/local/go (the build cache makes reruns quick). */
const findGo = () =>
  ['go', '/usr/local/go/bin/go'].find((g) => spawnSync(g, ['version'], { encoding: 'utf8' }).status === 0)

const buildDriver = (): string => {
  const go = findGo()
  if (!go) {
    throw new Error(
      'Go (1.22 or later) is needed to build the load driver in bench/driver: install it from https://go.dev/dl/ ' +
        'and run again. To use a k6 of your own instead, see "Performance" in README.md (bench/k6/*.js).',
    )
  }
  log('building the load driver (go build in bench/driver)')
  execFileSync(go, ['build', '-o', driverBin, '.'], { cwd: driverDir, stdio: 'inherit' })
  return driverBin
}

/** The machine is shared: its load when a run starts and ends goes into every result. */
const loadavg = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')

/** What the driver prints (stderr) when the work it measures starts and when it is over. */
interface DriverMarks {
  /** Sockets are open and subscribed: the measured work starts now. */
  readonly start?: () => Promise<void>
  /** Every delivery is in (or the settle time is over); closing the sockets follows. */
  readonly end?: () => Promise<void>
}

/**
 * Runs one driver command and parses its JSON report. The driver holds itself to one core
 * (GOMAXPROCS=1, BENCH_DRIVER_PROCS to change) so the rest of the machine is the server's. Its
 * progress lines pass through; `measure: start` and `measure: end` call `marks`, so a caller's CPU
 * window covers the work and not the set-up.
 */
const runDriver = (args: string[], marks: DriverMarks = {}) => {
  const child = spawnWithLimits(
    driverBin,
    args,
    {
      ...process.env,
      GOMAXPROCS: process.env.BENCH_DRIVER_PROCS ?? '1',
      // Fewer collections: the driver allocates per request and has memory to spare.
      GOGC: process.env.GOGC ?? '400',
    },
    'pipe',
    'pipe',
  )
  const sampled = sampler(child.pid!)
  let out = ''
  child.stdout!.on('data', (b: Buffer) => {
    out += b.toString('utf8')
  })
  const marked: Array<Promise<void>> = []
  let pending = ''
  child.stderr!.on('data', (b: Buffer) => {
    process.stderr.write(b)
    pending += b.toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop()!
    for (const line of lines) {
      if (line === '[driver] measure: start') {
        perf.start()
        if (marks.start) marked.push(marks.start())
      }
      if (line === '[driver] measure: end') {
        marked.push(perf.stop())
        if (marks.end) marked.push(marks.end())
      }
    }
  })
  return new Promise<{ report: Json; usage: Usage }>((resolve, reject) => {
    child.once('close', (code) => {
      const usage = sampled.stop()
      Promise.all(marked).then(() => {
        if (code !== 0) return reject(new Error(`load driver exited with ${code}`))
        try {
          resolve({ report: JSON.parse(out) as Json, usage })
        } catch {
          reject(new Error(`load driver printed no report: ${out.slice(0, 200)}`))
        }
      }, reject)
    })
  })
}

/** A value deep in the driver's report (`get(r, 'http', 'latency', 'p99_ms')`), 0 when absent. */
const get = (o: unknown, ...keys: string[]): number => {
  let v: unknown = o
  for (const k of keys) v = v && typeof v === 'object' ? (v as Json)[k] : undefined
  return typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : 0
}

/**
 * The seconds a sending run's rates (messages and deliveries per second) are over: the schedule's
 * when it was kept and nothing was refused — every message was taken at the rate offered, and
 * dividing by the time until the last answer would count that answer's own latency too (5,000/s
 * offered and every one taken on time read 4,999) — else until the last POST was answered.
 */
const rateSeconds = (r: unknown, duration: number, sendWall: number): number =>
  get(r, 'post', 'schedule_kept') === 1 && get(r, 'refused') === 0 ? duration : sendWall

const freePort = async () => {
  const net = await import('node:net')
  return new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}

const waitFor = async (url: string, child: ChildProcess) => {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}`)
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not come up`)
}

/** A shell with a high open-files limit, so tens of thousands of sockets fit. */
const spawnWithLimits = (
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdout: 'inherit' | 'pipe' = 'inherit',
  stderr: 'inherit' | 'pipe' = 'inherit',
) =>
  spawn('bash', ['-c', `ulimit -n 1048576 2>/dev/null || ulimit -n 65536; exec "$0" "$@"`, cmd, ...args], {
    env,
    cwd: root,
    stdio: ['ignore', stdout, stderr],
  })

interface Kotak {
  url: string
  /**
   * The server's own PostgreSQL database: its backends are the PostgreSQL CPU a run counts. None
   * on the embedded database, which runs in a thread of the node and is counted with it.
   */
  database: string | undefined
  /** A client of the server's database (the embedded one through the running node's socket). */
  connect: () => Promise<pg.Client>
  port: number
  child: ChildProcess
  env: NodeJS.ProcessEnv
  stop: () => Promise<void>
}

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-prof-'))

/** A fresh database on the local PostgreSQL: its name, its URL, and `drop` (BENCH_KEEP_DB=1 keeps it). */
const createDatabase = async () => {
  const name = `kotak_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    name,
    url: url.href,
    drop: async () => {
      // BENCH_KEEP_DB=1: the database stays, to look into what the run stored (EXPLAIN, timings).
      if (process.env.BENCH_KEEP_DB === '1') {
        log(`kept database ${name}`)
        return
      }
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    },
  }
}

/**
 * One server process as `npm start` runs it, on the bench's settings overridden by `extraEnv`
 * (DATABASE_URL, or none for the embedded database under DATA_DIR), once its health check answers. `onOutput` takes its stdout and
 * stderr instead of this process's own (a cluster's nodes are many, and loud during a fault).
 */
const spawnKotak = async (
  extraEnv: Record<string, string>,
  onOutput?: (chunk: Buffer) => void,
  nodeArgs: ReadonlyArray<string> = [],
) => {
  const port = Number(extraEnv.PORT ?? (await freePort()))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '0.0.0.0',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
    DATA_DIR: extraEnv.DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-')),
    ...extraEnv,
  }
  if (!extraEnv.REDIS_URL) delete env.REDIS_URL
  // None: the embedded database under DATA_DIR.
  if (!extraEnv.DATABASE_URL) delete env.DATABASE_URL
  // BENCH_PROFILE=1: the server writes a CPU profile on exit, summarised into the results.
  // BENCH_NODE_ARGS: more flags for the server's node (`--trace-gc`, `--inspect`, …) when looking into a run.
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const extra = process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []
  const output = onOutput ? 'pipe' : 'inherit'
  const child = spawnWithLimits(
    process.execPath,
    [...profile, ...perf.nodeArgs, ...extra, ...nodeArgs, ...compiled('main.js')],
    env,
    output,
    output,
  )
  if (onOutput) {
    child.stdout!.on('data', onOutput)
    child.stderr!.on('data', onOutput)
  }
  await waitFor(`http://127.0.0.1:${port}/healthz`, child)
  return { url: `http://127.0.0.1:${port}`, port, child, env }
}
/** SIGTERM, then the process's exit (listened for first: it may exit at once). */
const stopNode = async (child: ChildProcess) => {
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

const startKotak = async (extraEnv: Record<string, string> = {}): Promise<Kotak> => {
  if (benchDatabase === 'embedded') return startEmbedded(extraEnv)
  const db = await createDatabase()
  const node = await spawnKotak({ ...extraEnv, DATABASE_URL: db.url })
  perf.follow(node.child.pid!)
  return {
    ...node,
    database: db.name,
    connect: async () => {
      const c = new pg.Client({ connectionString: db.url })
      await c.connect()
      return c
    },
    stop: async () => {
      await stopNode(node.child)
      await db.drop()
    },
  }
}

const embeddedNote =
  'On the embedded database (`BENCH_DATABASE=embedded`: `npm start` without DATABASE_URL). Its PostgreSQL runs in a thread of the node, so its CPU is in the Node column and the PostgreSQL column is 0.'

/**
 * A server on the embedded database in a fresh DATA_DIR, as `npm start` runs it without
 * DATABASE_URL (BENCH_KEEP_DB=1 keeps the directory). The operator CLI and `connect` reach its
 * database beside the running node, through the socket it serves in DATA_DIR.
 */
const startEmbedded = async (extraEnv: Record<string, string>): Promise<Kotak> => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-embedded-'))
  const node = await spawnKotak({ ...extraEnv, DATA_DIR: dataDir })
  perf.follow(node.child.pid!)
  return {
    ...node,
    database: undefined,
    connect: async () => {
      const c = new pg.Client({ host: dataDir, port: 5432, user: 'postgres', database: 'postgres' })
      await c.connect()
      return c
    },
    stop: async () => {
      await stopNode(node.child)
      if (process.env.BENCH_KEEP_DB === '1') log(`kept the embedded database in ${dataDir}`)
      else fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const cli = (env: NodeJS.ProcessEnv, args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, [...compiled('cli.js'), ...args], {
      env,
      encoding: 'utf8',
    }),
  ) as Json

interface Seed {
  workspaceId: number
  key: string
  cookie: string
  csrf: string
}

/**
 * A Pro workspace, an API key and a one-time sign-in link for its owner, through the operator CLI
 * (with the embedded database: while the server is stopped).
 */
const bootstrap = (env: NodeJS.ProcessEnv) => {
  const email = `bench-${Date.now()}@example.com`
  const ws = cli(env, [
    'workspace',
    'create',
    '--name',
    'Bench',
    '--owner-email',
    email,
    '--owner-name',
    'Bench',
    '--plan',
    'pro',
  ])
  const workspaceId = (ws.workspace as { id: number }).id
  const key = cli(env, ['key', 'create', '--workspace', String(workspaceId), '--name', 'bench']).key as string
  const link = cli(env, ['login-link', '--email', email]).url as string
  return { workspaceId, key, link }
}

/** Uses the sign-in link on the server at `url` as its page's button does: the owner's session cookie and CSRF token. */
const signIn = async (url: string, link: string) => {
  const res = await fetch(link.replace(/^http:\/\/[^/]+/, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!)
  const csrf = cookies.find((c) => c.startsWith('kotak_csrf='))!.split('=')[1]!
  return { cookie: cookies.join('; '), csrf }
}

/** A Pro workspace, an API key and a signed-in owner, through the CLI and the sign-in link. */
const seed = async (k: Pick<Kotak, 'url' | 'env'>): Promise<Seed> => {
  const { workspaceId, key, link } = bootstrap(k.env)
  return { workspaceId, key, ...(await signIn(k.url, link)) }
}

const commit = () => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

/** `BENCH_TAG=x` keeps a second run of a scenario beside the first (`storm-x.json`). */
const resultName = (scenario: string) =>
  process.env.BENCH_TAG ? `${scenario}-${process.env.BENCH_TAG}` : scenario

const write = (scenario: string, result: Json, summaryMd: string) => {
  fs.mkdirSync(resultsDir, { recursive: true })
  fs.writeFileSync(
    path.join(resultsDir, `${resultName(scenario)}.json`),
    `${JSON.stringify(result, null, 2)}\n`,
  )
  fs.writeFileSync(path.join(resultsDir, `${resultName(scenario)}.md`), summaryMd)
  process.stdout.write(`${summaryMd}\n`)
}

const base = (scenario: string, loadStart: string) => ({
  scenario,
  date: new Date().toISOString(),
  commit: commit(),
  machine: {
    cores: os.cpus().length,
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    load_average_start: loadStart,
    load_average_end: loadavg(),
  },
  command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
  driver: 'bench/driver (Go: vegeta, gobwas/ws)',
  smoke,
})

const heading = (scenario: string, loadStart: string) =>
  `# ${scenario}${smoke ? ' (smoke)' : ''}\n\n${new Date().toISOString()} · commit ${commit()} · ${os.cpus().length} cores, ` +
  `load average ${loadStart} at the start and ${loadavg()} at the end (the machine is shared; the driver runs on it too)\n\n`

/** A smoke run fails loudly when the harness is broken (nothing measured), never on a missed target. */
const check = (scenario: string, ok: boolean, what: string) => {
  if (smoke && !ok) throw new Error(`${scenario} smoke: ${what}`)
}

const seconds = (n: number) => `${n}s`

/**
 * GETs through the driver at a constant rate while the server (and, given its database, the
 * PostgreSQL backends serving it) are sampled.
 */
const measureHttp = async (pid: number, args: string[], database?: string) => {
  const window = await usageWindow({ serverPid: pid, database, adminUrl })
  // The driver says when its measured requests start (after a warm-up) and end.
  let measured: Awaited<ReturnType<typeof window.stop>> | undefined
  const run = await runDriver(['http', ...args], {
    start: () => window.mark(),
    end: async () => {
      measured ??= await window.stop()
    },
  })
  const cpu = measured ?? (await window.stop())
  return { ...run, cpu }
}

/** What the CPU figures count, said once in every result that reports them. */
const cpuNote =
  'Node is the server process and any process it started (/proc); PostgreSQL is the backends connected to the ' +
  "server's own database (pg_stat_activity), not the whole instance: the instance's background processes (WAL writer, " +
  'checkpointer), shared with every other database on it, are reported apart as `postgres_shared_cpu_s`.'

/** The CPU block every scenario's JSON carries (`metrics.cpu`), the driver's beside the rest. */
const cpuBlock = (
  w: Awaited<ReturnType<Awaited<ReturnType<typeof usageWindow>>['stop']>>,
  driver: { cpu_s: number; cpu_cores: number },
) => {
  const { series: _series, ...rest } = w
  return { ...rest, driver_cpu_s: round(driver.cpu_s, 3), driver_cpu_cores: driver.cpu_cores }
}

/**
 * GETs of one path under labelled query strings (one driver target per label) at a fixed rate,
 * with a key: the answered count and the figures the inbox and dashboard scenarios report.
 */
const measureFilteredGets = async (
  kotak: {
    readonly child: { readonly pid?: number | undefined }
    readonly url: string
    readonly database: string | undefined
  },
  key: string,
  path: string,
  filters: Readonly<Record<string, string>>,
  rate: number,
  duration: number,
  connections: number,
  /** Seconds of the same requests before the measured ones (reported apart): a server just started. */
  warmup = setting('BENCH_WARMUP_S', 5, 1),
) => {
  const run = await measureHttp(
    kotak.child.pid!,
    [
      ...Object.entries(filters).flatMap(([k, q]) => ['-target', `${k}=${kotak.url}${path}?${q}`]),
      '-header',
      `Authorization: Bearer ${key}`,
      '-rate',
      String(rate),
      '-duration',
      seconds(duration),
      '-connections',
      String(connections),
      '-warmup',
      seconds(warmup),
    ],
    kotak.database,
  )
  const byLabel = (run.report.http as Json).by_label as Record<string, Json> | undefined
  const ok = get(run.report, 'http', 'ok')
  const figures = {
    offered_per_s: rate,
    rps: round(get(run.report, 'http', 'ok_per_s'), 0),
    p50_ms: get(run.report, 'http', 'latency', 'p50_ms'),
    p99_ms: get(run.report, 'http', 'latency', 'p99_ms'),
    service_p99_ms: get(run.report, 'http', 'service_latency', 'p99_ms'),
    failed_rate: get(run.report, 'http', 'failed_rate'),
    schedule_kept: get(run.report, 'http', 'schedule_kept') === 1,
    warmup_s: warmup,
    warmup_p99_ms: get(run.report, 'warmup', 'latency', 'p99_ms'),
    p99_ms_by_filter: Object.fromEntries(
      Object.entries(byLabel ?? {}).map(([k, v]) => [k, get(v, 'p99_ms')]),
    ),
    server_cpu_cores: run.cpu.server_cpu_cores,
    postgres_cpu_cores: run.cpu.postgres_cpu_cores,
    driver_cpu_cores: get(run.report, 'sending', 'cpu_cores'),
    cpu: cpuBlock(run.cpu, {
      cpu_s: get(run.report, 'sending', 'cpu_s'),
      cpu_cores: get(run.report, 'sending', 'cpu_cores'),
    }),
    per_request: perUnit('request', ok, {
      server: run.cpu.server_cpu_s,
      postgres: run.cpu.postgres_cpu_s,
      driver: get(run.report, 'sending', 'cpu_s'),
    }),
  }
  return { ok, figures }
}

const scenarios: Record<string, () => Promise<unknown>> = {
  /**
   * GET /v1/me with an API key vs a bare uWS server, the same offered rate to both (open model).
   * Target ratio of requests answered ≥ 0.6.
   */
  kernel: async () => {
    const rate = setting('BENCH_RATE', 40_000, 200)
    const duration = setting('BENCH_DURATION_S', 20, 3)
    const connections = String(setting('BENCH_CONNECTIONS', 128, 8))
    // The same offered load to both servers, written once.
    const load = ['-rate', String(rate), '-duration', seconds(duration), '-connections', connections]
    const loadStart = loadavg()
    const kotak = await startKotak()
    let k: Awaited<ReturnType<typeof measureHttp>>
    try {
      const s = await seed(kotak)
      log(`kotak: GET /v1/me, ${rate} req/s offered for ${duration}s`)
      k = await measureHttp(
        kotak.child.pid!,
        ['-target', `${kotak.url}/v1/me`, '-header', `Authorization: Bearer ${s.key}`, ...load],
        kotak.database,
      )
    } finally {
      await kotak.stop()
    }
    const helloPort = await freePort()
    const hello = spawnWithLimits(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'bench', 'hello.ts')],
      {
        ...process.env,
        PORT: String(helloPort),
      },
    )
    let h: Awaited<ReturnType<typeof measureHttp>>
    try {
      await waitFor(`http://127.0.0.1:${helloPort}/`, hello)
      log(`uWS hello: same load`)
      h = await measureHttp(hello.pid!, ['-target', `http://127.0.0.1:${helloPort}/`, ...load])
    } finally {
      hello.kill('SIGTERM')
    }
    const rps = get(k.report, 'http', 'ok_per_s')
    const helloRps = get(h.report, 'http', 'ok_per_s')
    const ratio = helloRps > 0 ? rps / helloRps : 0
    const okK = get(k.report, 'http', 'ok')
    const okH = get(h.report, 'http', 'ok')
    const sendK = get(k.report, 'sending', 'cpu_s')
    const sendH = get(h.report, 'sending', 'cpu_s')
    const metrics = {
      offered_per_s: rate,
      rps: round(rps, 0),
      sent_per_s: round(get(k.report, 'http', 'sent_per_s'), 0),
      p99_ms: get(k.report, 'http', 'latency', 'p99_ms'),
      service_p99_ms: get(k.report, 'http', 'service_latency', 'p99_ms'),
      failed_rate: get(k.report, 'http', 'failed_rate'),
      schedule_kept: get(k.report, 'http', 'schedule_kept') === 1,
      hello_rps: round(helloRps, 0),
      hello_sent_per_s: round(get(h.report, 'http', 'sent_per_s'), 0),
      hello_p99_ms: get(h.report, 'http', 'latency', 'p99_ms'),
      hello_service_p99_ms: get(h.report, 'http', 'service_latency', 'p99_ms'),
      hello_schedule_kept: get(h.report, 'http', 'schedule_kept') === 1,
      hello_schedule_lag_p99_ms: get(h.report, 'http', 'schedule_lag', 'p99_ms'),
      ratio: round(ratio, 3),
      server_cpu_cores: k.cpu.server_cpu_cores,
      server_rss_peak_bytes: k.cpu.server_rss_peak_bytes,
      postgres_cpu_cores: k.cpu.postgres_cpu_cores,
      driver_cpu_cores: get(k.report, 'sending', 'cpu_cores'),
      hello_server_cpu_cores: h.cpu.server_cpu_cores,
      hello_driver_cpu_cores: get(h.report, 'sending', 'cpu_cores'),
      driver_gomaxprocs: get(h.report, 'driver', 'gomaxprocs'),
      cpu: cpuBlock(k.cpu, { cpu_s: sendK, cpu_cores: get(k.report, 'sending', 'cpu_cores') }),
      hello_cpu: cpuBlock(h.cpu, { cpu_s: sendH, cpu_cores: get(h.report, 'sending', 'cpu_cores') }),
      per_request: perUnit('request', okK, {
        server: k.cpu.server_cpu_s,
        postgres: k.cpu.postgres_cpu_s,
        driver: sendK,
      }),
      hello_per_request: perUnit('request', okH, { server: h.cpu.server_cpu_s, driver: sendH }),
      connections: Number(connections),
      duration_s: duration,
    }
    check('kernel', okK > 0 && okH > 0 && metrics.failed_rate === 0, 'no answered requests, or failures')
    const targets = { ratio: 0.6, server_and_postgres_cpu_us_per_request: 30 }
    const perRequest = metrics.per_request.server_and_postgres_cpu_us
    const cheap = perRequest !== null && perRequest <= targets.server_and_postgres_cpu_us_per_request
    const met = ratio >= targets.ratio && cheap
    write(
      'kernel',
      { ...base('kernel', loadStart), metrics, targets, met },
      heading('kernel', loadStart) +
        `${rate} requests/s offered to each (open model, ${connections} connections at most).\n\n` +
        `| | answered/s | p99 ms (from intended send) | p99 ms (service) | schedule kept | server CPU (cores) | driver CPU (cores) | server µs/request | driver µs/request |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n` +
        `| Kotak GET /v1/me (API key) | ${metrics.rps} | ${metrics.p99_ms} | ${metrics.service_p99_ms} | ${metrics.schedule_kept} | ${metrics.server_cpu_cores} | ${metrics.driver_cpu_cores} | ${metrics.per_request.server_cpu_us} | ${metrics.per_request.driver_cpu_us} |\n` +
        `| bare uWebSockets.js | ${metrics.hello_rps} | ${metrics.hello_p99_ms} | ${metrics.hello_service_p99_ms} | ${metrics.hello_schedule_kept} | ${metrics.hello_server_cpu_cores} | ${metrics.hello_driver_cpu_cores} | ${metrics.hello_per_request.server_cpu_us} | ${metrics.hello_per_request.driver_cpu_us} |\n\n` +
        `ratio ${metrics.ratio} (target ≥ ${targets.ratio}): ${ratio >= targets.ratio ? 'met' : `missed by ${round(targets.ratio - ratio, 3)}`}. ` +
        `Server CPU per request: Node ${metrics.per_request.server_cpu_us} µs + PostgreSQL ${metrics.per_request.postgres_cpu_us} µs = ${perRequest} µs ` +
        `(target ≤ ${targets.server_and_postgres_cpu_us_per_request}: ${cheap ? 'met' : 'missed'}); PostgreSQL ${metrics.postgres_cpu_cores} cores during the Kotak run. ` +
        `${cpuNote}\n\n` +
        `Latency counts from each request's slot in the schedule, so when the server cannot keep up the wait shows; ` +
        `"schedule kept" is false when more than 1 % of requests left over 10 ms late or fewer than 99 % were sent.\n`,
    )
  },

  /**
   * Idle agent sockets held by a cluster of nodes (issue 49: 50,000 on 3 nodes at ≤ 3 KB each).
   * Each process may hold at most 20,000 open files here, so the sockets are spread over the nodes
   * and over one driver process per node. Memory per socket: each node's RSS and V8 heap after a
   * full collection (its inspector), before the ramp and again while every socket is held.
   */
  sockets: async () => {
    const nodeCount = setting('BENCH_NODES', 3, 1)
    const n = setting('BENCH_SOCKETS', 50_000, 200)
    const hold = setting('BENCH_HOLD_S', 30, 5)
    const ramp = setting('BENCH_RAMP_S', 40, 2)
    const loadStart = loadavg()
    const db = await createDatabase()
    const nodes: Array<{ url: string; child: ChildProcess; env: NodeJS.ProcessEnv; inspectPort: number }> = []
    try {
      // More than one node: a cluster on this machine's Redis, under a prefix of its own.
      const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'
      const clusterEnv: Record<string, string> =
        nodeCount > 1
          ? {
              REDIS_URL: redisUrl,
              REDIS_PREFIX: `kotak_bench_sockets_${Date.now()}:`,
              CLUSTER_HOST: '127.0.0.1',
              CLUSTER_PORT: '0',
            }
          : {}
      const startNode = async () => {
        const inspectPort = await freePort()
        const node = await spawnKotak({ DATABASE_URL: db.url, ...clusterEnv }, undefined, [
          `--inspect-port=127.0.0.1:${inspectPort}`,
        ])
        nodes.push({ ...node, inspectPort })
      }
      // The first node migrates the database; the others start together.
      await startNode()
      await Promise.all(Array.from({ length: nodeCount - 1 }, startNode))
      const { PORT: _port, ...cliEnv } = nodes[0]!.env
      const s = await seed({ url: nodes[0]!.url, env: cliEnv })
      const inspectors = nodes.map((k) => inspectorOf(k.child.pid!, k.inspectPort))
      // Memory as it stands (garbage of the ramp included), then after a full collection.
      const collected = () =>
        Promise.all(
          nodes.map(async (k, i) => {
            const raw = await memoryOf(k.child.pid!, k.url)
            await inspectors[i]!.gc()
            return { ...(await memoryOf(k.child.pid!, k.url)), raw_rss_bytes: raw.rss_bytes }
          }),
        )
      const live = () =>
        Promise.all(
          nodes.map(async (k) => {
            const text = await (await fetch(`${k.url}/metrics`)).text()
            return Number(/^kotak_realtime_connections (\d+)/m.exec(text)?.[1] ?? 0)
          }),
        )
      const before = await collected()
      const sampled = nodes.map((k) => sampler(k.child.pid!))
      const shares = nodes.map((_, i) => Math.floor(n / nodeCount) + (i < n % nodeCount ? 1 : 0))
      let held: Awaited<ReturnType<typeof collected>> | undefined
      let heldSockets: number[] = []
      let fullAt = 0
      const t0 = Date.now()
      // While every socket is held (and up to 5 s more, for the ramp's stragglers): collect and sample.
      const watch = (async () => {
        const deadline = t0 + (ramp + hold) * 1000
        while (Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 1000))
          const counts = await live().catch(() => [])
          if (counts.length === nodes.length && counts.every((c, i) => c >= shares[i]!)) {
            fullAt = Date.now()
            await new Promise((r) => setTimeout(r, Math.min(5, hold / 3) * 1000))
            held = await collected()
            heldSockets = await live()
            return
          }
        }
      })()
      log(`sockets: ${n} over ${nodeCount} node(s), ${ramp}s ramp, hold ${hold}s`)
      const runs = await Promise.all(
        nodes.map((k, i) =>
          runDriver([
            'sockets',
            '-base',
            k.url,
            '-cookie',
            s.cookie,
            '-csrf',
            s.csrf,
            '-channels',
            `ws:${s.workspaceId}`,
            '-hosts',
            hosts,
            '-sockets',
            String(shares[i]),
            '-ramp',
            seconds(ramp),
            '-hold',
            seconds(hold),
          ]),
        ),
      )
      await watch
      const servers = sampled.map((x) => x.stop())
      await Promise.all(inspectors.map((x) => x.close()))
      const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
      const heldTotal = sum(heldSockets)
      const perSocket = (key: 'rss_bytes' | 'heap_used_bytes') =>
        held && heldTotal > 0 ? Math.round(sum(held.map((m, i) => m[key] - before[i]![key])) / heldTotal) : 0
      const fdLimit = Number(
        /Max open files\s+\d+\s+(\d+)/.exec(
          fs.readFileSync(`/proc/${nodes[0]!.child.pid}/limits`, 'utf8'),
        )?.[1] ?? 0,
      )
      const total = (key: string) => sum(runs.map((r) => get(r.report, 'realtime', key)))
      const metrics = {
        nodes: nodeCount,
        sockets: heldTotal,
        attempted: n,
        opened: total('sockets_opened'),
        failed: total('sockets_failed'),
        subscribed: total('sockets_subscribed'),
        connect_p99_ms: Math.max(...runs.map((r) => get(r.report, 'realtime', 'connect_time', 'p99_ms'))),
        rss_bytes_per_socket: perSocket('rss_bytes'),
        heap_bytes_per_socket: perSocket('heap_used_bytes'),
        per_node: nodes.map((_, i) => ({
          sockets: heldSockets[i] ?? 0,
          before_rss_bytes: before[i]!.rss_bytes,
          before_heap_used_bytes: before[i]!.heap_used_bytes,
          held_rss_bytes: held?.[i]?.rss_bytes ?? 0,
          held_uncollected_rss_bytes: held?.[i]?.raw_rss_bytes ?? 0,
          held_heap_used_bytes: held?.[i]?.heap_used_bytes ?? 0,
          rss_peak_bytes: servers[i]!.rss_peak_bytes,
          cpu_cores: servers[i]!.cpu_cores,
        })),
        connect_per_s: fullAt > t0 ? Math.round(heldTotal / ((fullAt - t0) / 1000)) : 0,
        server_cpu_cores: round(sum(servers.map((x) => x.cpu_cores)), 2),
        driver_cpu_cores: round(sum(runs.map((r) => r.usage.cpu_cores)), 2),
        driver_rss_bytes_per_socket:
          n > 0 ? Math.round(sum(runs.map((r) => get(r.report, 'driver', 'rss_peak_bytes'))) / n) : 0,
        server_open_files_hard_limit: fdLimit,
      }
      check('sockets', metrics.subscribed === n, `${metrics.subscribed} of ${n} sockets subscribed`)
      check('sockets', held !== undefined, 'every socket held at once')
      const targets = { sockets: 50_000, nodes: 3, rss_bytes_per_socket: 3_072 }
      const met =
        metrics.sockets >= targets.sockets &&
        nodeCount <= targets.nodes &&
        metrics.rss_bytes_per_socket <= targets.rss_bytes_per_socket
      const perNodeRows = metrics.per_node
        .map(
          (p, i) =>
            `| n${i} | ${p.sockets} | ${MB(p.before_rss_bytes)} (${MB(p.before_heap_used_bytes)}) | ` +
            `${MB(p.held_uncollected_rss_bytes)} | ${MB(p.held_rss_bytes)} (${MB(p.held_heap_used_bytes)}) | ${MB(p.rss_peak_bytes)} | ${p.cpu_cores} |`,
        )
        .join('\n')
      write(
        'sockets',
        { ...base('sockets', loadStart), metrics, targets, met },
        heading('sockets', loadStart) +
          `| nodes | sockets held | RSS per socket | heap per socket | connects/s | connect p99 ms | server CPU | driver CPU | driver RSS per socket | failed |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n` +
          `| ${nodeCount} | ${metrics.sockets} | ${metrics.rss_bytes_per_socket} B | ${metrics.heap_bytes_per_socket} B | ${metrics.connect_per_s} | ${metrics.connect_p99_ms} | ${metrics.server_cpu_cores} | ${metrics.driver_cpu_cores} | ${metrics.driver_rss_bytes_per_socket} B | ${metrics.failed} |\n\n` +
          `| node | sockets | before: RSS MB (heap MB) | held: RSS MB as it stood | held, collected: RSS MB (heap MB) | RSS peak MB | CPU cores |\n| --- | --- | --- | --- | --- | --- | --- |\n${perNodeRows}\n\n` +
          `Targets: ${targets.sockets} sockets on ${targets.nodes} nodes at ≤ ${targets.rss_bytes_per_socket} B each: ${met ? 'met' : 'missed'}\n\n` +
          `Each process may hold at most ${fdLimit} open files (hard limit of this machine): the sockets are spread over ` +
          `the nodes, one driver process each. Per socket: the growth of the nodes' RSS and V8 heap from before the ramp ` +
          `to 5 s after every socket was held, both after a full garbage collection (each node's inspector), ` +
          `divided by the sockets held. "As it stood" is the RSS before that collection, and the peak the highest ` +
          `sample of the run: the difference is garbage of the ramp (the token requests and upgrades, and a young ` +
          `generation of up to 64 MB a semi-space, \`--max-semi-space-size=64\`), not memory the sockets hold.\n`,
      )
    } finally {
      await Promise.all(nodes.map((k) => stopNode(k.child)))
      await db.drop()
    }
  },

  /** The inbox list with its common filters on 100,000 conversations of one workspace. */
  inbox: async () => {
    const n = setting('BENCH_CONVERSATIONS', 100_000, 1000)
    const rate = setting('BENCH_RATE', 200, 20)
    const duration = setting('BENCH_DURATION_S', 20, 3)
    const loadStart = loadavg()
    const kotak = await startKotak()
    try {
      const s = await seed(kotak)
      log(`inbox: seeding ${n} conversations`)
      const channel = await seedConversations(kotak, s.workspaceId, n)
      const filters: Record<string, string> = {
        all: '',
        tab_new: 'tab=new',
        tab_solved: 'tab=solved',
        channel: `channel_ids=${channel}`,
        unassigned: 'assignee=none',
        search: 'q=Customer%2012345',
        created: 'created_from=2026-01-01&created_to=2026-12-31',
        page_20: 'page=20',
      }
      log(`inbox: GET /v1/interactions with 8 filters, ${rate} req/s for ${duration}s`)
      const { ok, figures } = await measureFilteredGets(
        kotak,
        s.key,
        '/v1/interactions',
        filters,
        rate,
        duration,
        64,
      )
      const metrics = { conversations: n, ...figures }
      check('inbox', ok > 0 && metrics.failed_rate === 0, 'no answered requests, or failures')
      const targets = { p99_ms: 100 }
      const met = metrics.p99_ms <= targets.p99_ms && metrics.failed_rate === 0
      write(
        'inbox',
        { ...base('inbox', loadStart), metrics, targets, met },
        heading('inbox', loadStart) +
          `${n} conversations in one workspace; ${rate} requests/s offered, ${metrics.rps} answered/s, p50 ${metrics.p50_ms} ms, p99 ${metrics.p99_ms} ms ` +
          `from the intended send time (service p99 ${metrics.service_p99_ms} ms; our target ≤ ${targets.p99_ms} ms: ${met ? 'met' : 'missed'}), failed ${metrics.failed_rate}, schedule kept ${metrics.schedule_kept}.\n\n` +
          `CPU per request: server ${metrics.per_request.server_cpu_us} µs, PostgreSQL ${metrics.per_request.postgres_cpu_us} µs, driver ${metrics.per_request.driver_cpu_us} µs.\n\n` +
          `Warm-up before the window, not counted above: ${metrics.warmup_s} s of the same requests at the same rate on the server just started, p99 ${metrics.warmup_p99_ms} ms.\n\n` +
          `| filter | p99 ms |\n| --- | --- |\n${Object.entries(metrics.p99_ms_by_filter)
            .map(([k, v]) => `| ${k} | ${v} |`)
            .join('\n')}\n`,
      )
    } finally {
      await kotak.stop()
    }
  },

  /**
   * GET /v1/pipeline/dashboard over 100,000 leads (seeded with SQL) with an API key (every lead)
   * and a member who sees only their own and their team's, several filters. Target p99 ≤ 300 ms.
   */
  dashboard: async () => {
    const n = setting('BENCH_LEADS', 100_000, 1000)
    const rate = setting('BENCH_RATE', 10, 5)
    const duration = setting('BENCH_DURATION_S', 20, 3)
    const loadStart = loadavg()
    const kotak = await startKotak()
    try {
      const s = await seed(kotak)
      log(`dashboard: seeding ${n} leads`)
      const pipelineId = await seedLeads(kotak, s, n)
      const filters: Record<string, string> = {
        month: '',
        pipeline: `pipeline_id=${pipelineId}`,
        quarter: `pipeline_id=${pipelineId}&from=${dayAgo(90)}&to=${dayAgo(0)}`,
        unassigned: 'assignee_id=none',
      }
      log(
        `dashboard: GET /v1/pipeline/dashboard with ${Object.keys(filters).length} filters, ${rate} req/s for ${duration}s`,
      )
      const { ok, figures } = await measureFilteredGets(
        kotak,
        s.key,
        '/v1/pipeline/dashboard',
        filters,
        rate,
        duration,
        16,
      )
      const metrics = { leads: n, ...figures }
      check('dashboard', ok > 0 && metrics.failed_rate === 0, 'no answered requests, or failures')
      const targets = { p99_ms: 300 }
      const met = metrics.p99_ms <= targets.p99_ms && metrics.failed_rate === 0
      write(
        'dashboard',
        { ...base('dashboard', loadStart), metrics, targets, met },
        heading('dashboard', loadStart) +
          `${n} leads in one workspace (API key: every lead); ${rate} requests/s offered, ${metrics.rps} answered/s, p50 ${metrics.p50_ms} ms, p99 ${metrics.p99_ms} ms ` +
          `from the intended send time (service p99 ${metrics.service_p99_ms} ms; our target ≤ ${targets.p99_ms} ms: ${met ? 'met' : 'missed'}), failed ${metrics.failed_rate}, schedule kept ${metrics.schedule_kept}.\n\n` +
          `CPU per request: server ${metrics.per_request.server_cpu_us} µs, PostgreSQL ${metrics.per_request.postgres_cpu_us} µs.\n\n` +
          `| filter | p99 ms |\n| --- | --- |\n${Object.entries(metrics.p99_ms_by_filter)
            .map(([k, v]) => `| ${k} | ${v} |`)
            .join('\n')}\n`,
      )
    } finally {
      await kotak.stop()
    }
  },

  /** Inbound messages at a fixed rate to agents' sockets. Target 5,000 msg/s, p99 ≤ 50 ms, 0 lost. */
  storm: () =>
    inbound({
      scenario: 'storm',
      rate: setting('BENCH_RATE', 5000, 20),
      conversations: setting('BENCH_CONVERSATIONS', 40, 4),
      sockets: setting('BENCH_SOCKETS', 10, 3),
      duration: setting('BENCH_DURATION_S', 20, 3),
      warmup: setting('BENCH_WARMUP_S', 5, 1),
    }),

  /** One conversation watched by 1,000 sockets. Target ≥ 200,000 deliveries/s. */
  fanout: () => inbound(fanoutPlan()),

  /**
   * One conversation offered messages at a high rate (3,000/s), watched by 3 sockets: accepted
   * msg/s, delivered in order and gap-free on every socket and stored gap-free. Target ≥ 2,000/s.
   */
  single: () =>
    inbound({
      scenario: 'single',
      rate: setting('BENCH_RATE', 3000, 50),
      conversations: 1,
      sockets: setting('BENCH_SOCKETS', 3, 2),
      duration: setting('BENCH_DURATION_S', 20, 3),
      warmup: setting('BENCH_WARMUP_S', 5, 1),
    }),

  /**
   * The fanout scenario, then Centrifugo (bench/centrifugo.ts) under the same load shape: the
   * same offered rate, sockets on one channel, duration and payload size, published through its
   * HTTP API. Deliveries/s and server CPU per 1,000 deliveries side by side in fanout-compare.
   */
  'fanout-centrifugo': () => fanoutCompare(),

  /**
   * Start and memory of one node as `npm start` runs it (compiled), on PostgreSQL and on the
   * embedded database: start to healthy, idle RSS, RSS with 10,000 idle conversation actors, and
   * with 1,000 idle sockets besides. Targets: PostgreSQL healthy ≤ 1 s and idle ≤ 120 MB, embedded
   * healthy ≤ 2.5 s and idle ≤ 300 MB (issue 29).
   */
  footprint: () => footprint(),

  /**
   * Thirty minutes of mixed load at 300 inbound messages/s (to agents' sockets, with inbox and /me
   * reads, one socket dropping and resuming every few seconds): the server's memory must stay flat
   * (RSS growth under 5 % from the run's second tenth to its last) and nothing may fail, be lost or
   * arrive twice (issue 49).
   */
  soak: () =>
    inbound({
      scenario: 'soak',
      rate: setting('BENCH_RATE', 300, 10),
      conversations: setting('BENCH_CONVERSATIONS', 10, 3),
      sockets: setting('BENCH_SOCKETS', 20, 4),
      duration: setting('BENCH_DURATION_S', 1800, 15),
      getRate: setting('BENCH_GET_RATE', 50, 10),
      churnS: setting('BENCH_CHURN_S', 3, 2),
    }),
  reports: () => reportsScenario(),
  search: () => searchScenario(),

  /**
   * Faults on a 3-node cluster under 100 inbound API messages/s, each its own run (bench/failover.ts):
   * acknowledged, lost, doubled, gaps and ack p50/p99 per fault. Goals (issue 48): 0 lost, doubled
   * and gaps; p99 ≤ 2 s for a SIGKILLed node, ≤ 3 s for a paused one or one cut off from Redis.
   */
  failover: () =>
    failover({
      smoke,
      adminUrl,
      log,
      setting,
      loadavg,
      freePort,
      createDatabase,
      spawnKotak,
      seed,
      seedInbound,
      base,
      heading,
      write,
      check,
      cpuBlock,
      cpuNote,
    }),

  /**
   * The agent app's first load in headless Chromium (bench/app.ts): the sign-in page, then the
   * inbox of a signed-in owner. Budget (issue 27): ≤ 150 KB gzipped JavaScript, first meaningful
   * paint < 1 s.
   */
  app: async () => {
    const loadStart = loadavg()
    const kotak = await startKotak()
    try {
      const s = await seed(kotak)
      const { measureApp, BUDGET } = await import('./app')
      log('app: first load of the sign-in page, then of the inbox')
      const signInPage = await measureApp(kotak.url)
      const inbox = await measureApp(kotak.url, s.cookie)
      check(
        'app',
        signInPage.first_meaningful_paint_ms !== null && inbox.first_meaningful_paint_ms !== null,
        'no meaningful paint',
      )
      // The contacts list scrolled under 100,000 contacts (issue 45; bench/app.ts).
      const { measureContactsScroll, CONTACTS_TARGET } = await import('./app')
      log('app: the contacts list, 100,000 contacts scrolled top to bottom')
      const contacts = await measureContactsScroll(kotak.url, s.cookie, {
        contacts: setting('BENCH_CONTACTS', 100_000, 5_000),
      })
      const met = signInPage.within_budget && inbox.within_budget && contacts.met
      const row = (name: string, m: typeof inbox) =>
        `| ${name} | ${m.scripts} | ${round(m.js_bytes / 1024, 1)} | ${round(m.js_gzip_bytes / 1024, 1)} | ${m.first_contentful_paint_ms} | ${m.first_meaningful_paint_ms} |`
      write(
        'app',
        {
          ...base('app', loadStart),
          metrics: { sign_in: signInPage, inbox, contacts },
          targets: { ...BUDGET, contacts: CONTACTS_TARGET },
          met,
        },
        heading('app', loadStart) +
          `| page | scripts | JS KB | JS KB gzipped | first contentful paint ms | first meaningful paint ms |\n| --- | --- | --- | --- | --- | --- |\n` +
          `${row('sign-in', signInPage)}\n${row('inbox (signed in)', inbox)}\n\n` +
          `Contacts list, ${contacts.contacts} contacts scrolled top to bottom (${contacts.scrolled_px} px in ${contacts.frames} frames): ` +
          `${contacts.fps} fps, ${contacts.dropped_frames} frames dropped (${round(contacts.dropped_share * 100, 2)} %), longest frame ${contacts.longest_frame_ms} ms, ` +
          `at most ${contacts.max_rows_in_dom} rows in the DOM; its chunks ${round(contacts.chunk_js_gzip_bytes / 1024, 1)} KB gzipped (${contacts.chunk_scripts} scripts).\n\n` +
          `Budget: ≤ ${BUDGET.jsGzipBytes / 1024} KB gzipped JavaScript, first meaningful paint < ${BUDGET.meaningfulPaintMs} ms; contacts ≥ ${CONTACTS_TARGET.fps} fps, < ${CONTACTS_TARGET.droppedShare * 100} % dropped: ${met ? 'met' : 'missed'}.\n`,
      )
    } finally {
      await kotak.stop()
    }
  },
}

/**
 * The year of the reports scenario (bench/reports.ts) seeded into `kotak`'s database for `s`'s
 * workspace, then its facts rolled up by `kotak reports rebuild`, as a live server has them (left
 * to the server, its own roll-up would work through 1,290,000 facts during a measurement).
 */
const seedYear = async (kotak: Kotak, s: Seed, conversations: number, name: string) => {
  const db = await kotak.connect()
  const t0 = Date.now()
  let seeded: Awaited<ReturnType<typeof seedReports>>
  try {
    seeded = await seedReports(db, s.workspaceId, { conversations, perConversation: 10 })
  } finally {
    await db.end()
  }
  const seedSeconds = round((Date.now() - t0) / 1000, 1)
  log(`${name}: seeded ${seeded.messages} messages, ${seeded.facts} facts in ${seedSeconds} s; rolling up`)
  const t1 = Date.now()
  cli(kotak.env, ['reports', 'rebuild', '--workspace', String(s.workspaceId)])
  const rollupSeconds = round((Date.now() - t1) / 1000, 1)
  log(`${name}: rolled up in ${rollupSeconds} s`)
  return { seeded, seedSeconds, rollupSeconds }
}

/**
 * The inbox's message search (issue 47): `q` on GET /v1/interactions over the reports scenario's
 * data (`BENCH_CONVERSATIONS` conversations of 10 messages: 1,000,000 messages of a help desk's
 * words, bench/reports.ts), with an API key: words common and rare, two words, an order number,
 * a contact's name, a word in no message, a word within a tab; `BENCH_RATE` (20) requests a second
 * for `BENCH_DURATION_S`. Target p99 ≤ 150 ms from the intended send time.
 */
const searchScenario = async () => {
  const conversations = setting('BENCH_CONVERSATIONS', 100_000, 300)
  const rate = setting('BENCH_RATE', 20, 5)
  const duration = setting('BENCH_DURATION_S', 30, 3)
  const loadStart = loadavg()
  const kotak = await startKotak()
  try {
    const s = await seed(kotak)
    const messages = (await seedYear(kotak, s, conversations, 'search')).seeded.messages
    const order = `ORD${String(Math.ceil(conversations / 3)).padStart(7, '0')}`
    const filters: Record<string, string> = {
      common_words: 'q=terima%20kasih',
      word: 'q=retur',
      word_prefix: 'q=pengemb',
      two_words: 'q=paket%20rusak',
      rare_word: 'q=SKU3456',
      order_number: `q=${order}`,
      contact_name: `q=Customer%20${Math.ceil(conversations / 7)}`,
      no_match: 'q=xylofon',
      word_solved_tab: 'q=retur&tab=solved',
    }
    // How many conversations each finds (meta.total), to read the latencies against.
    const found: Record<string, number> = {}
    for (const [k, q] of Object.entries(filters)) {
      const res = await fetch(`${kotak.url}/v1/interactions?${q}`, {
        headers: { Authorization: `Bearer ${s.key}` },
      })
      found[k] = (((await res.json()) as Json).meta as Json).total as number
    }
    log(
      `search: GET /v1/interactions?q=… with ${Object.keys(filters).length} queries, ${rate} req/s for ${duration}s`,
    )
    const { ok, figures } = await measureFilteredGets(
      kotak,
      s.key,
      '/v1/interactions',
      filters,
      rate,
      duration,
      16,
    )
    const metrics = { messages, conversations, found, ...figures }
    check('search', ok > 0 && metrics.failed_rate === 0, 'no answered requests, or failures')
    const targets = { p99_ms: 150 }
    const met = metrics.p99_ms <= targets.p99_ms && metrics.failed_rate === 0
    write(
      'search',
      { ...base('search', loadStart), metrics, targets, met },
      heading('search', loadStart) +
        `${messages} messages in ${conversations} conversations (bench/reports.ts: words of a help desk, an order number in each first message); ` +
        `${rate} requests/s offered with an API key, ${metrics.rps} answered/s, p50 ${metrics.p50_ms} ms, p99 ${metrics.p99_ms} ms from the intended send time ` +
        `(service p99 ${metrics.service_p99_ms} ms; target ≤ ${targets.p99_ms} ms: ${met ? 'met' : 'missed'}), failed ${metrics.failed_rate}, schedule kept ${metrics.schedule_kept}.\n\n` +
        `CPU per request: server ${metrics.per_request.server_cpu_us} µs, PostgreSQL ${metrics.per_request.postgres_cpu_us} µs, driver ${metrics.per_request.driver_cpu_us} µs.\n\n` +
        `| query | conversations found | p99 ms |\n| --- | --- | --- |\n${Object.entries(filters)
          .map(
            ([k, q]) =>
              `| ${k} (\`${decodeURIComponent(q)}\`) | ${found[k]} | ${metrics.p99_ms_by_filter[k] ?? '–'} |`,
          )
          .join('\n')}\n`,
    )
  } finally {
    await kotak.stop()
  }
}

/**
 * Reports and KPIs (spec 2 §4.6) over a year: `BENCH_CONVERSATIONS` conversations (100,000) of 10
 * messages each (1,000,000) seeded with SQL, the facts rolled up by `kotak reports rebuild`, then
 * every report endpoint timed one request after another (`BENCH_REQUESTS` each) over 30 and 366
 * days (KPIs: 30 and 93, their maximum), the server's and PostgreSQL's CPU sampled per endpoint.
 * Target: p99 ≤ 300 ms for each at 366 days; the KPI raw export streamed at flat server memory.
 */
const reportsScenario = async () => {
  const conversations = setting('BENCH_CONVERSATIONS', 100_000, 300)
  const requests = setting('BENCH_REQUESTS', 40, 2)
  const loadStart = loadavg()
  const kotak = await startKotak()
  try {
    const s = await seed(kotak)
    const { seeded, seedSeconds, rollupSeconds } = await seedYear(kotak, s, conversations, 'reports')
    const today = new Date()
    const day = (back: number) => new Date(today.getTime() - back * 86_400_000).toISOString().slice(0, 10)
    const agent = seeded.agents[0]!
    const byKey = { Authorization: `Bearer ${s.key}` }
    const bySession = { cookie: s.cookie }
    const cases: Array<{ name: string; days: number; path: string; headers: Record<string, string> }> = []
    for (const days of [30, 366]) {
      const r = `from=${day(days - 1)}&to=${day(0)}`
      for (const p of [
        'summary',
        'daily',
        'hourly',
        'breakdown?type=channel',
        'breakdown?type=label',
        'breakdown?type=category',
        'breakdown?type=team',
        'agents',
      ]) {
        cases.push({
          name: p,
          days,
          path: `/v1/reports/${p}${p.includes('?') ? '&' : '?'}${r}`,
          headers: byKey,
        })
      }
      cases.push({
        name: 'export?type=daily',
        days,
        path: `/v1/reports/export?type=daily&${r}`,
        headers: bySession,
      })
      cases.push({
        name: 'export?type=agents',
        days,
        path: `/v1/reports/export?type=agents&${r}`,
        headers: bySession,
      })
    }
    for (const days of [30, 93]) {
      const r = `from=${day(days - 1)}&to=${day(0)}`
      cases.push({ name: 'kpi', days, path: `/v1/kpi?${r}`, headers: byKey })
      cases.push({ name: 'kpi/users/{id}', days, path: `/v1/kpi/users/${agent}?${r}`, headers: byKey })
    }
    cases.push({ name: 'kpi/me', days: 7, path: '/v1/kpi/me', headers: byKey })
    cases.push({ name: 'kpi/config', days: 0, path: '/v1/kpi/config', headers: byKey })
    const pid = kotak.child.pid!
    const results: Json[] = []
    for (const c of cases) {
      const window = await usageWindow({ serverPid: pid, database: kotak.database, adminUrl })
      const times: number[] = []
      for (let i = 0; i < requests; i++) {
        const started = performance.now()
        const res = await fetch(`${kotak.url}${c.path}`, { headers: c.headers })
        await res.arrayBuffer()
        times.push(performance.now() - started)
        if (res.status !== 200) throw new Error(`${c.path}: ${res.status}`)
      }
      const used = await window.stop()
      times.sort((a, b) => a - b)
      const pct = (p: number) => round(times[Math.min(times.length - 1, Math.ceil(p * times.length) - 1)]!, 1)
      results.push({
        endpoint: c.name,
        days: c.days,
        requests,
        p50_ms: pct(0.5),
        p99_ms: pct(0.99),
        max_ms: round(times[times.length - 1]!, 1),
        server_cpu_ms_per_request: round(((used.server_cpu_s ?? 0) * 1000) / requests, 1),
        postgres_cpu_ms_per_request: round(((used.postgres_cpu_s ?? 0) * 1000) / requests, 1),
      })
      log(`${c.name} ${c.days}d: p99 ${pct(0.99)} ms`)
    }
    // The KPI raw export of 93 days (every reply: ~127,000 rows at full size), streamed: the
    // server's RSS is sampled during it.
    const server = sampler(pid)
    const rssBefore = sample(pid)?.rssBytes ?? 0
    const te = performance.now()
    const res = await fetch(`${kotak.url}/v1/kpi/export?type=replies&from=${day(92)}&to=${day(0)}`, {
      headers: bySession,
    })
    let lines = 0
    let bytes = 0
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
      bytes += chunk.byteLength
      for (const b of chunk) if (b === 0x0a) lines++
    }
    const exportSeconds = (performance.now() - te) / 1000
    const sv = server.stop()
    const exportRow = {
      rows: lines - 1,
      mb: round(bytes / 2 ** 20, 1),
      seconds: round(exportSeconds, 2),
      rows_per_second: Math.round((lines - 1) / exportSeconds),
      server_rss_before_mb: round(rssBefore / 2 ** 20, 1),
      server_rss_peak_mb: round(sv.rss_peak_bytes / 2 ** 20, 1),
      server_cpu_seconds: round(sv.cpu_seconds, 2),
    }
    // The reports page over the year, in the browser, as an agent opens it.
    const { measureReportsPage, REPORTS_PAGE_TARGET_MS } = await import('./app')
    const reportsPage = await measureReportsPage(kotak.url, s.cookie, { from: day(365), to: day(0) })
    log(`reports page, 366 days: ${reportsPage.first_ms} ms first, ${reportsPage.reload_ms} ms on a reload`)
    check('reports', results.length === cases.length && lines > 1, 'no report measured or empty export')
    const at366 = results.filter((r) => r.days === 366 || r.days === 93)
    const worst = Math.max(...at366.map((r) => r.p99_ms as number))
    const met = worst <= 300
    write(
      'reports',
      {
        ...base('reports', loadStart),
        seeded: {
          ...seeded,
          agents: seeded.agents.length,
          teams: seeded.teams.length,
          channels: seeded.channels.length,
        },
        seed_seconds: seedSeconds,
        rollup_seconds: rollupSeconds,
        endpoints: results,
        kpi_export: exportRow,
        reports_page: reportsPage,
        targets: { p99_ms_at_366_days: 300, reports_page_ms: REPORTS_PAGE_TARGET_MS },
        met,
      },
      heading('reports', loadStart) +
        `Seeded with SQL: ${seeded.messages} messages in ${conversations} conversations over 12 months, ${seeded.agents.length} agents, ` +
        `${seeded.teams.length} teams, ${seeded.channels.length} channels; ${seeded.facts} facts (${seedSeconds} s), rolled up by ` +
        `\`kotak reports rebuild\` in ${rollupSeconds} s. Each endpoint: ${requests} requests one after another (client on the same machine).\n\n` +
        '| endpoint | days | p50 ms | p99 ms | max ms | server CPU ms/req | PostgreSQL CPU ms/req |\n| --- | --- | --- | --- | --- | --- | --- |\n' +
        results
          .map(
            (r) =>
              `| ${r.endpoint} | ${r.days} | ${r.p50_ms} | ${r.p99_ms} | ${r.max_ms} | ${r.server_cpu_ms_per_request} | ${r.postgres_cpu_ms_per_request} |`,
          )
          .join('\n') +
        `\n\nKPI raw export (replies, 93 days): ${exportRow.rows} rows, ${exportRow.mb} MB in ${exportRow.seconds} s ` +
        `(${exportRow.rows_per_second} rows/s); server RSS ${exportRow.server_rss_before_mb} MB before, peak ${exportRow.server_rss_peak_mb} MB during.\n\n` +
        `Target p99 ≤ 300 ms at 366 days (KPIs at 93): worst ${worst} ms, ${met ? 'met' : 'missed'}.\n\n` +
        `The reports page over the 366 days in headless Chromium at 1440 × 900 (\`${reportsPage.url}\`), from the ` +
        `navigation's start to the first frame with the figures drawn: ${reportsPage.first_ms} ms with nothing cached, ` +
        `${reportsPage.reload_ms} ms on a reload. Target < ${REPORTS_PAGE_TARGET_MS} ms: ${reportsPage.met ? 'met' : 'missed'}.\n`,
    )
  } finally {
    await kotak.stop()
  }
}

/** `YYYY-MM-DD` `n` days ago (UTC). */
const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)

/**
 * A workflow (default stages, through the API) and `n` leads straight into the database: spread
 * over 120 days, a third with an owner, most open, some Won or Lost with `closed_at`, one expense
 * per 10 leads and a follow-up on every 7th.
 */
const seedLeads = async (k: Kotak, s: Seed, n: number) => {
  const session = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': 'application/json' }
  const res = await fetch(`${k.url}/v1/pipelines`, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ name: 'Bench sales' }),
  })
  if (res.status !== 201) throw new Error(`POST /v1/pipelines answered ${res.status}`)
  const pipelineId = ((await res.json()) as { data: { id: number } }).data.id
  const db = await k.connect()
  try {
    const owner = await db.query('SELECT owner_user_id FROM workspaces WHERE id = $1', [s.workspaceId])
    await db.query(
      `INSERT INTO leads (workspace_id, number, title, pipeline_id, stage_id, status, assignee_id, value_estimate,
                          value_won, followup_at, source, created_by, closed_at, stage_changed_at, created_at, updated_at)
       SELECT $1, g, 'Deal ' || g, $2, st.id, st.status, CASE WHEN g % 3 = 0 THEN $4::int END, (g % 1000) * 10,
              CASE WHEN st.status = 'won' THEN (g % 1000) * 11 END,
              CASE WHEN g % 7 = 0 THEN now() + ((g % 20) - 10 || ' days')::interval END, 'app', $4::int,
              CASE WHEN st.status <> 'open' THEN now() - ((g % 60) || ' days')::interval END,
              now() - ((g % 120) || ' days')::interval, now() - ((g % 120) || ' days')::interval, now()
       FROM generate_series(1, $3) g
       JOIN LATERAL (SELECT s.id, CASE s.kind WHEN 'won' THEN 'won' WHEN 'lost' THEN 'lost' ELSE 'open' END AS status
                     FROM pipeline_stages s WHERE s.pipeline_id = $2 ORDER BY s.position
                     OFFSET (g % 6) LIMIT 1) st ON true`,
      [s.workspaceId, pipelineId, n, owner.rows[0].owner_user_id],
    )
    await db.query('INSERT INTO lead_counters (workspace_id, last_number) VALUES ($1, $2)', [
      s.workspaceId,
      n,
    ])
    await db.query(
      `INSERT INTO lead_expenses (workspace_id, lead_id, spent_on, category, amount)
       SELECT workspace_id, id, (created_at + interval '1 day')::date, (ARRAY['Transport', 'Meals', 'Other'])[1 + id % 3], 25
       FROM leads WHERE workspace_id = $1 AND id % 10 = 0`,
      [s.workspaceId],
    )
    await db.query('ANALYZE')
    return pipelineId
  } finally {
    await db.end()
  }
}

/** Seeds `n` conversations (with contacts) on one messaging-app channel straight into the database. */
const seedConversations = async (k: Kotak, workspaceId: number, n: number) => {
  const db = await k.connect()
  try {
    const ch = await db.query(
      "INSERT INTO channels (workspace_id, type, name, status) VALUES ($1, 'msgapp', 'Bench number', 'connected') RETURNING id",
      [workspaceId],
    )
    const channelId = ch.rows[0].id as number
    await db.query(
      `INSERT INTO contacts (workspace_id, name, phone)
       SELECT $1, 'Customer ' || g, '+6281' || lpad(g::text, 9, '0') FROM generate_series(1, $2) g`,
      [workspaceId, n],
    )
    await db.query(
      `INSERT INTO conversations (workspace_id, channel_id, contact_id, status, reply_state, last_message_at,
                                  preview, created_at, updated_at, last_seq)
       SELECT $1, $2, c.id, (ARRAY['open', 'open', 'solved', 'closed'])[1 + (c.id % 4)],
              (ARRAY['new', 'waiting', 'replied'])[1 + (c.id % 3)],
              now() - (c.id || ' minutes')::interval, 'hello ' || c.id,
              now() - (c.id || ' minutes')::interval, now(), 0
       FROM contacts c WHERE c.workspace_id = $1`,
      [workspaceId, channelId],
    )
    // What autovacuum reaches a minute after a bulk insert: statistics, and GIN pending lists
    // folded in (a search reading a pending list of 100,000 rows is not what a live inbox sees).
    await db.query('VACUUM ANALYZE')
    // The seed's half a gigabyte of WAL would start a checkpoint within the measured seconds
    // (writing a quarter of shared buffers while the list is read): a live inbox has none pending.
    await db.query('CHECKPOINT')
    return channelId
  } finally {
    await db.end()
  }
}

/** The fanout's load shape, shared by Kotak's run and Centrifugo's. */
const fanoutPlan = () =>
  ({
    scenario: 'fanout',
    rate: setting('BENCH_RATE', 200, 5),
    conversations: 1,
    sockets: setting('BENCH_SOCKETS', 1000, 50),
    duration: setting('BENCH_DURATION_S', 20, 3),
  }) as const

interface InboundPlan {
  readonly scenario: 'storm' | 'fanout' | 'single' | 'soak'
  readonly rate: number
  readonly conversations: number
  readonly sockets: number
  readonly duration: number
  /**
   * Seconds of sending at the same rate before the measured window (storm, single), counted apart:
   * a server just started runs its first thousands of messages before the JIT has compiled them,
   * and the backlog that leaves takes seconds to drain at a rate the server sustains once warm.
   */
  readonly warmup?: number
  /** Soak only: reads per second and how often one socket drops and resumes. */
  readonly getRate?: number
  readonly churnS?: number
}

/** Loopback addresses the driver spreads its sockets over, so more source ports are available. */
const hosts = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`).join(',')

/** An API channel and its conversations (one seed message each); the sockets' channels. */
const seedInbound = async (k: Pick<Kotak, 'url'>, s: Seed, conversations: number) => {
  const session = { Cookie: s.cookie, 'X-CSRF-Token': s.csrf, 'Content-Type': 'application/json' }
  const ch = await fetch(`${k.url}/v1/channels/api`, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ name: 'Bench API' }),
  })
  if (ch.status !== 201) throw new Error(`creating the API channel: ${ch.status} ${await ch.text()}`)
  const channelKey = ((await ch.json()) as { data: { credentials: { key: string } } }).data.credentials.key
  const external = Array.from({ length: conversations }, (_, i) => `bench-conv-${i}`)
  const ids: number[] = []
  for (const id of external) {
    const r = await fetch(`${k.url}/v1/channel-api/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${channelKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ conversation_id: id, message: { id: `seed-${id}`, text: 'hello' } }),
    })
    if (r.status !== 201) throw new Error(`seeding ${id}: ${r.status} ${await r.text()}`)
    ids.push(((await r.json()) as { data: { interaction_id: number } }).data.interaction_id)
  }
  const channels = [`ws:${s.workspaceId}`, ...ids.map((id) => `conv:${id}`)].slice(0, 50)
  return { channelKey, external, channels }
}

/** Median of the RSS samples between two fractions of the run. */
const rssBetween = (series: Array<[number, number]>, from: number, to: number) => {
  const end = series.at(-1)?.[0] ?? 0
  const xs = series
    .filter(([t]) => t >= end * from && t <= end * to)
    .map(([, r]) => r)
    .sort((a, b) => a - b)
  return xs.length ? xs[Math.floor(xs.length / 2)]! : 0
}

/**
 * The appends writer's flushes so far (engine/groupCommit's histograms on /metrics): how many
 * flushes, the conversations' writes they carried and their time. Read at the window's two ends,
 * it says how many messages each write to the database carried, which sets PostgreSQL's share
 * (docs/decisions.md, "PostgreSQL per message: a fixed cost per write and a floor per message").
 */
const appendFlushes = async (url: string) => {
  const text = await (await fetch(`${url}/metrics`)).text()
  const read = (name: string) =>
    Number(new RegExp(`^${name}\\{writer="appends"\\} (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN)
  return {
    flushes: read('kotak_group_commit_batch_items_count'),
    writes: read('kotak_group_commit_batch_items_sum'),
    seconds: read('kotak_group_commit_flush_seconds_sum'),
  }
}

const inbound = async (plan: InboundPlan) => {
  const { scenario, duration } = plan
  const loadStart = loadavg()
  const kotak = await startKotak()
  try {
    const s = await seed(kotak)
    const seeded = await seedInbound(kotak, s, plan.conversations)
    log(
      `${scenario}: ${plan.rate} msg/s for ${duration}s, ${plan.sockets} sockets, ${plan.conversations} conversations`,
    )
    // The window opens when every socket is subscribed and closes when the deliveries are in:
    // opening and closing 1,000 sockets is not work per message.
    const window = await usageWindow({ serverPid: kotak.child.pid!, database: kotak.database, adminUrl })
    let measured: Awaited<ReturnType<typeof window.stop>> | undefined
    let f0: Awaited<ReturnType<typeof appendFlushes>> | undefined
    let f1: typeof f0
    const marks: DriverMarks = {
      start: async () => {
        await window.mark()
        f0 = await appendFlushes(kotak.url)
      },
      end: async () => {
        measured ??= await window.stop()
        f1 ??= await appendFlushes(kotak.url)
      },
    }
    const soak = scenario === 'soak'
    const run = await runDriver(
      [
        soak ? 'soak' : 'inbound',
        '-base',
        kotak.url,
        '-cookie',
        s.cookie,
        '-csrf',
        s.csrf,
        '-hosts',
        hosts,
        '-channels',
        seeded.channels.join(','),
        '-channel-key',
        seeded.channelKey,
        '-conversations',
        seeded.external.join(','),
        '-rate',
        String(plan.rate),
        '-duration',
        seconds(duration),
        '-sockets',
        String(plan.sockets),
        '-connections',
        process.env.BENCH_CONNECTIONS ?? '200',
        '-warmup',
        seconds(plan.warmup ?? 0),
        ...(soak
          ? [
              '-get',
              `${kotak.url}/v1/me`,
              '-get',
              `${kotak.url}/v1/interactions`,
              '-get',
              `${kotak.url}/v1/interactions?tab=new`,
              '-header',
              `Authorization: Bearer ${s.key}`,
              '-get-rate',
              String(plan.getRate ?? 50),
              '-churn',
              seconds(plan.churnS ?? 3),
            ]
          : []),
      ],
      marks,
    )
    measured ??= await window.stop()
    const usage = measured
    // Persisted once each: inbound messages in the database beside what the senders were told.
    const db = await kotak.connect()
    const persisted = Number(
      (await db.query("SELECT count(*) AS n FROM messages WHERE direction = 'in' AND body LIKE 't=%'"))
        .rows[0].n,
    )
    // Stored in order and gap-free: each conversation's sequences run 1..n with none missing or twice.
    const stored = (
      await db.query<{ n: string; missing: string; twice: string }>(
        `SELECT coalesce(sum(seqs), 0) AS n, coalesce(sum(last - seqs), 0) AS missing, coalesce(sum(seqs - distinct_seqs), 0) AS twice
         FROM (SELECT max(seq) AS last, count(*) AS seqs, count(DISTINCT seq) AS distinct_seqs
               FROM messages GROUP BY conversation_id) c`,
      )
    ).rows[0]!
    await db.end()
    const r = run.report
    const rt = (key: string) => get(r, 'realtime', key)
    const accepted = get(r, 'accepted')
    const flushed =
      f0 && f1 && f1.flushes > f0.flushes
        ? {
            flushes: f1.flushes - f0.flushes,
            writes: f1.writes - f0.writes,
            seconds: f1.seconds - f0.seconds,
          }
        : undefined
    const perFlush = (f: (n: NonNullable<typeof flushed>) => number) =>
      flushed === undefined ? null : f(flushed)
    const deliveries = rt('deliveries')
    const expected = get(r, 'expected_deliveries')
    const lost = Math.max(0, expected - deliveries) + Math.max(0, accepted - persisted)
    const driverRead = get(r, 'sending_and_settling', 'cpu_s')
    const driverWindow = { cpu_s: driverRead, cpu_cores: get(r, 'sending_and_settling', 'cpu_cores') }
    // Until the last POST was answered: a server behind schedule keeps accepting after it ends.
    const sendWall = Math.max(duration, get(r, 'sending', 'wall_s'))
    const rateWall = rateSeconds(r, duration, sendWall)
    // The embedded database's CPU is the node's own (a thread of it): nothing apart.
    const embedded = kotak.database === undefined
    const postgresCpu = embedded ? 0 : usage.postgres_cpu_s
    const metrics = {
      messages_per_s: round(accepted / rateWall, 0),
      offered_per_s: plan.rate,
      accepted,
      refused: get(r, 'refused'),
      persisted,
      sockets: rt('sockets_opened'),
      sockets_subscribed: rt('sockets_subscribed'),
      sockets_failed: rt('sockets_failed'),
      sockets_closed_slow: rt('sockets_closed_slow'),
      sockets_closed_other: rt('sockets_closed_other'),
      reconnects: rt('reconnects'),
      reloads: rt('reloads'),
      deliveries,
      deliveries_per_s: round(deliveries / rateWall, 0),
      delivery_frame_bytes_mean: rt('delivery_frame_bytes_mean'),
      sending_s: round(sendWall, 1),
      duplicates: rt('duplicates'),
      gaps: rt('gaps'),
      lost,
      p50_ms: get(r, 'realtime', 'latency', 'p50_ms'),
      p99_ms: get(r, 'realtime', 'latency', 'p99_ms'),
      post_p99_ms: get(r, 'post', 'latency', 'p99_ms'),
      post_service_p99_ms: get(r, 'post', 'service_latency', 'p99_ms'),
      schedule_kept: get(r, 'post', 'schedule_kept') === 1,
      schedule_lag_p99_ms: get(r, 'post', 'schedule_lag', 'p99_ms'),
      settle_s: get(r, 'settle_s'),
      stored_messages: Number(stored.n),
      stored_seq_missing: Number(stored.missing),
      stored_seq_twice: Number(stored.twice),
      server_cpu_cores: usage.server_cpu_cores,
      server_rss_peak_bytes: usage.server_rss_peak_bytes,
      postgres_cpu_cores: usage.postgres_cpu_cores,
      driver_cpu_cores: run.usage.cpu_cores,
      driver_read_cpu_cores: get(r, 'sending_and_settling', 'cpu_cores'),
      deliveries_per_driver_cpu_s: driverRead > 0 ? round(deliveries / driverRead, 0) : 0,
      driver_gomaxprocs: get(r, 'driver', 'gomaxprocs'),
      cpu: cpuBlock(usage, driverWindow),
      per_message: perUnit('accepted message', accepted, {
        server: usage.server_cpu_s,
        postgres: postgresCpu,
        driver: driverRead,
      }),
      per_1000_deliveries: perUnit('1,000 deliveries', deliveries / 1000, {
        server: usage.server_cpu_s,
        postgres: postgresCpu,
        driver: driverRead,
      }),
      // Flat copies of the two per-unit figures the targets are set in, under stable names.
      server_and_postgres_cpu_us_per_message: null as number | null,
      server_cpu_us_per_1000_deliveries: null as number | null,
      driver_cpu_ns_per_delivery: deliveries > 0 ? round((driverRead * 1e9) / deliveries, 0) : null,
      // The appends writer over the window (null when the window saw no write, or /metrics lacked it).
      append_flushes_per_s: perFlush((n) => round(n.flushes / usage.window_s, 0)),
      conversations_per_flush: perFlush((n) => round(n.writes / n.flushes, 1)),
      messages_per_flush: perFlush((n) => round(accepted / n.flushes, 1)),
      flush_ms_mean: perFlush((n) => round((n.seconds * 1000) / n.flushes, 2)),
      duration_s: duration,
      // Before the window, at the same rate (plan.warmup), not counted above.
      warmup_s: plan.warmup ?? 0,
      warmup_accepted: get(r, 'warmup', 'accepted'),
      warmup_p99_ms: get(r, 'warmup', 'latency', 'p99_ms'),
      warmup_lost: Math.max(0, get(r, 'warmup', 'expected_deliveries') - get(r, 'warmup', 'deliveries')),
      warmup_drained: get(r, 'warmup', 'drained') === 1,
      // [deliveries, of them over 50 ms, max ms] per second of intended send time.
      latency_by_second: ((r.realtime as Json | undefined)?.latency_by_second ?? []) as ReadonlyArray<
        readonly [number, number, number]
      >,
    }
    metrics.server_and_postgres_cpu_us_per_message = metrics.per_message.server_and_postgres_cpu_us
    metrics.server_cpu_us_per_1000_deliveries = metrics.per_1000_deliveries.server_cpu_us
    const soakMetrics = soak
      ? (() => {
          // Warm-up (JIT, pools, caches) is over after the first tenth; compare its next tenth
          // with the last.
          const early = rssBetween(usage.series, 0.1, 0.2)
          const late = rssBetween(usage.series, 0.9, 1)
          const reads = r.reads as Json
          const errors =
            get(r, 'post', 'failed') +
            get(reads, 'failed') +
            lost +
            metrics.gaps +
            metrics.duplicates +
            metrics.sockets_failed +
            metrics.sockets_closed_other +
            metrics.sockets_closed_slow +
            metrics.reloads +
            rt('refused') +
            rt('protocol_errors')
          return {
            rss_early_bytes: early,
            rss_late_bytes: late,
            rss_growth: early > 0 ? round(late / early - 1, 4) : 0,
            reads: get(reads, 'ok'),
            reads_failed: get(reads, 'failed'),
            reads_p99_ms: get(reads, 'latency', 'p99_ms'),
            churned: get(r, 'churned'),
            errors,
          }
        })()
      : undefined
    const all = {
      ...metrics,
      ...soakMetrics,
      database: embedded ? 'embedded' : 'postgres',
    }
    check(
      scenario,
      accepted > 0 &&
        deliveries > 0 &&
        lost === 0 &&
        metrics.duplicates === 0 &&
        metrics.gaps === 0 &&
        metrics.stored_seq_missing === 0 &&
        metrics.stored_seq_twice === 0 &&
        metrics.per_message.server_cpu_us !== null &&
        metrics.per_message.postgres_cpu_us !== null &&
        (soakMetrics?.errors ?? 0) === 0,
      `accepted ${accepted}, deliveries ${deliveries}, lost ${lost}, duplicates ${metrics.duplicates}, gaps ${metrics.gaps}, ` +
        `stored sequences missing ${metrics.stored_seq_missing} and twice ${metrics.stored_seq_twice}, errors ${soakMetrics?.errors ?? 0}`,
    )
    const targets: Record<string, number> =
      scenario === 'storm'
        ? { messages_per_s: 5000, p99_ms: 50, lost: 0, server_and_postgres_cpu_us_per_message: 250 }
        : scenario === 'fanout'
          ? { deliveries_per_s: 200_000, lost: 0 }
          : scenario === 'single'
            ? {
                messages_per_s: 2000,
                lost: 0,
                gaps: 0,
                duplicates: 0,
                stored_seq_missing: 0,
                stored_seq_twice: 0,
              }
            : { rss_growth: 0.05, errors: 0 }
    const atMost = (k: string) =>
      ['p99_ms', 'lost', 'errors', 'gaps', 'duplicates', 'stored_seq_missing', 'stored_seq_twice'].includes(
        k,
      ) || k.includes('cpu_us')
    const verdicts = Object.entries(targets).map(([k, v]) => {
      const got = (all as Record<string, unknown>)[k] as number | null
      const ok = got !== null && (k === 'rss_growth' ? got < v : atMost(k) ? got <= v : got >= v)
      return { k, v, got, ok }
    })
    const met = verdicts.every((x) => x.ok)
    const missed = verdicts
      .map(
        ({ k, v, got, ok }) =>
          `${k} ${got} (target ${k === 'rss_growth' ? '<' : atMost(k) ? '≤' : '≥'} ${v}): ${ok ? 'met' : 'missed'}`,
      )
      .join('; ')
    const pm = metrics.per_message
    const pd = metrics.per_1000_deliveries
    write(
      scenario,
      { ...base(scenario, loadStart), metrics: all, targets, met },
      heading(scenario, loadStart) +
        `| offered msg/s | accepted msg/s | sockets | deliveries/s | p50 ms | p99 ms | POST p99 ms | lost | gaps | duplicates | server CPU | PostgreSQL CPU | driver CPU |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n` +
        `| ${plan.rate} | ${metrics.messages_per_s} | ${metrics.sockets} | ${metrics.deliveries_per_s} | ${metrics.p50_ms} | ${metrics.p99_ms} | ${metrics.post_p99_ms} | ${lost} | ${metrics.gaps} | ${metrics.duplicates} | ${metrics.server_cpu_cores} | ${embedded ? 'in Node' : metrics.postgres_cpu_cores} | ${metrics.driver_cpu_cores} |\n\n` +
        `${missed}\n\n` +
        `| per | Node µs | PostgreSQL µs | Node + PostgreSQL µs | driver µs |\n| --- | --- | --- | --- | --- |\n` +
        `| accepted message | ${pm.server_cpu_us} | ${pm.postgres_cpu_us} | ${pm.server_and_postgres_cpu_us} | ${pm.driver_cpu_us} |\n` +
        `| 1,000 deliveries | ${pd.server_cpu_us} | ${pd.postgres_cpu_us} | ${pd.server_and_postgres_cpu_us} | ${pd.driver_cpu_us} |\n\n` +
        (embedded ? `${embeddedNote}\n\n` : '') +
        `Measured over ${usage.window_s} s, from every socket subscribed to every delivery read (opening and closing the sockets left out). ${cpuNote} ` +
        `PostgreSQL's shared background processes: ${usage.postgres_shared_cpu_s} s over the window; ${usage.postgres_backends} backends of the server's database seen.\n\n` +
        (metrics.warmup_s > 0
          ? `Warm-up before the window, not counted in the figures above: ${metrics.warmup_s} s at the same rate, ${metrics.warmup_accepted} accepted, delivery p99 ${metrics.warmup_p99_ms} ms, ${metrics.warmup_lost} not delivered${metrics.warmup_drained ? '' : ' before measuring started (the settle time ran out: the rest fell into the window)'}.\n\n`
          : '') +
        `Stored: ${metrics.stored_messages} messages, ${metrics.stored_seq_missing} sequence numbers missing and ${metrics.stored_seq_twice} twice over all conversations.\n\n` +
        (metrics.append_flushes_per_s !== null
          ? `The group writer of appends: ${metrics.append_flushes_per_s} writes a second, each ${metrics.conversations_per_flush} conversations and ${metrics.messages_per_flush} messages on average, ${metrics.flush_ms_mean} ms each.\n\n`
          : '') +
        `The driver read ${metrics.deliveries_per_driver_cpu_s} deliveries per CPU-second of its own (${metrics.driver_cpu_ns_per_delivery} ns each, ${metrics.driver_read_cpu_cores} cores while sending and settling).\n\n` +
        (soakMetrics
          ? `Server RSS ${soakMetrics.rss_early_bytes} B (median of the run's second tenth) → ${soakMetrics.rss_late_bytes} B (last tenth): growth ${round(soakMetrics.rss_growth * 100, 2)} %. ` +
            `${soakMetrics.reads} reads (${soakMetrics.reads_failed} failed, p99 ${soakMetrics.reads_p99_ms} ms); one socket dropped and resumed ${soakMetrics.churned} times; errors ${soakMetrics.errors}.\n\n`
          : '') +
        `Latency runs from each message's intended send time (written into its text by the driver) to its receipt on the socket (same clock); ` +
        `per second of sending, the slowest delivery (ms): ${metrics.latency_by_second.map((x) => Math.round(x[2])).join(' ')}; ` +
        `the POST schedule was ${metrics.schedule_kept ? 'kept' : `not kept (p99 lag ${metrics.schedule_lag_p99_ms} ms)`}. ` +
        `lost = accepted × sockets − deliveries counted once each, plus accepted messages missing from the database (${persisted} persisted of ${accepted} accepted); ` +
        `gaps and duplicates are checked per socket and conversation by sequence. ` +
        `Sockets closed as slow consumers (4008): ${metrics.sockets_closed_slow}, each resumed with \`since\` (${metrics.reconnects} reconnects, ${metrics.reloads} told to reload); connection failures ${metrics.sockets_failed}.\n`,
    )
    return metrics
  } finally {
    await kotak.stop()
  }
}

/**
 * Kotak's fanout, then Centrifugo under the same shape: the same offered rate, number of sockets
 * on one channel, duration, HTTP connections and delivered frame size (Kotak's mean), published
 * through Centrifugo's HTTP API. Writes fanout.json (Kotak's run, as `fanout` does) and
 * fanout-compare.json/.md with both side by side. Within `all` it runs only when Centrifugo is
 * already built (bench/.bin), and says so when it skips; by name it builds it first.
 */
const fanoutCompare = async () => {
  const go = findGo()
  let bin = builtCentrifugo()
  if (!bin && runningAll) {
    log(
      `SKIPPED fanout-centrifugo: Centrifugo ${CENTRIFUGO_VERSION} is not built in bench/.bin ` +
        '(`npm run bench -- fanout-centrifugo --smoke` builds it once with go install)',
    )
    return
  }
  if (!bin) {
    if (!go) throw new Error('fanout-centrifugo: Go is needed to build Centrifugo (go install)')
    bin = installCentrifugo(go, log)
  }
  const plan = fanoutPlan()
  const kotak = await inbound(plan)
  const loadStart = loadavg()
  const cf = await startCentrifugo(bin, await freePort())
  let run: Awaited<ReturnType<typeof runDriver>>
  let usage: Awaited<ReturnType<Awaited<ReturnType<typeof usageWindow>>['stop']>> | undefined
  try {
    log(
      `centrifugo: ${plan.rate} publications/s for ${plan.duration}s, ${plan.sockets} sockets on one channel`,
    )
    const window = await usageWindow({ serverPid: cf.child.pid!, adminUrl })
    run = await runDriver(
      [
        'centrifugo',
        '-base',
        cf.url,
        '-api-key',
        cf.apiKey,
        '-hmac-secret',
        cf.hmacSecret,
        '-channel',
        cf.channel,
        '-hosts',
        hosts,
        '-rate',
        String(plan.rate),
        '-duration',
        seconds(plan.duration),
        '-sockets',
        String(plan.sockets),
        '-connections',
        process.env.BENCH_CONNECTIONS ?? '200',
        '-payload',
        String(Math.round(kotak.delivery_frame_bytes_mean || 600)),
      ],
      {
        start: () => window.mark(),
        end: async () => {
          usage ??= await window.stop()
        },
      },
    )
    usage ??= await window.stop()
  } finally {
    await cf.stop()
  }
  const r = run.report
  const rt = (key: string) => get(r, 'realtime', key)
  const accepted = get(r, 'accepted')
  const deliveries = rt('deliveries')
  const driverRead = get(r, 'sending_and_settling', 'cpu_s')
  const sendWall = Math.max(plan.duration, get(r, 'sending', 'wall_s'))
  const rateWall = rateSeconds(r, plan.duration, sendWall)
  const centrifugo = {
    messages_per_s: round(accepted / rateWall, 0),
    offered_per_s: plan.rate,
    accepted,
    refused: get(r, 'refused'),
    sockets: rt('sockets_opened'),
    sockets_subscribed: rt('sockets_subscribed'),
    sockets_failed: rt('sockets_failed'),
    sockets_closed_slow: rt('sockets_closed_slow'),
    sockets_closed_other: rt('sockets_closed_other'),
    reconnects: rt('reconnects'),
    deliveries,
    deliveries_per_s: round(deliveries / rateWall, 0),
    delivery_frame_bytes_mean: rt('delivery_frame_bytes_mean'),
    sending_s: round(sendWall, 1),
    duplicates: rt('duplicates'),
    gaps: rt('gaps'),
    lost: Math.max(0, get(r, 'expected_deliveries') - deliveries),
    p50_ms: get(r, 'realtime', 'latency', 'p50_ms'),
    p99_ms: get(r, 'realtime', 'latency', 'p99_ms'),
    post_p99_ms: get(r, 'post', 'latency', 'p99_ms'),
    schedule_kept: get(r, 'post', 'schedule_kept') === 1,
    server_cpu_cores: usage.server_cpu_cores,
    server_rss_peak_bytes: usage.server_rss_peak_bytes,
    cpu: cpuBlock(usage, {
      cpu_s: driverRead,
      cpu_cores: get(r, 'sending_and_settling', 'cpu_cores'),
    }),
    per_message: perUnit('accepted message', accepted, { server: usage.server_cpu_s, driver: driverRead }),
    per_1000_deliveries: perUnit('1,000 deliveries', deliveries / 1000, {
      server: usage.server_cpu_s,
      driver: driverRead,
    }),
    server_cpu_us_per_1000_deliveries: null as number | null,
    version: CENTRIFUGO_VERSION,
    engine: 'memory',
    history_size: 1000,
  }
  centrifugo.server_cpu_us_per_1000_deliveries = centrifugo.per_1000_deliveries.server_cpu_us
  check(
    'fanout-centrifugo',
    accepted > 0 &&
      deliveries > 0 &&
      centrifugo.lost === 0 &&
      centrifugo.duplicates === 0 &&
      centrifugo.gaps === 0,
    `Centrifugo: accepted ${accepted}, deliveries ${deliveries}, lost ${centrifugo.lost}, gaps ${centrifugo.gaps}, duplicates ${centrifugo.duplicates}`,
  )
  // Issue 26: Kotak must use less CPU per delivery than Centrifugo. Kotak's figure counts its
  // PostgreSQL backends too (every message is persisted); Centrifugo keeps history in memory.
  const kotakPer = kotak.per_1000_deliveries.server_and_postgres_cpu_us
  const cfPer = centrifugo.per_1000_deliveries.server_cpu_us
  const met = kotakPer !== null && cfPer !== null && kotakPer < cfPer
  // Issue 49: delivery latency at or below Centrifugo's, at the median and the tail.
  const latencyMet = kotak.p50_ms <= centrifugo.p50_ms && kotak.p99_ms <= centrifugo.p99_ms
  const row = (
    name: string,
    m: {
      messages_per_s: number
      deliveries_per_s: number
      p50_ms: number
      p99_ms: number
      lost: number
      gaps: number
      duplicates: number
      delivery_frame_bytes_mean: number
      server_cpu_cores: number | null
      per_1000_deliveries: ReturnType<typeof perUnit>
    },
  ) =>
    `| ${name} | ${m.messages_per_s} | ${m.deliveries_per_s} | ${m.p50_ms} | ${m.p99_ms} | ${m.lost} | ${m.gaps} | ${m.duplicates} | ${m.delivery_frame_bytes_mean} | ${m.server_cpu_cores} | ` +
    `${m.per_1000_deliveries.server_cpu_us} | ${m.per_1000_deliveries.postgres_cpu_us ?? '—'} | ${m.per_1000_deliveries.server_and_postgres_cpu_us ?? m.per_1000_deliveries.server_cpu_us} | ${m.per_1000_deliveries.driver_cpu_us} |\n`
  write(
    'fanout-compare',
    {
      ...base('fanout-compare', loadStart),
      shape: {
        offered_per_s: plan.rate,
        sockets: plan.sockets,
        duration_s: plan.duration,
        connections: Number(process.env.BENCH_CONNECTIONS ?? '200'),
      },
      kotak,
      centrifugo,
      targets: {
        kotak_cpu_us_per_1000_deliveries_below_centrifugo: true,
        kotak_p50_and_p99_at_or_below_centrifugo: true,
      },
      met,
      latency_met: latencyMet,
    },
    heading('fanout-compare', loadStart) +
      `The same load shape on both, one after the other in this invocation: ${plan.rate} messages/s offered for ${plan.duration} s over at most ` +
      `${process.env.BENCH_CONNECTIONS ?? '200'} HTTP connections, ${plan.sockets} WebSocket clients on one conversation (Kotak) or one channel ` +
      `(Centrifugo ${CENTRIFUGO_VERSION}, memory engine, history of 1,000 for offsets and recovery, HTTP API publish, HS256 connection tokens), ` +
      `each publication padded to Kotak's mean frame size.\n\n` +
      '| server | accepted msg/s | deliveries/s | p50 ms | p99 ms | lost | gaps | duplicates | frame bytes | server CPU (cores) | server µs per 1,000 deliveries | PostgreSQL µs per 1,000 | server + PostgreSQL µs per 1,000 | driver µs per 1,000 |\n' +
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n' +
      row('Kotak', kotak) +
      row('Centrifugo', centrifugo) +
      `\nKotak ${kotakPer} µs (Node + PostgreSQL) against Centrifugo ${cfPer} µs per 1,000 deliveries: ` +
      `${met ? 'Kotak uses less (target met)' : 'Kotak uses more (target: less than Centrifugo)'}. ` +
      `Delivery p50 ${kotak.p50_ms} against ${centrifugo.p50_ms} ms and p99 ${kotak.p99_ms} against ${centrifugo.p99_ms} ms: ` +
      `${latencyMet ? 'at or below Centrifugo at both (target met)' : 'above Centrifugo at one or both (target: at or below at both)'}. ` +
      'Kotak persists every message in PostgreSQL before publishing it; Centrifugo keeps its history in memory. ' +
      `CPU counted from every socket subscribed to every delivery read. ${cpuNote} Centrifugo is its one process ` +
      '(Go, every core of the machine). Latency runs from the intended send time to the receipt on the socket.\n',
  )
}

/**
 * A server's inspector (the footprint's and the sockets' nodes), opened on demand (SIGUSR1, on
 * the port its `--inspect-port` names): a full garbage collection before memory is sampled, so
 * that the V8 heap in use is what is live (the young generation alone may hold 64 MB of garbage),
 * and heap snapshots to a file (BENCH_HEAP_SNAPSHOTS=dir) for a look at what the actors hold.
 */
const inspectorOf = (pid: number, port: number) => {
  type Ws = import('ws').WebSocket
  let socket: Promise<Ws> | undefined
  let id = 0
  const connect = async (): Promise<Ws> => {
    const { WebSocket } = await import('ws')
    process.kill(pid, 'SIGUSR1')
    for (let i = 0; ; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/json/list`)
        const [target] = (await res.json()) as Array<{ webSocketDebuggerUrl: string }>
        const ws = new WebSocket(target!.webSocketDebuggerUrl, { maxPayload: 2 ** 30 })
        await new Promise((ok, fail) => {
          ws.once('open', ok)
          ws.once('error', fail)
        })
        return ws
      } catch (e) {
        if (i >= 100) throw new Error(`the server's inspector (pid ${pid}) did not open: ${String(e)}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
  }
  const call = async (method: string, onEvent?: (m: { method: string; params: Json }) => void) => {
    socket ??= connect()
    const ws = await socket
    const me = ++id
    await new Promise<void>((resolve, reject) => {
      const listen = (data: unknown) => {
        const m = JSON.parse(String(data)) as { id?: number; method?: string; params?: Json; error?: Json }
        if (m.id === me) {
          ws.off('message', listen)
          if (m.error) reject(new Error(`${method}: ${JSON.stringify(m.error)}`))
          else resolve()
        } else if (m.method !== undefined && onEvent) onEvent({ method: m.method, params: m.params ?? {} })
      }
      ws.on('message', listen)
      ws.send(JSON.stringify({ id: me, method }))
    })
  }
  return {
    gc: () => call('HeapProfiler.collectGarbage'),
    snapshot: async (file: string) => {
      const out = fs.openSync(file, 'w')
      try {
        await call('HeapProfiler.takeHeapSnapshot', (m) => {
          if (m.method === 'HeapProfiler.addHeapSnapshotChunk') fs.writeSync(out, String(m.params.chunk))
        })
      } finally {
        fs.closeSync(out)
      }
      log(`footprint: heap snapshot ${file}`)
    },
    close: async () => {
      if (socket) (await socket).close()
    },
  }
}

/** The server's RSS (median of five samples) and V8 heap in use (its /metrics). */
const memoryOf = async (pid: number, url: string) => {
  const rss: number[] = []
  for (let i = 0; i < 5; i++) {
    rss.push(sample(pid)?.rssBytes ?? 0)
    await new Promise((r) => setTimeout(r, 200))
  }
  const text = await (await fetch(`${url}/metrics`)).text()
  const heap = Number(/^kotak_nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? 0)
  return { rss_bytes: rss.sort((a, b) => a - b)[2]!, heap_used_bytes: Math.round(heap) }
}

const MB = (n: number) => round(n / 2 ** 20, 1)

/** Sends `n` messages, one per new conversation, through an API channel, `concurrency` at a time. */
const conversationsThroughApi = async (url: string, channelKey: string, n: number, concurrency = 16) => {
  let next = 0
  let failed = 0
  let lastError = ''
  const worker = async () => {
    while (next < n) {
      const i = next++
      const res = await fetch(`${url}/v1/channel-api/messages`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${channelKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ conversation_id: `fp-${i}`, message: { id: `fp-${i}-1`, text: 'hello' } }),
      }).catch((e: unknown) => ({ status: 0, text: async () => String(e) }))
      if (res.status !== 201) {
        failed++
        lastError = `${res.status} ${await res.text()}`
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { accepted: n - failed, failed, lastError }
}

type Database = 'postgres' | 'embedded'

/** One database's run of the footprint scenario. */
const footprintOf = async (database: Database) => {
  const conversations = setting('BENCH_CONVERSATIONS', 10_000, 100)
  const sockets = setting('BENCH_SOCKETS', 1_000, 20)
  const settleS = setting('BENCH_SETTLE_S', 10, 1)
  // Until every conversation actor has passivated: its idle time (60 s) and a sweep (10 s), and some.
  const passivateS = setting('BENCH_PASSIVATE_S', 80, 1)
  const snapshots = process.env.BENCH_HEAP_SNAPSHOTS
  const port = await freePort()
  const inspectPort = await freePort()
  // BENCH_NODE_ARGS: more flags for the server's node when looking into a run.
  const nodeArgs = [
    ...(process.env.BENCH_NODE_ARGS ? process.env.BENCH_NODE_ARGS.split(' ') : []),
    `--inspect-port=127.0.0.1:${inspectPort}`,
  ]
  const url = `http://127.0.0.1:${port}`
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-footprint-'))
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    // All interfaces: the driver spreads its sockets over 127.0.0.1–8.
    HOST: '0.0.0.0',
    PUBLIC_URL: url,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
  }
  delete env.REDIS_URL
  delete env.DATABASE_URL
  const db = database === 'postgres' ? `kotak_bench_fp_${Date.now()}` : undefined
  if (db) {
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${db}`)
    await admin.end()
    const u = new URL(adminUrl)
    u.pathname = `/${db}`
    env.DATABASE_URL = u.href
  }
  /** `npm start`'s process, timed from its spawn to the first 200 of /healthz. */
  const startNode = async () => {
    const t0 = performance.now()
    const child = spawnWithLimits(process.execPath, [...nodeArgs, ...compiled('main.js')], env)
    for (;;) {
      if (child.exitCode !== null) throw new Error(`footprint (${database}): the server exited`)
      const up = await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
      // Wall time on this shared machine, and the CPU the process spent (what an idle core would take).
      if (up) {
        const ms = Math.round(performance.now() - t0)
        return { child, ms, cpuMs: Math.round((sample(child.pid!)?.cpuSeconds ?? 0) * 1000) }
      }
      if (performance.now() - t0 > 120_000) throw new Error(`footprint (${database}): not healthy in 120 s`)
      await new Promise((r) => setTimeout(r, 10))
    }
  }
  const settle = () => new Promise((r) => setTimeout(r, settleS * 1000))
  try {
    // An empty database: the first start creates the schema (and, embedded, the database itself).
    const first = await startNode()
    await stopNode(first.child)
    // The operator's bootstrap while the server is stopped (the embedded database allows one process).
    const b = bootstrap(env)
    // The usual start: a current database.
    const node = await startNode()
    log(`footprint (${database}): healthy in ${node.ms} ms (first start ${first.ms} ms)`)
    try {
      const pid = node.child.pid!
      // The embedded database's thread as its node's /metrics tell (none on PostgreSQL): PGlite's
      // WebAssembly memory, what PostgreSQL's memory contexts hold in it, and the thread's own V8
      // heap, which the collection through the inspector (the main thread's) does not reach.
      const threadOf = async () => {
        const text = await (await fetch(`${url}/metrics`)).text()
        const read = (name: string) => {
          const v = new RegExp(`^kotak_embedded_${name} (\\S+)`, 'm').exec(text)?.[1]
          return v === undefined ? null : Math.round(Number(v))
        }
        const wasm = read('wasm_memory_bytes')
        return wasm === null
          ? null
          : {
              wasm_bytes: wasm,
              memory_contexts_bytes: read('memory_contexts_bytes'),
              worker_heap_used_bytes: read('worker_heap_used_bytes') ?? 0,
              worker_heap_total_bytes: read('worker_heap_total_bytes') ?? 0,
            }
      }
      await settle()
      const idle = await memoryOf(pid, url)
      const idleThread = await threadOf()
      // The per-actor figures are counted from here: after a full collection, inspector open.
      const inspector = inspectorOf(pid, inspectPort)
      const live = async (name: string) => {
        await inspector.gc()
        const m = { ...(await memoryOf(pid, url)), thread: await threadOf() }
        if (snapshots)
          await inspector.snapshot(path.join(snapshots, `footprint-${database}-${name}.heapsnapshot`))
        return m
      }
      const collected = await live('idle')
      const session = await signIn(url, b.link)
      const headers = {
        Cookie: session.cookie,
        'X-CSRF-Token': session.csrf,
        'Content-Type': 'application/json',
      }
      const ch = await fetch(`${url}/v1/channels/api`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Footprint API' }),
      })
      if (ch.status !== 201) throw new Error(`creating the API channel: ${ch.status} ${await ch.text()}`)
      const channelKey = ((await ch.json()) as { data: { credentials: { key: string } } }).data.credentials
        .key
      const t0 = performance.now()
      const sent = await conversationsThroughApi(url, channelKey, conversations)
      const sendS = (performance.now() - t0) / 1000
      log(
        `footprint (${database}): ${sent.accepted} conversations in ${round(sendS, 1)} s` +
          (sent.failed ? `, ${sent.failed} failed (${sent.lastError})` : ''),
      )
      // Each conversation's actor stays in memory until it has been idle for a minute: sampled
      // before then when the run took less than that, as on PostgreSQL (the send's seconds say).
      await settle()
      const actors = await live('actors')
      // Then passivated: idle for longer than that, its state let go until the next message.
      await new Promise((r) => setTimeout(r, passivateS * 1000))
      const passivated = await live('passivated')
      await inspector.close()
      // Idle agent sockets on top, subscribed to the workspace, held while the server is sampled.
      // Headroom for the sockets to be counted and the memory sampled (20 a smoke connects at once).
      const hold = settleS + setting('BENCH_RAMP_S', 10, 2) + setting('BENCH_HOLD_EXTRA_S', 20, 8)
      const driver = runDriver([
        'sockets',
        '-base',
        url,
        '-cookie',
        session.cookie,
        '-csrf',
        session.csrf,
        '-channels',
        `ws:${b.workspaceId}`,
        '-hosts',
        hosts,
        '-sockets',
        String(sockets),
        '-ramp',
        seconds(setting('BENCH_RAMP_S', 10, 2)),
        '-hold',
        seconds(hold),
      ])
      let held = 0
      const deadline = Date.now() + hold * 1000
      while (Date.now() < deadline) {
        const text = await (await fetch(`${url}/metrics`)).text()
        held = Number(/^kotak_realtime_connections (\d+)/m.exec(text)?.[1] ?? 0)
        if (held >= sockets) break
        await new Promise((r) => setTimeout(r, 500))
      }
      await settle()
      const withSockets = await memoryOf(pid, url)
      const run = await driver
      const perConversation = (after: number, before: number) =>
        Math.round((after - before) / Math.max(1, sent.accepted))
      return {
        first_start_healthy_ms: first.ms,
        first_start_cpu_ms: first.cpuMs,
        start_healthy_ms: node.ms,
        start_cpu_ms: node.cpuMs,
        idle_rss_bytes: idle.rss_bytes,
        idle_heap_used_bytes: idle.heap_used_bytes,
        conversations: sent.accepted,
        conversations_failed: sent.failed,
        conversations_per_s: round(sent.accepted / sendS, 0),
        send_s: round(sendS, 1),
        collected_rss_bytes: collected.rss_bytes,
        collected_heap_used_bytes: collected.heap_used_bytes,
        actors_rss_bytes: actors.rss_bytes,
        actors_heap_used_bytes: actors.heap_used_bytes,
        rss_bytes_per_actor: perConversation(actors.rss_bytes, collected.rss_bytes),
        heap_bytes_per_actor: perConversation(actors.heap_used_bytes, collected.heap_used_bytes),
        passivated_after_s: passivateS,
        passivated_rss_bytes: passivated.rss_bytes,
        passivated_heap_used_bytes: passivated.heap_used_bytes,
        rss_bytes_per_passivated: perConversation(passivated.rss_bytes, collected.rss_bytes),
        heap_bytes_per_passivated: perConversation(passivated.heap_used_bytes, collected.heap_used_bytes),
        sockets: held,
        sockets_requested: sockets,
        sockets_subscribed: get(run.report, 'realtime', 'sockets_subscribed'),
        sockets_rss_bytes: withSockets.rss_bytes,
        sockets_heap_used_bytes: withSockets.heap_used_bytes,
        rss_bytes_per_socket: Math.round((withSockets.rss_bytes - passivated.rss_bytes) / Math.max(1, held)),
        embedded_thread: idleThread && {
          idle: idleThread,
          collected: collected.thread,
          actors: actors.thread,
          passivated: passivated.thread,
        },
      }
    } finally {
      await stopNode(node.child)
    }
  } finally {
    if (db) {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
      await c.end()
    }
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const footprint = async () => {
  const loadStart = loadavg()
  const settleS = setting('BENCH_SETTLE_S', 10, 1)
  const passivateS = setting('BENCH_PASSIVATE_S', 80, 1)
  const postgres = await footprintOf('postgres')
  const embedded = await footprintOf('embedded')
  const targets = {
    postgres: { start_healthy_ms: 1000, idle_rss_bytes: 120 * 2 ** 20 },
    embedded: { start_healthy_ms: 2500, idle_rss_bytes: 300 * 2 ** 20 },
  }
  const verdict = (m: typeof postgres, t: (typeof targets)['postgres']) => ({
    start: m.start_healthy_ms <= t.start_healthy_ms,
    idle: m.idle_rss_bytes <= t.idle_rss_bytes,
  })
  const v = { postgres: verdict(postgres, targets.postgres), embedded: verdict(embedded, targets.embedded) }
  const met = v.postgres.start && v.postgres.idle && v.embedded.start && v.embedded.idle
  for (const [name, m] of Object.entries({ postgres, embedded })) {
    check(
      'footprint',
      m.conversations_failed === 0 &&
        m.sockets_subscribed === m.sockets_requested &&
        m.sockets >= m.sockets_requested,
      `${name}: ${m.conversations_failed} conversations failed, ${m.sockets_subscribed} of ${m.sockets_requested} sockets subscribed, ${m.sockets} held`,
    )
  }
  const ok = (b: boolean) => (b ? 'met' : 'missed')
  type Thread = NonNullable<(typeof embedded)['embedded_thread']>['idle']
  const threadRow = (name: string, t: Thread | null) =>
    t
      ? `| ${name} | ${MB(t.wasm_bytes)} | ${t.memory_contexts_bytes === null ? '—' : MB(t.memory_contexts_bytes)} | ` +
        `${MB(t.worker_heap_used_bytes)} | ${MB(t.worker_heap_total_bytes)} |\n`
      : ''
  const threadTable = (t: (typeof embedded)['embedded_thread']) =>
    t
      ? "\nThe embedded database's thread, from the node's `/metrics` (`kotak_embedded_*`), at the same samples: PGlite's WebAssembly memory (it never shrinks), " +
        "what PostgreSQL's memory contexts hold in it, and the thread's own V8 heap (the collection through the inspector is the main thread's; this heap shrinks only by itself).\n\n" +
        "| embedded database's thread | WebAssembly memory MB | PostgreSQL memory contexts MB | V8 heap used MB | V8 heap total MB |\n" +
        '| --- | --- | --- | --- | --- |\n' +
        threadRow('idle', t.idle) +
        threadRow('collected idle node', t.collected) +
        threadRow('with the idle actors', t.actors) +
        threadRow('passivated', t.passivated)
      : ''
  const row = (name: string, m: typeof postgres, t: (typeof targets)['postgres'], vv: typeof v.postgres) =>
    `| ${name} | ${m.start_healthy_ms} (≤ ${t.start_healthy_ms}: ${ok(vv.start)}) | ${m.start_cpu_ms} | ${m.first_start_healthy_ms} (${m.first_start_cpu_ms}) | ` +
    `${MB(m.idle_rss_bytes)} (≤ ${MB(t.idle_rss_bytes)}: ${ok(vv.idle)}) | ${MB(m.idle_heap_used_bytes)} | ` +
    `${MB(m.actors_rss_bytes)} (${m.conversations.toLocaleString('en')}) | ${MB(m.sockets_rss_bytes)} (${m.sockets.toLocaleString('en')}) | ` +
    `${m.rss_bytes_per_actor} | ${m.rss_bytes_per_socket} |\n`
  const actorRow = (name: string, m: typeof postgres) =>
    `| ${name} | ${m.conversations.toLocaleString('en')} in ${m.send_s} s | ${MB(m.collected_rss_bytes)} (${MB(m.collected_heap_used_bytes)}) | ` +
    `${MB(m.actors_rss_bytes)} (${MB(m.actors_heap_used_bytes)}) | ${m.rss_bytes_per_actor} | ${m.heap_bytes_per_actor} | ` +
    `${MB(m.passivated_rss_bytes)} (${MB(m.passivated_heap_used_bytes)}) | ${m.rss_bytes_per_passivated} | ${m.heap_bytes_per_passivated} |\n`
  write(
    'footprint',
    { ...base('footprint', loadStart), metrics: { postgres, embedded }, targets, met },
    heading('footprint', loadStart) +
      `One node as \`npm start\` runs it (\`node --enable-source-maps --max-semi-space-size=64 dist/main.js\`, no REDIS_URL). Start: from spawning the process to the first 200 of \`/healthz\`, on a current database (the usual restart); the first start on an empty one (creating the schema, and embedded the database) apart; beside each, the CPU time the process used until then, which a busy machine does not inflate. ` +
      `RSS: median of five samples, ${setting('BENCH_SETTLE_S', 10, 1)} s after each step; heap: V8's heap in use (\`/metrics\`).\n\n` +
      `| database | start to healthy ms | its CPU ms | first start ms (CPU ms) | idle RSS MB | idle heap MB | RSS MB with idle conversation actors (count) | RSS MB with those and idle sockets (count) | bytes per actor | bytes per socket |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n` +
      row('PostgreSQL', postgres, targets.postgres, v.postgres) +
      row('embedded (PGlite)', embedded, targets.embedded, v.embedded) +
      `\nEach conversation was created by one message through an API channel (${postgres.conversations_per_s}/s on PostgreSQL, ${embedded.conversations_per_s}/s embedded). ` +
      'Its ConversationActor stays in memory until idle for a minute (swept every 10 s), then passivates: its state goes, the next message loads it again. ' +
      `Conversation actors, per conversation: after a full garbage collection (the server's inspector, opened after the idle sample), from the collected idle node to ${settleS} s after the last message ` +
      `(every actor still live when the send took less than a minute) and to ${passivateS} s later (passivated); RSS includes what else the messages left (the embedded database's pages, allocator slack), V8's heap only JavaScript objects. ` +
      "The sockets are the load driver's, subscribed to the workspace, idle, counted after the passivation.\n\n" +
      '| database | conversations | collected idle node: RSS MB (heap MB) | with the idle actors | RSS bytes per actor | heap bytes per actor | passivated: RSS MB (heap MB) | RSS bytes per conversation | heap bytes per conversation |\n' +
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n' +
      actorRow('PostgreSQL', postgres) +
      actorRow('embedded (PGlite)', embedded) +
      threadTable(embedded.embedded_thread),
  )
}

/** Set by `all`: scenarios that need a long build of their own skip (loudly) instead of building it. */
let runningAll = false

/** Adds a part to a scenario's results: a key of its .json, a section of its .md (also printed). */
const addToResult = (name: string, key: string, value: unknown, md: string) => {
  const json = path.join(resultsDir, `${resultName(name)}.json`)
  const result = JSON.parse(fs.readFileSync(json, 'utf8')) as Json
  fs.writeFileSync(json, `${JSON.stringify({ ...result, [key]: value }, null, 2)}\n`)
  fs.appendFileSync(path.join(resultsDir, `${resultName(name)}.md`), `\n${md}`)
  process.stdout.write(`\n${md}`)
}

const runOne = async (name: string) => {
  await scenarios[name]!()
  const prof = summarise(profileDir)
  if (prof) addToResult(name, 'profile', { self: prof.self, packages: prof.packages }, profileMarkdown(prof))
  const sampled = await perf.summarise()
  if (sampled) addToResult(name, 'perf', sampled, perf.markdown(sampled))
}

const main = async () => {
  const name = process.argv.slice(2).find((a) => !a.startsWith('--'))
  runningAll = name === 'all'
  const names = runningAll ? Object.keys(scenarios) : name && scenarios[name] ? [name] : []
  if (names.length === 0) {
    process.stderr.write(`usage: npm run bench -- <${Object.keys(scenarios).join('|')}|all> [--smoke]\n`)
    process.exit(2)
  }
  perf.check()
  buildDriver()
  buildServer()
  for (const n of names) {
    const t0 = Date.now()
    await runOne(n)
    if (smoke) log(`${n} smoke passed in ${round((Date.now() - t0) / 1000, 1)} s`)
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
