import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import * as path from 'node:path'
import { watch } from './child'
import { waitFor } from './cluster'
import { freePort, tempDir } from './server'
import { SYSTEM_PACKAGES } from './systemPackages'

/**
 * A real Prometheus (Debian's `prometheus` package) for tests: its own port, a fresh storage
 * directory, a configuration that scrapes the given targets every second under `job="kotak"`
 * and loads the given rule files. Never the system service: nothing here touches port 9090 or
 * /var/lib/prometheus.
 */
export interface TestPrometheus {
  readonly url: string
  /** An instant query: Prometheus's JSON answer as is (`status` `success` or `error`). */
  readonly query: (expr: string) => Promise<QueryAnswer>
  /** `GET /api/v1/<path>`, parsed. */
  readonly api: <A>(p: string) => Promise<A>
  readonly output: () => string
  readonly stop: () => Promise<void>
}

export interface QueryAnswer {
  readonly status: 'success' | 'error'
  readonly error?: string
  readonly data?: {
    readonly resultType: string
    /** For an instant vector: each series's labels and its `[time, value]`. */
    readonly result: ReadonlyArray<{
      readonly metric: Readonly<Record<string, string>>
      readonly value?: readonly [number, string]
    }>
  }
}

export const startPrometheus = async (options: {
  readonly targets: readonly string[]
  readonly ruleFiles?: readonly string[]
}): Promise<TestPrometheus> => {
  const dir = tempDir('kotak-prometheus-')
  const port = await freePort()
  const config = {
    global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
    rule_files: options.ruleFiles ?? [],
    scrape_configs: [{ job_name: 'kotak', static_configs: [{ targets: options.targets }] }],
  }
  // JSON is YAML: no YAML writer needed.
  const configFile = path.join(dir, 'prometheus.yml')
  fs.writeFileSync(configFile, JSON.stringify(config))
  const proc = spawn(
    SYSTEM_PACKAGES.prometheus.binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  const watched = watch(proc)
  const url = `http://127.0.0.1:${port}`
  const stop = async () => {
    await watched.stop(10_000)
    fs.rmSync(dir, { recursive: true, force: true })
  }
  try {
    await waitFor(
      'prometheus to be ready',
      async () => {
        if (!watched.alive()) throw new Error(`prometheus exited: ${watched.output()}`)
        return (await fetch(`${url}/-/ready`)).status === 200
      },
      { timeoutMs: 30_000, intervalMs: 200 },
    )
  } catch (e) {
    await stop()
    throw e
  }
  const api = async <A>(p: string): Promise<A> => (await (await fetch(`${url}/api/v1/${p}`)).json()) as A
  return {
    url,
    api,
    query: (expr) => api<QueryAnswer>(`query?query=${encodeURIComponent(expr)}`),
    output: watched.output,
    stop,
  }
}
