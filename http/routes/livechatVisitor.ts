import { Effect, Schema } from 'effect'
import { sniffImage } from '../../actors/channels/image'
import { hostAllowed, hostOf, widgetOf } from '../../actors/channels/livechatSettings'
import { ApiError, invalid, notFound } from '../../actors/errors'
import { BigIdFromString, EmailAddress, humanSize, PhoneNumber } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import { afterInbound } from '../../actors/inbox/autoReply'
import { ConversationActor, ConversationNotFound } from '../../actors/inbox/ConversationActor'
import { mediaType } from '../../actors/inbox/messages'
import { inboxCreated } from '../../actors/inbox/outbound'
import { announceQueue } from '../../connectors/livechat/adapter'
import * as FormToken from '../../connectors/livechat/formToken'
import { visibleToVisitor, visitorMessage, visitorTopic } from '../../connectors/livechat/present'
import { WallClock } from '../../engine/clock'
import { Config } from '../../engine/config'
import { publishEvent } from '../../engine/events'
import { RateLimiter } from '../../engine/ratelimit/RateLimiter'
import { iso } from '../../engine/time'
import { SigningKey } from '../../engine/tokens'
import type { ChannelRow } from '../../store/channels'
import * as Conversations from '../../store/conversations'
import * as Files from '../../store/files'
import * as Livechat from '../../store/livechat'
import * as Messages from '../../store/messages'
import * as Settings from '../../store/settings'
import * as Users from '../../store/users'
import type { WorkspaceRow } from '../../store/workspaces'
import { DownloadQuery, fileReply, iconReply, wantsDownload } from '../files'
import { REALTIME_PATH } from '../realtime/gateway'
import { sign, TOKEN_TTL_SECONDS } from '../realtime/token'
import { created, ok, type Reply, type Route, route } from '../route'
import { channelOfKey, refuseIfFrozen } from '../visitorAuth'

/**
 * Spec 1 §4.6, the live chat widget's endpoints. `config` and `logo` are public (P), and `config`
 * alone answers any origin (CORS, §5 rule 6): the loader on the customer's page reads it. The rest
 * are called by the widget's own page, served by Kotak in an iframe (same origin), with the
 * visitor token (V, checked in http/visitorAuth.ts).
 */
addMessages({
  'livechat.domain': {
    en: 'This website may not use this chat widget.',
    id: 'Situs web ini tidak boleh memakai widget obrolan ini.',
  },
  'field.form_token': {
    en: 'The form has expired or was sent too fast; reload it and try again.',
    id: 'Formulir kedaluwarsa atau dikirim terlalu cepat; muat ulang dan coba lagi.',
  },
  'field.consent': {
    en: 'must be accepted',
    id: 'harus disetujui',
  },
  'field.attachments_off': {
    en: 'files cannot be sent in this chat',
    id: 'berkas tidak dapat dikirim di obrolan ini',
  },
  'field.attachments_images': {
    en: 'only images (PNG, JPG, WebP, GIF) can be sent in this chat',
    id: 'hanya gambar (PNG, JPG, WebP, GIF) yang dapat dikirim di obrolan ini',
  },
  'field.message_empty': {
    en: 'write a message or attach a file',
    id: 'tulis pesan atau lampirkan berkas',
  },
})

/** Visitor uploads (one file a message). */
export const MAX_VISITOR_FILE_BYTES = 10 * 1024 * 1024
/** `visitor.online` at most this often per visitor; the widget beats every 30 seconds. */
const ONLINE_EVERY_SECONDS = 25
const MESSAGES_PAGE = 100

const Key = Schema.Struct({ key: Schema.String.pipe(Schema.maxLength(100)) })
const KeyAndId = Schema.Struct({
  key: Schema.String.pipe(Schema.maxLength(100)),
  id: BigIdFromString,
})

/** Business hours of the channel (its own, else the workspace's), now. */
const openNow = (channel: ChannelRow, workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const general = Settings.generalOf(workspace)
    const hours =
      (channel.settings.hours as Settings.BusinessHours | null | undefined) ?? general.business_hours
    return Settings.openAt(hours, general.timezone, yield* Effect.flatMap(WallClock, (c) => c.now))
  })

/** The page the widget sits on: as the loader reported it, else the browser's Origin or Referer. */
const pageHost = (reported: string | undefined | null, header: (n: string) => string | undefined) =>
  hostOf(reported) ?? hostOf(header('origin')) ?? hostOf(header('referer'))

const logoUrl = (channel: ChannelRow, key: string) => {
  const v = channel.settings.icon
  return typeof v === 'string' ? `/v1/livechat/${key}/logo?v=${encodeURIComponent(v)}` : null
}

const queueOf = (c: Conversations.ConversationRow) =>
  Effect.gen(function* () {
    const position = yield* Livechat.queuePosition(c)
    const agent = c.assignee_id !== null ? yield* Users.byId(c.assignee_id) : null
    return {
      queue: { position, waiting: position > 0 },
      agent: agent ? { name: agent.name, avatar_url: agent.avatar_url } : null,
    }
  })

const conversationGone = () => Effect.fail(notFound())

const withCors = (reply: Reply): Reply => ({
  ...reply,
  headers: { ...(reply.headers ?? {}), 'Access-Control-Allow-Origin': '*', Vary: 'Origin' },
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/config',
    access: 'P',
    tag: 'Live chat widget',
    summary:
      'Widget look and texts, business-hours status, whether the page may show the widget, and a form token; any origin (CORS)',
    params: Key,
    query: Schema.Struct({ page: Schema.optional(Schema.String.pipe(Schema.maxLength(2000))) }),
    handler: ({ params, query, header }) =>
      Effect.gen(function* () {
        const { channel, livechat, workspace } = yield* channelOfKey(params.key)
        const w = widgetOf(livechat.widget)
        const key = yield* SigningKey
        const cfg = yield* Config
        return withCors(
          ok({
            name: channel.name,
            title: w.title,
            subtitle: w.subtitle,
            color: w.color,
            font: w.font,
            radius: w.radius,
            position: w.position,
            launcher_icon: w.launcher_icon,
            intro: w.intro,
            consent: w.consent,
            start_label: w.start_label,
            attachments: w.attachments,
            email_fallback: w.email_fallback,
            logo_url: logoUrl(channel, params.key),
            open: yield* openNow(channel, workspace),
            allowed: hostAllowed(w.allowed_domains, pageHost(query.page, header)),
            form_token: FormToken.issue(key, channel.id),
            min_fill_ms: cfg.livechatMinFillMs,
          }),
        )
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/logo',
    access: 'P',
    tag: 'Live chat widget',
    summary: "The widget logo (the channel's icon); 404 when none was uploaded",
    params: Key,
    handler: ({ params }) =>
      Effect.gen(function* () {
        const { channel } = yield* channelOfKey(params.key)
        const icon = yield* Livechat.iconOf(channel.id)
        if (!icon) return yield* Effect.fail(notFound())
        return iconReply(icon, 'public, max-age=300')
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/visitors',
    access: 'P',
    tag: 'Live chat widget',
    summary:
      'Start a chat: name, e-mail and phone (all required), the page, the locale and the form token; answers the visitor token',
    params: Key,
    body: Schema.Struct({
      name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
      email: EmailAddress,
      phone: PhoneNumber,
      page_url: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
      locale: Schema.optional(Schema.Literal('en', 'id')),
      form_token: Schema.String.pipe(Schema.maxLength(1000)),
      consent: Schema.optional(Schema.Boolean),
    }),
    handler: ({ params, body, header, ip }) =>
      Effect.gen(function* () {
        const { channel, livechat, workspace } = yield* channelOfKey(params.key)
        yield* refuseIfFrozen(workspace, 'POST')
        const cfg = yield* Config
        const limiter = yield* RateLimiter
        const r = yield* limiter.hit(`livechat-start:${ip}`, cfg.livechatStartsPerMinute)
        if (!r.allowed) {
          const seconds = Math.max(1, Math.ceil((r.resetAtMs - Date.now()) / 1000))
          return yield* Effect.fail(
            new ApiError({
              code: 'rate_limited',
              params: { seconds },
              headers: { 'Retry-After': String(seconds) },
            }),
          )
        }
        const w = widgetOf(livechat.widget)
        if (!hostAllowed(w.allowed_domains, pageHost(body.page_url, header)))
          return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'livechat.domain' }))
        const problems: Record<string, { key: string }> = {}
        if (body.name.trim() === '') problems.name = { key: 'field.required' }
        if (w.consent !== '' && body.consent !== true) problems.consent = { key: 'field.consent' }
        const verdict = FormToken.check(yield* SigningKey, body.form_token, channel.id, cfg.livechatMinFillMs)
        if (!verdict.ok) problems.form_token = { key: 'field.form_token' }
        if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
        if (
          verdict.ok &&
          !(yield* Livechat.spendNonce(verdict.nonce, FormToken.FORM_TOKEN_TTL_MS / 1000 + 600))
        )
          return yield* Effect.fail(invalid({ form_token: { key: 'field.form_token' } }))
        const started = yield* Livechat.start(channel, {
          name: body.name.trim(),
          email: body.email.trim(),
          phone: body.phone.trim(),
          pageUrl: body.page_url ?? null,
          locale: body.locale ?? 'en',
          ip,
        })
        yield* inboxCreated(started.conversation)
        if (started.contactCreated)
          yield* publishEvent(`ws:${channel.workspace_id}`, 'contacts.changed', {
            contact_id: started.visitor.contact_id,
            reason: 'created',
          })
        return created({
          token: started.token,
          session: started.visitor.session,
          channel: visitorTopic(started.visitor.session),
          interaction_id: started.conversation.id,
          open: yield* openNow(channel, workspace),
          ...(yield* queueOf(started.conversation)),
        })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/conversation',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'The visitor’s conversation: messages after `after` (message id), queue position and agent',
    params: Key,
    query: Schema.Struct({
      after: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.nonNegative())),
    }),
    handler: ({ params, query, visitor }) =>
      Effect.gen(function* () {
        const c = yield* Conversations.byId(visitor.conversation_id)
        if (!c) return yield* Effect.fail(notFound())
        const known = query.after ? yield* Messages.inConversation(c.id, query.after) : null
        const page = yield* Messages.page(
          c.id,
          known ? { after: known.id, limit: MESSAGES_PAGE } : { limit: MESSAGES_PAGE },
        )
        const messages = (page?.rows ?? []).filter(visibleToVisitor).map((m) => visitorMessage(m, params.key))
        return ok({
          id: c.id,
          status: c.status,
          visitor: { name: visitor.name, email: visitor.email, session: visitor.session },
          messages,
          more: page?.more ?? false,
          seen_message_id: visitor.seen_message_id,
          ...(yield* queueOf(c)),
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/messages',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'Send `text` with a `client_id` (a resend is not stored twice), optionally a multipart `file`',
    params: Key,
    multipart: {
      maxBytes: MAX_VISITOR_FILE_BYTES + 64 * 1024,
      maxFiles: 1,
      maxFileBytes: MAX_VISITOR_FILE_BYTES,
    },
    body: Schema.Struct({
      text: Schema.optional(Schema.String.pipe(Schema.maxLength(5000))),
      client_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
    }),
    handler: ({ params, body, files, visitor, channel, widget }) =>
      Effect.gen(function* () {
        const clientId = `lc:${visitor.id}:${body.client_id}`
        const again = yield* Messages.byClientId(visitor.conversation_id, clientId)
        if (again) return ok(visitorMessage(again, params.key))
        const text = (body.text ?? '').trim()
        const file = files.find((f) => f.field === 'file')
        if (!file && text === '') return yield* Effect.fail(invalid({ text: { key: 'field.message_empty' } }))
        let mime = file?.mime ?? ''
        if (file) {
          const attachments = widgetOf(widget).attachments
          if (attachments === 'off')
            return yield* Effect.fail(invalid({ file: { key: 'field.attachments_off' } }))
          const image = sniffImage(file.bytes)
          if (attachments === 'images' && !image)
            return yield* Effect.fail(invalid({ file: { key: 'field.attachments_images' } }))
          // An image is stored as what its bytes say, whatever the browser claimed.
          mime = image?.mime ?? (file.mime || 'application/octet-stream')
          if (file.bytes.byteLength > MAX_VISITOR_FILE_BYTES)
            return yield* Effect.fail(
              invalid({
                file: { key: 'field.file_too_large', params: { size: humanSize(MAX_VISITOR_FILE_BYTES) } },
              }),
            )
        }
        const saved = file
          ? yield* Files.save(
              visitor.workspace_id,
              { name: file.filename || 'file', mime, bytes: file.bytes },
              null,
            ).pipe(Effect.orDie)
          : null
        const stored = yield* Effect.flatMap(ConversationActor, (a) =>
          a.ask(visitor.conversation_id, {
            _tag: 'Append',
            direction: 'in',
            type: saved ? mediaType(saved.mime) : 'text',
            body: text,
            sender: { name: visitor.name, visitor_id: visitor.id },
            clientId,
            fileId: saved?.id ?? null,
          }),
        ).pipe(
          Effect.catchIf(
            (e): e is ConversationNotFound => e instanceof ConversationNotFound,
            conversationGone,
          ),
        )
        const view = (yield* Messages.view(stored.id)) ?? stored
        const shown = visitorMessage(view as Messages.MessageView, params.key)
        // The visitor's other tabs see it too.
        yield* publishEvent(visitorTopic(visitor.session), 'message', shown)
        yield* afterInbound(channel, visitor.conversation_id, { newConversation: stored.seq === 1 })
        return created(shown)
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/livechat/{key}/files/{id}',
    access: 'V',
    tag: 'Live chat widget',
    summary: "An attachment of the visitor's own conversation (any other file is 404); supports Range",
    params: KeyAndId,
    query: DownloadQuery,
    handler: ({ params, query, visitor, header }) =>
      Effect.gen(function* () {
        const id = yield* Livechat.fileInConversation(visitor.conversation_id, params.id)
        const file = id === null ? null : yield* Files.byId(visitor.workspace_id, id)
        if (!file) return yield* Effect.fail(notFound())
        const reply = yield* fileReply(file, header('range'), wantsDownload(query))
        return { ...reply, headers: { ...(reply.headers ?? {}), 'Cache-Control': 'private, max-age=3600' } }
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/realtime',
    access: 'V',
    tag: 'Live chat widget',
    summary:
      'A WebSocket token (60 seconds) for the channel `visitor:{session}` (events message, queue, typing, read)',
    params: Key,
    handler: ({ visitor }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const key = yield* SigningKey
        const exp = Math.floor(Date.now() / 1000) + TOKEN_TTL_SECONDS
        const channel = visitorTopic(visitor.session)
        const token = sign(key, { u: 0, w: visitor.workspace_id, exp, ch: [channel], v: visitor.session })
        return ok({
          token,
          channel,
          expires_at: iso(new Date(exp * 1000)),
          url: `${cfg.publicUrl.replace(/^http/, 'ws')}${REALTIME_PATH}?token=${token}`,
        })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/typing',
    access: 'V',
    tag: 'Live chat widget',
    summary: 'The visitor is typing (`typing: false` when they stopped)',
    params: Key,
    body: Schema.Struct({ typing: Schema.optional(Schema.Boolean) }),
    handler: ({ body, visitor }) =>
      Effect.gen(function* () {
        const typing = body.typing ?? true
        yield* Effect.flatMap(ConversationActor, (a) =>
          a.ask(visitor.conversation_id, { _tag: 'RemoteTyping', name: visitor.name, typing }),
        ).pipe(
          Effect.catchIf(
            (e): e is ConversationNotFound => e instanceof ConversationNotFound,
            conversationGone,
          ),
        )
        return ok({ typing })
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/livechat/{key}/seen',
    access: 'V',
    tag: 'Live chat widget',
    summary:
      'The widget is open (sent every 30 seconds; agents get `visitor.online`) and messages up to `message_id` were seen',
    params: Key,
    body: Schema.Struct({
      message_id: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.nonNegative())),
    }),
    handler: ({ body, visitor, channel }) =>
      Effect.gen(function* () {
        const seen = yield* Livechat.markSeen(visitor.id, body.message_id ?? 0, ONLINE_EVERY_SECONDS)
        if (!seen) return yield* Effect.fail(notFound())
        if (seen.announce) {
          yield* publishEvent(`conv:${visitor.conversation_id}`, 'visitor.online', {
            interaction_id: visitor.conversation_id,
            channel_id: channel.id,
            name: visitor.name,
            page_url: visitor.page_url,
            at: new Date().toISOString(),
          })
        }
        // Agent replies the visitor has now seen are `read` (message.updated to the agents).
        if (seen.seen_message_id > seen.before) {
          const actor = yield* ConversationActor
          for (const id of yield* Livechat.unreadReplies(visitor.conversation_id, seen.seen_message_id)) {
            yield* actor
              .ask(visitor.conversation_id, {
                _tag: 'Remote',
                messageId: id,
                change: { kind: 'status', status: 'read' },
              })
              .pipe(Effect.ignore)
          }
        }
        return ok({ seen_message_id: seen.seen_message_id, online: true })
      }),
  }),
]

/** Re-exported for the channel routes' pickup path and tests: tell every waiting visitor their place. */
export { announceQueue }
