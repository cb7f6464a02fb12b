import * as CommandLine from '../engine/commandLine'
import { UsageError } from '../engine/commandLine'
import { type Plan, plans } from './plan'
import { isDate } from './time'

/**
 * The operator CLI's commands and their arguments, parsed without loading the service (a typo
 * is answered at once). Bad arguments throw `UsageError` (exit 2).
 */
export const usage = `Usage: npm run social -- <command> [options]

  workspace create --name NAME [--plan free|pro] [--pro-until YYYY-MM-DD]
  workspace list
  plan set         --workspace ID --plan free|pro [--pro-until YYYY-MM-DD]
                   --pro-until is the plan's last day (Asia/Jakarta); without it Pro does not end.
  key create       --workspace ID --name NAME
                   Prints the key (svcb_live_…) once; only its SHA-256 is stored.
  key list         --workspace ID
  key revoke       --workspace ID --key KEY_ID
                   Requests with the key get 401 from then on.
  channel add      --workspace ID --account-id PLATFORM_ACCOUNT_ID --username NAME
                   Routes webhook notifications for that account to the workspace.
  channel list     --workspace ID
  import           --workspace ID --file PATH   (PATH "-" reads standard input)
                   NDJSON records; importing the same file again changes nothing.
  demo             [--workspace ID] [--days 1..730] [--seed N] [--out PATH]
                   Months of realistic demo traffic (120 days by default). Without --workspace: a
                   new Pro workspace and a key to try the API with. With --out: only writes the file.

Environment: DATABASE_URL, or the embedded database under DATA_DIR (default ./data/social) while
the service is stopped.`

export { UsageError }

export type Command =
  | { readonly _tag: 'help' }
  | {
      readonly _tag: 'workspace create'
      readonly name: string
      readonly plan: Plan
      readonly proUntil: string | null
    }
  | { readonly _tag: 'workspace list' }
  | {
      readonly _tag: 'plan set'
      readonly workspace: number
      readonly plan: Plan
      readonly proUntil: string | null
    }
  | { readonly _tag: 'key create'; readonly workspace: number; readonly name: string }
  | { readonly _tag: 'key list'; readonly workspace: number }
  | { readonly _tag: 'key revoke'; readonly workspace: number; readonly key: number }
  | {
      readonly _tag: 'channel add'
      readonly workspace: number
      readonly accountId: string
      readonly username: string
    }
  | { readonly _tag: 'channel list'; readonly workspace: number }
  | { readonly _tag: 'import'; readonly workspace: number; readonly file: string }
  | {
      readonly _tag: 'demo'
      readonly workspace: number | undefined
      readonly days: number
      readonly seed: number | undefined
      readonly out: string | undefined
    }

const options = {
  name: { type: 'string' },
  plan: { type: 'string' },
  'pro-until': { type: 'string' },
  workspace: { type: 'string' },
  key: { type: 'string' },
  'account-id': { type: 'string' },
  username: { type: 'string' },
  file: { type: 'string' },
  days: { type: 'string' },
  seed: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

type Opts = CommandLine.Values<typeof options>

const need = CommandLine.need<typeof options>

const intOf = (flag: string, v: string, min: number, max: number): number => {
  const n = Number(v)
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got ${v}`)
  }
  return n
}

const idOf = (o: Opts, flag: 'workspace' | 'key') => intOf(flag, need(o, flag), 1, 2_147_483_647)

const planOf = (v: string): Plan => {
  if (!(plans as readonly string[]).includes(v)) {
    throw new UsageError(`--plan must be one of ${plans.join(', ')}, got ${v}`)
  }
  return v as Plan
}

const proUntilOf = (plan: Plan, v: string | undefined): string | null => {
  if (v === undefined) return null
  if (!isDate(v)) throw new UsageError(`--pro-until must be a date YYYY-MM-DD, got ${v}`)
  if (plan !== 'pro') throw new UsageError('--pro-until goes with --plan pro')
  return v
}

const nameOf = (o: Opts) => {
  const v = need(o, 'name')
  if (v.length > 120) throw new UsageError('--name must be at most 120 characters')
  return v
}

export const parseCommand = (argv: readonly string[]): Command => {
  const parsed = CommandLine.parse(argv, options)
  const o = parsed.values
  if (o.help) return { _tag: 'help' }
  const words = parsed.words.join(' ')
  switch (words) {
    case 'workspace create': {
      const plan = planOf(o.plan ?? 'free')
      return { _tag: words, name: nameOf(o), plan, proUntil: proUntilOf(plan, o['pro-until']) }
    }
    case 'workspace list':
      return { _tag: words }
    case 'plan set': {
      const workspace = idOf(o, 'workspace')
      const plan = planOf(need(o, 'plan'))
      return { _tag: words, workspace, plan, proUntil: proUntilOf(plan, o['pro-until']) }
    }
    case 'key create':
      return { _tag: words, workspace: idOf(o, 'workspace'), name: nameOf(o) }
    case 'key list':
    case 'channel list':
      return { _tag: words, workspace: idOf(o, 'workspace') }
    case 'key revoke':
      return { _tag: words, workspace: idOf(o, 'workspace'), key: idOf(o, 'key') }
    case 'channel add': {
      const workspace = idOf(o, 'workspace')
      const accountId = need(o, 'account-id')
      if (!/^[\w.-]{1,100}$/.test(accountId)) {
        throw new UsageError(`--account-id must be the platform's account id, got ${accountId}`)
      }
      const username = need(o, 'username').replace(/^@/, '')
      if (!/^[\w.]{1,100}$/.test(username)) throw new UsageError(`--username is not a username: ${username}`)
      return { _tag: words, workspace, accountId, username }
    }
    case 'import':
      return { _tag: words, workspace: idOf(o, 'workspace'), file: need(o, 'file') }
    case 'demo':
      return {
        _tag: words,
        workspace: o.workspace === undefined ? undefined : idOf(o, 'workspace'),
        days: o.days === undefined ? 120 : intOf('days', o.days, 1, 730),
        seed: o.seed === undefined ? undefined : intOf('seed', o.seed, 1, 999_999),
        out: o.out,
      }
    default:
      throw new UsageError(words ? `unknown command: ${words}` : 'no command given')
  }
}
