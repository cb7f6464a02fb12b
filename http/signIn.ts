import { Effect } from 'effect'
import { Config } from '../engine/config'
import * as Members from '../store/members'
import * as Sessions from '../store/sessions'
import * as Users from '../store/users'
import { SESSION_COOKIE, sessionCookies } from './auth'

/** What a session's list shows of where it began (http/routes/profile.ts). */
export const deviceOf = (
  ip: string,
  header: (name: string) => string | undefined,
): Sessions.SessionDevice => ({
  userAgent: header('user-agent') ?? null,
  ip,
})

/** What a sign-in knows besides the person: the request (its cookies), and the passkey used. */
export interface SignInFrom {
  /**
   * The request's cookies. A session cookie it presents is this browser's session, which the new
   * one replaces: left going, it would outlive every sign-out the browser can do.
   */
  readonly cookie: (name: string) => string | undefined
  /** The passkey that proved who they are (`via: 'passkey'`): deleting it ends this session. */
  readonly passkeyId?: number | undefined
  /** The browser and address asking: the person's list of sessions tells them apart by these. */
  readonly device?: Sessions.SessionDevice | undefined
}

/**
 * A new app session for a person who has just proved who they are, whatever the way in (the
 * identity provider, a one-time link, a passkey): the session and CSRF cookies to set. Every way
 * shares it so a session means the same thing however it began: an account without an active
 * workspace gets its first one, the last sign-in time moves, and the browser's previous session
 * ends.
 */
export const startSession = (userId: number, via: Sessions.SessionRow['via'], from: SignInFrom) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    const user = yield* Users.byId(userId)
    if (user && user.active_workspace_id === null) {
      const ws = yield* Members.firstActiveWorkspaceId(userId)
      if (ws !== null) yield* Users.setActiveWorkspace(userId, ws)
    }
    yield* Users.touchLogin(userId)
    const presented = from.cookie(SESSION_COOKIE)
    if (presented) yield* Sessions.endByToken(presented)
    const { session, token } = yield* Sessions.create(
      userId,
      via,
      cfg.sessionTtlHours,
      via === 'passkey' ? (from.passkeyId ?? null) : null,
      from.device,
    )
    const secure = cfg.publicUrl.startsWith('https:')
    return sessionCookies(token, session.csrf_token, cfg.sessionTtlHours * 3600, secure)
  })
