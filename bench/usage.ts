import * as fs from 'node:fs'
import pg from 'pg'

/**
 * CPU and memory of the processes a benchmark measures, read from /proc. The machine is shared
 * (other test suites, other databases on the same PostgreSQL), so nothing here counts the whole
 * machine: the server is its process and the processes it started, PostgreSQL is the backends
 * connected to the server's own database, and the instance's shared background processes
 * (WAL writer, checkpointer, …) are reported apart because other databases' work lands there too.
 */

export interface Sample {
  cpuSeconds: number
  rssBytes: number
}

const TICKS = 100

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits

interface Stat {
  ppid: number
  cpuSeconds: number
}

const stat = (pid: number): Stat | null => {
  try {
    const text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
    return { ppid: Number(fields[1]), cpuSeconds: (Number(fields[11]) + Number(fields[12])) / TICKS }
  } catch {
    return null
  }
}

export const sample = (pid: number): Sample | null => {
  const s = stat(pid)
  if (!s) return null
  try {
    const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return { cpuSeconds: s.cpuSeconds, rssBytes: rss ? Number(rss[1]) * 1024 : 0 }
  } catch {
    return null
  }
}

/**
 * Samples one process every 500 ms; `stop` takes a last sample and returns its CPU (seconds and
 * average cores), peak RSS and the RSS series (the soak judges memory growth from it).
 */
export const sampler = (pid: number) => {
  const start = sample(pid)
  const t0 = Date.now()
  let peak = start?.rssBytes ?? 0
  let last = start
  const series: Array<[number, number]> = []
  const take = () => {
    const s = sample(pid)
    if (s) {
      last = s
      peak = Math.max(peak, s.rssBytes)
      series.push([(Date.now() - t0) / 1000, s.rssBytes])
    }
  }
  const timer = setInterval(take, 500)
  return {
    stop: () => {
      clearInterval(timer)
      // A last sample, so the CPU since the previous tick is not lost.
      take()
      const seconds = (Date.now() - t0) / 1000
      const cpuSeconds = start && last ? last.cpuSeconds - start.cpuSeconds : 0
      return {
        cpu_cores: round(cpuSeconds / seconds),
        cpu_seconds: cpuSeconds,
        rss_peak_bytes: peak,
        rss_start_bytes: start?.rssBytes ?? 0,
        series,
      }
    },
  }
}
export type Usage = ReturnType<ReturnType<typeof sampler>['stop']>

/** Pids of the `roots` and every process below them. */
const tree = (roots: ReadonlyArray<number>) => {
  const children = new Map<number, number[]>()
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const s = stat(pid)
    if (!s) continue
    const list = children.get(s.ppid)
    if (list) list.push(pid)
    else children.set(s.ppid, [pid])
  }
  const out: number[] = []
  const todo = [...roots]
  while (todo.length) {
    const pid = todo.pop()!
    out.push(pid)
    todo.push(...(children.get(pid) ?? []))
  }
  return out
}

/**
 * CPU summed over a changing set of processes: each one's CPU since it was first seen (since its
 * start when it appeared after the window opened), so processes that come and go still count.
 */
const group = () => {
  const first = new Map<number, number>()
  const last = new Map<number, number>()
  return {
    see: (pids: Iterable<number>, opening: boolean) => {
      for (const pid of pids) {
        const s = stat(pid)
        if (!s) continue
        if (!first.has(pid)) first.set(pid, opening ? s.cpuSeconds : 0)
        last.set(pid, s.cpuSeconds)
      }
    },
    reset: () => {
      first.clear()
      last.clear()
    },
    cpuSeconds: () => {
      let sum = 0
      for (const [pid, v] of last) sum += v - (first.get(pid) ?? 0)
      return sum
    },
    count: () => last.size,
  }
}

export interface Window {
  /** Seconds between the window's opening (start or last `mark`) and `stop`. */
  window_s: number
  server_cpu_s: number | null
  server_cpu_cores: number | null
  /** Processes counted as the server (its process and any it started). */
  server_processes: number | null
  server_rss_peak_bytes: number | null
  postgres_database: string | null
  postgres_cpu_s: number | null
  postgres_cpu_cores: number | null
  /** Backends (client backends, autovacuum and parallel workers) seen on the server's database. */
  postgres_backends: number | null
  /** The instance's background processes (WAL writer, checkpointer, …), shared by every database on it. */
  postgres_shared_cpu_s: number | null
  postgres_shared_cpu_cores: number | null
}

/**
 * The server's process tree and, when `database` is given, the PostgreSQL backends connected to
 * that database (pg_stat_activity, asked every 500 ms through `adminUrl`), sampled together over
 * one window. `mark` reopens the window (a run's set-up, such as opening 1,000 sockets, is then
 * left out of the work it measures); `stop` closes it. A cluster is one server of several
 * processes: `serverPids` names them at each tick (a node restarted mid-window counts too), their
 * RSS summed.
 */
export const usageWindow = async (opts: {
  serverPid?: number
  serverPids?: () => ReadonlyArray<number>
  database?: string
  adminUrl: string
}) => {
  const roots = () => opts.serverPids?.() ?? (opts.serverPid === undefined ? [] : [opts.serverPid])
  const hasServer = opts.serverPid !== undefined || opts.serverPids !== undefined
  const server = group()
  const postgres = group()
  const shared = group()
  let peak = 0
  const series: Array<[number, number]> = []
  let t0 = Date.now()
  const client = opts.database ? new pg.Client({ connectionString: opts.adminUrl }) : undefined
  await client?.connect()
  const tick = async (opening: boolean) => {
    if (hasServer) {
      const pids = roots()
      server.see(tree(pids), opening)
      const rss = pids.reduce((sum, pid) => sum + (sample(pid)?.rssBytes ?? 0), 0)
      if (rss > 0) {
        peak = Math.max(peak, rss)
        series.push([(Date.now() - t0) / 1000, rss])
      }
    }
    if (client) {
      try {
        const { rows } = await client.query<{ pid: number; ours: boolean }>(
          'SELECT pid, datname IS NOT NULL AS ours FROM pg_stat_activity WHERE datname = $1 OR datname IS NULL',
          [opts.database],
        )
        postgres.see(
          rows.filter((r) => r.ours).map((r) => r.pid),
          opening,
        )
        shared.see(
          rows.filter((r) => !r.ours).map((r) => r.pid),
          opening,
        )
      } catch {
        // the admin connection is busy or gone: the next tick counts what this one missed
      }
    }
  }
  const open = async () => {
    server.reset()
    postgres.reset()
    shared.reset()
    peak = 0
    series.length = 0
    t0 = Date.now()
    await tick(true)
  }
  await open()
  let ticking = Promise.resolve()
  const timer = setInterval(() => {
    // A failed tick (a process gone mid-read) must not stop the ones after it.
    ticking = ticking.then(() => tick(false)).catch(() => undefined)
  }, 500)
  return {
    mark: async () => {
      await ticking
      await open()
    },
    stop: async (): Promise<Window & { series: Array<[number, number]> }> => {
      clearInterval(timer)
      await ticking
      await tick(false)
      await client?.end()
      const seconds = (Date.now() - t0) / 1000
      const hasPg = client !== undefined
      return {
        window_s: round(seconds, 2),
        server_cpu_s: hasServer ? round(server.cpuSeconds(), 3) : null,
        server_cpu_cores: hasServer ? round(server.cpuSeconds() / seconds) : null,
        server_processes: hasServer ? server.count() : null,
        server_rss_peak_bytes: hasServer ? peak : null,
        postgres_database: opts.database ?? null,
        postgres_cpu_s: hasPg ? round(postgres.cpuSeconds(), 3) : null,
        postgres_cpu_cores: hasPg ? round(postgres.cpuSeconds() / seconds) : null,
        postgres_backends: hasPg ? postgres.count() : null,
        postgres_shared_cpu_s: hasPg ? round(shared.cpuSeconds(), 3) : null,
        postgres_shared_cpu_cores: hasPg ? round(shared.cpuSeconds() / seconds) : null,
        series,
      }
    },
  }
}
export type UsageWindow = Awaited<ReturnType<typeof usageWindow>>

/**
 * CPU microseconds per unit of work for each process group, so their costs read apart; the
 * server and its own database backends summed, the figure issue 26's targets are set in.
 */
export const perUnit = (
  unit: string,
  units: number,
  cpu: { server: number | null; postgres?: number | null; driver: number | null },
) => {
  const us = (s: number | null | undefined) =>
    units > 0 && s !== undefined && s !== null ? round((s * 1e6) / units, 1) : null
  const both = cpu.server !== null && cpu.postgres !== undefined && cpu.postgres !== null
  return {
    unit,
    units: round(units, 3),
    server_cpu_us: us(cpu.server),
    postgres_cpu_us: us(cpu.postgres),
    server_and_postgres_cpu_us: both ? us(cpu.server! + cpu.postgres!) : null,
    driver_cpu_us: us(cpu.driver),
  }
}
