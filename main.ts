import { systemMillis } from './engine/clock'
import { loadConfig } from './engine/config'
import { start } from './http/app'
import type { Pending } from './http/server'

/** SIGTERM ends the process within 10 s (requests in progress get 5 of them to finish). */
const STOP_DEADLINE_MS = 9_000
const DRAIN_MS = 5_000

/** `npm start`: one node of the service, configured from the environment (see README). */
const main = async () => {
  const cfg = loadConfig()
  const app = await start(cfg)
  const line = (level: string, msg: string, fields: Record<string, unknown> = {}) =>
    process.stdout.write(
      `${JSON.stringify({ t: new Date(systemMillis()).toISOString(), level, msg, ...fields })}\n`,
    )
  const running = (pending: readonly Pending[]) =>
    pending.map((p) => `${p.method} ${p.path} (${Math.round(performance.now() - p.since)} ms)`)
  let stopping = false
  const shutdown = async (signal: string) => {
    // A second signal while stopping: the operator wants out now.
    if (stopping) process.exit(1)
    stopping = true
    line('info', 'stopping', { signal })
    // Whatever hangs (a request stuck on the database, a service that will not close), the
    // process ends within STOP_DEADLINE_MS, naming what was still running.
    let drained: readonly Pending[] = []
    const deadline = setTimeout(() => {
      const still = app.pending()
      line('error', 'stopped before work finished', {
        running: running(still.length > 0 ? still : drained),
      })
      process.exit(1)
    }, STOP_DEADLINE_MS)
    const left = await app.stop({
      drainMs: DRAIN_MS,
      onDrained: (l) => {
        drained = l
      },
    })
    clearTimeout(deadline)
    if (left.length > 0) {
      line('error', 'stopped before work finished', { running: running(left) })
      process.exit(1)
    }
    process.exit(0)
  }
  process.on('SIGINT', () => void shutdown('SIGINT'))
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((e: unknown) => {
  process.stderr.write(`kotak: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
