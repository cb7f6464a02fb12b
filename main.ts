import { loadConfig } from './engine/config'
import { start } from './http/app'

/** `npm start`: one node of the service, configured from the environment (see README). */
const main = async () => {
  const cfg = loadConfig()
  const app = await start(cfg)
  const shutdown = async (signal: string) => {
    process.stdout.write(
      `${JSON.stringify({ t: new Date().toISOString(), level: 'info', msg: 'stopping', signal })}\n`,
    )
    await app.stop()
    process.exit(0)
  }
  process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((e: unknown) => {
  process.stderr.write(`kotak: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
