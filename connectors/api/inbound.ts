import { Effect, Schema } from 'effect'
import { webhookPolicy } from '../../actors/channels/apiChannel'
import * as ApiThreads from '../../actors/channels/apiThreads'
import { typeByBytes } from '../../actors/channels/msgappMedia'
import { invalid, notFound } from '../../actors/errors'
import { EmailAddress, IsoDateTime, PhoneNumber } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { type Appended, ConversationActor, presentMessage } from '../../actors/inbox/ConversationActor'
import { receiveInbound } from '../../actors/inbox/inbound'
import { MAX_ATTACHMENT_BYTES, mediaType } from '../../actors/inbox/messages'
import { Config } from '../../engine/config'
import { MEDIA_TYPE, nameForType } from '../../engine/mime'
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
  mime: Schema.optional(Schema.String.pipe(Schema.maxLength(100), Schema.pattern(MEDIA_TYPE))),
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
    const name = a.name ?? (new URL(a.url).pathname.split('/').pop() || 'file')
    // Stored as what its bytes are, not as the message or the file's server says.
    const mime = typeByBytes(res.bytes, name, a.mime ?? String(res.headers['content-type'] ?? ''))
    // The disk failing is our fault, not the customer's: a 500, logged.
    return yield* Files.save(
      workspaceId,
      { name: nameForType(name, mime), mime, bytes: res.bytes },
      null,
    ).pipe(Effect.orDie)
  })

/**
 * One inbound message: the conversation of `conversation_id` (created with its contact on first
 * use), the message into the inbox (actors/inbox/inbound.ts). A `message.id` already stored
 * answers the stored message with `duplicate: true`.
 */
export const receive = (channel: ChannelRow, body: typeof InboundMessage.Type) =>
  // The conversation went away between finding it and appending (its contact was deleted): once
  // more from the start, which opens a new conversation (and contact) for the customer's message.
  // Steps (engine/step.ts), not combinators: the usual message waits for its actor without a fiber.
  // Gone again: it answers for itself (404).
  recover(receiveOnce(channel, body), 'ConversationNotFound', () =>
    andThen(ApiThreads.forgetThread(channel.id, body.conversation_id), () => receiveOnce(channel, body)),
  )

/** The API channel posts its messages now: they are always fresh, and from the customer. */
const arrival = { outgoing: false, history: false, group: false, automatic: false } as const

const receiveOnce = (channel: ChannelRow, body: typeof InboundMessage.Type) => {
  const attachments = body.message.attachments ?? []
  if ((body.message.text ?? '').trim() === '' && attachments.length === 0)
    return Effect.fail(invalid({ 'message.text': { key: 'field.required' } }))
  const contact: Record<string, string> = {}
  for (const [k, v] of Object.entries(body.contact ?? {})) if (typeof v === 'string') contact[k] = v
  const clientId = `api:${body.message.id}`
  // Steps, not a generator: this runs for every inbound message.
  return andThen(ApiThreads.threadFor(channel, body.conversation_id, contact), ({ thread, created }) => {
    const message = (
      m: { readonly type: string; readonly body: string; readonly fileId?: number },
      cid: string,
    ) => ({
      direction: 'in' as const,
      ...m,
      sender: { name: contact.name ?? null, external_id: contact.id ?? null },
      clientId: cid,
      sentAt: body.message.sent_at === undefined ? undefined : new Date(body.message.sent_at),
    })
    const receiveFirst = <A, E, R>(
      m: Parameters<typeof message>[0],
      recorded: (stored: Appended) => Effect.Effect<A, E, R>,
    ) =>
      receiveInbound(
        {
          channel,
          conversationId: thread.conversation_id,
          opening: created ? 'created' : 'existing',
          message: message(m, clientId),
          arrival,
          channelIsCurrent: true,
        },
        recorded,
      )
    const answer = (stored: Appended) =>
      Effect.succeed({
        duplicate: stored.duplicate === true,
        data: present(stored, thread.external_id, channel.id),
      })
    if (attachments.length === 0) return receiveFirst({ type: 'text', body: body.message.text ?? '' }, answer)
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
      return yield* receiveFirst(
        { type: mediaType(first!.mime), body: body.message.text ?? '', fileId: first!.id },
        (stored) =>
          Effect.flatMap(
            Effect.forEach(rest, (f, i) =>
              Effect.flatMap(ConversationActor, (actor) =>
                actor.ask(thread.conversation_id, {
                  _tag: 'Append',
                  ...message({ type: mediaType(f.mime), body: '', fileId: f.id }, `${clientId}:${i + 1}`),
                }),
              ),
            ),
            () => answer(stored),
          ),
      )
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
    const view = yield* actor.ask(row.conversation_id, {
      _tag: 'Remote',
      messageId: row.id,
      change: { kind: 'status', status },
    })
    return { id: row.id, status: view?.status ?? row.status }
  })
