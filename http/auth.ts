import { Effect } from 'effect'
import * as ApiKeys from '../store/apiKeys'
import * as Members from '../store/members'
import * as Sessions from '../store/sessions'
import * as Users from '../store/users'
import * as Workspaces from '../store/workspaces'
import { type Caller, keyPermissions, sessionPermissions } from './caller'
import { ApiError } from './errors'

export const SESSION_COOKIE = 'kotak_session'
export const CSRF_COOKIE = 'kotak_csrf'

const unauthorized = () => new ApiError({ code: 'unauthorized' })

/**
 * Resolves the credential of a request: `Authorization: Bearer svca_live_…` (API key) or the
 * session cookie. Anything missing, malformed, revoked or ended is 401.
 */
export const authenticate = (authorization: string | undefined, sessionToken: string | undefined) =>
  authorization !== undefined
    ? byKey(authorization)
    : sessionToken
      ? bySession(sessionToken)
      : Effect.fail(unauthorized())

const byKey = (authorization: string) =>
  Effect.gen(function* () {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    const secret = m?.[1]
    if (!secret || !ApiKeys.KEY_PATTERN.test(secret)) return yield* Effect.fail(unauthorized())
    const key = yield* ApiKeys.findActive(secret)
    if (!key) return yield* Effect.fail(unauthorized())
    const [workspace, user, membership] = yield* Effect.all(
      [
        Workspaces.byId(key.workspace_id),
        Users.byId(key.created_by),
        Members.activeMembership(key.created_by, key.workspace_id),
      ],
      { concurrency: 'unbounded' },
    )
    if (!workspace || !user) return yield* Effect.fail(unauthorized())
    return {
      via: 'key',
      keyId: key.id,
      scope: key.scope,
      user,
      workspace,
      member: membership?.member ?? null,
      role: membership?.role ?? null,
      permissions: keyPermissions,
    } satisfies Caller as Caller
  })

const bySession = (token: string) =>
  Effect.gen(function* () {
    const session = yield* Sessions.findActive(token)
    if (!session) return yield* Effect.fail(unauthorized())
    const user = yield* Users.byId(session.user_id)
    if (!user) return yield* Effect.fail(unauthorized())
    const membership = user.active_workspace_id
      ? yield* Members.activeMembership(user.id, user.active_workspace_id)
      : null
    const workspace = membership ? yield* Workspaces.byId(membership.member.workspace_id) : null
    return {
      via: 'session',
      session,
      user,
      workspace,
      member: membership?.member ?? null,
      role: membership?.role ?? null,
      permissions: sessionPermissions(membership?.role ?? null),
    } satisfies Caller as Caller
  })

export const sessionCookies = (token: string, csrf: string, maxAgeSeconds: number, secure: boolean) => {
  const flags = `Path=/; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`
  return [`${SESSION_COOKIE}=${token}; HttpOnly; ${flags}`, `${CSRF_COOKIE}=${csrf}; ${flags}`]
}

export const clearedSessionCookies = (secure: boolean) => sessionCookies('', '', 0, secure)
