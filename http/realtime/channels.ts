import type { SqlError } from '@effect/sql/SqlError'
import { Effect } from 'effect'
import { type ChannelKind, topics } from '../../actors/events'
import { memberViewer } from '../../actors/tickets/visibility'
import * as Conversations from '../../store/conversations'
import * as Livechat from '../../store/livechat'
import * as Members from '../../store/members'
import * as Tickets from '../../store/tickets'
import * as Workspaces from '../../store/workspaces'
import type { Services } from '../route'

/**
 * Who may subscribe to what (spec 1 §6). Deny by default: a channel is granted only when its
 * prefix is a channel kind of the catalogue and that kind's rule says yes, and only to an active
 * member of the workspace. `conv` and `ticket` use the visibility rules their domains already
 * apply to lists and details.
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

const numeric = (id: string) => /^\d{1,15}$/.test(id)

/**
 * Every channel kind of the event catalogue (actors/eventCatalogue.ts) with its rule, in one
 * table: a new kind does not compile until it has one here.
 */
const authorizers: { readonly [K in ChannelKind]: Authorizer } = {
  ws: (who, id) => Effect.succeed(id === String(who.workspaceId)),
  user: (who, id) => Effect.succeed(id === String(who.userId)),
  // spec 1 §6 rule 1: the one conversation visibility rule (store/conversations).
  // `authorize` has already refused a non-numeric id.
  conv: (who, id) =>
    Effect.map(
      Conversations.visibleById(
        Conversations.viewerOf(who.membership.member, who.membership.role, who.ownerUserId),
        Number(id),
      ),
      (row) => row !== null,
    ),
  // spec 1 §6 rule 2: only those who can open the ticket, by the tickets' one visibility rule.
  ticket: (who, id) =>
    numeric(id)
      ? Effect.map(
          Tickets.visibleById(
            memberViewer(who.membership.member, who.membership.role, who.ownerUserId),
            Number(id),
          ),
          (t) => t !== null,
        )
      : Effect.succeed(false),
  // Visitor channels are the visitor's alone (see `authorizeVisitor`); no member may join one.
  visitor: () => Effect.succeed(false),
}

const isKind = (prefix: string): prefix is ChannelKind => Object.hasOwn(authorizers, prefix)

/**
 * A visitor's socket: `visitor:{own session}` while the session's channel is live; nothing else,
 * whatever the prefix.
 */
const authorizeVisitor = (who: Who & { readonly visitor: string }, channel: string) =>
  Effect.gen(function* () {
    if (channel !== topics.visitor(who.visitor)) return 'forbidden' as Verdict
    const live = yield* Livechat.liveSession(who.visitor, who.workspaceId)
    return (live ? 'granted' : 'forbidden') as Verdict
  })

export const authorize = (who: Who, channel: string): Effect.Effect<Verdict, SqlError, Services> =>
  Effect.gen(function* () {
    if (who.visitor !== undefined) return yield* authorizeVisitor({ ...who, visitor: who.visitor }, channel)
    const colon = channel.indexOf(':')
    const prefix = colon > 0 ? channel.slice(0, colon) : ''
    if (!isKind(prefix)) return 'unknown_channel'
    const authorizer = authorizers[prefix]
    const id = channel.slice(colon + 1)
    if (!/^[\w-]{1,64}$/.test(id)) return 'forbidden'
    if (prefix === 'conv' && !numeric(id)) return 'forbidden'
    const membership = yield* Members.activeMembership(who.userId, who.workspaceId)
    if (!membership) return 'forbidden'
    const workspace = yield* Workspaces.byId(who.workspaceId)
    const member: Member = { ...who, membership, ownerUserId: workspace?.owner_user_id ?? null }
    return (yield* authorizer(member, id)) ? 'granted' : 'forbidden'
  })
