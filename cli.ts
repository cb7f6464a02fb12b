import { Effect, type Layer, ManagedRuntime } from 'effect'
import * as Billing from './actors/admin/billing'
import * as Rollup from './actors/reports/rollup'
import * as PaymentProviderLocal from './connectors/payments/PaymentProviderLocal'
import * as BusRelay from './engine/bus/BusRelay'
import { currentTime } from './engine/clock'
import { parse, need as requireOption, UsageError, usageText, type Values } from './engine/commandLine'
import { loadConfig } from './engine/config'
import { makeLogger } from './engine/log'
import { servicesLayer } from './http/app'
import * as ApiKeys from './store/apiKeys'
import * as Database from './store/database'
import * as PlanRequests from './store/planRequests'
import { isPaidActive, type Plan, plans } from './store/plans'
import * as Sessions from './store/sessions'
import * as Users from './store/users'
import * as Workspaces from './store/workspaces'

/**
 * The operator CLI: bootstraps a deployment without any identity provider. Talks to the same
 * database as the server (DATABASE_URL, or the embedded one under DATA_DIR: its own, or the running
 * node's through that node's socket), and beside a running node joins its bus, so the node hears
 * every change at once. Prints JSON on success; a clear message and a non-zero exit otherwise.
 */

const usage = `Usage: npx kotak <command> [options]   (or: npm run kotak -- <command> [options])

  workspace create --name NAME --owner-email EMAIL --owner-name NAME
                   [--plan free|pro|custom] [--pro-until YYYY-MM-DD] [--timezone ZONE]
  workspace plan   --workspace ID --plan free|pro|custom [--pro-until YYYY-MM-DD]
                   [--workspaces N]  (Custom: how many workspaces the customer may own; 0 = any)
  workspace freeze --workspace ID        (workspace unfreeze --workspace ID)
  key create       --workspace ID --name NAME [--scope read|write]
                   Prints the key once; it cannot be shown again.
  login-link       --email EMAIL [--minutes 1..1440]
                   A one-time sign-in link (default valid 30 minutes).
  billing confirm  --invoice NUMBER [--status paid|failed]
                   Confirms a payment taken outside the server (local payment provider).
  plan-requests    [--limit 1..500]  The newest Custom plan requests from the public site (default 50).
  billing settle   Moves plans whose paid period and grace ended now (the server does this
                   every minute): Pro to Free, Custom to frozen.
  reports rebuild  [--workspace ID]  Recomputes the report roll-ups from their facts (one
                   workspace, or all).`

const options = {
  name: { type: 'string' },
  'owner-email': { type: 'string' },
  'owner-name': { type: 'string' },
  plan: { type: 'string' },
  'pro-until': { type: 'string' },
  timezone: { type: 'string' },
  workspace: { type: 'string' },
  scope: { type: 'string' },
  email: { type: 'string' },
  minutes: { type: 'string' },
  invoice: { type: 'string' },
  workspaces: { type: 'string' },
  limit: { type: 'string' },
  status: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

type Opts = Values<typeof options>

const need = requireOption<typeof options>

const emailOf = (v: string) => {
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v))
    throw new UsageError(`--owner-email/--email is not an e-mail address: ${v}`)
  return v
}

const planOf = (v: string): Plan => {
  if (!(plans as readonly string[]).includes(v))
    throw new UsageError(`--plan must be one of ${plans.join(', ')}`)
  return v as Plan
}

const dateOf = (v: string | undefined): Date | null => {
  if (v === undefined) return null
  const d = new Date(`${v}T00:00:00Z`)
  if (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(d.getTime()))
    throw new UsageError('--pro-until must be YYYY-MM-DD')
  return d
}

const idOf = (v: string) => {
  const n = Number(v)
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--workspace must be a positive integer id, got ${v}`)
  return n
}

const zoneOf = (v: string | undefined) => {
  const zone = v ?? 'Asia/Jakarta'
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone })
  } catch {
    throw new UsageError(`--timezone is not an IANA zone: ${zone}`)
  }
  return zone
}

const fail = (message: string) => Effect.fail(new Error(message))

const command = (
  words: readonly string[],
  o: Opts,
): Effect.Effect<unknown, unknown, Layer.Layer.Success<ReturnType<typeof servicesLayer>>> => {
  const cmd = words.join(' ')
  switch (cmd) {
    case 'workspace create': {
      const name = need(o, 'name')
      if (name.length < 2 || name.length > 120) throw new UsageError('--name must be 2 to 120 characters')
      const input = {
        name,
        owner: { email: emailOf(need(o, 'owner-email')), name: need(o, 'owner-name') },
        plan: planOf(o.plan ?? 'free'),
        proUntil: dateOf(o['pro-until']),
        timezone: zoneOf(o.timezone),
      }
      return Workspaces.create(input).pipe(
        Effect.map(({ workspace, user }) => ({
          workspace: { id: workspace.id, name: workspace.name, slug: workspace.slug, plan: workspace.plan },
          owner: { id: user.id, email: user.email, name: user.name },
        })),
      )
    }
    case 'workspace plan': {
      const id = idOf(need(o, 'workspace'))
      const plan = planOf(need(o, 'plan'))
      const proUntil = dateOf(o['pro-until'])
      const allowance = o.workspaces === undefined ? undefined : Number(o.workspaces)
      if (allowance !== undefined && (!Number.isInteger(allowance) || allowance < 0 || allowance > 1000))
        throw new UsageError('--workspaces must be 0 (any number) to 1000')
      if (allowance !== undefined && plan !== 'custom')
        throw new UsageError('--workspaces needs --plan custom')
      return Effect.gen(function* () {
        const w = yield* Workspaces.setPlan(id, plan, proUntil)
        if (!w) return yield* fail(`no workspace ${id}`)
        if (allowance !== undefined) yield* Workspaces.setContractWorkspaces(id, allowance)
        return {
          workspace: {
            id: w.id,
            plan: w.plan,
            pro_until: w.pro_until,
            ...(allowance !== undefined ? { contract_workspaces: allowance } : {}),
          },
        }
      })
    }
    case 'workspace freeze':
    case 'workspace unfreeze': {
      const id = idOf(need(o, 'workspace'))
      const frozen = words[1] === 'freeze'
      return Effect.flatMap(Workspaces.byId(id), (w) =>
        w
          ? Effect.as(Workspaces.setFrozen(id, frozen), { workspace: { id, frozen } })
          : fail(`no workspace ${id}`),
      )
    }
    case 'key create': {
      const id = idOf(need(o, 'workspace'))
      const name = need(o, 'name')
      const scope = o.scope ?? 'write'
      if (scope !== 'read' && scope !== 'write') throw new UsageError('--scope must be read or write')
      return Effect.gen(function* () {
        const w = yield* Workspaces.byId(id)
        if (!w) return yield* fail(`no workspace ${id}`)
        if (!isPaidActive(w, yield* currentTime)) {
          return yield* fail(
            `workspace ${id} is on the ${w.plan} plan; API keys need an active Pro or Custom plan`,
          )
        }
        if ((yield* ApiKeys.countActive(id)) >= ApiKeys.MAX_ACTIVE_KEYS) {
          return yield* fail(`workspace ${id} already has ${ApiKeys.MAX_ACTIVE_KEYS} active keys`)
        }
        if (w.owner_user_id === null) return yield* fail(`workspace ${id} has no owner`)
        const { row, key } = yield* ApiKeys.create(id, w.owner_user_id, name, scope)
        return { id: row.id, name: row.name, scope: row.scope, prefix: row.prefix, key }
      })
    }
    case 'login-link': {
      const email = emailOf(need(o, 'email'))
      const minutes = Number(o.minutes ?? '30')
      if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440)
        throw new UsageError('--minutes must be 1 to 1440')
      return Effect.gen(function* () {
        const user = yield* Users.byEmail(email)
        if (!user) return yield* fail(`no user with e-mail ${email}`)
        const token = yield* Sessions.createLoginLink(user.id, minutes)
        const cfg = loadConfig()
        return { url: `${cfg.publicUrl}/auth/link/${token}`, expires_in_minutes: minutes }
      })
    }
    case 'billing confirm': {
      const number = need(o, 'invoice')
      const status = o.status ?? 'paid'
      if (status !== 'paid' && status !== 'failed') throw new UsageError('--status must be paid or failed')
      return Effect.flatMap(PaymentProviderLocal.confirmInvoice(number, status), (outcome) =>
        outcome
          ? Effect.succeed({ invoice: number, result: outcome._tag.toLowerCase() })
          : fail(`no pending local payment for invoice ${number}`),
      )
    }
    case 'plan-requests': {
      const limit = Number(o.limit ?? '50')
      if (!Number.isInteger(limit) || limit < 1 || limit > 500)
        throw new UsageError('--limit must be 1 to 500')
      return Effect.map(PlanRequests.list(limit), (rows) => ({
        plan_requests: rows.map((r) => ({ ...r, created_at: r.created_at.toISOString() })),
      }))
    }
    case 'billing settle':
      return Effect.map(Billing.settleNow(), (settled) => ({
        settled: settled.map((x) => ({ workspace: x.workspaceId, change: x.change })),
      }))
    case 'reports rebuild': {
      const id = o.workspace === undefined ? undefined : idOf(o.workspace)
      return Effect.map(Rollup.rebuild(id), (done) => ({ rebuilt: done }))
    }
    default:
      throw new UsageError(words.length ? `unknown command: ${cmd}` : 'no command given')
  }
}

const main = async (argv: readonly string[]) => {
  const { words, values } = parse(argv, options)
  if (values.help) {
    process.stdout.write(`${usage}\n`)
    return
  }
  const program = command(words, values)
  const cfg = { ...loadConfig(), logLevel: 'none' as const }
  // Beside a running node without Redis, the CLI joins the node's bus (engine/bus/BusRelay.ts), so
  // what the node holds in memory (a cached plan, a frozen workspace) changes before it exits.
  const holder = cfg.databaseUrl ? null : Database.runningHolder(cfg.dataDir)
  const socket = BusRelay.socketOf(cfg.dataDir)
  const bus = BusRelay.layerBeside(
    socket,
    holder === null
      ? null
      : `the running server (process ${holder}) does not answer on ${socket}: wait until it has started, or stop it`,
  )
  const runtime = ManagedRuntime.make(
    servicesLayer(cfg, {
      logger: makeLogger('none'),
      supervise: false,
      bus,
      ...(cfg.databaseUrl
        ? {}
        : { database: { url: undefined, dataDir: cfg.dataDir, besideRunningNode: true } }),
    }),
  )
  try {
    const result = await runtime.runPromise(program)
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`)
  } finally {
    await runtime.dispose()
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  if (e instanceof UsageError) {
    process.stderr.write(usageText('kotak', e.message, usage))
    process.exit(2)
  }
  const msg = e instanceof Error ? e.message : String(e)
  process.stderr.write(`kotak: ${msg.replace(/^\(FiberFailure\) Error: /, '')}\n`)
  process.exit(1)
})
