import { Effect, Schema } from 'effect'
import { webhookPolicy } from '../../actors/channels/apiChannel'
import { invalid, notFound } from '../../actors/errors'
import { EmailAddress, IsoDateTime, PhoneNumber } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { afterInbound } from '../../actors/inbox/autoReply'
import { type Appended, ConversationActor, presentMessage } from '../../actors/inbox/ConversationActor'
import { MAX_ATTACHMENT_BYTES, mediaType } from '../../actors/inbox/messages'
import { Config } from '../../engine/config'
import { publishEvent } from '../../engine/events'
import { OutboundRefused, send } from '../../engine/net/outbound'
import { andThen, recover } from '../../engine/step'
import * as ChannelApi from '../../store/channelApi'
import type { ChannelRow } from '../../store/channels'
import * as Files from '../../store/files'

/**
 * The inbound side of the API channel (spec 1 §4.7): a message the customer's system posts for
 * one of its contacts, into the inbox. Files come by URL and are fetched once, through the
 * outbound guard, before anything is stored.
 */
addMessages({
  'field.attachment_fetch': {
    en: 'Could not fetch this file: {reason}.',
    id: 'Berkas ini tidak dapat diambil: {reason}.',
  },
})

const ExtId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))
export const MAX_INBOUND_ATTACHMENTS = 10
const Attachment = Schema.Struct({
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000)),
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(255))),
  mime: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
})

export const InboundMessage = Schema.Struct({
  conversation_id: ExtId,
  contact: Schema.optional(
    Schema.Struct({
      id: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
      name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(200)))),
      email: Schema.optional(Schema.NullOr(EmailAddress)),
      phone: Schema.optional(Schema.NullOr(PhoneNumber)),
    }),
  ),
  message: Schema.Struct({
    id: ExtId,
    text: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
    attachments: Schema.optional(Schema.Array(Attachment).pipe(Schema.maxItems(MAX_INBOUND_ATTACHMENTS))),
    sent_at: Schema.optional(IsoDateTime),
  }),
})

const present = (m: Parameters<typeof presentMessage>[0], externalId: string, channelId: number) => ({
  conversation_id: externalId,
  interaction_id: m.conversation_id,
  channel_id: channelId,
  message: presentMessage(m),
})

const attachmentRefused = (index: number, reason: string) =>
  invalid({ [`message.attachments.${index}.url`]: { key: 'field.attachment_fetch', params: { reason } } })

/** Downloads one attachment under the webhook policy (https, public hosts) and stores it privately. */
const fetchAttachment = (workspaceId: number, a: typeof Attachment.Type, index: number) =>
  Effect.gen(function* () {
    const policy = webhookPolicy(yield* Config)
    const res = yield* Effect.tryPromise({
      try: () =>
        send(
          a.url,
          { method: 'GET', headers: { accept: '*/*' }, body: '', maxBytes: MAX_ATTACHMENT_BYTES },
          policy,
        ),
      catch: (e) =>
        attachmentRefused(
          index,
          e instanceof OutboundRefused
            ? e.reason === 'too_large'
              ? `larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB`
              : e.reason.replaceAll('_', ' ')
            : 'unreachable',
        ),
    })
    if (res.status < 200 || res.status >= 300)
      return yield* Effect.fail(attachmentRefused(index, `HTTP ${res.status}`))
    const mime =
      a.mime ??
      String(res.headers['content-type'] ?? 'application/octet-stream')
        .split(';')[0]!
        .trim()
    const name = a.name ?? (new URL(a.url).pathname.split('/').pop() || 'file')
    // The disk failing is our fault, not the customer's: a 500, logged.
    return yield* Files.save(workspaceId, { name, mime, bytes: res.bytes }, null).pipe(Effect.orDie)
  })

/**
 * One inbound message: the conversation of `conversation_id` (created with its contact on first
 * use), the message appended through the ConversationActor (gap-free sequence, `message.created`
 * on `conv:`), `inbox.changed` on `ws:`. A `message.id` already stored answers the stored message
 * with `duplicate: true`.
 */
export const receive = (channel: ChannelRow, body: typeof InboundMessage.Type) =>
  // The conversation went away between finding it and appending (its contact was deleted): once
  // more from the start, which opens a new conversation (and contact) for the customer's message.
  // Steps (engine/step.ts), not combinators: the usual message waits for its actor without a fiber.
  recover(receiveOnce(channel, body), 'ConversationNotFound', () =>
    recover(
      andThen(ChannelApi.forgetThread(channel.id, body.conversation_id), () => receiveOnce(channel, body)),
      'ConversationNotFound',
      () => Effect.fail(notFound()),
    ),
  )

const receiveOnce = (channel: ChannelRow, body: typeof InboundMessage.Type) => {
  const attachments = body.message.attachments ?? []
  if ((body.message.text ?? '').trim() === '' && attachments.length === 0)
    return Effect.fail(invalid({ 'message.text': { key: 'field.required' } }))
  const contact: Record<string, string> = {}
  for (const [k, v] of Object.entries(body.contact ?? {})) if (typeof v === 'string') contact[k] = v
  const clientId = `api:${body.message.id}`
  // Steps, not a generator: this runs for every inbound message.
  return andThen(ChannelApi.threadFor(channel, body.conversation_id, contact), ({ thread, created }) => {
    const append = (
      m: { readonly type: string; readonly body: string; readonly fileId?: number },
      cid: string,
    ) =>
      andThen(ConversationActor, (actor) =>
        actor.ask(thread.conversation_id, {
          _tag: 'Append',
          direction: 'in',
          ...m,
          sender: { name: contact.name ?? null, external_id: contact.id ?? null },
          clientId: cid,
          sentAt: body.message.sent_at === undefined ? undefined : new Date(body.message.sent_at),
        }),
      )
    const answer = (message: Appended) => {
      const data = present(message, thread.external_id, channel.id)
      // The append already told `ws:` about the message; a new conversation is worth a second
      // word, as the other connectors do.
      const announced = created
        ? publishEvent(`ws:${channel.workspace_id}`, 'inbox.changed', {
            interaction_id: thread.conversation_id,
            channel_id: channel.id,
            reason: 'conversation.created',
          })
        : Effect.void
      if (message.duplicate === true)
        return andThen(announced, () => Effect.succeed({ duplicate: true, data }))
      return andThen(announced, () =>
        andThen(
          afterInbound(channel, thread.conversation_id, { newConversation: created, fresh: true }),
          () => Effect.succeed({ duplicate: false, data }),
        ),
      )
    }
    if (attachments.length === 0)
      return andThen(append({ type: 'text', body: body.message.text ?? '' }, clientId), answer)
    return Effect.gen(function* () {
      // A resend with files is answered before they are fetched again; without, the conversation's
      // actor knows its recent client ids and answers a resend with the stored message.
      const stored = yield* ChannelApi.storedMessage(thread.conversation_id, clientId)
      if (stored) return { duplicate: true, data: present(stored, thread.external_id, channel.id) }
      // Fetched before anything is stored, so a file that cannot be fetched refuses the whole
      // message (422) and the customer's system can send it again.
      const files = yield* Effect.forEach(attachments, (a, i) => fetchAttachment(channel.workspace_id, a, i))
      // The text travels with the first file, as a caption; each further file is a message of its own.
      const [first, ...rest] = files
      const message = yield* append(
        { type: mediaType(first!.mime), body: body.message.text ?? '', fileId: first!.id },
        clientId,
      )
      if (rest.length > 0)
        yield* Effect.forEach(rest, (f, i) =>
          append({ type: mediaType(f.mime), body: '', fileId: f.id }, `${clientId}:${i + 1}`),
        )
      return yield* answer(message)
    })
  })
}

/**
 * The customer's system reports an agent reply `delivered` or `read`. Through the conversation's
 * actor, like every receipt: status only moves forward, and agents get the whole message in
 * `message.updated`. Notes and other channels' messages are 404.
 */
export const receipt = (channel: ChannelRow, messageId: number, status: 'delivered' | 'read') =>
  Effect.gen(function* () {
    const row = yield* ChannelApi.replyOf(channel.id, messageId)
    if (!row) return yield* Effect.fail(notFound())
    const actor = yield* ConversationActor
    const view = yield* actor
      .ask(row.conversation_id, {
        _tag: 'Remote',
        messageId: row.id,
        change: { kind: 'status', status },
      })
      .pipe(
        Effect.catchTags({
          ConversationNotFound: () => Effect.fail(notFound()),
          MessageNotFound: () => Effect.fail(notFound()),
        }),
      )
    return { id: row.id, status: view?.status ?? row.status }
  })
