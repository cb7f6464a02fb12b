import * as crypto from 'node:crypto'
import { Effect } from 'effect'
import { type AddressObject, type ParsedMail, simpleParser } from 'mailparser'
import { typeByBytes } from '../../actors/channels/msgappMedia'
import { toText } from '../../actors/inbox/emailHtml'
import { receiveInbound } from '../../actors/inbox/inbound'
import { currentTime } from '../../engine/clock'
import { nameForType } from '../../engine/mime'
import { storableInPlace } from '../../engine/storable'
import type { ChannelRow } from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as Email from '../../store/email'
import * as Files from '../../store/files'
import { sanitizeMailBounded } from './sanitize'

/**
 * One mail read from the mailbox into the inbox: threaded by Message-ID / In-Reply-To /
 * References into its conversation (a new one otherwise, with the sender as contact), attachments
 * stored, appended through the ConversationActor (sequence, `message.created`, `inbox.changed`).
 * Mail from the Sent folder (`read_sent`: sent from another mail program) is an agent message.
 * A Message-ID seen before is skipped, so reading a message twice stores it once.
 */
const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024

/** The attachment that keeps a mail's whole HTML when the message holds it clipped. */
const WHOLE_HTML_NAME = 'message.html'

/**
 * What a stranger's headers may put into indexed columns is bounded, or one mail could fail its
 * insert (a btree entry holds at most ~2.7 kB) and, read again on every pass, stop the mailbox:
 * an address is at most 254 octets (RFC 5321; a longer one is no address to answer), a name is
 * cut as the contacts API takes it, a Message-ID longer than a header line (998 octets, RFC 5322)
 * is none (the mail gets its fallback id; such an id is never stored, so never matched either).
 */
const MAX_ADDRESS_BYTES = 254
const MAX_NAME = 200
const MAX_MESSAGE_ID_BYTES = 998

const addresses = (a: AddressObject | AddressObject[] | undefined) =>
  (Array.isArray(a) ? a : a ? [a] : []).flatMap((o) =>
    o.value.flatMap((v) =>
      v.address && Buffer.byteLength(v.address) <= MAX_ADDRESS_BYTES
        ? [{ name: (v.name ?? '').slice(0, MAX_NAME), address: v.address.toLowerCase() }]
        : [],
    ),
  )

const idList = (v: string | string[] | undefined): string[] =>
  (Array.isArray(v) ? v : v ? v.split(/\s+/) : [])
    .map((s) => s.trim())
    .filter((s) => /^<[^<>\s]+>$/.test(s) && Buffer.byteLength(s) <= MAX_MESSAGE_ID_BYTES)

/**
 * The parsed mail. One mailparser refuses (over 1000 MIME parts, say) is its header block alone:
 * sender, subject and threading kept, the body empty. Either way the folder moves on; only a mail
 * whose very headers cannot be read is none (null).
 */
const parse = async (source: Buffer): Promise<ParsedMail | null> => {
  try {
    return await simpleParser(source)
  } catch {
    const end = source.toString('latin1').search(/\r?\n\r?\n/)
    return simpleParser(end < 0 ? source : source.subarray(0, end)).catch(() => null)
  }
}

/** `ignore` rules: an address, or `@domain` for all of a domain. */
export const ignored = (rules: readonly string[], address: string) => {
  const a = address.toLowerCase()
  return rules.some((r) =>
    r.startsWith('@') || r.startsWith('*@') ? a.endsWith(r.replace(/^\*/, '')) : a === r,
  )
}

export type Imported = 'imported' | 'duplicate' | 'ignored'

export const importMail = (channel: ChannelRow, mailbox: Email.EmailRow, folder: string, source: Buffer) =>
  Effect.gen(function* () {
    // A stranger's mail is stored, never refused: NUL or a lone surrogate in a name, subject or
    // text (quoted-printable `=00` decodes to one) becomes U+FFFD instead of failing the insert.
    const read = yield* Effect.promise(() => parse(source))
    if (read === null) return 'ignored' as Imported
    const parsed = storableInPlace(read)
    // A mail without a Message-ID is known by its bytes: the same mail read again (or from another
    // folder) is one, and nobody who has not seen it can name it in In-Reply-To to join its thread
    // (an id made of the channel, UIDVALIDITY and UID could be guessed, and went out in References).
    const messageId =
      idList(parsed.messageId)[0] ??
      `<${crypto.createHash('sha256').update(source).digest('hex').slice(0, 40)}@kotak.invalid>`
    if (yield* Email.knownMessageId(channel.id, messageId)) return 'duplicate' as Imported
    const own = mailbox.address.toLowerCase()
    const from = addresses(parsed.from)[0] ?? null
    const to = addresses(parsed.to)
    const cc = addresses(parsed.cc)
    // The team's mail is what the Sent folder holds. A mail elsewhere whose From is the mailbox
    // itself is not taken for the team's: anyone can write that From (authentication results
    // are not read), and a customer knows their thread's ids. It is filed as it came, incoming,
    // in the thread of whom it was written to, and never answered automatically (no loop).
    const outgoing = folder === mailbox.sent_folder
    const fromSelf = !outgoing && from?.address === own
    const counterpart =
      outgoing || fromSelf ? (to.find((x) => x.address !== own) ?? (fromSelf ? from : null)) : from
    if (!counterpart) return 'ignored' as Imported
    if (!outgoing && ignored(mailbox.ignore, counterpart.address)) return 'ignored' as Imported

    const inReplyTo = idList(parsed.inReplyTo)
    const references = idList(parsed.references)
    const subject = (parsed.subject ?? '').trim().slice(0, 255) || null
    let conversationId = yield* Email.conversationOf(channel.id, [...inReplyTo, ...references])
    let created = false
    if (conversationId === null) {
      const contactId =
        (yield* Email.contactByEmail(channel.workspace_id, counterpart.address)) ??
        (yield* Contacts.create(channel.workspace_id, {
          name: counterpart.name || counterpart.address,
          email: counterpart.address,
        })).id
      const now = yield* currentTime
      // A sender's Date in the future, or before mail existed (JavaScript parses years PostgreSQL
      // cannot hold, such as -10000), is none: the conversation starts now.
      const sent = parsed.date?.getTime() ?? Number.NaN
      const at = sent >= 0 && sent < now.getTime() ? new Date(sent) : now
      conversationId = (yield* Conversations.create(channel.workspace_id, channel.id, {
        contactId,
        subject,
        at,
      })).id
      created = true
    }

    const attachments = []
    for (const a of parsed.attachments) {
      if (a.size > MAX_ATTACHMENT_BYTES) continue
      const bytes = new Uint8Array(a.content)
      const name = (a.filename ?? 'attachment').slice(0, 200)
      // Stored as what its bytes are, not as the sender's Content-Type says.
      const mime = typeByBytes(bytes, name, a.contentType)
      const file = yield* Files.save(
        channel.workspace_id,
        { name: nameForType(name, mime), mime, bytes },
        null,
      ).pipe(Effect.orDie)
      attachments.push({ file_id: file.id, name: file.name, mime: file.mime, size: file.size })
    }
    // HTML past the cap is clipped in the message; the whole part is kept as a file beside the
    // mail's own (served as a download, like any attachment), so nothing the customer sent is lost.
    const bounded =
      typeof parsed.html === 'string' && parsed.html.trim() !== '' ? sanitizeMailBounded(parsed.html) : null
    const html = bounded?.html ?? null
    const whole = bounded?.cut ? Buffer.from(parsed.html as string, 'utf8') : null
    if (whole && whole.length <= MAX_ATTACHMENT_BYTES) {
      const file = yield* Files.save(
        channel.workspace_id,
        { name: WHOLE_HTML_NAME, mime: 'text/html', bytes: new Uint8Array(whole) },
        null,
      ).pipe(Effect.orDie)
      attachments.push({ file_id: file.id, name: file.name, mime: file.mime, size: file.size })
    }
    const text = (parsed.text ?? (html ? toText(html) : '')).trim().slice(0, 100_000)

    // Automatic replies answer fresh mail only: not history being imported, not our own sent mail,
    // and never mail that is itself automatic (RFC 3834), so two autoresponders cannot loop.
    const automatic = String(parsed.headers.get('auto-submitted') ?? 'no').toLowerCase() !== 'no'
    const bulk = /^(bulk|list|junk)$/i.test(String(parsed.headers.get('precedence') ?? ''))
    const threaded = conversationId
    yield* receiveInbound(
      {
        channel,
        conversationId: threaded,
        opening: created ? 'created' : 'existing',
        message: {
          direction: outgoing ? 'out' : 'in',
          type: 'text',
          body: text,
          sender: outgoing
            ? { name: from?.name || mailbox.sender_name || null }
            : { name: (fromSelf ? from?.name : counterpart.name) || null },
          ...(outgoing ? { status: 'sent' } : {}),
          clientId: `email:${messageId}`.slice(0, 200),
          externalId: messageId,
          payload: {
            email: {
              subject,
              html,
              cc: cc.map((x) => x.address),
              reply_all: false,
              attachments,
              from: from?.address ?? null,
              to: to.map((x) => x.address),
              message_id: messageId,
              in_reply_to: inReplyTo[0] ?? null,
              references,
              folder,
            },
          },
        },
        arrival: {
          outgoing,
          history: false,
          group: false,
          automatic: automatic || bulk || fromSelf,
          sentAt: parsed.date?.getTime() ?? null,
        },
      },
      (message) => Email.rememberMessageId(channel.id, messageId, threaded, message.id),
    )
    return 'imported' as Imported
  })
