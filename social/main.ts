import { systemMillis } from '../engine/clock'
import { start } from './app'
import { loadSocialConfig } from './config'

/** `npm run start:social`: the social reporting service (spec 3), configured from the environment. */
const main = async () => {
  const cfg = loadSocialConfig()
  const app = await start(cfg)
  const shutdown = async (signal: string) => {
    process.stdout.write(
      `${JSON.stringify({ t: new Date(systemMillis()).toISOString(), level: 'info', msg: 'stopping', service: 'social', signal })}\n`,
    )
    await app.stop()
    process.exit(0)
  }
  process.once('SIGINT', () => void shutdown('SIGINT'))
  process.once('SIGTERM', () => void shutdown('SIGTERM'))
}

main().catch((e: unknown) => {
  process.stderr.write(`kotak-social: ${e instanceof Error ? e.message : String(e)}\n`)
  process.exit(1)
})
