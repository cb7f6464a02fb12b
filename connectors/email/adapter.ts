import * as crypto from 'node:crypto'
import type { SqlClient } from '@effect/sql'
import { Effect, Layer } from 'effect'
import type { ConnectorShape, Delivery, OutboundMessage } from '../../actors/channels/Connector'
import { toText } from '../../actors/inbox/emailHtml'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import { FileStorage } from '../../engine/storage/FileStorage'
import type { ChannelRow } from '../../store/channels'
import * as Email from '../../store/email'
import { ConnectorFor } from '../router'
import { accessOf } from './access'
import type { Policy } from './mailbox'

/**
 * The outbound side of an e-mail channel: an agent's reply (or a new e-mail conversation) as a
 * mail through the mailbox's SMTP server. A reply goes to the contact with `Re:` subject,
 * In-Reply-To / References of the thread, the previous mail quoted, the channel's signature and
 * sender name (with the agent's name when `sender_with_agent`), `cc`, `reply_all` (the previous
 * mail's other recipients) and files. The exact bytes sent are appended to the Sent folder when
 * `save_sent`. An SMTP refusal is `Rejected` with the server's answer (the message stays, failed).
 * The SMTP and IMAP connections are opened per send: replies are rare next to the cost of a kept
 * connection per mailbox, and no session registry is needed below the actors.
 */
interface MailPayload {
  readonly subject?: string | null
  readonly html?: string | null
  readonly cc?: readonly string[]
  readonly reply_all?: boolean
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const textToHtml = (s: string) => escapeHtml(s).replace(/\r?\n/g, '<br>')

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []

const reSubject = (s: string) => (/^re:/i.test(s) ? s : `Re: ${s}`)

/** `"Name" <address>` with the name's quotes escaped. */
const mailbox = (name: string, address: string) =>
  name.trim() === '' ? address : { name: name.trim(), address }

const rejected = (reason: string): Delivery => ({ _tag: 'Rejected', reason: reason.slice(0, 500) })

const make = Effect.gen(function* () {
  const cfg = yield* Config
  const log = yield* Log
  const storage = yield* FileStorage
  const policy: Policy = { allowInsecure: cfg.emailAllowInsecure }
  // The ChannelActor calls `send` without services: the adapter keeps its own.
  const services = yield* Effect.context<SqlClient.SqlClient | Config>()

  const send = (channel: ChannelRow, message: OutboundMessage) =>
    Effect.gen(function* () {
      const box = yield* Email.byChannel(channel.id)
      if (!box) return rejected('The mailbox of this channel is not set up.')
      // The mail libraries load with the first mail sent (or mailbox read), not at start.
      const [{ default: nodemailer }, { connectImap, connectSmtp }, { sanitizeMail }] = yield* Effect.promise(
        () => Promise.all([import('nodemailer'), import('./mailbox'), import('./sanitize')]),
      )
      const access = yield* accessOf(box)
      const payload = ((message.payload.email ?? {}) as MailPayload) ?? {}
      const prev = yield* Email.lastReceived(message.conversationId)
      const prevMail = prev?.email ?? null
      const own = box.address.toLowerCase()
      const prevFrom = typeof prevMail?.from === 'string' ? prevMail.from : null
      const to = message.to?.email ?? prevFrom
      if (!to) return rejected('The contact has no e-mail address.')

      const thread = yield* Email.threadIds(message.conversationId)
      const inReplyTo =
        (typeof prevMail?.message_id === 'string' ? prevMail.message_id : null) ?? thread.at(-1)
      const baseSubject = payload.subject ?? message.subject ?? ''
      const subject = prev ? reSubject(baseSubject || (message.subject ?? '')) : baseSubject || '(no subject)'

      const cc = new Set(strings(payload.cc).map((a) => a.toLowerCase()))
      if (payload.reply_all && prevMail) {
        for (const a of [...strings(prevMail.to), ...strings(prevMail.cc)]) cc.add(a.toLowerCase())
      }
      cc.delete(own)
      cc.delete(to.toLowerCase())

      const agent = box.sender_with_agent ? yield* Email.senderNameOf(message.messageId) : null
      const base = box.sender_name.trim()
      const fromName = agent ? (base ? `${agent} (${base})` : agent) : base

      const bodyHtml = payload.html ?? textToHtml(message.body)
      const signature = box.signature_html.trim() ? sanitizeMail(box.signature_html) : ''
      let html = `<div>${bodyHtml}</div>`
      let text = message.body
      if (signature) {
        html += `<br><div class="signature">${signature}</div>`
        text += `\n\n-- \n${toText(signature)}`
      }
      if (prev) {
        const who = prevFrom ?? 'the customer'
        const when = prev.created_at.toUTCString()
        const quotedHtml =
          typeof prevMail?.html === 'string' && prevMail.html ? prevMail.html : textToHtml(prev.body)
        html += `<br><div class="quote">On ${escapeHtml(when)}, ${escapeHtml(who)} wrote:<blockquote style="margin:0 0 0 8px;border-left:2px solid #ccc;padding-left:8px">${quotedHtml}</blockquote></div>`
        text += `\n\nOn ${when}, ${who} wrote:\n${prev.body
          .split('\n')
          .map((l) => `> ${l}`)
          .join('\n')}`
      }

      const attachments: Array<{ filename: string; content: Buffer; contentType: string }> = []
      for (const f of message.files) {
        const bytes = yield* storage.read(f.storageKey).pipe(Effect.orElseSucceed(() => null))
        if (!bytes) return rejected(`The file ${f.name} is no longer stored.`)
        attachments.push({ filename: f.name, content: Buffer.from(bytes), contentType: f.mime })
      }

      const domain = own.slice(own.lastIndexOf('@') + 1) || 'kotak.invalid'
      const messageId = `<kotak.${message.messageId}.${crypto.randomBytes(6).toString('hex')}@${domain}>`
      const references = [...new Set([...thread, ...(inReplyTo ? [inReplyTo] : [])])]
      // Composed once: the same bytes go to the SMTP server and into the Sent folder.
      const composed = yield* Effect.promise(() =>
        nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' }).sendMail({
          from: mailbox(fromName, box.address),
          to,
          ...(cc.size > 0 ? { cc: [...cc] } : {}),
          subject,
          text,
          html,
          messageId,
          ...(inReplyTo ? { inReplyTo } : {}),
          ...(references.length > 0 ? { references } : {}),
          // A greeting or away message says it is automatic (RFC 3834), so other autoresponders
          // do not answer it.
          ...(message.payload.auto_reply ? { headers: { 'Auto-Submitted': 'auto-replied' } } : {}),
          attachments,
        }),
      )
      const raw = composed.message as Buffer
      // The server's address is checked again for every mail (as at sign-in): its name may now
      // answer with an address of our own network.
      const transport = yield* Effect.promise(() =>
        connectSmtp(access.smtp, policy).then(
          (t) => ({ ok: true as const, t }),
          (e: unknown) => ({ ok: false as const, why: String((e as Error)?.message ?? e) }),
        ),
      )
      if (!transport.ok) return rejected(`The mail server cannot be used: ${transport.why}`)
      const outcome = yield* Effect.promise(() =>
        transport.t.sendMail({ envelope: composed.envelope, raw }).then(
          () => null,
          (e: unknown) => String((e as { response?: string })?.response ?? (e as Error)?.message ?? e),
        ),
      )
      transport.t.close()
      if (outcome !== null) return rejected(`The mail server refused the mail: ${outcome}`)
      yield* Email.rememberMessageId(channel.id, messageId, message.conversationId, message.messageId)

      if (box.save_sent && box.sent_folder) {
        const folder = box.sent_folder
        const saved = yield* Effect.promise(async () => {
          try {
            const client = await connectImap(access.imap, policy)
            try {
              await client.append(folder, raw, ['\\Seen'])
            } finally {
              await client.logout().catch(() => client.close())
            }
            return null
          } catch (e) {
            return String(e)
          }
        })
        // The mail is out either way; a Sent copy that failed is only logged.
        if (saved !== null) log.warn('could not save the sent mail', { channel_id: channel.id, error: saved })
      }
      return { _tag: 'Sent', externalId: messageId } satisfies Delivery as Delivery
    }).pipe(
      Effect.provide(services),
      Effect.catchAllCause((cause) =>
        Effect.sync(() => {
          log.error('e-mail send failed', { channel_id: channel.id, cause: String(cause) })
          return rejected('The mail could not be sent.')
        }),
      ),
    )

  return {
    send,
    // Mail has no edits, reactions or read receipts to carry.
    signal: () => Effect.void,
  } satisfies ConnectorShape
})

export const layer = Layer.effect(ConnectorFor('email'), make)
