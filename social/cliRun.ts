import * as fs from 'node:fs'
import { Effect, ManagedRuntime } from 'effect'
import { systemMillis, systemTime } from '../engine/clock'
import { usageText } from '../engine/commandLine'
import { makeLogger } from '../engine/log'
import { servicesLayer } from './app'
import { type Command, parseCommand, UsageError, usage } from './cliArgs'
import { loadSocialConfig } from './config'
import { generate, toNdjson } from './demo'
import { importNdjson } from './import'
import type { SocialServices } from './route'
import * as Channels from './store/channels'
import * as Keys from './store/keys'
import * as Workspaces from './store/workspaces'

/**
 * Runs one operator command against the database of `env` and says what to print: JSON on
 * stdout; exit 0 on success, 1 on a failure (unknown workspace, refused import lines), 2 on bad
 * arguments. Never exits the process itself, so tests can run it in-process.
 */
export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

class Failure extends Error {}

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

const channelOut = (c: Channels.ChannelRow) => ({ id: c.id, account_id: c.external_id, username: c.username })

const existing = (id: number) =>
  Effect.flatMap(Workspaces.byId(id), (w) =>
    w ? Effect.succeed(w) : Effect.fail(new Failure(`no workspace ${id} (see: workspace list)`)),
  )

const PLAN_WARNING = 'the workspace has no active Pro plan: requests with this key get 402 until it has one'

/** What a database command returns: the JSON to print, and whether it counts as a failure. */
interface Outcome {
  readonly result: unknown
  readonly failed?: string
}

const done = (result: unknown): Outcome => ({ result })

const demo = (c: Extract<Command, { _tag: 'demo' }>, port: number) =>
  Effect.gen(function* () {
    let workspace: Workspaces.WorkspaceRow
    let key: string | undefined
    if (c.workspace !== undefined) {
      workspace = yield* existing(c.workspace)
    } else {
      workspace = yield* Workspaces.create('Toko Maju (demo)', 'pro', null)
      key = (yield* Keys.create(workspace.id, 'demo')).key
    }
    const seed = c.seed ?? workspace.id
    const report = yield* importNdjson(
      workspace.id,
      toNdjson(generate({ seed, days: c.days, now: yield* systemTime })),
    )
    if (report.refused > 0) {
      const first = report.errors[0]
      return yield* Effect.fail(
        new Failure(
          `the demo data was refused (${report.refused} records; ${first?.message}): try another --seed`,
        ),
      )
    }
    const channels = yield* Channels.list(workspace.id)
    return done({
      workspace: workspaceOut(workspace),
      channels: channels.map(channelOut),
      seed,
      created: report.created,
      ...(key
        ? {
            key,
            try: `curl -H "Authorization: Bearer ${key}" http://localhost:${port}/api/v1/reports/summary`,
          }
        : {}),
    })
  })

const program = (
  c: Exclude<Command, { _tag: 'help' }>,
  text: () => string,
  port: number,
): Effect.Effect<Outcome, unknown, SocialServices> => {
  switch (c._tag) {
    case 'workspace create':
      return Effect.map(Workspaces.create(c.name, c.plan, c.proUntil), (w) =>
        done({ workspace: workspaceOut(w) }),
      )
    case 'workspace list':
      return Effect.map(Workspaces.list, (ws) => done({ workspaces: ws.map(workspaceOut) }))
    case 'plan set':
      return Effect.flatMap(Workspaces.setPlan(c.workspace, c.plan, c.proUntil), (w) =>
        w
          ? Effect.succeed(done({ workspace: workspaceOut(w) }))
          : Effect.fail(new Failure(`no workspace ${c.workspace}`)),
      )
    case 'key create':
      return Effect.gen(function* () {
        const w = yield* existing(c.workspace)
        const { row, key } = yield* Keys.create(c.workspace, c.name)
        return done({ ...keyOut(row), key, ...(w.plan_active ? {} : { warning: PLAN_WARNING }) })
      })
    case 'key list':
      return Effect.map(Effect.zipRight(existing(c.workspace), Keys.list(c.workspace)), (ks) =>
        done({ keys: ks.map(keyOut) }),
      )
    case 'key revoke':
      return Effect.flatMap(Keys.revoke(c.workspace, c.key), (ok) =>
        ok
          ? Effect.succeed(done({ key: { id: c.key, revoked: true } }))
          : Effect.fail(new Failure(`workspace ${c.workspace} has no active key ${c.key}`)),
      )
    case 'channel add':
      return Effect.gen(function* () {
        yield* existing(c.workspace)
        const row = yield* Channels.upsert(c.workspace, c.accountId, c.username).pipe(
          Effect.catchTag('AccountTaken', (e) =>
            Effect.fail(new Failure(`account ${c.accountId} already belongs to workspace ${e.workspaceId}`)),
          ),
        )
        return done({ channel: channelOut(row) })
      })
    case 'channel list':
      return Effect.map(Effect.zipRight(existing(c.workspace), Channels.list(c.workspace)), (cs) =>
        done({ channels: cs.map(channelOut) }),
      )
    case 'import':
      return Effect.gen(function* () {
        yield* existing(c.workspace)
        const report = yield* importNdjson(c.workspace, text())
        return {
          result: { workspace: c.workspace, ...report },
          ...(report.refused > 0
            ? { failed: `${report.refused} lines refused (see errors); the other lines were imported` }
            : {}),
        }
      })
    case 'demo':
      return demo(c, port)
  }
}

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`

const message = (e: unknown) =>
  (e instanceof Error ? e.message : String(e)).replace(/^\(FiberFailure\) \w*Error: /, '')

/** Runs a parsed command. `stdin` is read only by `import --file -`. */
export const execute = async (
  command: Command,
  env: NodeJS.ProcessEnv,
  stdin: () => string = () => fs.readFileSync(0, 'utf8'),
): Promise<CliResult> => {
  if (command._tag === 'help') return { code: 0, stdout: `${usage}\n`, stderr: '' }
  if (command._tag === 'demo' && command.out !== undefined) {
    const seed = command.seed ?? 1
    const records = generate({ seed, days: command.days, now: new Date(systemMillis()) })
    fs.writeFileSync(command.out, toNdjson(records))
    return {
      code: 0,
      stdout: json({ file: command.out, records: records.length, seed, days: command.days }),
      stderr: '',
    }
  }
  let text = ''
  if (command._tag === 'import') {
    try {
      text = command.file === '-' ? stdin() : fs.readFileSync(command.file, 'utf8')
    } catch (e) {
      return usageError(`cannot read --file ${command.file}: ${message(e)}`)
    }
  }
  let cfg: ReturnType<typeof loadSocialConfig>
  try {
    cfg = { ...loadSocialConfig(env), logLevel: 'none' }
  } catch (e) {
    return { code: 1, stdout: '', stderr: `kotak-social: ${message(e)}\n` }
  }
  const runtime = ManagedRuntime.make(servicesLayer(cfg, { logger: makeLogger('none') }))
  try {
    const outcome = await runtime.runPromise(program(command, () => text, cfg.port))
    return {
      code: outcome.failed ? 1 : 0,
      stdout: json(outcome.result),
      stderr: outcome.failed ? `kotak-social: ${outcome.failed}\n` : '',
    }
  } catch (e) {
    return { code: 1, stdout: '', stderr: `kotak-social: ${message(e)}\n` }
  } finally {
    await runtime.dispose()
  }
}

export const usageError = (msg: string): CliResult => ({
  code: 2,
  stdout: '',
  stderr: usageText('kotak-social', msg, usage),
})

/** Parses and runs, as `npm run social -- …` does. */
export const runCli = async (
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  stdin?: () => string,
): Promise<CliResult> => {
  let command: Command
  try {
    command = parseCommand(argv)
  } catch (e) {
    if (e instanceof UsageError) return usageError(e.message)
    throw e
  }
  return execute(command, env, stdin)
}
