import { Effect, Layer } from 'effect'
import { currentTime } from '../../engine/clock'
import type * as Conversations from '../../store/conversations'
import * as Tickets from '../../store/tickets'
import { reply } from '../answer'
import { invalid, notFound } from '../errors'
import * as Inbox from '../inbox/conversations'
import { ConversationTickets } from '../inbox/conversationTickets'
import * as Notifications from '../notifications'
import { actorOf, contextOf, notActive, tooSoon } from './common'
import { presentBrief, presentMessage } from './presenters'
import { TicketActor } from './TicketActor'
import { type Ctx, viewerFor } from './visibility'

/**
 * Tickets as a conversation sees them (spec 2 §2 `tickets`, §4.1): every ticket raised there,
 * even for callers without ticket access (`can_open` says whether they may open it, by the one
 * ticket visibility rule), and posting into a ticket's discussion or asking for an update from
 * the conversation side. The caller has already been found to see the conversation.
 */

/** How many of the conversation side's thread items each ticket shows. */
export const THREAD_ITEMS = 20

export const ofConversation = (ctx: Ctx, conversationId: number, now: Date) =>
  Effect.gen(function* () {
    const rows = yield* Tickets.ofConversation(conversationId)
    if (rows.length === 0) return []
    const ids = rows.map((t) => t.id)
    const [ps, thread, open] = yield* Effect.all(
      [
        Tickets.participants(ids),
        Tickets.threadOf(ids, THREAD_ITEMS),
        Tickets.visibleIds(viewerFor(ctx.caller, ctx.workspace), ids),
      ],
      { concurrency: 'unbounded' },
    )
    const c = contextOf(ctx.workspace, now)
    return rows.map((t) =>
      presentBrief(
        t,
        ps.filter((p) => p.ticket_id === t.id),
        thread.filter((m) => m.ticket_id === t.id),
        c,
        open.has(t.id),
      ),
    )
  })

/** The inbox's port for the tickets of a conversation (actors/inbox/conversationTickets.ts). */
export const conversationTicketsLayer = Layer.succeed(ConversationTickets, { ofConversation })

export interface FromConversationBody {
  readonly text?: string | undefined
  readonly request_update?: boolean | undefined
}

/**
 * `POST /interactions/{id}/tickets/{ticket}/messages`: no ticket access needed, only a ticket of
 * this conversation (else 404). Active tickets only (422); one update request per 15 minutes per
 * ticket (429 with `Retry-After`). Assignees hear of an update request.
 */
export const fromConversation = (
  ctx: Ctx,
  conversation: Conversations.ConversationRow,
  ticketId: number,
  body: FromConversationBody,
) =>
  Effect.gen(function* () {
    const t = yield* Tickets.inWorkspace(ctx.workspace.id, ticketId)
    if (!t || t.interaction_id !== conversation.id) return yield* Effect.fail(notFound())
    const text = body.text?.trim() ? body.text.trim() : null
    const requestUpdate = body.request_update === true
    if (text === null && !requestUpdate)
      return yield* Effect.fail(invalid({ text: { key: 'tickets.text_or_request' } }))
    const sender = yield* actorOf(ctx.caller)
    const r = yield* Effect.flatMap(TicketActor, (a) =>
      a.ask(t.id, { _tag: 'FromConversation', text, requestUpdate, sender }),
    ).pipe(
      Effect.catchTags({
        TicketNotActive: notActive(requestUpdate ? 'request_update' : 'text'),
        UpdateTooSoon: tooSoon,
      }),
    )
    if (requestUpdate) {
      const ps = yield* Tickets.participants([t.id])
      for (const p of ps.filter((x) => x.role === 'assignee' && x.user_id !== sender.user_id))
        yield* Notifications.notify({
          workspaceId: ctx.workspace.id,
          userId: p.user_id,
          kind: 'ticket.update_request',
          title: `Update requested on ticket #${t.number}`,
          body: text ?? t.subject,
          link: `/tickets/${t.id}`,
          data: { ticket_id: t.id, interaction_id: conversation.id },
        })
    }
    const tickets = yield* ofConversation(ctx, conversation.id, yield* currentTime)
    return reply({ message: r.message ? presentMessage(r.message) : null, tickets })
  })

/**
 * `POST /interactions/{id}/tickets/{ticket}/messages` as the conversation's caller makes it: only
 * sight of the conversation is needed (else 404), no ticket access.
 */
export const ticketMessage = (
  ctx: Ctx,
  params: { readonly id: number; readonly ticket: number },
  body: FromConversationBody,
) => Effect.flatMap(Inbox.visibleOr404(ctx, params.id), (c) => fromConversation(ctx, c, params.ticket, body))
