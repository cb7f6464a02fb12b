import { Effect, Schema } from 'effect'
import { currentMillis } from '../../engine/clock'
import { FileStorage } from '../../engine/storage/FileStorage'
import type { ChannelRow } from '../../store/channels'
import * as Contacts from '../../store/contacts'
import type { ConversationRow } from '../../store/conversations'
import * as Files from '../../store/files'
import * as Messages from '../../store/messages'
import * as Templates from '../../store/templates'
import type { WorkspaceRow } from '../../store/workspaces'
import { ChannelActor } from '../channels/ChannelActor'
import type { Signal } from '../channels/Connector'
import { sniffMsgappMedia, stickerMime } from '../channels/msgappMedia'
import { ApiError, type FieldMessage, invalid, notFound } from '../errors'
import {
  AgentClientId,
  BigId,
  BigIdFromString,
  humanSize,
  Id,
  IdFromString,
  Text,
  type UploadedFile,
} from '../fields'
import { addMessages } from '../i18n'
import { ConversationActor, resendable } from './ConversationActor'
import { type Ctx, visibleOr404 } from './conversations'
import { sanitize, toText } from './emailHtml'
import * as Outbound from './outbound'

addMessages({
  'field.email_only': {
    en: 'applies to e-mail conversations only',
    id: 'hanya berlaku untuk percakapan e-mail',
  },
  'field.channel_type': {
    en: 'is not supported on this channel',
    id: 'tidak didukung di kanal ini',
  },
  'field.email_list': {
    en: 'must be e-mail addresses separated by commas',
    id: 'harus alamat e-mail yang dipisahkan koma',
  },
  'field.files_total': {
    en: 'files may be at most {size} in all',
    id: 'total berkas maksimal {size}',
  },
  'field.sticker_type': {
    en: 'must be a WebP or PNG image',
    id: 'harus gambar WebP atau PNG',
  },
  'field.msgapp_file_type': {
    en: 'must be a file the messaging app takes: an image (JPEG, PNG, WebP), a video (MP4, 3GPP), audio (AAC, MP3, M4A, AMR, Ogg) or a document (PDF, Word, Excel, PowerPoint, text)',
    id: 'harus berkas yang diterima aplikasi pesan: gambar (JPEG, PNG, WebP), video (MP4, 3GPP), audio (AAC, MP3, M4A, AMR, Ogg), atau dokumen (PDF, Word, Excel, PowerPoint, teks)',
  },
  'field.text_or_file': {
    en: 'text, a file or a template is required',
    id: 'teks, berkas atau templat wajib diisi',
  },
  'field.note_quote': {
    en: 'is an internal note: a reply cannot quote it',
    id: 'adalah catatan internal: balasan tidak dapat mengutipnya',
  },
  'field.one_of_cursors': {
    en: 'give either before or after, not both',
    id: 'isi before atau after saja, tidak keduanya',
  },
  'messages.not_own': {
    en: 'You can edit only messages you sent yourself.',
    id: 'Anda hanya dapat mengubah pesan yang Anda kirim sendiri.',
  },
  'messages.edit_window': {
    en: 'A message can be edited only within 15 minutes of sending.',
    id: 'Pesan hanya dapat diubah dalam 15 menit setelah dikirim.',
  },
  'messages.not_text': {
    en: 'Only text messages and notes can be edited.',
    id: 'Hanya pesan teks dan catatan yang dapat diubah.',
  },
  'messages.deleted': {
    en: 'This message was unsent.',
    id: 'Pesan ini sudah ditarik.',
  },
  'messages.unsend_window': {
    en: 'A message can be unsent only within 2 days of sending.',
    id: 'Pesan hanya dapat ditarik dalam 2 hari setelah dikirim.',
  },
  'messages.unsend_incoming': {
    en: "Only messages sent from the inbox can be unsent, not the customer's.",
    id: 'Hanya pesan yang dikirim dari inbox yang dapat ditarik, bukan pesan pelanggan.',
  },
  'messages.not_failed': {
    en: 'Only a failed message, or one its channel has not taken for a minute, can be sent again.',
    id: 'Hanya pesan yang gagal, atau yang belum diterima kanalnya selama satu menit, yang dapat dikirim ulang.',
  },
})

/** Spec 2 §8. */
export const MAX_ATTACHMENT_BYTES = 16 * 1024 * 1024

export const MAX_EMAIL_FILES = 10

export const MAX_EMAIL_BYTES = 20 * 1024 * 1024

export const MAX_CC = 10

/** Our choice: a sticker is a small image (the messaging apps' own cap is lower). */
export const MAX_STICKER_BYTES = 1024 * 1024

/** A JSON integer, or the same as multipart text (messages and contacts are `bigint` rows, templates not). */
export const BigIdLike = Schema.Union(BigId, BigIdFromString)

export const IdLike = Schema.Union(Id, IdFromString)

export const NumberLike = Schema.Union(Schema.Number, Schema.NumberFromString)

export const BooleanLike = Schema.Union(
  Schema.Boolean,
  Schema.transform(Schema.Literal('true', 'false', '1', '0', 'on', 'off'), Schema.Boolean, {
    strict: true,
    decode: (s) => s === 'true' || s === '1' || s === 'on',
    encode: (b) => (b ? 'true' : 'false'),
  }),
)

/** The e-mail fields of a send (and of starting an e-mail conversation). */
export const EmailFields = {
  html: Schema.optional(Schema.String.pipe(Schema.maxLength(500_000))),
  cc: Schema.optional(Schema.Union(Schema.String.pipe(Schema.maxLength(5_000)), Schema.Array(Schema.String))),
  reply_all: Schema.optional(BooleanLike),
}

export const SendBody = Schema.Struct({
  type: Schema.optional(Schema.Literal('text', 'note', 'sticker', 'location', 'contact')),
  text: Schema.optional(Schema.String.pipe(Schema.maxLength(65_536))),
  reply_to_id: Schema.optional(BigIdLike),
  template_id: Schema.optional(IdLike),
  client_id: Schema.optional(AgentClientId),
  latitude: Schema.optional(NumberLike.pipe(Schema.between(-90, 90))),
  longitude: Schema.optional(NumberLike.pipe(Schema.between(-180, 180))),
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  address: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  contact_id: Schema.optional(BigIdLike),
  contact: Schema.optional(
    Schema.Struct({
      name: Text(1, 200),
      phone: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
      email: Schema.optional(Schema.String.pipe(Schema.maxLength(254))),
    }),
  ),
  ...EmailFields,
})

export type SendBody = typeof SendBody.Type

export const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/

export const ccList = (cc: string | readonly string[] | undefined): string[] =>
  (typeof cc === 'string' ? cc.split(',') : (cc ?? [])).map((s) => s.trim()).filter((s) => s !== '')

/** Problems with the e-mail fields of a send, before anything is stored. */
export const emailProblems = (
  body: { readonly cc?: string | readonly string[] | undefined },
  files: readonly UploadedFile[],
) => {
  const problems: Record<string, FieldMessage> = {}
  const cc = ccList(body.cc)
  if (cc.some((a) => !EMAIL.test(a) || a.length > 254)) problems.cc = { key: 'field.email_list' }
  else if (cc.length > MAX_CC) problems.cc = { key: 'field.max_items', params: { n: MAX_CC } }
  if (files.length > MAX_EMAIL_FILES)
    problems.files = { key: 'field.too_many_files', params: { n: MAX_EMAIL_FILES } }
  else if (files.reduce((n, f) => n + f.bytes.byteLength, 0) > MAX_EMAIL_BYTES) {
    problems.files = { key: 'field.files_total', params: { size: humanSize(MAX_EMAIL_BYTES) } }
  }
  return problems
}

/** `Re: <subject>` for a reply in an e-mail thread. */
export const reSubject = (s: string | null) => (s === null ? null : /^re:/i.test(s) ? s : `Re: ${s}`)

/**
 * The e-mail part of a message: sanitized HTML (bold, italic, underline, lists, links), cc, reply
 * all, attachments (stored here). The e-mail connector adds recipient, quoted mail and signature.
 */
export const emailPayload = (
  workspace: WorkspaceRow,
  body: {
    readonly html?: string | undefined
    readonly cc?: string | readonly string[] | undefined
    readonly reply_all?: boolean | undefined
  },
  files: readonly UploadedFile[],
  subject: string | null,
  createdBy: number | null = null,
) =>
  Effect.gen(function* () {
    const problems = emailProblems(body, files)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const attachments = []
    for (const f of files) {
      const row = yield* Files.save(
        workspace.id,
        { name: f.filename, mime: f.mime, bytes: f.bytes },
        createdBy,
      ).pipe(Effect.orDie)
      attachments.push({ file_id: row.id, name: row.name, mime: row.mime, size: row.size })
    }
    return {
      subject,
      html: body.html?.trim() ? sanitize(body.html) : null,
      cc: ccList(body.cc),
      reply_all: body.reply_all === true,
      attachments,
    }
  })

export const mediaType = (mime: string) =>
  mime.startsWith('image/')
    ? 'image'
    : mime.startsWith('video/')
      ? 'video'
      : mime.startsWith('audio/')
        ? 'audio'
        : 'document'

export interface SendTarget {
  readonly workspace: WorkspaceRow
  readonly conversation: ConversationRow
  readonly channel: ChannelRow | null
  readonly userId: number
  readonly agentName: string
}

/**
 * Turns a send request into a draft: the type and its rules per channel (spec 2 §4.1: live chat
 * and API channels take text, one attachment or a note; e-mail fields only on e-mail), the
 * template, the quoted message, the files. Every problem is reported before anything is stored.
 */
export const draftOf = (t: SendTarget, body: SendBody, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const chType = t.channel?.type ?? null
    const isEmail = chType === 'email'
    const file = files.find((f) => f.field === 'file') ?? null
    const mailFiles = files.filter((f) => f.field === 'files')
    for (const f of files)
      if (f.field !== 'file' && f.field !== 'files') problems[f.field] = { key: 'field.unexpected' }
    if (files.filter((f) => f.field === 'file').length > 1)
      problems.file = { key: 'field.max_items', params: { n: 1 } }
    const text = body.text?.trim() ?? ''
    const kind = body.type ?? 'text'
    if (kind === 'note') {
      // A note is the team's: nothing of a mail to the customer rides on it (refused, not dropped).
      for (const k of ['html', 'cc', 'reply_all'] as const)
        if (body[k] !== undefined) problems[k] = { key: 'field.unexpected' }
      if (mailFiles.length > 0) problems.files = { key: 'field.unexpected' }
    } else if (!isEmail) {
      for (const k of ['html', 'cc', 'reply_all'] as const)
        if (body[k] !== undefined) problems[k] = { key: 'field.email_only' }
      if (mailFiles.length > 0) problems.files = { key: 'field.email_only' }
    } else Object.assign(problems, emailProblems(body, mailFiles))
    const msgappOnly = kind === 'sticker' || kind === 'location' || kind === 'contact'
    if (msgappOnly && chType !== 'msgapp') problems.type = { key: 'field.channel_type' }
    if (file && file.bytes.byteLength > MAX_ATTACHMENT_BYTES && !isEmail) {
      problems.file = { key: 'field.file_too_large', params: { size: humanSize(MAX_ATTACHMENT_BYTES) } }
    }
    // A file for a customer's phone is one the messaging app takes, typed by its bytes (a note's
    // stays the team's, as uploaded); stickers are checked below.
    let fileMime = file?.mime ?? ''
    if (file && chType === 'msgapp' && kind !== 'note' && kind !== 'sticker') {
      const media = sniffMsgappMedia(file.bytes, file.filename)
      if (!media) problems.file ??= { key: 'field.msgapp_file_type' }
      else fileMime = media.mime
    }
    let payload: Record<string, unknown> = {}
    let type: string = kind
    let bodyText = text
    switch (kind) {
      case 'note':
        // A note may carry one file; it stays a note (type `note`, never delivered, never shown
        // to the customer, its file not reachable through any channel's links).
        if (text === '' && !file) problems.text = { key: 'field.text_or_file' }
        payload = { source: 'note' }
        break
      case 'sticker':
        if (!file) problems.file = { key: 'field.file_required' }
        else if (stickerMime(file.bytes) === null) problems.file = { key: 'field.sticker_type' }
        else if (file.bytes.byteLength > MAX_STICKER_BYTES) {
          problems.file = { key: 'field.file_too_large', params: { size: humanSize(MAX_STICKER_BYTES) } }
        }
        bodyText = ''
        break
      case 'location':
        if (body.latitude === undefined) problems.latitude = { key: 'field.required' }
        if (body.longitude === undefined) problems.longitude = { key: 'field.required' }
        payload = {
          location: {
            latitude: body.latitude,
            longitude: body.longitude,
            name: body.name?.trim() || null,
            address: body.address?.trim() || null,
          },
        }
        bodyText = [body.name?.trim(), body.address?.trim()].filter(Boolean).join(', ')
        break
      case 'contact': {
        let shared: { name: string; phone: string | null; email: string | null } | null = null
        if (body.contact_id !== undefined) {
          const c = yield* Contacts.byId(t.workspace.id, body.contact_id)
          if (!c) problems.contact_id = { key: 'field.unknown' }
          else shared = { name: c.name, phone: c.phone, email: c.email }
        } else if (body.contact) {
          shared = {
            name: body.contact.name.trim(),
            phone: body.contact.phone ?? null,
            email: body.contact.email ?? null,
          }
        } else problems.contact_id = { key: 'field.required' }
        payload = { contact: shared }
        bodyText = shared?.name ?? ''
        break
      }
      default:
        if (file) type = mediaType(fileMime)
    }
    if (msgappOnly || kind === 'note') {
      if (body.template_id !== undefined) problems.template_id = { key: 'field.unexpected' }
    }
    let fileRow: Files.FileRow | null = null
    if (body.template_id !== undefined && !msgappOnly && kind !== 'note') {
      const tpl = yield* Templates.byId(t.workspace.id, body.template_id)
      if (!tpl) problems.template_id = { key: 'field.unknown' }
      else {
        const contact =
          t.conversation.contact_id === null
            ? null
            : yield* Contacts.byId(t.workspace.id, t.conversation.contact_id)
        if (bodyText === '') {
          bodyText = Templates.render(tpl.body, {
            contact_name: contact?.name,
            contact_phone: contact?.phone,
            contact_email: contact?.email,
            agent_name: t.agentName,
            workspace_name: t.workspace.name,
          })
        }
        payload = { ...payload, template_id: tpl.id }
        if (!file && tpl.file_id !== null) {
          fileRow = yield* Files.byId(t.workspace.id, tpl.file_id)
          if (fileRow) type = mediaType(fileRow.mime)
          // A template's file was stored as uploaded (templates serve every channel): on a number
          // it goes to a customer's phone only if the app takes it, by its bytes.
          if (fileRow && chType === 'msgapp') {
            const key = fileRow.storage_key
            const bytes = yield* Effect.flatMap(FileStorage, (st) => st.read(key)).pipe(Effect.orDie)
            const media = bytes && sniffMsgappMedia(bytes, fileRow.name)
            if (!media) problems.template_id = { key: 'field.msgapp_file_type' }
            else type = mediaType(media.mime)
          }
        }
      }
    }
    if (type === 'text' && bodyText === '' && !isEmail) problems.text = { key: 'field.text_or_file' }
    if (isEmail && bodyText === '' && !body.html?.trim() && !file && mailFiles.length === 0) {
      problems.text = { key: 'field.text_or_file' }
    }
    let replyToId: number | null = null
    if (body.reply_to_id !== undefined) {
      const quoted = yield* Messages.inConversation(t.conversation.id, body.reply_to_id)
      if (!quoted || quoted.deleted_at !== null) problems.reply_to_id = { key: 'field.unknown' }
      // What goes to the customer never quotes the team's notes (a note may quote anything).
      else if (quoted.type === 'note' && kind !== 'note') problems.reply_to_id = { key: 'field.note_quote' }
      else replyToId = quoted.id
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    // Valid: now store what was uploaded.
    if (file) {
      fileRow = yield* Files.save(
        t.workspace.id,
        {
          name: file.filename,
          mime: kind === 'sticker' ? (stickerMime(file.bytes) ?? file.mime) : fileMime,
          bytes: file.bytes,
        },
        t.userId,
      ).pipe(Effect.orDie)
    }
    if (isEmail && kind !== 'note') {
      const email = yield* emailPayload(
        t.workspace,
        body,
        mailFiles,
        reSubject(t.conversation.subject),
        t.userId,
      )
      payload = { ...payload, email }
      if (bodyText === '' && email.html) bodyText = toText(email.html)
    }
    return {
      type,
      body: bodyText,
      file: fileRow,
      replyToId,
      payload,
      clientId: body.client_id,
    } satisfies Outbound.Draft
  })

/** Tells the channel about a change of a delivered message (best effort). */
export const relay = (c: ConversationRow, signal: Signal) =>
  c.channel_id === null
    ? Effect.void
    : Effect.flatMap(ChannelActor, (a) =>
        a.ask(c.channel_id!, { _tag: 'Signal', conversationId: c.id, signal }),
      ).pipe(Effect.catchTag('ChannelNotFound', () => Effect.void))

// ---------------------------------------------------------------------------------------------
// Operations on a visible conversation's messages (the caller's visibility is checked first).
// ---------------------------------------------------------------------------------------------

/** Spec 2 §4.1 send: validates the draft for the channel, then the outbound path. */
export const send = (ctx: Ctx, conversationId: number, body: SendBody, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const conversation = yield* visibleOr404(ctx, conversationId)
    const channel = yield* Outbound.channelOf(conversation)
    const draft = yield* draftOf(
      {
        workspace: ctx.workspace,
        conversation,
        channel,
        userId: ctx.caller.user.id,
        agentName: ctx.caller.user.name,
      },
      body,
      files,
    )
    return yield* Outbound.send({ ...ctx, conversation, channel }, draft)
  })

/** Edits the caller's own text within 15 minutes; the channel hears of it when it carries edits. */
export const edit = (ctx: Ctx, conversationId: number, messageId: number, text: string) =>
  Effect.gen(function* () {
    const c = yield* visibleOr404(ctx, conversationId)
    const { caller } = ctx
    const view = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(c.id, {
        _tag: 'Edit',
        messageId,
        body: text.trim(),
        by: { userId: caller.user.id, keyId: caller.via === 'key' ? caller.keyId : null },
      }),
    )
    if (view.external_id !== null && view.type !== 'note') {
      yield* relay(c, { kind: 'edit', externalId: view.external_id, body: view.body })
    }
    return view
  })

/** Unsends a message sent from the inbox within 2 days, for everyone. */
export const unsend = (ctx: Ctx, conversationId: number, messageId: number) =>
  Effect.gen(function* () {
    const c = yield* visibleOr404(ctx, conversationId)
    const { view, was } = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(c.id, { _tag: 'Unsend', messageId }),
    )
    if (was.external_id !== null) yield* relay(c, { kind: 'unsend', externalId: was.external_id })
    return view
  })

/**
 * Sends a failed message again, or one still `pending` past the delivery window (its delivery was
 * never answered): the same reply, so it takes a throttle slot but none of today's replies. Two
 * retries racing: the actor lets one through, the other is 409. A resend of the create with the
 * same `client_id` never sends again (`Outbound.send`): only this route does, when someone asks.
 */
export const retry = (ctx: Ctx, conversationId: number, messageId: number) =>
  Effect.gen(function* () {
    const conversation = yield* visibleOr404(ctx, conversationId)
    const msg = yield* Messages.inConversation(conversation.id, messageId)
    if (!msg) return yield* Effect.fail(notFound())
    const notFailed = () => Effect.fail(new ApiError({ code: 'conflict', message: 'messages.not_failed' }))
    // A note is never sent, so never sent again (it is `internal`, never `failed`: belt and braces).
    if (msg.type === 'note' || !resendable(msg, yield* currentMillis)) return yield* notFailed()
    const channel = yield* Outbound.channelOf(conversation)
    yield* Outbound.takeSlot(channel)
    const pending = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(conversation.id, { _tag: 'Resend', messageId: msg.id }),
    )
    if (!pending) return yield* notFailed()
    const sent = yield* Outbound.deliver({ ...ctx, conversation, channel }, pending)
    return { message: sent, replies: yield* Outbound.repliesUsage(ctx.workspace) }
  })

/** The caller's reaction to a message; an empty emoji removes it. */
export const react = (ctx: Ctx, conversationId: number, messageId: number, emoji: string) =>
  Effect.gen(function* () {
    const c = yield* visibleOr404(ctx, conversationId)
    const sender = yield* Outbound.senderFor(ctx.caller)
    const trimmed = emoji.trim()
    const { view, was } = yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(c.id, {
        _tag: 'React',
        messageId,
        emoji: trimmed,
        userId: ctx.caller.user.id,
        name: sender.name,
      }),
    )
    if (was.external_id !== null)
      yield* relay(c, { kind: 'react', externalId: was.external_id, emoji: trimmed })
    return view
  })

/** A page of a visible conversation's messages, oldest to newest; an unknown cursor is a 422. */
export const page = (
  ctx: Ctx,
  conversationId: number,
  q: { readonly before?: number | undefined; readonly after?: number | undefined; readonly limit: number },
) =>
  Effect.gen(function* () {
    const c = yield* visibleOr404(ctx, conversationId)
    if (q.before !== undefined && q.after !== undefined) {
      return yield* Effect.fail(invalid({ before: { key: 'field.one_of_cursors' } }))
    }
    const found = yield* Messages.page(c.id, {
      limit: q.limit,
      ...(q.before !== undefined ? { before: q.before } : {}),
      ...(q.after !== undefined ? { after: q.after } : {}),
    })
    if (!found) {
      return yield* Effect.fail(
        invalid({ [q.after !== undefined ? 'after' : 'before']: { key: 'field.unknown' } }),
      )
    }
    return found
  })
