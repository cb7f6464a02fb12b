import { Effect, Schema } from 'effect'
import { currentMillis, currentTime } from '../../engine/clock'
import { Config } from '../../engine/config'
import { SigningKey } from '../../engine/tokens'
import type { ChannelRow } from '../../store/channels'
import * as Conversations from '../../store/conversations'
import * as Files from '../../store/files'
import * as Livechat from '../../store/livechat'
import * as Messages from '../../store/messages'
import * as Settings from '../../store/settings'
import * as Users from '../../store/users'
import * as Workspaces from '../../store/workspaces'
import { spend } from '../budget'
import * as FormToken from '../channels/formToken'
import { defaults, hostAllowed, hostOf, type Widget, widgetOf } from '../channels/livechatSettings'
import { visibleToVisitor, visitorMessage } from '../channels/visitorPresenters'
import { ApiError, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { EmailAddress, humanSize, PhoneNumber, type UploadedFile, WebUrl } from '../fields'
import { addMessages, type Locale } from '../i18n'
import { sniffImage } from '../image'
import { ConversationActor } from '../inbox/ConversationActor'
import { inboxCreated } from '../inbox/outbound'
import { decideStart } from './prechat'

/**
 * The live chat visitor of spec 1 §4.6: the widget's configuration for a page, starting a chat
 * (allowed site, consent, form token spent once, a per-address budget), the visitor's own
 * conversation and files, typing, and the heartbeat that marks replies read and tells agents the
 * visitor is online. The visitor's messages come in through connectors/livechat/inbound.ts.
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

/** A pre-chat answer that may be left out: blank reads as not given, anything else must be valid. */
const OrBlank = (valid: Schema.Schema<string>, maxLength: number) => {
  const ok = Schema.is(valid)
  return Schema.optional(
    Schema.NullOr(
      Schema.String.pipe(
        Schema.maxLength(maxLength),
        Schema.filter((s) => s.trim() === '' || ok(s.trim()), { message: () => 'field.pattern' }),
      ),
    ),
  )
}

/**
 * The spec's three fields are required unless the owner's `prechat` says otherwise: the schema
 * admits them missing, `decideStart` (prechat.ts) refuses what the channel requires.
 */
export const StartBody = Schema.Struct({
  name: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(100)))),
  email: OrBlank(EmailAddress, 320),
  phone: OrBlank(PhoneNumber, 25),
  page_url: Schema.optional(Schema.NullOr(WebUrl(2000))),
  locale: Schema.optional(Schema.Literal('en', 'id')),
  form_token: Schema.String.pipe(Schema.maxLength(1000)),
  consent: Schema.optional(Schema.Boolean),
})

/** Where a widget request comes from: the page the loader reported, else the browser's headers. */
export interface Origin {
  readonly page: string | null | undefined
  readonly origin: string | undefined
  readonly referer: string | undefined
}

// ---- Rules -----------------------------------------------------------------------------------

/** The live chat channel of a public key, or 404 (also for a replaced key). */
export const channelOfKey = (key: string | undefined) =>
  Effect.gen(function* () {
    const found = key ? yield* Livechat.byPublicKey(key) : null
    if (!found) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
    const workspace = yield* Workspaces.byId(found.channel.workspace_id)
    if (!workspace) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
    return { ...found, workspace }
  })

/** Widget writes (start, send, typing, seen) wait while the workspace is frozen. */
export const refuseIfFrozen = (workspace: Workspaces.WorkspaceRow, method: string) =>
  workspace.frozen_at !== null && method !== 'GET'
    ? Effect.fail(new ApiError({ code: 'workspace_frozen' }))
    : Effect.void

/** Business hours of the channel (its own, else the workspace's), now. */
const openNow = (channel: ChannelRow, workspace: Workspaces.WorkspaceRow) =>
  Effect.gen(function* () {
    const general = Settings.generalOf(workspace)
    const hours =
      (channel.settings.hours as Settings.BusinessHours | null | undefined) ?? general.business_hours
    return Settings.openAt(hours, general.timezone, yield* currentTime)
  })

const pageHost = (o: Origin) => hostOf(o.page) ?? hostOf(o.origin) ?? hostOf(o.referer)

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

/** Admits a visitor's file under the widget's `attachments` setting; images are typed by their bytes. */
export const admitFile = (widget: Widget, file: UploadedFile) => {
  if (widget.attachments === 'off') return Effect.fail(invalid({ file: { key: 'field.attachments_off' } }))
  const image = sniffImage(file.bytes)
  if (widget.attachments === 'images' && !image)
    return Effect.fail(invalid({ file: { key: 'field.attachments_images' } }))
  if (file.bytes.byteLength > MAX_VISITOR_FILE_BYTES)
    return Effect.fail(
      invalid({ file: { key: 'field.file_too_large', params: { size: humanSize(MAX_VISITOR_FILE_BYTES) } } }),
    )
  return Effect.succeed({ mime: image?.mime ?? (file.mime || 'application/octet-stream') })
}

// ---- Operations ------------------------------------------------------------------------------

/**
 * The owner's texts as typed, except where they still read as the English defaults: the widget shows
 * those in the visitor's language (an owner who never wrote a title did not choose English).
 */
const DEFAULT_TEXTS_ID = {
  title: 'Chat dengan kami',
  subtitle: 'Biasanya kami membalas dalam hitungan menit',
  intro: 'Halo! Isi data Anda dan kami akan segera melayani.',
  start_label: 'Mulai chat',
} as const satisfies Partial<Record<keyof Widget, string>>

const defaultTextsIn = (w: Widget): Partial<Record<keyof typeof DEFAULT_TEXTS_ID, string>> => {
  const out: Partial<Record<keyof typeof DEFAULT_TEXTS_ID, string>> = {}
  for (const k of Object.keys(DEFAULT_TEXTS_ID) as (keyof typeof DEFAULT_TEXTS_ID)[])
    if (w[k] === defaults[k]) out[k] = DEFAULT_TEXTS_ID[k]
  return out
}

/** An owner text as a visitor in `locale` reads it (the e-mail fallback's subject, say). */
export const ownText = (w: Widget, key: keyof typeof DEFAULT_TEXTS_ID, locale: Locale): string =>
  (locale === 'id' ? defaultTextsIn(w)[key] : undefined) ?? w[key]

/** The widget's look and texts, whether it is open now and may show on this page, and a form token. */
export const config = (key: string, from: Origin) =>
  Effect.gen(function* () {
    const { channel, livechat, workspace } = yield* channelOfKey(key)
    const w = widgetOf(livechat.widget)
    const signing = yield* SigningKey
    const cfg = yield* Config
    return {
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
      prechat: w.prechat,
      locale: w.locale,
      default_texts: { id: defaultTextsIn(w) },
      logo_url: logoUrl(channel, key),
      open: yield* openNow(channel, workspace),
      allowed: hostAllowed(w.allowed_domains, pageHost(from)),
      form_token: FormToken.issue(signing, channel.id, yield* currentMillis),
      min_fill_ms: cfg.livechatMinFillMs,
    }
  })

/** The widget logo (the channel's icon); 404 when none was uploaded. */
export const logo = (key: string) =>
  Effect.gen(function* () {
    const { channel } = yield* channelOfKey(key)
    const icon = yield* Livechat.iconOf(channel.id)
    return icon ?? (yield* Effect.fail(notFound()))
  })

/** Starts a chat: the visitor, their contact and a waiting conversation; answers the visitor token. */
export const start = (
  key: string,
  body: typeof StartBody.Type,
  from: Omit<Origin, 'page'> & { readonly ip: () => string; readonly locale: Locale },
) =>
  Effect.gen(function* () {
    const { channel, livechat, workspace } = yield* channelOfKey(key)
    yield* refuseIfFrozen(workspace, 'POST')
    const cfg = yield* Config
    yield* spend(`livechat-start:${from.ip()}`, cfg.livechatStartsPerMinute)
    const w = widgetOf(livechat.widget)
    if (!hostAllowed(w.allowed_domains, pageHost({ ...from, page: body.page_url })))
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'livechat.domain' }))
    const answers = decideStart(w.prechat, body, 1000 + Math.floor(Math.random() * 9000))
    // Refused as the schema refuses a missing field: before the form token is looked at.
    if (answers._tag === 'Missing')
      return yield* Effect.fail(
        invalid(Object.fromEntries(answers.fields.map((f) => [f, { key: 'field.required' }]))),
      )
    const problems: Record<string, { key: string }> = {}
    if (w.consent !== '' && body.consent !== true) problems.consent = { key: 'field.consent' }
    const verdict = FormToken.check(
      yield* SigningKey,
      body.form_token,
      channel.id,
      cfg.livechatMinFillMs,
      yield* currentMillis,
    )
    if (!verdict.ok) problems.form_token = { key: 'field.form_token' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    if (verdict.ok && !(yield* Livechat.spendNonce(verdict.nonce, FormToken.FORM_TOKEN_TTL_MS / 1000 + 600)))
      return yield* Effect.fail(invalid({ form_token: { key: 'field.form_token' } }))
    const started = yield* Livechat.start(channel, {
      ...answers.fields,
      pageUrl: body.page_url?.trim() || null,
      // The spec's field; without it, the language the widget asked in (`X-Locale`).
      locale: body.locale ?? from.locale,
      ip: from.ip(),
    })
    yield* inboxCreated(started.conversation)
    if (started.contactCreated)
      yield* publish(topics.workspace(channel.workspace_id), 'contacts.changed', {
        contact_id: started.visitor.contact_id,
        reason: 'created',
      })
    return {
      token: started.token,
      session: started.visitor.session,
      channel: topics.visitor(started.visitor.session),
      interaction_id: started.conversation.id,
      open: yield* openNow(channel, workspace),
      ...(yield* queueOf(started.conversation)),
    }
  })

/** The visitor's conversation: messages after `after` (a message id), queue position and agent. */
export const conversation = (visitor: Livechat.VisitorRow, key: string, after: number | undefined) =>
  Effect.gen(function* () {
    const c = yield* Conversations.byId(visitor.conversation_id)
    if (!c) return yield* Effect.fail(notFound())
    const known = after ? yield* Messages.inConversation(c.id, after) : null
    const page = yield* Messages.page(
      c.id,
      known ? { after: known.id, limit: MESSAGES_PAGE } : { limit: MESSAGES_PAGE },
    )
    return {
      id: c.id,
      status: c.status,
      visitor: { name: visitor.name, email: visitor.email, session: visitor.session },
      messages: (page?.rows ?? []).filter(visibleToVisitor).map((m) => visitorMessage(m, key)),
      more: page?.more ?? false,
      seen_message_id: visitor.seen_message_id,
      ...(yield* queueOf(c)),
    }
  })

/** An attachment of the visitor's own conversation; any other file is 404. */
export const file = (visitor: Livechat.VisitorRow, id: number) =>
  Effect.gen(function* () {
    const fileId = yield* Livechat.fileInConversation(visitor.conversation_id, id)
    const row = fileId === null ? null : yield* Files.byId(visitor.workspace_id, fileId)
    return row ?? (yield* Effect.fail(notFound()))
  })

/** The visitor is typing, or stopped (agents see it on the conversation). */
export const typing = (visitor: Livechat.VisitorRow, isTyping: boolean) =>
  Effect.flatMap(ConversationActor, (a) =>
    a.ask(visitor.conversation_id, { _tag: 'RemoteTyping', name: visitor.name, typing: isTyping }),
  ).pipe(Effect.as({ typing: isTyping }))

/**
 * The widget's heartbeat: agents hear `visitor.online` (at most every 25 seconds), and agent
 * replies up to `messageId` are `read` (message.updated to the agents).
 */
export const seen = (visitor: Livechat.VisitorRow, channel: ChannelRow, messageId: number) =>
  Effect.gen(function* () {
    const marked = yield* Livechat.markSeen(visitor.id, messageId, ONLINE_EVERY_SECONDS)
    if (!marked) return yield* Effect.fail(notFound())
    if (marked.announce) {
      yield* publish(topics.conversation(visitor.conversation_id), 'visitor.online', {
        interaction_id: visitor.conversation_id,
        channel_id: channel.id,
        name: visitor.name,
        page_url: visitor.page_url,
        at: (yield* currentTime).toISOString(),
      })
    }
    if (marked.seen_message_id > marked.before) {
      const actor = yield* ConversationActor
      for (const id of yield* Livechat.unreadReplies(visitor.conversation_id, marked.seen_message_id)) {
        yield* actor
          .ask(visitor.conversation_id, {
            _tag: 'Remote',
            messageId: id,
            change: { kind: 'status', status: 'read' },
          })
          .pipe(Effect.ignore)
      }
    }
    return { seen_message_id: marked.seen_message_id, online: true }
  })
