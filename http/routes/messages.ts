import { Effect, Schema } from 'effect'
import { BigIdFromString, Text } from '../../actors/fields'
import * as Messages from '../../actors/inbox/messages'
import { MAX_EMAIL_BYTES, MAX_EMAIL_FILES, SendBody } from '../../actors/inbox/messages'
import * as Outbound from '../../actors/inbox/outbound'
import { MessageSchema } from '../../actors/inbox/schemas'
import type { MultipartLimits } from '../multipart'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 2 §4.1, messages of a conversation: pages by id cursors; sending text, files, notes,
 * stickers, locations, shared contacts, quotes, templates and e-mail replies (JSON or multipart);
 * editing (own text, 15 minutes), unsending (2 days), retrying failed messages and reactions.
 * Writes go through the ConversationActor; delivery through the channel's ChannelActor.
 */

export const MAX_PAGE = 100

/** Uploads on the send route: one file up to 16 MB, or e-mail files up to 20 MB in all. */
export const sendUploads: MultipartLimits = {
  maxBytes: MAX_EMAIL_BYTES + 1024 * 1024,
  maxFiles: MAX_EMAIL_FILES,
  maxFileBytes: MAX_EMAIL_BYTES,
}

const MessageParams = Schema.Struct({ id: BigIdFromString, message: BigIdFromString })
const IdParam = Schema.Struct({ id: BigIdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/interactions/{id}/messages',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Messages',
    summary: 'Messages oldest to newest: the latest page, or the page before/after a message id',
    params: IdParam,
    query: Schema.Struct({
      before: Schema.optional(BigIdFromString),
      after: Schema.optional(BigIdFromString),
      limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_PAGE))),
    }),
    response: Schema.Array(MessageSchema),
    handler: ({ caller, workspace, params, query }) =>
      Effect.gen(function* () {
        const limit = query.limit ?? 50
        const page = yield* Messages.page({ caller, workspace }, params.id, { ...query, limit })
        return ok(page.rows.map(Outbound.presentSent), { limit, has_more: page.more })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/messages',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Messages',
    summary:
      'Send a message: JSON `{text}` or multipart with `file`; notes, stickers, locations, contacts, quotes, templates, e-mail fields',
    params: IdParam,
    body: SendBody,
    multipart: sendUploads,
    handler: ({ caller, workspace, params, body, files }) =>
      Effect.gen(function* () {
        const { message, replies } = yield* Messages.send({ caller, workspace }, params.id, body, files)
        return created(Outbound.presentSent(message), { replies: Outbound.repliesMeta(replies) })
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/interactions/{id}/messages/{message}',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Messages',
    summary: 'Edit your own text message within 15 minutes of sending',
    params: MessageParams,
    body: Schema.Struct({ text: Text(1, 65_536) }),
    handler: ({ caller, workspace, params, body }) =>
      Effect.map(Messages.edit({ caller, workspace }, params.id, params.message, body.text), (m) =>
        ok(Outbound.presentSent(m)),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/interactions/{id}/messages/{message}',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Messages',
    summary: 'Unsend a message for everyone, within 2 days of sending',
    params: MessageParams,
    handler: ({ caller, workspace, params }) =>
      Effect.map(Messages.unsend({ caller, workspace }, params.id, params.message), (m) =>
        ok(Outbound.presentSent(m)),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/messages/{message}/retry',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Messages',
    summary: 'Send a failed message again',
    params: MessageParams,
    handler: ({ caller, workspace, params }) =>
      Effect.map(Messages.retry({ caller, workspace }, params.id, params.message), ({ message, replies }) =>
        // A retry sends the same reply again: it uses none of today's, but says where they stand.
        ok(Outbound.presentSent(message), { replies: Outbound.repliesMeta(replies) }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/interactions/{id}/messages/{message}/reaction',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Messages',
    summary: 'React with `{emoji}`; an empty emoji removes your reaction',
    params: MessageParams,
    body: Schema.Struct({ emoji: Schema.String.pipe(Schema.maxLength(32)) }),
    handler: ({ caller, workspace, params, body }) =>
      Effect.map(Messages.react({ caller, workspace }, params.id, params.message, body.emoji), (m) =>
        ok(Outbound.presentSent(m)),
      ),
  }),
]
