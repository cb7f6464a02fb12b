import { usageText } from '../engine/commandLine'
import { type Command, parseCommand, UsageError, usage } from './cliArgs'

/**
 * `npm run social -- …`: the operator CLI of the social reporting service (commands in
 * cliArgs.ts, their work in cliRun.ts). Arguments are checked before the service's modules load,
 * so a typo is answered at once with the usage and exit 2.
 */
const main = async (): Promise<number> => {
  let command: Command
  try {
    command = parseCommand(process.argv.slice(2))
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    process.stderr.write(usageText('kotak-social', e.message, usage))
    return 2
  }
  const { execute } = await import('./cliRun')
  const r = await execute(command, process.env)
  process.stdout.write(r.stdout)
  process.stderr.write(r.stderr)
  return r.code
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`kotak-social: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  },
)
