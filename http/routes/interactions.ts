import { Schema } from 'effect'
import { BigIdFromString, Text } from '../../actors/fields'
import { TicketBriefSchema, TicketMessageSchema } from '../../actors/inbox/conversationTickets'
import * as Interactions from '../../actors/inbox/interactions'
import { ListQuery, PatchBody, StartBody } from '../../actors/inbox/interactions'
import { InteractionItemSchema, InteractionSchema } from '../../actors/inbox/schemas'
import { interactionLeads } from '../../actors/pipeline/leads'
import { ticketMessage } from '../../actors/tickets/conversationSide'
import { answer, type Route, route } from '../route'

/**
 * Spec 2 §4.1, the conversation side: list (every filter, counts per tab, Frontline teams),
 * detail, starting a chat, changes (status, team, assignee, category, custom values), notes,
 * assignees, read, typing, pickup, history, feedback, and the parts whose domains come later
 * (tickets, leads, AI summary). Every route first finds the conversation through the one
 * visibility rule (store/conversations `visibleWhere`); what the caller may not see is 404.
 */

const IdParam = Schema.Struct({ id: BigIdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/interactions',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Visible conversations, most recent first, with counts per tab and the Frontline teams',
    query: ListQuery,
    response: Schema.Array(InteractionItemSchema),
    handler: ({ caller, workspace, query }) => answer(Interactions.list({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/interactions/{id}',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'One conversation with response times, custom fields, notes count and tickets',
    params: IdParam,
    response: InteractionSchema,
    handler: ({ caller, workspace, params }) => answer(Interactions.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary:
      'Start a chat with a contact on a channel (an open chat is reused; e-mail always starts a new one)',
    body: StartBody,
    handler: ({ caller, workspace, body }) => answer(Interactions.start({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/interactions/{id}',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary:
      'Change status, team, assignee, category or custom values; `{id, visible: false}` when you lose sight of it',
    params: IdParam,
    body: PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Interactions.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/interactions/{id}/notes',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Internal notes, newest first (up to 200), including ticket feedback and conclusions',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.notes({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/interactions/{id}/assignees',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary: 'Members who can be assigned this conversation (with team_ids); Frontline teams in meta.teams',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.assignees({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/tickets/{ticket}/messages',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary:
      'Post `{text}` into a ticket discussion from the conversation, or ask for an update (`request_update: true`, once per 15 minutes); active tickets only; answers `{message, tickets}`',
    params: Schema.Struct({ id: BigIdFromString, ticket: BigIdFromString }),
    body: Schema.Struct({
      text: Schema.optional(Text(1, 10_000)),
      request_update: Schema.optional(Schema.Boolean),
    }),
    response: Schema.Struct({
      message: Schema.NullOr(TicketMessageSchema),
      tickets: Schema.Array(TicketBriefSchema),
    }),
    handler: ({ caller, workspace, params, body }) =>
      answer(ticketMessage({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/feedback-seen',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Mark ticket feedback and conclusions of this conversation as read',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      answer(Interactions.feedbackSeen({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/summary',
    access: 'K',
    permission: 'ai.use',
    tag: 'Interactions',
    summary:
      'AI summary in 3 to 6 bullet points, saved in `ai_summary` (Pro or Custom, one AI request; 502 `ai_error` uses none; 503 without a provider)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.summary({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/interactions/{id}/leads',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary:
      "Leads from this conversation and (`meta.other`) the contact's other open leads, as the caller may see them",
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(interactionLeads({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/read',
    access: 'A',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Mark the conversation read; read receipts go to the customer',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.markRead({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/typing',
    access: 'A',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary:
      'Tell the others you are typing (`{typing: true}`) or stopped; held in memory, expires on its own',
    params: IdParam,
    body: Schema.Struct({ typing: Schema.Boolean }),
    handler: ({ caller, workspace, params, body }) =>
      answer(Interactions.typing({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/pickup',
    access: 'A',
    permission: 'interactions.reply',
    tag: 'Interactions',
    summary: 'Pick up a waiting live chat; the first caller wins, later ones get 409',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.pickup({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/history',
    access: 'A',
    permission: 'interactions.view',
    tag: 'Interactions',
    summary: 'Ask the phone for older history of this chat (messaging-app numbers)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Interactions.history({ caller, workspace }, params)),
  }),
]
