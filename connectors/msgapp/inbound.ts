import {
  downloadMediaMessage,
  getContentType,
  normalizeMessageContent,
  proto,
  type WAMessage,
  type WAMessageKey,
} from 'baileys'
import { Effect } from 'effect'
import * as BroadcastActivity from '../../actors/broadcasts/activity'
import { typeByBytes } from '../../actors/channels/msgappMedia'
import { publish, topics } from '../../actors/events'
import { applyLabelRules, ConversationActor, type RemoteChange } from '../../actors/inbox/ConversationActor'
import { receiveInbound } from '../../actors/inbox/inbound'
import { currentTime } from '../../engine/clock'
import { cleanMime, nameForType } from '../../engine/mime'
import type { ChannelRow } from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as Files from '../../store/files'
import * as Messages from '../../store/messages'
import * as Msgapp from '../../store/msgapp'
import { isJidGroup, phoneOf } from './jid'
import type { MsgappSocket } from './Transport'
import { quietLogger } from './Transport'

/**
 * What a number reports, into the inbox: messages of every type (through the ConversationActor:
 * sequence, `message.created`, `inbox.changed`), media downloaded with Baileys' own decrypting
 * download and stored as private files, receipts, edits, revokes, reactions, typing, groups, and
 * business labels with the label rules. A channel message id seen before is skipped, so a
 * redelivered or re-imported message is stored once.
 */
const MAX_MEDIA_BYTES = 64 * 1024 * 1024
const SKIPPED_JIDS = /(@broadcast|@newsletter)$/

const tsOf = (m: { messageTimestamp?: number | Long | null | undefined }, now: Date) => {
  const t = Number(m.messageTimestamp ?? 0)
  return t > 0 ? new Date(t * 1000) : now
}
interface Long {
  toNumber(): number
}

interface Parsed {
  readonly type: string
  readonly body: string
  readonly payload: Record<string, unknown>
  readonly media: { readonly name: string; readonly mime: string } | null
  readonly quoted: string | null
}

const vcardPhone = (vcard: string | null | undefined) => {
  const m = /waid=(\d+)/.exec(vcard ?? '') ?? /TEL[^:]*:([+\d\s-]+)/.exec(vcard ?? '')
  return m ? `+${m[1]!.replace(/\D/g, '')}` : null
}

const contactOf = (c: proto.Message.IContactMessage) => ({
  name: c.displayName ?? '',
  phone: vcardPhone(c.vcard),
  email: /EMAIL[^:]*:(\S+)/.exec(c.vcard ?? '')?.[1] ?? null,
  vcard: c.vcard ?? null,
})

/** The inbox's view of a message's content. */
export const parse = (content: proto.IMessage): Parsed | null => {
  const kind = getContentType(content)
  if (!kind) return null
  const ctx = (content[kind] as { contextInfo?: proto.IContextInfo | null } | null)?.contextInfo
  const quoted = ctx?.stanzaId ?? null
  switch (kind) {
    case 'conversation':
      return { type: 'text', body: content.conversation ?? '', payload: {}, media: null, quoted }
    case 'extendedTextMessage':
      return { type: 'text', body: content.extendedTextMessage?.text ?? '', payload: {}, media: null, quoted }
    case 'imageMessage':
    case 'videoMessage':
    case 'audioMessage':
    case 'documentMessage':
    case 'stickerMessage': {
      const m = content[kind] as {
        caption?: string | null
        mimetype?: string | null
        fileName?: string | null
      }
      const mime = cleanMime(m.mimetype)
      const type = kind === 'documentMessage' ? 'document' : kind.replace('Message', '')
      const ext = mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'bin'
      return {
        type,
        body: m.caption ?? '',
        payload: {},
        // The name as given and the type as claimed: `downloadTo` stores what the bytes are.
        media: { name: (m.fileName || `${type}.${ext}`).slice(0, 200), mime },
        quoted,
      }
    }
    case 'locationMessage':
    case 'liveLocationMessage': {
      const l = content[kind] as proto.Message.ILocationMessage
      const location = {
        latitude: l.degreesLatitude ?? null,
        longitude: l.degreesLongitude ?? null,
        name: l.name || null,
        address: l.address || null,
      }
      const body = [location.name, location.address].filter(Boolean).join(', ')
      return { type: 'location', body, payload: { location }, media: null, quoted }
    }
    case 'contactMessage':
    case 'contactsArrayMessage': {
      const c =
        kind === 'contactMessage' ? content.contactMessage : content.contactsArrayMessage?.contacts?.[0]
      if (!c) return null
      const contact = contactOf(c)
      return { type: 'contact', body: contact.name, payload: { contact }, media: null, quoted }
    }
    default:
      // Polls, buttons, calls and the like: kept as a marker so nothing silently disappears.
      return { type: 'text', body: `[${kind}]`, payload: { unsupported: kind }, media: null, quoted }
  }
}

/**
 * A sender's name as a new contact's name: at most 200 characters, as a contact's name may be
 * (the sender chooses it; a longer one failed the contact's index and the message was lost).
 */
const contactName = (name: string) => {
  const cut = name.slice(0, 200)
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut
}

/** The conversation of a chat on this number, created when new (contact by phone; groups). */
const conversationFor = (channel: ChannelRow, sock: MsgappSocket | null, m: WAMessage, at: Date) =>
  Effect.gen(function* () {
    const jid = m.key.remoteJid!
    if (isJidGroup(jid)) {
      const known = yield* Msgapp.upsertGroup(channel.workspace_id, channel.id, {
        externalId: jid,
        name: null,
        members: null,
      })
      let group = known
      if (known.name === '' && sock) {
        // First sight of the group: its name, members and photo.
        const meta = yield* Effect.promise(() => sock.groupMetadata(jid).catch(() => null))
        if (meta) group = yield* Msgapp.upsertGroup(channel.workspace_id, channel.id, groupRecord(meta))
        if (group.avatar_file_id === null) yield* groupPicture(channel, sock, jid, false)
      }
      return yield* Msgapp.openGroupConversation(channel.workspace_id, channel.id, group.id, at)
    }
    const phone = phoneOf(jid, m.key.remoteJidAlt)
    const contactId =
      (phone
        ? yield* Msgapp.contactByPhone(channel.workspace_id, phone)
        : // Known by a LID alone: the contact this chat already has, not a new one per message.
          yield* Msgapp.contactOfChat(channel.id, jid)) ??
      (yield* Contacts.create(channel.workspace_id, {
        name: contactName((!m.key.fromMe && m.pushName) || phone || jid.split('@')[0]!),
        phone,
      })).id
    return yield* Conversations.openChatWith(channel.workspace_id, channel.id, contactId, at)
  })

export const groupRecord = (g: {
  id: string
  subject?: string | null
  participants?: ReadonlyArray<{ id: string; phoneNumber?: string | undefined; name?: string | undefined }>
}) => ({
  externalId: g.id,
  name: g.subject ?? '',
  members: (g.participants ?? []).map((p) => ({
    jid: p.id,
    name: p.name ?? null,
    phone: phoneOf(p.id, p.phoneNumber),
  })),
})

const MAX_AVATAR_BYTES = 2 * 1024 * 1024

/** A photo from the service's picture URL (plain HTTPS, not encrypted); null when unavailable. */
const fetchPicture = (url: string) =>
  Effect.promise(async () => {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) })
      const mime = res.headers.get('content-type')?.split(';')[0]?.trim() ?? ''
      if (!res.ok || !mime.startsWith('image/')) return null
      const bytes = new Uint8Array(await res.arrayBuffer())
      return bytes.byteLength > 0 && bytes.byteLength <= MAX_AVATAR_BYTES ? { mime, bytes } : null
    } catch {
      return null
    }
  })

/**
 * A group's photo, fetched when the group is first seen and again when the phone reports it
 * changed (`contacts.update` with `imgUrl: 'changed'`); `removed` clears it. Unknown groups are
 * ignored; a failed fetch keeps the previous photo.
 */
export const groupPicture = (channel: ChannelRow, sock: MsgappSocket, jid: string, removed: boolean) =>
  Effect.gen(function* () {
    const group = yield* Msgapp.groupByJid(channel.id, jid)
    if (!group) return
    if (removed) {
      yield* Msgapp.setGroupAvatar(group.id, null)
      return
    }
    const url = yield* Effect.promise(() => sock.profilePictureUrl(jid).catch(() => undefined))
    const picture = url ? yield* fetchPicture(url) : null
    if (!picture) return
    const ext = picture.mime.split('/')[1]?.replace(/[^a-z0-9]/gi, '') || 'jpg'
    const file = yield* Files.save(
      channel.workspace_id,
      { name: `group.${ext}`, mime: picture.mime, bytes: picture.bytes },
      null,
    ).pipe(Effect.orDie)
    yield* Msgapp.setGroupAvatar(group.id, file.id)
  })

const downloadTo = (channel: ChannelRow, sock: MsgappSocket | null, m: WAMessage, media: Parsed['media']) =>
  Effect.gen(function* () {
    if (!media) return null
    const bytes = yield* Effect.tryPromise(() =>
      downloadMediaMessage(
        m,
        'buffer',
        {},
        sock ? { reuploadRequest: (x) => sock.updateMediaMessage(x), logger: quietLogger } : undefined,
      ),
    ).pipe(Effect.orElseSucceed(() => null))
    if (!bytes || bytes.length > MAX_MEDIA_BYTES) return null
    const data = new Uint8Array(bytes)
    // Stored as what its bytes are, not as the customer's app claimed (the one rule for strangers' files).
    const mime = typeByBytes(data, media.name, media.mime)
    const file = yield* Files.save(
      channel.workspace_id,
      { name: nameForType(media.name, mime), mime, bytes: data },
      null,
    ).pipe(Effect.orDie)
    return file.id
  })

export type Imported = 'imported' | 'duplicate' | 'skipped'

/** One message of `messages.upsert` (or a history set) into the inbox. */
export const importMessage = (
  channel: ChannelRow,
  sock: MsgappSocket | null,
  m: WAMessage,
  opts: { readonly live: boolean },
) =>
  Effect.gen(function* () {
    const jid = m.key.remoteJid
    const id = m.key.id
    if (!jid || !id || SKIPPED_JIDS.test(jid)) return 'skipped' as Imported
    const content = normalizeMessageContent(m.message)
    if (!content) return 'skipped' as Imported
    const protocol = content.protocolMessage
    if (protocol) {
      // Edits and revokes may also come as protocol messages inside an upsert.
      const target = protocol.key?.id
      if (!target) return 'skipped' as Imported
      if (protocol.type === 0) yield* remoteChange(channel, target, { kind: 'unsend' }, m.key)
      const edited = protocol.editedMessage ? parse(protocol.editedMessage) : null
      if (edited) yield* remoteChange(channel, target, { kind: 'edit', body: edited.body }, m.key)
      return 'skipped' as Imported
    }
    if (content.reactionMessage) {
      yield* reaction(
        channel,
        content.reactionMessage.key ?? null,
        m.key,
        content.reactionMessage.text ?? '',
        m.pushName,
      )
      return 'skipped' as Imported
    }
    if (isJidGroup(jid) && channel.settings.groups === false) return 'skipped' as Imported
    if (yield* Msgapp.lookup(channel.id, id)) return 'duplicate' as Imported
    const parsed = parse(content)
    if (!parsed) return 'skipped' as Imported
    const at = tsOf(m, yield* currentTime)
    const { row: conversation, reused } = yield* conversationFor(channel, sock, m, at)
    const fileId = yield* downloadTo(channel, sock, m, parsed.media)
    const quoted = parsed.quoted ? yield* Msgapp.lookup(channel.id, parsed.quoted) : null
    const senderJid = isJidGroup(jid) ? (m.key.participant ?? m.participant ?? '') : jid
    const fromMe = m.key.fromMe === true
    const group = isJidGroup(jid) === true
    yield* receiveInbound(
      {
        channel,
        conversationId: conversation.id,
        opening: reused ? 'existing' : 'created',
        message: {
          direction: fromMe ? 'out' : 'in',
          type: parsed.type,
          body: parsed.body,
          sender: fromMe ? { name: null, source: 'phone' } : { name: m.pushName ?? null, jid: senderJid },
          ...(fromMe ? { status: 'sent' } : {}),
          clientId: `msgapp:${id}`.slice(0, 200),
          externalId: id,
          fileId,
          replyToId: quoted && quoted.conversation_id === conversation.id ? quoted.message_id : null,
          payload: {
            ...parsed.payload,
            ...(parsed.media && fileId === null ? { media_error: 'download_failed' } : {}),
          },
          at: opts.live ? undefined : at,
        },
        arrival: { outgoing: fromMe, history: !opts.live, group, automatic: false, sentAt: at.getTime() },
      },
      (message) =>
        Effect.gen(function* () {
          yield* Msgapp.remember(channel.id, id, {
            conversationId: conversation.id,
            messageId: message.id,
            jid,
            fromMe,
            at,
          })
          if (opts.live && !fromMe && !group) yield* BroadcastActivity.reply(conversation.id, message.id)
        }),
    ).pipe(Effect.orDie)
    return 'imported' as Imported
  })

/** The same person or chat, whichever form (phone or LID JID) each side names it by. */
const sameJid = (stored: string | null | undefined, ...forms: ReadonlyArray<string | null | undefined>) => {
  if (!stored) return false
  if (forms.includes(stored)) return true
  const phone = phoneOf(stored)
  return phone !== null && phone === phoneOf(...forms)
}

/**
 * Whether the author of an edit or revoke may change this message. Baileys hands over every
 * edit and revoke it receives whatever it names (the service relays them end-to-end encrypted and
 * cannot check them; the phone's app does): a customer may change only their own messages, in
 * the chat they came from, and in a group only the member who wrote it. The number's own devices
 * (`fromMe`) may change any of the number's chats.
 */
const mayChange = (
  known: { readonly message_id: number; readonly jid: string; readonly from_me: boolean },
  author: WAMessageKey,
) =>
  Effect.gen(function* () {
    if (author.fromMe === true) return true
    if (known.from_me || !sameJid(known.jid, author.remoteJid, author.remoteJidAlt)) return false
    if (!isJidGroup(known.jid)) return true
    const sender = (yield* Messages.byId(known.message_id))?.sender.jid
    return sameJid(typeof sender === 'string' ? sender : null, author.participant, author.participantAlt)
  })

/** Whether a reaction's chat is the message's: anyone in a chat reacts to any of its messages. */
const sameChat = (known: { readonly jid: string }, by: WAMessageKey) =>
  by.fromMe === true || sameJid(known.jid, by.remoteJid, by.remoteJidAlt)

/**
 * A receipt, edit, revoke or reaction for a stored message; unknown ids are ignored. An edit,
 * revoke or reaction names its `author` (the key of the message that carried it): one the author
 * may not make is ignored too (a reaction only in the message's own chat).
 */
export const remoteChange = (
  channel: ChannelRow,
  waId: string,
  change: RemoteChange,
  author?: WAMessageKey,
) =>
  Effect.gen(function* () {
    const known = yield* Msgapp.lookup(channel.id, waId)
    if (!known) return false
    if (
      author &&
      !(yield* change.kind === 'react' ? Effect.succeed(sameChat(known, author)) : mayChange(known, author))
    )
      return false
    if (change.kind === 'edit') {
      // Baileys reports one edit twice (the protocol message in `messages.upsert`, then
      // `messages.update`): an edit that changes nothing is not a change.
      const row = yield* Messages.byId(known.message_id)
      if (row && row.edited_at !== null && row.body === change.body) return true
    }
    yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(known.conversation_id, { _tag: 'Remote', messageId: known.message_id, change }),
    ).pipe(Effect.catchTags({ ConversationNotFound: () => Effect.void, MessageNotFound: () => Effect.void }))
    return true
  })

const reaction = (
  channel: ChannelRow,
  target: WAMessageKey | null,
  by: WAMessageKey,
  emoji: string,
  name: string | null | undefined,
) =>
  target?.id && !by.fromMe
    ? remoteChange(
        channel,
        target.id,
        { kind: 'react', emoji, jid: by.participant || by.remoteJid || '', name: name ?? null },
        by,
      )
    : Effect.succeed(false)

/**
 * `messages.update`: receipts (delivered, read), the service's refusals, edits and revokes.
 * Answers a refusal that names a restriction (403 or 463), which the caller reports as a send's
 * would be, so a late refusal restricts the number too.
 */
export const messageUpdate = (channel: ChannelRow, u: { key: WAMessageKey; update: Partial<WAMessage> }) =>
  Effect.gen(function* () {
    const id = u.key.id
    if (!id) return null
    const status = u.update.status
    let restriction: string | null = null
    if (status === proto.WebMessageInfo.Status.ERROR) {
      // Baileys' send resolves once the message is relayed; a refusal by the service comes later
      // as the ack's error, with its code in the stub parameters: the message never went out.
      const codes = (u.update.messageStubParameters ?? []).filter(Boolean)
      const code = codes.join(': ')
      const reason = `The messaging service refused the message${code ? ` (${code})` : ''}.`
      // Baileys adds its own words when the service names a sending restriction (reach-out limit).
      const restricts = codes.some((c: string) => c === '403' || c === '463' || /restricted/i.test(c))
      if (u.key.fromMe && (yield* remoteChange(channel, id, { kind: 'refused', reason }))) {
        yield* BroadcastActivity.refused(channel, id, reason, restricts)
        if (restricts) restriction = reason
      }
    } else if (status !== undefined && status !== null) {
      const seen = status >= 4 ? 'read' : status === 3 ? 'delivered' : null
      if (seen && (yield* remoteChange(channel, id, { kind: 'status', status: seen })))
        yield* BroadcastActivity.receipt(channel.id, id)
    }
    if ('message' in u.update) {
      const m = u.update.message
      // REVOKE stub (1) or a null message: deleted for everyone.
      if (m === null || u.update.messageStubType === 1) {
        yield* remoteChange(channel, id, { kind: 'unsend' }, u.key)
        return restriction
      }
      const inner = m?.editedMessage?.message ?? m?.protocolMessage?.editedMessage ?? null
      const edited = inner ? parse(normalizeMessageContent(inner) ?? inner) : null
      if (edited) yield* remoteChange(channel, id, { kind: 'edit', body: edited.body }, u.key)
    }
    return restriction
  })

export const reactions = (
  channel: ChannelRow,
  list: ReadonlyArray<{ key: WAMessageKey; reaction: proto.IReaction }>,
) =>
  Effect.forEach(
    list,
    (r) =>
      reaction(
        channel,
        r.key,
        (r.reaction.key as WAMessageKey | null | undefined) ?? { remoteJid: r.key.remoteJid ?? null },
        r.reaction.text ?? '',
        null,
      ),
    { discard: true },
  )

/** `presence.update`: composing / recording is typing; anything else stops it. */
export const presence = (
  channel: ChannelRow,
  p: { id: string; presences: Record<string, { lastKnownPresence: string }> },
) =>
  Effect.gen(function* () {
    const chat = isJidGroup(p.id) ? { group: p.id } : { phone: phoneOf(p.id) ?? '' }
    if ('phone' in chat && chat.phone === '') return
    const conversationId = yield* Msgapp.conversationOfChat(channel.id, chat)
    if (conversationId === null) return
    const typing = Object.values(p.presences).some(
      (x) => x.lastKnownPresence === 'composing' || x.lastKnownPresence === 'recording',
    )
    yield* Effect.flatMap(ConversationActor, (a) =>
      a.ask(conversationId, { _tag: 'RemoteTyping', name: null, typing }),
    ).pipe(Effect.catchTag('ConversationNotFound', () => Effect.void))
  })

/**
 * `labels.edit`: a business label made, renamed or deleted on the phone; kept for
 * `GET /channels/{id}/labels` and announced on the workspace (spec 1 §6 `labels.changed`).
 */
export const labelEdit = (channel: ChannelRow, label: Msgapp.LabelRow) =>
  Effect.andThen(Msgapp.upsertLabel(channel.id, label), () =>
    publish(topics.workspace(channel.workspace_id), 'labels.changed', {
      channel_id: channel.id,
      label_id: label.label_id,
      name: label.name,
      deleted: label.deleted,
    }),
  )

/**
 * `labels.association` on a chat: remembered on the chat's contact (the contact list's
 * `msgapp_label_id` filter), and on `add` the label rules of this number run on its conversation.
 */
export const labelAssociation = (
  channel: ChannelRow,
  e: { association: { type: string; labelId: string; chatId?: string }; type: 'add' | 'remove' },
) =>
  Effect.gen(function* () {
    if (e.association.type !== 'label_jid' || !e.association.chatId) return []
    const chatId = e.association.chatId
    const chat = isJidGroup(chatId) ? { group: chatId } : { phone: phoneOf(chatId) ?? '' }
    const conversationId = yield* Msgapp.conversationOfChat(channel.id, chat)
    if (conversationId === null) return []
    const contactId = (yield* Conversations.byId(conversationId))?.contact_id ?? null
    if (contactId !== null)
      yield* Contacts.markMsgappLabel(contactId, channel.id, e.association.labelId, e.type === 'add')
    if (e.type !== 'add') return []
    const label = yield* Msgapp.label(channel.id, e.association.labelId)
    if (!label || label.deleted) return []
    return yield* applyLabelRules(conversationId, label.name).pipe(
      Effect.catchAll(() => Effect.succeed([] as const)),
    )
  })
