import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import pg from 'pg'
import { markdown as profileMarkdown, summarise } from './profile'

/**
 * `npm run bench -- <scenario>`: builds k6 when missing, starts Kotak against the local
 * PostgreSQL (fresh database), seeds through the operator CLI and the public API, runs k6,
 * samples the server's and k6's CPU and RSS, and writes bench/results/<scenario>.json and .md.
 * The load generator shares the machine with the server: its CPU is reported beside the server's.
 */
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const resultsDir = path.join(root, 'bench', 'results')
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

type Json = Record<string, unknown>

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`)

const findK6 = (): string => {
  const candidates = [
    process.env.K6,
    ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, 'k6')),
    path.join(os.homedir(), 'go', 'bin', 'k6'),
  ].filter((x): x is string => !!x)
  for (const c of candidates) if (fs.existsSync(c)) return c
  const go = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' })
  if (go.status !== 0) {
    throw new Error('k6 is not installed and Go is not available to build it (go install go.k6.io/k6@v1.8.1)')
  }
  log('building k6 with go install go.k6.io/k6@v1.8.1 (a few minutes, once)')
  execFileSync('go', ['install', 'go.k6.io/k6@v1.8.1'], { stdio: 'inherit' })
  const built = path.join(go.stdout.trim(), 'bin', 'k6')
  if (!fs.existsSync(built)) throw new Error(`go install finished but ${built} is missing`)
  return built
}

const freePort = async () => {
  const net = await import('node:net')
  return new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port
      s.close(() => resolve(p))
    })
  })
}

interface Sample {
  cpuSeconds: number
  rssBytes: number
}
const TICKS = 100
const sample = (pid: number): Sample | null => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / TICKS
    const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return { cpuSeconds, rssBytes: rss ? Number(rss[1]) * 1024 : 0 }
  } catch {
    return null
  }
}

/** Samples a process every 500 ms; `stop` returns average CPU (cores) and peak RSS. */
const sampler = (pid: number) => {
  const start = sample(pid)
  const t0 = Date.now()
  let peak = start?.rssBytes ?? 0
  let last = start
  const timer = setInterval(() => {
    const s = sample(pid)
    if (s) {
      last = s
      peak = Math.max(peak, s.rssBytes)
    }
  }, 500)
  return {
    stop: () => {
      clearInterval(timer)
      const seconds = (Date.now() - t0) / 1000
      const cpu = start && last ? (last.cpuSeconds - start.cpuSeconds) / seconds : 0
      return {
        cpu_cores: Math.round(cpu * 100) / 100,
        rss_peak_bytes: peak,
        rss_start_bytes: start?.rssBytes ?? 0,
      }
    },
  }
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
const spawnWithLimits = (cmd: string, args: string[], env: NodeJS.ProcessEnv) =>
  spawn('bash', ['-c', `ulimit -n 1048576 2>/dev/null || ulimit -n 65536; exec "$0" "$@"`, cmd, ...args], {
    env,
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  })

interface Kotak {
  url: string
  port: number
  child: ChildProcess
  env: NodeJS.ProcessEnv
  stop: () => Promise<void>
}

const profileDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-prof-'))

const startKotak = async (extraEnv: Record<string, string> = {}): Promise<Kotak> => {
  const db = `kotak_bench_${Date.now()}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${db}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${db}`
  const port = await freePort()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '0.0.0.0',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATABASE_URL: url.href,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_KEY: '100000000',
    RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
    DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-bench-')),
    ...extraEnv,
  }
  if (!extraEnv.REDIS_URL) delete env.REDIS_URL
  // BENCH_PROFILE=1: the server writes a CPU profile on exit, summarised into the results.
  const profile = process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const child = spawnWithLimits(
    process.execPath,
    [...profile, '--import', 'tsx', path.join(root, 'main.ts')],
    env,
  )
  await waitFor(`http://127.0.0.1:${port}/healthz`, child)
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    env,
    stop: async () => {
      child.kill('SIGTERM')
      await new Promise((r) => child.once('exit', r))
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`)
      await c.end()
    },
  }
}

const cli = (env: NodeJS.ProcessEnv, args: string[]) =>
  JSON.parse(
    execFileSync(process.execPath, ['--import', 'tsx', path.join(root, 'cli.ts'), ...args], {
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

/** A Pro workspace, an API key and a signed-in owner, through the CLI and the sign-in link. */
const seed = async (k: Kotak): Promise<Seed> => {
  const email = `bench-${Date.now()}@example.com`
  const ws = cli(k.env, [
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
  const key = cli(k.env, ['key', 'create', '--workspace', String(workspaceId), '--name', 'bench'])
    .key as string
  const link = cli(k.env, ['login-link', '--email', email]).url as string
  const res = await fetch(link.replace(/^http:\/\/[^/]+/, k.url), { redirect: 'manual' })
  const cookies = res.headers.getSetCookie().map((c) => c.split(';')[0]!)
  const csrf = cookies.find((c) => c.startsWith('kotak_csrf='))!.split('=')[1]!
  return { workspaceId, key, cookie: cookies.join('; '), csrf }
}

const runK6 = (k6: string, script: string, env: Record<string, string>) => {
  const summary = path.join(os.tmpdir(), `k6-summary-${Date.now()}.json`)
  const child = spawnWithLimits(
    k6,
    ['run', '--quiet', `--summary-export=${summary}`, path.join(root, 'bench', 'k6', script)],
    {
      ...process.env,
      ...env,
    },
  )
  const sampled = sampler(child.pid!)
  return new Promise<{ summary: Json; k6: ReturnType<typeof sampled.stop> }>((resolve, reject) => {
    child.once('exit', (code) => {
      const k6Usage = sampled.stop()
      if (!fs.existsSync(summary)) return reject(new Error(`k6 exited with ${code} and no summary`))
      resolve({ summary: JSON.parse(fs.readFileSync(summary, 'utf8')) as Json, k6: k6Usage })
    })
  })
}

const metric = (summary: Json, name: string, field: string): number => {
  const m = (summary.metrics as Record<string, Record<string, number>>)[name]
  return m ? (m[field] ?? 0) : 0
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

const base = (scenario: string) => ({
  scenario,
  date: new Date().toISOString(),
  commit: commit(),
  machine: { cores: os.cpus().length, memory_gib: Math.round(os.totalmem() / 2 ** 30) },
  command: `npm run bench -- ${process.argv.slice(2).join(' ')}`,
})

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

const scenarios: Record<string, (k6: string) => Promise<void>> = {
  /** GET /v1/me with an API key vs a bare uWS server, same load. Target ratio ≥ 0.6. */
  kernel: async (k6) => {
    const vus = process.env.BENCH_VUS ?? '64'
    const duration = process.env.BENCH_DURATION ?? '20s'
    const kotak = await startKotak()
    let kotakRun: Awaited<ReturnType<typeof runK6>>
    let server: ReturnType<ReturnType<typeof sampler>['stop']>
    try {
      const s = await seed(kotak)
      log(`kotak: GET /v1/me, ${vus} VUs, ${duration}`)
      const sampled = sampler(kotak.child.pid!)
      kotakRun = await runK6(k6, 'kernel.js', {
        URL: `${kotak.url}/v1/me`,
        AUTH: s.key,
        VUS: vus,
        DURATION: duration,
      })
      server = sampled.stop()
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
    let helloRun: Awaited<ReturnType<typeof runK6>>
    let helloServer: ReturnType<ReturnType<typeof sampler>['stop']>
    try {
      await waitFor(`http://127.0.0.1:${helloPort}/`, hello)
      log(`uWS hello: same load`)
      const sampled = sampler(hello.pid!)
      helloRun = await runK6(k6, 'kernel.js', {
        URL: `http://127.0.0.1:${helloPort}/`,
        VUS: vus,
        DURATION: duration,
      })
      helloServer = sampled.stop()
    } finally {
      hello.kill('SIGTERM')
    }
    const rps = metric(kotakRun.summary, 'http_reqs', 'rate')
    const helloRps = metric(helloRun.summary, 'http_reqs', 'rate')
    const ratio = rps / helloRps
    const metrics = {
      rps: round(rps, 0),
      p99_ms: round(metric(kotakRun.summary, 'http_req_duration', 'p(99)')),
      failed_rate: round(metric(kotakRun.summary, 'http_req_failed', 'value'), 4),
      hello_rps: round(helloRps, 0),
      hello_p99_ms: round(metric(helloRun.summary, 'http_req_duration', 'p(99)')),
      ratio: round(ratio, 3),
      server_cpu_cores: server.cpu_cores,
      server_rss_peak_bytes: server.rss_peak_bytes,
      k6_cpu_cores: kotakRun.k6.cpu_cores,
      hello_server_cpu_cores: helloServer.cpu_cores,
      hello_k6_cpu_cores: helloRun.k6.cpu_cores,
      vus: Number(vus),
      duration,
    }
    const targets = { ratio: 0.6 }
    const met = ratio >= targets.ratio
    write(
      'kernel',
      { ...base('kernel'), metrics, targets, met },
      `# kernel\n\n${new Date().toISOString()} · commit ${commit()} · ${os.cpus().length} cores (k6 on the same machine)\n\n` +
        `| | requests/s | p99 ms | server CPU (cores) | k6 CPU (cores) |\n| --- | --- | --- | --- | --- |\n` +
        `| Kotak GET /v1/me (API key) | ${metrics.rps} | ${metrics.p99_ms} | ${metrics.server_cpu_cores} | ${metrics.k6_cpu_cores} |\n` +
        `| bare uWebSockets.js | ${metrics.hello_rps} | ${metrics.hello_p99_ms} | ${metrics.hello_server_cpu_cores} | ${metrics.hello_k6_cpu_cores} |\n\n` +
        `ratio ${metrics.ratio} (target ≥ ${targets.ratio}): ${met ? 'met' : `missed by ${round(targets.ratio - ratio, 3)}`}\n`,
    )
  },

  /** Idle agent sockets held at once, RSS per socket and connect rate. Target 50,000 at ≤ 20 KB. */
  sockets: async (k6) => {
    const vus = Number(process.env.BENCH_VUS ?? 500)
    const per = Number(process.env.BENCH_SOCKETS_PER_VU ?? 100)
    const hold = Number(process.env.BENCH_HOLD_S ?? 40)
    const kotak = await startKotak()
    try {
      const s = await seed(kotak)
      const before = sample(kotak.child.pid!)!
      const sampled = sampler(kotak.child.pid!)
      let peak = 0
      let peakAt = 0
      // Steady state: RSS while (nearly) all sockets are held, sampled through the hold, so the
      // ramp's transient garbage is not counted as per-socket memory.
      let steadyRss = 0
      const t0 = Date.now()
      const poll = setInterval(async () => {
        try {
          const text = await (await fetch(`${kotak.url}/metrics`)).text()
          const n = Number(/^kotak_realtime_connections (\d+)/m.exec(text)?.[1] ?? 0)
          if (n > peak) {
            peak = n
            peakAt = Date.now()
          }
          const now = sample(kotak.child.pid!)
          if (now && peak > 0 && n >= peak * 0.99) steadyRss = now.rssBytes
        } catch {
          // server busy; next poll
        }
      }, 1000)
      const hosts = Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`).join(',')
      log(`sockets: ${vus} VUs × ${per} sockets, hold ${hold}s`)
      const run = await runK6(k6, 'sockets.js', {
        BASE: kotak.url,
        COOKIE: s.cookie,
        CSRF: s.csrf,
        WORKSPACE: String(s.workspaceId),
        VUS: String(vus),
        SOCKETS_PER_VU: String(per),
        HOLD_S: String(hold),
        RAMP_S: process.env.BENCH_RAMP_S ?? '40',
        HOSTS: hosts,
      })
      clearInterval(poll)
      const server = sampled.stop()
      const perSocket = peak > 0 ? ((steadyRss || server.rss_peak_bytes) - before.rssBytes) / peak : 0
      // Each socket is a file descriptor: the process's hard limit caps what one node can hold.
      const fdLimit = Number(
        /Max open files\s+\d+\s+(\d+)/.exec(
          fs.readFileSync(`/proc/${kotak.child.pid}/limits`, 'utf8'),
        )?.[1] ?? 0,
      )
      const metrics = {
        sockets: peak,
        attempted: vus * per,
        opened: metric(run.summary, 'sockets_opened', 'count'),
        failed: metric(run.summary, 'sockets_failed', 'count'),
        subscribed: metric(run.summary, 'sockets_subscribed', 'count'),
        rss_bytes_per_socket: Math.round(perSocket),
        rss_peak_bytes: server.rss_peak_bytes,
        rss_steady_bytes: steadyRss,
        rss_baseline_bytes: before.rssBytes,
        connect_per_s: peakAt > t0 ? Math.round(peak / ((peakAt - t0) / 1000)) : 0,
        server_cpu_cores: server.cpu_cores,
        k6_cpu_cores: run.k6.cpu_cores,
        server_open_files_hard_limit: fdLimit,
      }
      const targets = { sockets: 50_000, rss_bytes_per_socket: 20_480 }
      const met =
        metrics.sockets >= targets.sockets && metrics.rss_bytes_per_socket <= targets.rss_bytes_per_socket
      write(
        'sockets',
        { ...base('sockets'), metrics, targets, met },
        `# sockets\n\n${new Date().toISOString()} · commit ${commit()} · ${os.cpus().length} cores (k6 on the same machine)\n\n` +
          `| sockets held | RSS per socket | connects/s | server CPU | k6 CPU | failed |\n| --- | --- | --- | --- | --- | --- |\n` +
          `| ${metrics.sockets} | ${metrics.rss_bytes_per_socket} B | ${metrics.connect_per_s} | ${metrics.server_cpu_cores} | ${metrics.k6_cpu_cores} | ${metrics.failed} |\n\n` +
          `Targets: ${targets.sockets} sockets at ≤ ${targets.rss_bytes_per_socket} B each: ${met ? 'met' : 'missed'}\n\n` +
          `The server process may hold at most ${fdLimit} open files (hard limit of this machine, not raisable here), ` +
          `so ${fdLimit} sockets is the ceiling of one process on it. RSS per socket is the growth of the server's ` +
          `resident memory from before the ramp to the last sample while at least 99 % of the sockets were held, divided by the sockets held.\n`,
      )
    } finally {
      await kotak.stop()
    }
  },

  /** The inbox list with its common filters on 100,000 conversations of one workspace. */
  inbox: async (k6) => {
    const n = Number(process.env.BENCH_CONVERSATIONS ?? 100_000)
    const vus = process.env.BENCH_VUS ?? '16'
    const duration = process.env.BENCH_DURATION ?? '20s'
    const kotak = await startKotak()
    try {
      const s = await seed(kotak)
      log(`inbox: seeding ${n} conversations`)
      const channel = await seedConversations(kotak, s.workspaceId, n)
      log(`inbox: GET /v1/interactions with 8 filters, ${vus} VUs, ${duration}`)
      const sampled = sampler(kotak.child.pid!)
      const run = await runK6(k6, 'inbox.js', {
        BASE: kotak.url,
        AUTH: s.key,
        CHANNEL: String(channel),
        VUS: vus,
        DURATION: duration,
      })
      const server = sampled.stop()
      const perFilter: Record<string, number> = {}
      for (const name of Object.keys((run.summary.metrics as Json) ?? {})) {
        const m = /^http_req_duration\{filter:(\w+)\}$/.exec(name)
        if (m) perFilter[m[1]!] = round(metric(run.summary, name, 'p(99)'))
      }
      const metrics = {
        conversations: n,
        rps: round(metric(run.summary, 'http_reqs', 'rate'), 0),
        p50_ms: round(metric(run.summary, 'http_req_duration', 'med')),
        p99_ms: round(metric(run.summary, 'http_req_duration', 'p(99)')),
        failed_rate: round(metric(run.summary, 'http_req_failed', 'value'), 4),
        p99_ms_by_filter: perFilter,
        server_cpu_cores: server.cpu_cores,
        k6_cpu_cores: run.k6.cpu_cores,
      }
      const targets = { p99_ms: 100 }
      const met = metrics.p99_ms <= targets.p99_ms && metrics.failed_rate === 0
      write(
        'inbox',
        { ...base('inbox'), metrics, targets, met },
        `# inbox\n\n${new Date().toISOString()} · commit ${commit()} · ${os.cpus().length} cores (k6 on the same machine)\n\n` +
          `${n} conversations in one workspace; ${metrics.rps} requests/s, p50 ${metrics.p50_ms} ms, p99 ${metrics.p99_ms} ms ` +
          `(our target ≤ ${targets.p99_ms} ms: ${met ? 'met' : 'missed'}), failed ${metrics.failed_rate}.\n\n` +
          `| filter | p99 ms |\n| --- | --- |\n${Object.entries(perFilter)
            .map(([k, v]) => `| ${k} | ${v} |`)
            .join('\n')}\n`,
      )
    } finally {
      await kotak.stop()
    }
  },

  /** Inbound messages at a fixed rate to agents' sockets. Target 5,000 msg/s, p99 ≤ 50 ms, 0 lost. */
  storm: (k6) =>
    inbound(k6, {
      scenario: 'storm',
      rate: Number(process.env.BENCH_RATE ?? 5000),
      conversations: Number(process.env.BENCH_CONVERSATIONS ?? 40),
      agentVus: Number(process.env.BENCH_AGENTS ?? 10),
      socketsPerVu: 1,
    }),

  /** One conversation watched by 1,000 sockets. Target ≥ 200,000 deliveries/s. */
  fanout: (k6) =>
    inbound(k6, {
      scenario: 'fanout',
      rate: Number(process.env.BENCH_RATE ?? 200),
      conversations: 1,
      agentVus: 50,
      socketsPerVu: Number(process.env.BENCH_SOCKETS_PER_VU ?? 20),
    }),
}

/** Seeds `n` conversations (with contacts) on one messaging-app channel straight into the database. */
const seedConversations = async (k: Kotak, workspaceId: number, n: number) => {
  const db = new pg.Client({ connectionString: k.env.DATABASE_URL })
  await db.connect()
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
    await db.query('ANALYZE')
    return channelId
  } finally {
    await db.end()
  }
}

interface InboundPlan {
  readonly scenario: 'storm' | 'fanout'
  readonly rate: number
  readonly conversations: number
  readonly agentVus: number
  readonly socketsPerVu: number
}

/** An API channel, its conversations (one seed message each) and a token subscribed to them. */
const seedInbound = async (k: Kotak, s: Seed, conversations: number) => {
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
  const t = await fetch(`${k.url}/v1/realtime/token`, {
    method: 'POST',
    headers: session,
    body: JSON.stringify({ channels }),
  })
  if (t.status !== 200) throw new Error(`realtime token: ${t.status} ${await t.text()}`)
  const token = ((await t.json()) as { data: { token: string } }).data.token
  return { channelKey, external, wsUrl: `ws://127.0.0.1:${k.port}/v1/realtime?token=${token}` }
}

const inbound = async (k6: string, plan: InboundPlan) => {
  const duration = Number(process.env.BENCH_DURATION_S ?? 20)
  const kotak = await startKotak()
  try {
    const s = await seed(kotak)
    const seeded = await seedInbound(kotak, s, plan.conversations)
    const sockets = plan.agentVus * plan.socketsPerVu
    log(
      `${plan.scenario}: ${plan.rate} msg/s for ${duration}s, ${sockets} sockets, ${plan.conversations} conversations`,
    )
    const sampled = sampler(kotak.child.pid!)
    const run = await runK6(k6, 'storm.js', {
      BASE: kotak.url,
      WS_URL: seeded.wsUrl,
      CHANNEL_KEY: seeded.channelKey,
      CONVERSATIONS: seeded.external.join(','),
      AGENT_VUS: String(plan.agentVus),
      SOCKETS_PER_VU: String(plan.socketsPerVu),
      RATE: String(plan.rate),
      DURATION_S: String(duration),
      SENDER_VUS: process.env.BENCH_SENDER_VUS ?? '200',
      HOSTS: Array.from({ length: 8 }, (_, i) => `127.0.0.${i + 1}`).join(','),
    })
    const server = sampled.stop()
    // Persisted once each: inbound messages in the database beside what the senders were told.
    const db = new pg.Client({ connectionString: kotak.env.DATABASE_URL })
    await db.connect()
    const persisted = Number(
      (
        await db.query(
          "SELECT count(*) AS n, count(DISTINCT client_id) AS d FROM messages WHERE direction = 'in' AND body LIKE 't=%'",
        )
      ).rows[0].n,
    )
    await db.end()
    const acceptedN = metric(run.summary, 'messages_accepted', 'count')
    const open = metric(run.summary, 'sockets_opened', 'count')
    const deliveries = metric(run.summary, 'deliveries', 'count')
    const expected = acceptedN * open
    const metrics = {
      messages_per_s: round(acceptedN / duration, 0),
      offered_per_s: plan.rate,
      accepted: acceptedN,
      refused: metric(run.summary, 'messages_refused', 'count'),
      persisted,
      sockets: open,
      sockets_failed: metric(run.summary, 'sockets_failed', 'count'),
      sockets_closed_slow: metric(run.summary, 'sockets_closed_slow', 'count'),
      deliveries,
      deliveries_per_s: round(deliveries / duration, 0),
      lost: Math.max(0, expected - deliveries) + Math.max(0, acceptedN - persisted),
      p50_ms: round(metric(run.summary, 'delivery_ms', 'med')),
      p99_ms: round(metric(run.summary, 'delivery_ms', 'p(99)')),
      post_p99_ms: round(metric(run.summary, 'http_req_duration', 'p(99)')),
      server_cpu_cores: server.cpu_cores,
      server_rss_peak_bytes: server.rss_peak_bytes,
      k6_cpu_cores: run.k6.cpu_cores,
      duration_s: duration,
    }
    const targets =
      plan.scenario === 'storm'
        ? { messages_per_s: 5000, p99_ms: 50, lost: 0 }
        : { deliveries_per_s: 200_000, lost: 0 }
    const met =
      plan.scenario === 'storm'
        ? metrics.messages_per_s >= 5000 && metrics.p99_ms <= 50 && metrics.lost === 0
        : metrics.deliveries_per_s >= 200_000 && metrics.lost === 0
    const missed = Object.entries(targets)
      .map(([k, v]) => {
        const got = metrics[k as keyof typeof metrics] as number
        const ok = k === 'p99_ms' || k === 'lost' ? got <= v : got >= v
        return `${k} ${got} (target ${k === 'p99_ms' || k === 'lost' ? '≤' : '≥'} ${v}): ${ok ? 'met' : 'missed'}`
      })
      .join('; ')
    write(
      plan.scenario,
      { ...base(plan.scenario), metrics, targets, met },
      `# ${plan.scenario}\n\n${new Date().toISOString()} · commit ${commit()} · ${os.cpus().length} cores (k6 on the same machine)\n\n` +
        `| offered msg/s | accepted msg/s | sockets | deliveries/s | p50 ms | p99 ms | POST p99 ms | lost | server CPU | k6 CPU |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n` +
        `| ${plan.rate} | ${metrics.messages_per_s} | ${open} | ${metrics.deliveries_per_s} | ${metrics.p50_ms} | ${metrics.p99_ms} | ${metrics.post_p99_ms} | ${metrics.lost} | ${metrics.server_cpu_cores} | ${metrics.k6_cpu_cores} |\n\n` +
        `${missed}\n\nLatency is from the k6 sender's clock at POST to the k6 socket's clock at receipt (same machine). ` +
        `lost = accepted × sockets − deliveries, plus accepted messages missing from the database (${persisted} persisted of ${acceptedN} accepted). ` +
        `Sockets with errors: ${metrics.sockets_failed}; closed by the server as slow consumers (4008, a real client reconnects and replays from its cursor): ${metrics.sockets_closed_slow}.\n`,
    )
  } finally {
    await kotak.stop()
  }
}

const main = async () => {
  const name = process.argv[2]
  const scenario = name ? scenarios[name] : undefined
  if (!scenario) {
    process.stderr.write(`usage: npm run bench -- <${Object.keys(scenarios).join('|')}>\n`)
    process.exit(2)
  }
  await scenario(findK6())
  const prof = summarise(profileDir)
  if (prof) {
    const json = path.join(resultsDir, `${resultName(name)}.json`)
    const result = JSON.parse(fs.readFileSync(json, 'utf8')) as Json
    fs.writeFileSync(
      json,
      `${JSON.stringify({ ...result, profile: { self: prof.self, packages: prof.packages } }, null, 2)}\n`,
    )
    fs.appendFileSync(path.join(resultsDir, `${resultName(name)}.md`), `\n${profileMarkdown(prof)}`)
    process.stdout.write(`\n${profileMarkdown(prof)}`)
  }
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
