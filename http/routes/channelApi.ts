import { Effect, Schema } from 'effect'
import { ConversationActor, ConversationNotFound, presentMessage } from '../../actors/conversation'
import { readLink } from '../../connectors/api/files'
import { publishEvent } from '../../engine/events'
import * as ChannelApi from '../../store/channelApi'
import type { ChannelRow } from '../../store/channels'
import * as Files from '../../store/files'
import { ApiError, notFound } from '../errors'
import { RealtimeKey } from '../realtime/token'
import { created, ok, type Route, route } from '../route'
import { DownloadQuery, fileReply, wantsDownload } from './media'

/**
 * Spec 1 §4.7, channel-key (C) endpoints: the customer's system posts its contacts' messages in
 * and reports what happened to the agents' replies (which reach it by webhook).
 */
const ExtId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))
const Inbound = Schema.Struct({
  conversation_id: ExtId,
  contact: Schema.optional(
    Schema.Struct({
      id: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
      name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
      email: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(320)))),
      phone: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(50)))),
    }),
  ),
  message: Schema.Struct({
    id: ExtId,
    text: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
    // Attachments are not stored yet (see docs/decisions-channels.md): refused rather than dropped.
    attachments: Schema.optional(Schema.Array(Schema.Unknown).pipe(Schema.filter((a) => a.length === 0))),
    sent_at: Schema.optional(Schema.String),
  }),
})
type InboundBody = typeof Inbound.Type

const present = (m: Parameters<typeof presentMessage>[0], externalId: string, channelId: number) => ({
  conversation_id: externalId,
  interaction_id: m.conversation_id,
  channel_id: channelId,
  message: presentMessage(m),
})

/**
 * One inbound message: the conversation of `conversation_id` (created with its contact on first
 * use), the message appended through the ConversationActor (gap-free sequence, `message.created`
 * on `conv:`), `inbox.changed` on `ws:`. A `message.id` already stored answers the stored message.
 */
export const simulateInbound = (channel: ChannelRow, body: InboundBody) =>
  Effect.gen(function* () {
    const contact: Record<string, string> = {}
    for (const [k, v] of Object.entries(body.contact ?? {})) if (typeof v === 'string') contact[k] = v
    const { thread, created: newConversation } = yield* ChannelApi.threadFor(
      channel,
      body.conversation_id,
      contact,
    )
    const clientId = `api:${body.message.id}`
    const stored = yield* ChannelApi.storedMessage(thread.conversation_id, clientId)
    if (stored) return { duplicate: true, data: present(stored, thread.external_id, channel.id) }
    const actor = yield* ConversationActor
    const message = yield* actor
      .ask(thread.conversation_id, {
        _tag: 'Append',
        direction: 'in',
        type: 'text',
        body: body.message.text ?? '',
        sender: { name: contact.name ?? null, external_id: contact.id ?? null },
        clientId,
      })
      .pipe(
        Effect.catchIf(
          (e): e is ConversationNotFound => e instanceof ConversationNotFound,
          () => Effect.fail(notFound()),
        ),
      )
    yield* publishEvent(`ws:${channel.workspace_id}`, 'inbox.changed', {
      interaction_id: thread.conversation_id,
      channel_id: channel.id,
      reason: newConversation ? 'conversation.created' : 'message.created',
    })
    return { duplicate: false, data: present(message, thread.external_id, channel.id) }
  })

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/channel-api/messages',
    access: 'C',
    tag: 'Channel API',
    summary: "An inbound message from the customer's system; a resent `message.id` is not stored twice",
    body: Inbound,
    handler: ({ channel, body }) =>
      Effect.gen(function* () {
        const r = yield* simulateInbound(channel, body)
        return r.duplicate ? ok(r.data) : created(r.data)
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/channel-api/messages/{id}/status',
    access: 'C',
    tag: 'Channel API',
    summary: 'Mark an agent reply `delivered` or `read`',
    params: Schema.Struct({ id: Schema.NumberFromString.pipe(Schema.int(), Schema.positive()) }),
    body: Schema.Struct({ status: Schema.Literal('delivered', 'read') }),
    handler: ({ channel, params, body }) =>
      Effect.gen(function* () {
        const row = yield* ChannelApi.markReply(channel.id, params.id, body.status)
        if (!row) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
        yield* publishEvent(`conv:${row.conversation_id}`, 'message.updated', {
          id: row.id,
          interaction_id: row.conversation_id,
          status: row.status,
        })
        return ok({ id: row.id, status: row.status })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/channel-api/files/{token}',
    access: 'C',
    tag: 'Channel API',
    summary: "An agent reply's attachment by the signed link its webhook carried (7 days); supports Range",
    params: Schema.Struct({ token: Schema.String.pipe(Schema.maxLength(1000)) }),
    query: DownloadQuery,
    handler: (req) =>
      Effect.gen(function* () {
        const link = readLink(yield* RealtimeKey, req.params.token)
        // Another channel's link, an expired or forged one: all the same 404.
        if (!link || link.channelId !== req.channel.id) return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.channel.workspace_id, link.fileId)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), wantsDownload(req.query))
      }),
  }),
]
