import type { SqlError } from '@effect/sql/SqlError'
import { Effect } from 'effect'
import * as Members from '../../store/members'
import type { Services } from '../route'

/**
 * Who may subscribe to what (spec 1 §6). Deny by default: a channel is granted only when an
 * authorizer for its prefix exists and says yes, and only to an active member of the workspace.
 * Domain modules register their prefixes (`conv`, `ticket`) with the visibility rules they
 * already apply to lists and details.
 */
export interface Who {
  readonly userId: number
  readonly workspaceId: number
}

export type Authorizer = (who: Who, id: string) => Effect.Effect<boolean, SqlError, Services>

export type Verdict = 'granted' | 'forbidden' | 'unknown_channel'

const authorizers = new Map<string, Authorizer>([
  ['ws', (who, id) => Effect.succeed(id === String(who.workspaceId))],
  ['user', (who, id) => Effect.succeed(id === String(who.userId))],
])

export const registerChannel = (prefix: string, authorizer: Authorizer) => {
  authorizers.set(prefix, authorizer)
}

export const authorize = (who: Who, channel: string): Effect.Effect<Verdict, SqlError, Services> =>
  Effect.gen(function* () {
    const colon = channel.indexOf(':')
    const authorizer = colon > 0 ? authorizers.get(channel.slice(0, colon)) : undefined
    if (!authorizer) return 'unknown_channel'
    const id = channel.slice(colon + 1)
    if (!/^[\w-]{1,64}$/.test(id)) return 'forbidden'
    const membership = yield* Members.activeMembership(who.userId, who.workspaceId)
    if (!membership) return 'forbidden'
    return (yield* authorizer(who, id)) ? 'granted' : 'forbidden'
  })
