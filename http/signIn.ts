import { Effect } from 'effect'
import { Config } from '../engine/config'
import * as Members from '../store/members'
import * as Sessions from '../store/sessions'
import * as Users from '../store/users'
import { sessionCookies } from './auth'

/**
 * A new app session for a person who has just proved who they are, whatever the way in (the
 * identity provider, a one-time link, a passkey): the session and CSRF cookies to set. Every way
 * shares it so a session means the same thing however it began: an account without an active
 * workspace gets its first one, and the last sign-in time moves.
 */
export const startSession = (userId: number, via: Sessions.SessionRow['via']) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    const user = yield* Users.byId(userId)
    if (user && user.active_workspace_id === null) {
      const ws = yield* Members.firstActiveWorkspaceId(userId)
      if (ws !== null) yield* Users.setActiveWorkspace(userId, ws)
    }
    yield* Users.touchLogin(userId)
    const { session, token } = yield* Sessions.create(userId, via, cfg.sessionTtlHours)
    const secure = cfg.publicUrl.startsWith('https:')
    return sessionCookies(token, session.csrf_token, cfg.sessionTtlHours * 3600, secure)
  })
