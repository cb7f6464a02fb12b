import type { SqlClient } from '@effect/sql'
import type { SqlError } from '@effect/sql/SqlError'
import { Effect } from 'effect'
import { type Caller, keyPermissions, sessionPermissions } from '../actors/admin/caller'
import { ApiError } from '../actors/errors'
import { addMessages } from '../actors/i18n'
import { andThen } from '../engine/step'
import { digestText } from '../engine/tokens'
import * as ApiKeys from '../store/apiKeys'
import * as Members from '../store/members'
import * as Sessions from '../store/sessions'
import * as Users from '../store/users'
import * as Workspaces from '../store/workspaces'
import { CredentialCache, type CredentialCacheShape } from './credentials'
import { mediaType } from './request'

export const SESSION_COOKIE = 'kotak_session'
export const CSRF_COOKIE = 'kotak_csrf'

const unauthorized = () => new ApiError({ code: 'unauthorized' })

/**
 * Resolves the credential of a request: `Authorization: Bearer svca_live_…` (API key) or the
 * session cookie. Anything missing, malformed, revoked or ended is 401.
 */
export const authenticate = (authorization: string | undefined, sessionToken: string | undefined) =>
  Effect.flatMap(CredentialCache, (cache) => authenticateIn(cache, authorization, sessionToken))

/**
 * `authenticate` with the node's credential cache at hand: a cached credential is answered at
 * once (an `Exit`, no fiber; engine/step.ts).
 */
export const authenticateIn = (
  cache: CredentialCacheShape,
  authorization: string | undefined,
  sessionToken: string | undefined,
) => {
  if (authorization !== undefined) {
    const secret = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1]
    return secret && ApiKeys.KEY_PATTERN.test(secret)
      ? cached(cache, `k:${secret}`, byKey(secret), touchKey(cache))
      : Effect.fail(unauthorized())
  }
  return sessionToken
    ? cached(cache, `s:${sessionToken}`, bySession(sessionToken))
    : Effect.fail(unauthorized())
}

/** Resolves through the node's credential cache (http/credentials.ts); failures are not cached. */
const cached = <R>(
  cache: CredentialCacheShape,
  credential: string,
  resolve: Effect.Effect<Caller, ApiError | SqlError, R>,
  onHit?: (caller: Caller) => Effect.Effect<void, never, SqlClient.SqlClient>,
): Effect.Effect<Caller, ApiError | SqlError, R | SqlClient.SqlClient> => {
  const key = digestText(credential)
  const hit = cache.get(key)
  if (!hit) return cache.load(key, resolve)
  // A busy credential never expires under its requests: in its entry's last second it is looked
  // up again beside the answer (http/credentials.ts).
  const refresh = cache.refresh(key, () => resolve)
  const touched = onHit ? andThen(onHit(hit), () => Effect.succeed(hit)) : Effect.succeed(hit)
  return refresh ? andThen(refresh, () => touched) : touched
}

/** `last_used_at` is kept to the minute, written in the background, never on the request's path. */
const touchKey = (cache: CredentialCacheShape) => (caller: Caller) => {
  if (caller.via !== 'key') return Effect.void
  // A minute of real time between writes: the monotonic clock.
  if (!cache.touchDue(caller.keyId, performance.now())) return Effect.void
  return Effect.forkDaemon(Effect.ignore(ApiKeys.touch(caller.keyId))).pipe(Effect.asVoid)
}

const byKey = (secret: string) =>
  Effect.gen(function* () {
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
    // A key acts as its creator (spec 1 §2 `via`), so it stops while they are not an active member
    // (disabled or gone) and works again if they are enabled: disabling someone ends their access.
    if (!workspace || !user || !membership) return yield* Effect.fail(unauthorized())
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

addMessages({
  'auth.same_site': {
    en: 'Signing in works only from Kotak’s own pages.',
    id: 'Masuk hanya dapat dilakukan dari halaman Kotak sendiri.',
  },
})

/**
 * Login CSRF: a route that signs a browser in (a sign-in link's button, a passkey, the first
 * run's claim) answers only its own pages, or another site could sign the victim in as someone
 * else. A cross-site page can send neither a JSON body without asking first (CORS, which this
 * server never grants) nor, from its browser, anything but `Sec-Fetch-Site: cross-site`. The
 * media type is compared whole (http/request.ts `mediaType`), and an empty body must carry it too.
 */
export const sameSiteJson = (
  header: (name: string) => string | undefined,
  message = 'auth.same_site',
): Effect.Effect<void, ApiError> =>
  mediaType(header('content-type')) === 'application/json' && header('sec-fetch-site') !== 'cross-site'
    ? Effect.void
    : Effect.fail(new ApiError({ code: 'forbidden', message }))

export const clearedSessionCookies = (secure: boolean) => sessionCookies('', '', 0, secure)
