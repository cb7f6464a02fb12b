import type { SqlError } from '@effect/sql/SqlError'
import { Effect } from 'effect'
import * as Conversations from '../../store/conversations'
import * as Livechat from '../../store/livechat'
import * as Members from '../../store/members'
import * as Workspaces from '../../store/workspaces'
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
  /** A live chat visitor's socket (spec 1 §6 rule 4): only its own `visitor:{session}`. */
  readonly visitor?: string
}

/** The subscriber as the database knows them now, not as their token said. */
export interface Member extends Who {
  readonly membership: NonNullable<Effect.Effect.Success<ReturnType<typeof Members.activeMembership>>>
  readonly ownerUserId: number | null
}

export type Authorizer = (who: Member, id: string) => Effect.Effect<boolean, SqlError, Services>

export type Verdict = 'granted' | 'forbidden' | 'unknown_channel'

const authorizers = new Map<string, Authorizer>([
  ['ws', (who, id) => Effect.succeed(id === String(who.workspaceId))],
  ['user', (who, id) => Effect.succeed(id === String(who.userId))],
  // Visitor channels are the visitor's alone (see `authorizeVisitor`); no member may join one.
  ['visitor', () => Effect.succeed(false)],
  // spec 1 §6 rule 1: the one conversation visibility rule (store/conversations).
  [
    'conv',
    (who, id) =>
      Effect.map(
        Conversations.visibleById(
          Conversations.viewerOf(who.membership.member, who.membership.role, who.ownerUserId),
          Number(id),
        ),
        (row) => row !== null,
      ),
  ],
])

export const registerChannel = (prefix: string, authorizer: Authorizer) => {
  authorizers.set(prefix, authorizer)
}

/**
 * A visitor's socket: `visitor:{own session}` while the session's channel is live; nothing else,
 * whatever the prefix.
 */
const authorizeVisitor = (who: Who & { readonly visitor: string }, channel: string) =>
  Effect.gen(function* () {
    if (channel !== `visitor:${who.visitor}`) return 'forbidden' as Verdict
    const live = yield* Livechat.liveSession(who.visitor, who.workspaceId)
    return (live ? 'granted' : 'forbidden') as Verdict
  })

export const authorize = (who: Who, channel: string): Effect.Effect<Verdict, SqlError, Services> =>
  Effect.gen(function* () {
    if (who.visitor !== undefined) return yield* authorizeVisitor({ ...who, visitor: who.visitor }, channel)
    const colon = channel.indexOf(':')
    const authorizer = colon > 0 ? authorizers.get(channel.slice(0, colon)) : undefined
    if (!authorizer) return 'unknown_channel'
    const id = channel.slice(colon + 1)
    if (!/^[\w-]{1,64}$/.test(id)) return 'forbidden'
    if (channel.startsWith('conv:') && !/^\d{1,15}$/.test(id)) return 'forbidden'
    const membership = yield* Members.activeMembership(who.userId, who.workspaceId)
    if (!membership) return 'forbidden'
    const workspace = yield* Workspaces.byId(who.workspaceId)
    const member: Member = { ...who, membership, ownerUserId: workspace?.owner_user_id ?? null }
    return (yield* authorizer(member, id)) ? 'granted' : 'forbidden'
  })
