import * as fs from 'node:fs'
import { parseArgs } from 'node:util'
import { Effect, ManagedRuntime } from 'effect'
import { makeLogger } from '../engine/log'
import { servicesLayer } from './app'
import { loadSocialConfig } from './config'
import { generate, toNdjson } from './demo'
import { type ImportReport, importNdjson } from './import'
import type { SocialServices } from './route'
import * as Channels from './store/channels'
import * as Keys from './store/keys'
import * as Workspaces from './store/workspaces'
import { isDate } from './time'

/**
 * The operator CLI of the social reporting service (`npm run social -- …`). Talks to the same
 * database as the service (DATABASE_URL, or the embedded one under DATA_DIR while the service is
 * stopped). Prints JSON; bad arguments print a message and the usage and exit 2; failures exit 1.
 */

const usage = `Usage: npm run social -- <command> [options]

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
                   Months of realistic demo traffic. Without --workspace: a new Pro workspace and
                   a key to try the API with. With --out: only writes the NDJSON file.`

class UsageError extends Error {}
class Failure extends Error {}

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

type Opts = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'string' ? string : boolean }

const need = (o: Opts, key: keyof Opts): string => {
  const v = o[key]
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${key} is required`)
  return v.trim()
}

const intOf = (flag: string, v: string, min: number, max: number): number => {
  const n = Number(v)
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`--${flag} must be an integer from ${min} to ${max}, got ${v}`)
  }
  return n
}

const idOf = (flag: string, v: string) => intOf(flag, v, 1, 2_147_483_647)

const planOf = (v: string): Workspaces.Plan => {
  if (!(Workspaces.plans as readonly string[]).includes(v)) {
    throw new UsageError(`--plan must be one of ${Workspaces.plans.join(', ')}, got ${v}`)
  }
  return v as Workspaces.Plan
}

const proUntilOf = (plan: Workspaces.Plan, v: string | undefined): string | null => {
  if (v === undefined) return null
  if (!isDate(v)) throw new UsageError(`--pro-until must be a date YYYY-MM-DD, got ${v}`)
  if (plan !== 'pro') throw new UsageError('--pro-until goes with --plan pro')
  return v
}

const nameOf = (v: string) => {
  if (v.length > 120) throw new UsageError('--name must be at most 120 characters')
  return v
}

const workspaceOut = (w: Workspaces.WorkspaceRow) => ({
  id: w.id,
  name: w.name,
  plan: w.plan,
  pro_until: w.pro_until,
  plan_active: w.plan_active,
})

const keyOut = (k: Keys.KeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  created_at: k.created_at,
  last_used_at: k.last_used_at,
  revoked_at: k.revoked_at,
})

const existing = (id: number) =>
  Effect.flatMap(Workspaces.byId(id), (w) =>
    w ? Effect.succeed(w) : Effect.fail(new Failure(`no workspace ${id} (see: workspace list)`)),
  )

const PLAN_WARNING = 'the workspace has no active Pro plan: requests with this key get 402 until it has one'

const importFailed = (report: ImportReport) => report.refused > 0

const imported = (workspaceId: number, text: string) =>
  Effect.map(importNdjson(workspaceId, text), (report) => ({ workspace: workspaceId, ...report }))

const demo = (o: Opts, days: number) =>
  Effect.gen(function* () {
    let workspace: Workspaces.WorkspaceRow
    let key: string | undefined
    if (o.workspace !== undefined) {
      workspace = yield* existing(idOf('workspace', o.workspace))
    } else {
      workspace = yield* Workspaces.create('Toko Maju (demo)', 'pro', null)
      key = (yield* Keys.create(workspace.id, 'demo')).key
    }
    const seed = o.seed === undefined ? workspace.id : intOf('seed', o.seed, 1, 999_999)
    const records = generate({ seed, days, now: new Date() })
    const report = yield* importNdjson(workspace.id, toNdjson(records))
    if (report.refused > 0) {
      return yield* Effect.fail(
        new Failure(`demo import refused ${report.refused} records: ${report.errors[0]?.message ?? ''}`),
      )
    }
    const channels = yield* Channels.list(workspace.id)
    const port = process.env.PORT ?? '8090'
    return {
      workspace: workspaceOut(workspace),
      channels: channels.map((c) => ({ id: c.id, account_id: c.external_id, username: c.username })),
      created: report.created,
      ...(key
        ? {
            key,
            try: `curl -H "Authorization: Bearer ${key}" http://localhost:${port}/api/v1/reports/summary`,
          }
        : {}),
    }
  })

type Program =
  | { readonly _tag: 'Local'; readonly run: () => unknown }
  | { readonly _tag: 'Db'; readonly effect: Effect.Effect<unknown, unknown, SocialServices> }

const db = (effect: Effect.Effect<unknown, unknown, SocialServices>): Program => ({ _tag: 'Db', effect })

const command = (words: readonly string[], o: Opts): Program => {
  const cmd = words.join(' ')
  switch (cmd) {
    case 'workspace create': {
      const name = nameOf(need(o, 'name'))
      const plan = planOf(o.plan ?? 'free')
      const proUntil = proUntilOf(plan, o['pro-until'])
      return db(Effect.map(Workspaces.create(name, plan, proUntil), (w) => ({ workspace: workspaceOut(w) })))
    }
    case 'workspace list':
      return db(Effect.map(Workspaces.list, (ws) => ({ workspaces: ws.map(workspaceOut) })))
    case 'plan set': {
      const id = idOf('workspace', need(o, 'workspace'))
      const plan = planOf(need(o, 'plan'))
      const proUntil = proUntilOf(plan, o['pro-until'])
      return db(
        Effect.flatMap(Workspaces.setPlan(id, plan, proUntil), (w) =>
          w ? Effect.succeed({ workspace: workspaceOut(w) }) : Effect.fail(new Failure(`no workspace ${id}`)),
        ),
      )
    }
    case 'key create': {
      const id = idOf('workspace', need(o, 'workspace'))
      const name = nameOf(need(o, 'name'))
      return db(
        Effect.gen(function* () {
          const w = yield* existing(id)
          const { row, key } = yield* Keys.create(id, name)
          return { ...keyOut(row), key, ...(w.plan_active ? {} : { warning: PLAN_WARNING }) }
        }),
      )
    }
    case 'key list': {
      const id = idOf('workspace', need(o, 'workspace'))
      return db(Effect.map(Effect.zipRight(existing(id), Keys.list(id)), (ks) => ({ keys: ks.map(keyOut) })))
    }
    case 'key revoke': {
      const id = idOf('workspace', need(o, 'workspace'))
      const keyId = idOf('key', need(o, 'key'))
      return db(
        Effect.flatMap(Keys.revoke(id, keyId), (done) =>
          done
            ? Effect.succeed({ key: { id: keyId, revoked: true } })
            : Effect.fail(new Failure(`workspace ${id} has no active key ${keyId}`)),
        ),
      )
    }
    case 'channel add': {
      const id = idOf('workspace', need(o, 'workspace'))
      const account = need(o, 'account-id')
      const username = need(o, 'username').replace(/^@/, '')
      if (!/^[\w.-]{1,100}$/.test(account))
        throw new UsageError('--account-id must be the platform account id')
      return db(
        Effect.gen(function* () {
          yield* existing(id)
          const c = yield* Channels.upsert(id, account, username).pipe(
            Effect.catchTag('AccountTaken', (e) =>
              Effect.fail(new Failure(`account ${account} already belongs to workspace ${e.workspaceId}`)),
            ),
          )
          return { channel: { id: c.id, account_id: c.external_id, username: c.username } }
        }),
      )
    }
    case 'channel list': {
      const id = idOf('workspace', need(o, 'workspace'))
      return db(
        Effect.map(Effect.zipRight(existing(id), Channels.list(id)), (cs) => ({
          channels: cs.map((c) => ({ id: c.id, account_id: c.external_id, username: c.username })),
        })),
      )
    }
    case 'import': {
      const id = idOf('workspace', need(o, 'workspace'))
      const file = need(o, 'file')
      let text: string
      try {
        text = fs.readFileSync(file === '-' ? 0 : file, 'utf8')
      } catch (e) {
        throw new UsageError(`cannot read --file ${file}: ${(e as Error).message}`)
      }
      return db(Effect.zipRight(existing(id), imported(id, text)))
    }
    case 'demo': {
      const days = o.days === undefined ? 120 : intOf('days', o.days, 1, 730)
      if (o.out !== undefined) {
        const out = o.out
        const seed = o.seed === undefined ? 1 : intOf('seed', o.seed, 1, 999_999)
        return {
          _tag: 'Local',
          run: () => {
            const records = generate({ seed, days, now: new Date() })
            fs.writeFileSync(out, toNdjson(records))
            return { file: out, records: records.length, seed, days }
          },
        }
      }
      return db(demo(o, days))
    }
    default:
      throw new UsageError(words.length ? `unknown command: ${cmd}` : 'no command given')
  }
}

const main = async (argv: readonly string[]): Promise<number> => {
  let parsed: { values: Opts; positionals: string[] }
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true }) as typeof parsed
  } catch (e) {
    throw new UsageError((e as Error).message)
  }
  if (parsed.values.help) {
    process.stdout.write(`${usage}\n`)
    return 0
  }
  const program = command(parsed.positionals, parsed.values)
  if (program._tag === 'Local') {
    process.stdout.write(`${JSON.stringify(program.run(), null, 2)}\n`)
    return 0
  }
  const cfg = { ...loadSocialConfig(), logLevel: 'none' as const }
  const runtime = ManagedRuntime.make(servicesLayer(cfg, { logger: makeLogger('none') }))
  try {
    const result = await runtime.runPromise(program.effect)
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
    if (parsed.positionals[0] === 'import' && importFailed(result as ImportReport)) {
      process.stderr.write(
        `kotak-social: ${(result as ImportReport).refused} lines refused (see errors); the rest was imported\n`,
      )
      return 1
    }
    return 0
  } finally {
    await runtime.dispose()
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof UsageError) {
      process.stderr.write(`kotak-social: ${e.message}\n\n${usage}\n`)
      process.exit(2)
    }
    const msg = e instanceof Error ? e.message : String(e)
    process.stderr.write(`kotak-social: ${msg.replace(/^\(FiberFailure\) \w*Error: /, '')}\n`)
    process.exit(1)
  },
)
