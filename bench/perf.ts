import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import * as fs from 'node:fs'
import { SourceMap } from 'node:module'
import * as os from 'node:os'
import * as path from 'node:path'
import * as readline from 'node:readline'
import { top } from './profile'

/**
 * `BENCH_PERF=1`: Linux `perf` samples the server over the driver's measured window, every thread,
 * kernel and user space, with V8's JIT frames named (`--perf-basic-prof`) and mapped back to the
 * sources. V8's own profile (`BENCH_PROFILE`) sees only the main thread's JavaScript, and charges
 * a native call's whole cost, the kernel's included, to the JavaScript that made it: it put uWS'
 * `respond` at 11–15 % of the storm where perf finds about 1 % (the socket writes themselves are
 * the kernel's, from uWS' own loop). This one says how a server's CPU splits between threads, the
 * kernel, garbage collection, V8's built-ins (its generic paths: calls, property look-ups, the
 * first call of each new closure), Effect's runtime and the project's own code.
 */
export const wanted = process.env.BENCH_PERF === '1'
/** Flags for the server's node when sampling: its JIT frames named in /tmp/perf-<pid>.map. */
export const nodeArgs: readonly string[] = wanted ? ['--perf-basic-prof'] : []
const HZ = 499

let target: number | undefined
let recording: { readonly child: ChildProcess; readonly file: string; readonly since: number } | undefined
let taken: { readonly file: string; readonly pid: number; readonly seconds: number } | undefined

/** Fails at once, before a long run, when perf is missing or cannot sample here. */
export const check = () => {
  if (!wanted) return
  const r = spawnSync('perf', ['record', '-F', String(HZ), '-g', '-o', '/dev/null', '--', 'true'], {
    encoding: 'utf8',
  })
  if (r.error || r.status !== 0)
    throw new Error(
      `BENCH_PERF=1 needs Linux perf able to sample (Debian: apt-get install linux-perf; ` +
        `kernel.perf_event_paranoid ≤ 1 or root): ${r.error?.message ?? r.stderr.trim()}`,
    )
}

/** The server process the next window samples (the one `startKotak` started last). */
export const follow = (pid: number) => {
  target = pid
}

/**
 * Starts sampling the followed server; a scenario's first measured window only (the kernel
 * scenario's second run is a bare uWS server, not Kotak), and never a process that has gone.
 */
export const start = () => {
  if (!wanted || target === undefined || recording || taken) return
  try {
    process.kill(target, 0)
  } catch {
    return
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-perf-')), 'perf.data')
  const child = spawn('perf', ['record', '-F', String(HZ), '-g', '-p', String(target), '-o', file], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  recording = { child, file, since: performance.now() }
}

export const stop = async () => {
  const r = recording
  if (!r) return
  recording = undefined
  const seconds = (performance.now() - r.since) / 1000
  if (r.child.exitCode === null && r.child.signalCode === null) {
    const exited = new Promise((resolve) => r.child.once('exit', resolve))
    r.child.kill('SIGINT')
    await exited
  }
  taken = { file: r.file, pid: target!, seconds }
}

interface Frame {
  readonly name: string
  readonly dso: string
}

const maps = new Map<string, SourceMap | null>()
const named = new Map<string, string>()

/** A JIT frame (`JS:*fn file:///…/dist/x.js:line:col`) as its source function and line. */
const jsName = (raw: string): string => {
  const known = named.get(raw)
  if (known !== undefined) return known
  const m = /^JS:[*^~]?(\S*) (?:file:\/\/)?(\S+):(\d+):(\d+)$/.exec(raw)
  let out = raw
  if (m) {
    const [, fn, file, line, col] = m
    if (file!.includes('/node_modules/'))
      out = `${fn || '(anonymous)'} ${file!.replace(/^.*node_modules\//, '')}:${line}`
    else if (file!.includes('/dist/')) {
      let map = maps.get(file!)
      if (map === undefined) {
        try {
          map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')))
        } catch {
          // The build keeps mappings only for the project's own sources (build.mjs): a chunk
          // without a map is the bundled Effect.
          map = null
        }
        maps.set(file!, map)
      }
      const entry = map?.findEntry(Number(line) - 1, Number(col) - 1) as
        | { originalSource?: string; originalLine?: number; name?: string }
        | undefined
      out =
        map === null
          ? `${fn || '(anonymous)'} (Effect)`
          : entry?.originalSource
            ? `${entry.name || fn || '(anonymous)'} ${entry.originalSource.replace(/^(\.\.\/)+/, '')}:${(entry.originalLine ?? 0) + 1}`
            : `${fn || '(anonymous)'} ${path.basename(file!)}:${line}`
    } else out = `${fn || '(anonymous)'} ${file!.replace(/^node:/, 'node:')}:${line}`
  }
  named.set(raw, out)
  return out
}

const category = (leaf: Frame): string => {
  if (leaf.dso === '[kernel.kallsyms]') return 'kernel'
  if (leaf.dso.startsWith('/tmp/perf-')) {
    if (leaf.name.endsWith('(Effect)')) return 'Effect runtime'
    if (leaf.name.includes('node_modules/')) return 'libraries'
    if (/\.ts:\d+$/.test(leaf.name)) return 'own code'
    if (leaf.name.startsWith('RegExp:')) return 'regular expressions'
    return 'Node.js internals (JS)'
  }
  if (/Scaveng|Heap::|MarkCompact|Marking|Sweep|Evacuat|MinorGC|GCTracer|GlobalHandles/.test(leaf.name))
    return 'garbage collection'
  if (/Json/.test(leaf.name)) return 'JSON'
  if (leaf.name === 'Builtins_CompileLazy') return 'first call of a new closure (CompileLazy)'
  if (leaf.name.startsWith('Builtins_')) return 'V8 built-ins'
  if (leaf.dso.endsWith('/node') || leaf.dso.includes('libnode')) return 'V8 and Node.js runtime'
  if (leaf.dso.includes('uws_')) return 'uWebSockets.js'
  if (leaf.dso.includes('libc.so')) return 'libc (allocation, copies, system calls)'
  return 'other native'
}

export interface PerfSummary {
  readonly seconds: number
  readonly samples: number
  /** CPU over the window in cores: the main thread, and the others (garbage collection, libuv) together. */
  readonly cores: { readonly main: number; readonly others: number; readonly otherThreads: number }
  /** The main thread's samples by where they were when taken, in per cent. */
  readonly categories: ReadonlyArray<{ readonly name: string; readonly percent: number }>
  /** The main thread's busiest functions by their own time. */
  readonly self: ReadonlyArray<{ readonly name: string; readonly percent: number }>
  /** The project's own functions by the time spent in them and what they call. */
  readonly inclusive: ReadonlyArray<{ readonly name: string; readonly percent: number }>
}

/** The last window's samples, summarised (null when none was taken). */
export const summarise = async (): Promise<PerfSummary | null> => {
  const t = taken
  taken = undefined
  if (!t) return null
  const script = spawn('perf', ['script', '-i', t.file, '-F', 'tid,ip,sym,dso'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const perThread = new Map<number, number>()
  const categories = new Map<string, number>()
  const self = new Map<string, number>()
  const inclusive = new Map<string, number>()
  let main = 0
  let samples = 0
  let tid = 0
  let frames: Frame[] = []
  const done = () => {
    if (tid === 0) return
    samples++
    perThread.set(tid, (perThread.get(tid) ?? 0) + 1)
    if (tid === t.pid && frames.length > 0) {
      main++
      const leaf = frames[0]!
      const leafName = leaf.dso.startsWith('/tmp/perf-')
        ? leaf.name
        : `${leaf.name} ${leaf.dso.startsWith('[') ? leaf.dso : `[${path.basename(leaf.dso)}]`}`
      const where = category(leaf)
      categories.set(where, (categories.get(where) ?? 0) + 1)
      self.set(leafName, (self.get(leafName) ?? 0) + 1)
      // Each own function once per sample, however deep it recursed.
      const own = new Set(frames.filter((f) => /\.ts:\d+$/.test(f.name)).map((f) => f.name))
      for (const name of own) inclusive.set(name, (inclusive.get(name) ?? 0) + 1)
    }
    tid = 0
    frames = []
  }
  const lines = readline.createInterface({ input: script.stdout! })
  for await (const line of lines) {
    if (line.length === 0) {
      done()
      continue
    }
    // Each sample: a line with its thread id, then its frames (a tab each), then a blank line.
    if (/^\s*\d+\s*$/.test(line)) {
      done()
      tid = Number(line)
      continue
    }
    // `\t    7fd3881a4dfd JS:*fn file:///…:12:3+0xbbd (/tmp/perf-1.map)`
    const m = /^\s*[0-9a-f]+ (.*?)(?:\+0x[0-9a-f]+)? \((.*)\)$/.exec(line)
    if (!m) continue
    const dso = m[2]!
    const sym = m[1]!
    frames.push({ name: dso.startsWith('/tmp/perf-') ? jsName(sym) : sym, dso })
  }
  done()
  fs.rmSync(path.dirname(t.file), { recursive: true, force: true })
  // V8 keeps appending to the JIT map while the process lives; the server has stopped by now.
  fs.rmSync(`/tmp/perf-${t.pid}.map`, { force: true })
  const cores = (n: number) => Math.round((100 * n) / (HZ * t.seconds)) / 100
  const others = [...perThread].filter(([id]) => id !== t.pid)
  return {
    seconds: Math.round(t.seconds * 10) / 10,
    samples,
    cores: {
      main: cores(perThread.get(t.pid) ?? 0),
      others: cores(others.reduce((n, [, c]) => n + c, 0)),
      otherThreads: others.length,
    },
    categories: top(categories, main, 20),
    self: top(self, main, 15),
    inclusive: top(inclusive, main, 15),
  }
}

export const markdown = (p: PerfSummary) => {
  const rows = (xs: ReadonlyArray<{ readonly name: string; readonly percent: number }>) =>
    xs.map((x) => `| ${x.percent} % | \`${x.name.replace(/\|/g, '\\|')}\` |`).join('\n')
  return (
    `## Server profile (perf, ${p.seconds} s of the measured window, ${p.samples} samples at ${HZ} Hz)\n\n` +
    `CPU: the main thread ${p.cores.main} cores, ${p.cores.otherThreads} other threads ${p.cores.others}.\n\n` +
    `| main thread | where |\n| --- | --- |\n${rows(p.categories)}\n\n` +
    `| self | function |\n| --- | --- |\n${rows(p.self)}\n\n` +
    `| with what it calls | own function |\n| --- | --- |\n${rows(p.inclusive)}\n`
  )
}
