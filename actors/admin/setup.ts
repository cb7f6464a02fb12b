import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { randomToken } from '../../engine/tokens'
import * as Audit from '../../store/audit'
import * as Setup from '../../store/setup'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { spend } from '../budget'
import { ApiError } from '../errors'
import { addMessages } from '../i18n'

/**
 * The first run in the browser (docs/decisions.md, "First run in the browser"): a node that starts
 * on an unclaimed install (no workspace, no user) makes a one-time token and logs its link; the
 * person who opens it creates the first workspace and its owner, the same way the operator CLI's
 * `workspace create` does, and is signed in. Whoever can read the server's log can claim the
 * install; nobody else can.
 */

addMessages({
  setup_token_invalid: {
    en: 'This setup link is not valid (a newer one was printed when the server started again).',
    id: 'Tautan penyiapan ini tidak valid (tautan yang lebih baru dicetak saat server dimulai ulang).',
  },
  setup_done: {
    en: 'This server is already set up: it has a workspace.',
    id: 'Server ini sudah disiapkan: sudah ada workspace.',
  },
  'setup.email_taken': {
    en: 'An account with this e-mail address exists already; sign in with it instead.',
    id: 'Akun dengan alamat e-mail ini sudah ada; masuklah dengan akun itu.',
  },
})

/** Claims per client address a minute: the token cannot be guessed, this keeps the door quiet. */
export const LIMITS = { claimsPerMinute: 10 } as const

/** The link the log shows (`/app/setup/{token}`, the app's page for it). */
export const setupUrl = (publicUrl: string, token: string) => `${publicUrl}/app/setup/${token}`

/**
 * At a node's start: on an unclaimed install, a new token (stored as its digest, replacing any
 * earlier one) for the one log line that shows it; otherwise null, and no token is left behind
 * (an install set up through the CLI meanwhile).
 */
export const prepare = Effect.gen(function* () {
  if (!(yield* Setup.unclaimed)) {
    yield* Setup.clear
    return null
  }
  const token = randomToken(32)
  yield* Setup.replace(token)
  return token
})

const done = () => new ApiError({ code: 'setup_done', message: 'setup_done' })
const invalidToken = () => new ApiError({ code: 'setup_token_invalid', message: 'setup_token_invalid' })

/** Whether `token` opens the setup now: 404 `setup_token_invalid`, 410 `setup_done`, or fine. */
export const check = (token: string) =>
  Effect.gen(function* () {
    if (yield* Setup.anyWorkspace) return yield* Effect.fail(done())
    if (!(yield* Setup.holds(token))) return yield* Effect.fail(invalidToken())
    return { valid: true as const }
  })

export interface Claim {
  readonly token: string
  readonly workspace_name: string
  readonly name: string
  readonly email: string
  readonly locale?: 'en' | 'id' | undefined
  readonly timezone?: string | undefined
}

/**
 * Creates the first workspace and its owner and uses the token up, in one transaction: of two
 * claims at once one creates, the other's take of the token waits for the first to commit, then
 * finds none and a workspace (410). A refusal after the take (the address has an account) rolls
 * the take back, so the link still works.
 */
export const claim = (input: Claim, ip: string) =>
  Effect.gen(function* () {
    yield* spend(`setup:${ip}`, LIMITS.claimsPerMinute)
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        if (yield* Setup.anyWorkspace) return yield* Effect.fail(done())
        if (!(yield* Setup.take(input.token)))
          return yield* Effect.fail((yield* Setup.anyWorkspace) ? done() : invalidToken())
        const email = input.email.trim()
        if (yield* Users.byEmail(email))
          return yield* Effect.fail(
            new ApiError({
              code: 'conflict',
              message: 'setup.email_taken',
              fields: { email: { key: 'setup.email_taken' } },
            }),
          )
        const { workspace, user } = yield* Workspaces.create({
          name: input.workspace_name.trim(),
          owner: { email, name: input.name.trim() },
          plan: 'free',
          proUntil: null,
          timezone: input.timezone ?? 'Asia/Jakarta',
        })
        const owner = input.locale ? yield* Users.updateProfile(user.id, { locale: input.locale }) : user
        yield* Audit.record({
          workspaceId: workspace.id,
          userId: user.id,
          action: 'workspace.created',
          target: workspace.name,
          ip,
          data: { via: 'setup' },
        })
        return { workspace, user: owner }
      }),
    )
  })
