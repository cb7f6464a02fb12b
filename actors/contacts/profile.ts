import { Effect } from 'effect'
import * as Profile from '../../store/contactProfile'
import type { Viewer } from '../../store/conversations'
import * as ContactTickets from '../tickets/contactSide'
import type { Ctx as TicketCtx } from '../tickets/visibility'
import { definitions, find, labelMap } from './contacts'
import { invalid } from './errors'
import { type LeadsPart, parseTimelineId, presentProfile, presentTimelineItem } from './presenters'

/**
 * The full profile and the timeline of a contact (spec 2 §4.4). `leads` are the contact's leads as
 * the caller may see them (actors/pipeline), read once the contact is known to exist.
 */
export const profile = <E, R>(ctx: TicketCtx, id: number, now: Date, leads: Effect.Effect<LeadsPart, E, R>) =>
  Effect.gen(function* () {
    const workspaceId = ctx.workspace.id
    const c = yield* find(workspaceId, id)
    const [labels, defs, identities, msgappLabels, statistics, activity, tickets] = yield* Effect.all(
      [
        labelMap(workspaceId),
        definitions(workspaceId),
        Profile.identities(id),
        Profile.msgappLabels(id),
        Profile.statistics(id),
        Profile.activity(id, ctx.workspace.timezone, now),
        // The tickets the caller may see (spec 2 §1 rule 3), as GET /contacts/{id}/tickets lists them.
        ContactTickets.ofContact(ctx, id, now),
      ],
      { concurrency: 'unbounded' },
    )
    return presentProfile(c, labels, defs, {
      identities,
      msgappLabels,
      statistics,
      activity,
      tickets,
      leads: yield* leads,
    })
  })

export const TIMELINE_PAGE = 50

/**
 * Newest first across the conversations the viewer may see, notes and recorded changes; `before`
 * is the `id` of the last item of the previous page.
 */
export const timeline = (workspaceId: number, id: number, viewer: Viewer, limit: number, before?: string) =>
  Effect.gen(function* () {
    yield* find(workspaceId, id)
    const cursor = before === undefined ? undefined : parseTimelineId(before)
    if (cursor === null) return yield* Effect.fail(invalid({ before: { key: 'field.unknown' } }))
    const rows = yield* Profile.timeline(id, viewer, limit + 1, cursor)
    if (rows === null) return yield* Effect.fail(invalid({ before: { key: 'field.unknown' } }))
    const items = rows.slice(0, limit).map(presentTimelineItem)
    return { items, hasMore: rows.length > limit }
  })
