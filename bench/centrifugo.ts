import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

/**
 * Centrifugo for the fanout comparison (issue 26): built with `go install` into a bench-local
 * GOBIN (bench/.bin, ignored by git; its code is never committed), started with a generated
 * configuration (memory engine, HTTP API key, HS256 connection tokens, clients may subscribe to
 * channels without a namespace, 1,000 publications of history so every publication carries an
 * offset the driver checks for gaps and a slow client can recover), and stopped.
 */
export const CENTRIFUGO_VERSION = process.env.BENCH_CENTRIFUGO_VERSION ?? 'v6.9.1'
const MODULE = 'github.com/centrifugal/centrifugo/v6'

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..')
const binDir = path.join(root, 'bench', '.bin')
const binary = path.join(binDir, 'centrifugo')
/** The version the binary was built from: `go install` leaves Centrifugo's own version string empty. */
const stamp = path.join(binDir, 'centrifugo.version')

/** The binary when it is built from the pinned version, else undefined. */
export const builtCentrifugo = () =>
  fs.existsSync(binary) &&
  fs.existsSync(stamp) &&
  fs.readFileSync(stamp, 'utf8').trim() === CENTRIFUGO_VERSION
    ? binary
    : undefined

/**
 * Builds the pinned version with `go install` (minutes the first time: the module and its
 * dependencies come from the Go module proxy). Throws with go's own message when that fails.
 */
export const installCentrifugo = (go: string, log: (m: string) => void) => {
  const built = builtCentrifugo()
  if (built) return built
  fs.mkdirSync(binDir, { recursive: true })
  log(
    `building Centrifugo ${CENTRIFUGO_VERSION} (go install ${MODULE}@${CENTRIFUGO_VERSION} into bench/.bin)`,
  )
  try {
    execFileSync(go, ['install', `${MODULE}@${CENTRIFUGO_VERSION}`], {
      env: { ...process.env, GOBIN: binDir },
      stdio: ['ignore', 'inherit', 'pipe'],
      encoding: 'utf8',
    })
  } catch (e) {
    const stderr = (e as { stderr?: string }).stderr ?? ''
    throw new Error(`go install ${MODULE}@${CENTRIFUGO_VERSION} failed: ${stderr.trim() || String(e)}`)
  }
  fs.writeFileSync(stamp, `${CENTRIFUGO_VERSION}\n`)
  return binary
}

export interface Centrifugo {
  readonly url: string
  readonly child: ChildProcess
  readonly apiKey: string
  readonly hmacSecret: string
  readonly channel: string
  readonly stop: () => Promise<void>
}

export const startCentrifugo = async (bin: string, port: number): Promise<Centrifugo> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-centrifugo-'))
  const apiKey = randomBytes(16).toString('hex')
  const hmacSecret = randomBytes(32).toString('hex')
  const config = {
    http_server: { address: '0.0.0.0', port },
    log: { level: 'warn' },
    engine: { type: 'memory' },
    client: { token: { hmac_secret_key: hmacSecret }, allowed_origins: ['*'] },
    http_api: { key: apiKey },
    channel: {
      without_namespace: {
        allow_subscribe_for_client: true,
        history_size: 1000,
        history_ttl: '300s',
        allow_recovery: true,
      },
    },
    health: { enabled: true },
    usage_stats: { disabled: true },
  }
  const file = path.join(dir, 'config.json')
  fs.writeFileSync(file, JSON.stringify(config, null, 2))
  const child = spawn(
    'bash',
    ['-c', 'ulimit -n 1048576 2>/dev/null || ulimit -n 65536; exec "$0" "$@"', bin, '--config', file],
    { cwd: dir, stdio: ['ignore', 'inherit', 'inherit'] },
  )
  const url = `http://127.0.0.1:${port}`
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`Centrifugo exited with ${child.exitCode}`)
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) break
    if (i > 300) throw new Error('Centrifugo did not come up in 30 s')
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    url,
    child,
    apiKey,
    hmacSecret,
    channel: 'bench',
    stop: async () => {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      await exited
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}
