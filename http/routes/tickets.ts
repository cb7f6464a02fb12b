import { Effect, Schema } from 'effect'
import { BigIdFromString, IdFromString } from '../../actors/fields'
import { TicketMessageSchema as MessageSchema } from '../../actors/inbox/conversationTickets'
import { DetailSchema, HiddenSchema, ItemSchema } from '../../actors/tickets/presenters'
import * as Tickets from '../../actors/tickets/tickets'
import { MAX_FILE_BYTES } from '../../actors/tickets/tickets'
import { DownloadQuery, fileReply, wantsDownload } from '../files'
import type { MultipartLimits } from '../multipart'
import { answer, type Route, route } from '../route'

/**
 * Spec 2 §4.3, tickets: list, candidates, create, detail, changes, assignees and participants,
 * the discussion (JSON or multipart with `files[]`), feedback and conclusions into the source
 * conversation, private attachments. The rules are in actors/tickets; every route finds the
 * ticket through the one visibility rule, which also authorises `ticket:{id}` subscriptions
 * (http/realtime/channels.ts).
 */

const IdParam = Schema.Struct({ id: BigIdFromString })

/** Up to 5 files of up to 16 MB each (spec 2 §8). */
const discussionUploads: MultipartLimits = {
  maxBytes: 5 * MAX_FILE_BYTES + 1024 * 1024,
  maxFiles: 5,
  maxFileBytes: MAX_FILE_BYTES,
}

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/tickets',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      'Visible tickets, newest first; filters status (`active` or a status), priority, assignee, team, q, contact, conversation, overdue; counts per status and Back Office teams in meta',
    query: Tickets.ListQuery,
    response: Schema.Array(ItemSchema),
    handler: ({ caller, workspace, query }) => answer(Tickets.list({ caller, workspace }, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/tickets',
    access: 'K',
    permission: 'tickets.create',
    tag: 'Tickets',
    summary:
      'Raise a ticket for a Back Office team (from a conversation or for a contact); uses one of the monthly ticket quota (402 when reached)',
    body: Tickets.CreateBody,
    response: DetailSchema,
    handler: ({ caller, workspace, body }) => answer(Tickets.create({ caller, workspace }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/tickets/candidates',
    access: 'K',
    permission: 'tickets.create',
    tag: 'Tickets',
    summary: 'Members who may be assigned or mentioned, with their Back Office team_ids and is_admin',
    response: Schema.Array(
      Schema.Struct({
        id: Schema.Number,
        name: Schema.String,
        email: Schema.String,
        avatar_url: Schema.NullOr(Schema.String),
        is_admin: Schema.Boolean,
        can_view: Schema.Boolean,
        team_ids: Schema.Array(Schema.Number),
      }),
    ),
    handler: ({ caller, workspace }) => answer(Tickets.candidates({ caller, workspace })),
  }),
  route({
    method: 'GET',
    path: '/v1/tickets/{id}',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      "One ticket: participants, custom fields, the caller's permissions, the source conversation's preview, update request, SLA",
    params: IdParam,
    response: DetailSchema,
    handler: ({ caller, workspace, params }) => answer(Tickets.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/tickets/{id}',
    access: 'K',
    permission: 'tickets.manage',
    tag: 'Tickets',
    summary:
      'Change status, priority, due date, subject, description, team (releases assignees outside it) or custom values; every change is logged',
    params: IdParam,
    body: Tickets.PatchBody,
    response: Schema.Union(DetailSchema, HiddenSchema),
    handler: ({ caller, workspace, params, body }) =>
      answer(Tickets.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/tickets/{id}/assignees',
    access: 'K',
    permission: 'tickets.manage',
    tag: 'Tickets',
    summary: "Assign `{user_id}`: a member of the ticket's team, or an admin",
    params: IdParam,
    body: Schema.Struct({ user_id: Schema.Number.pipe(Schema.int(), Schema.between(1, 2_147_483_647)) }),
    response: Schema.Union(DetailSchema, HiddenSchema),
    handler: ({ caller, workspace, params, body }) =>
      answer(Tickets.assign({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/tickets/{id}/participants/{user}',
    access: 'K',
    // Spec 2 §4.3: followers may unfollow themselves, with `tickets.view` (actors/tickets).
    permission: ['tickets.manage', 'tickets.view'],
    tag: 'Tickets',
    summary:
      'Remove a participant (assignee, creator or mentioned); with no assignee left the whole team sees the ticket again',
    params: Schema.Struct({ id: BigIdFromString, user: IdFromString }),
    response: Schema.Union(DetailSchema, HiddenSchema),
    handler: ({ caller, workspace, params }) =>
      answer(Tickets.removeParticipant({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/tickets/{id}/messages',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      'The discussion, oldest first, with the change log in meta.events; `after_message` / `after_event` return new items only',
    params: IdParam,
    query: Tickets.MessagesQuery,
    response: Schema.Array(MessageSchema),
    handler: ({ caller, workspace, params, query }) =>
      answer(Tickets.messages({ caller, workspace }, params, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/tickets/{id}/messages',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      'Post `{body, mention_ids}` or multipart with `files[]` (up to 5); `@Name` mentions are recognised; mentioned people become participants',
    params: IdParam,
    body: Tickets.PostBody,
    multipart: discussionUploads,
    response: MessageSchema,
    handler: ({ caller, workspace, params, body, files }) =>
      answer(Tickets.post({ caller, workspace }, params, body, files)),
  }),
  route({
    method: 'POST',
    path: '/v1/tickets/{id}/messages/{message}/feedback',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      'Send a discussion message to the source conversation as feedback (an internal note); clears the update request',
    params: Schema.Struct({ id: BigIdFromString, message: BigIdFromString }),
    response: MessageSchema,
    handler: ({ caller, workspace, params }) => answer(Tickets.feedback({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/tickets/{id}/conclusion',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary:
      '`{conclusion, resolve}`: a conclusion noted in the source conversation; `resolve: true` (needs tickets.manage) resolves an active ticket',
    params: IdParam,
    body: Tickets.ConclusionBody,
    response: MessageSchema,
    handler: ({ caller, workspace, params, body }) =>
      answer(Tickets.conclusion({ caller, workspace }, params, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/ticket-messages/{id}/files/{index}',
    access: 'K',
    permission: 'tickets.view',
    tag: 'Tickets',
    summary: "A discussion message's attachment by zero-based index; supports Range; `?download=1`",
    params: Schema.Struct({
      id: BigIdFromString,
      index: Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 4)),
    }),
    query: DownloadQuery,
    handler: (req) =>
      Effect.flatMap(Tickets.file({ caller: req.caller, workspace: req.workspace }, req.params), (f) =>
        fileReply(f, req.header('range'), wantsDownload(req.query)),
      ),
  }),
]
