import type { SqlClient } from '@effect/sql'
import type { AnyMessageContent, WAMessage } from 'baileys'
import { Effect, Layer } from 'effect'
import type { ConnectorShape, Delivery, OutboundMessage, Signal } from '../../actors/channels/Connector'
import { WARMUP_DAYS, warmupOf } from '../../actors/channels/msgapp'
import { currentMillis, currentTime, systemMillis, type WallClock } from '../../engine/clock'
import { Config } from '../../engine/config'
import { FileStorage } from '../../engine/storage/FileStorage'
import type { ChannelRow } from '../../store/channels'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as Groups from '../../store/groups'
import * as Msgapp from '../../store/msgapp'
import { ConnectorFor } from '../router'
import * as Forward from './forward'
import { jidOfPhone, ownMessageId } from './jid'
import { MsgappLive, type MsgappLiveShape } from './live'

/**
 * ConnectorFor('msgapp'): sends through the number's open socket (the ChannelActor calls it one
 * message at a time per number, after the 30-per-minute throttle).
 *
 * - Where: through this node's socket when it has one. In cluster mode, when the socket is on
 *   another node (the actor is placed by shard, the socket by the number's advisory lock), the
 *   request is forwarded to that node and its answer returned (forward.ts: at most once, a
 *   request unanswered within CLUSTER_ASK_TIMEOUT_MS − 1 s fails with `Forward.TIMED_OUT` and is
 *   not sent again). A number no node has connected (status neither active nor restricted) is
 *   refused at once. Everything below happens on the one node that sends.
 * - Pacing: two sends of one number are at least MSGAPP_PACE_MS apart (±50 % jitter), so a
 *   burst does not look like a bot; a single reply is not delayed.
 * - Warm-up (actors/channels/msgapp.ts `warmupOf`): beyond a new number's allowance per rolling
 *   24 hours the message fails with the reason.
 * - Every attempt is written to the send log. A refusal that names a restriction (HTTP-like 403
 *   or 463 from the service) is reported to the supervisor, which sets `restricted` and notifies.
 */
/** What the adapter keeps of this node: its sockets, and when each number last sent. */
interface Node {
  readonly live: MsgappLiveShape
  readonly lastSend: Map<number, number>
}

const reasonOf = (e: unknown) => {
  const code = (e as { output?: { statusCode?: number } }).output?.statusCode
  const text = e instanceof Error ? e.message : String(e)
  return { code: code ?? null, text: code ? `${text} (${code})` : text }
}

const pace = (node: Node, channelId: number, paceMs: number) =>
  Effect.promise(async () => {
    if (paceMs <= 0) return
    const gap = paceMs * (0.5 + Math.random())
    const wait = (node.lastSend.get(channelId) ?? 0) + gap - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
  })

const warmupRefusal = (channelId: number) =>
  Effect.gen(function* () {
    const n = yield* Msgapp.byChannel(channelId)
    const now = yield* currentMillis
    const warmup = warmupOf(n?.linked_at ?? null, now)
    if (!warmup) return null
    const sent = yield* Msgapp.sentSince(channelId, new Date(now - 86_400_000))
    return sent >= warmup.limit
      ? `Warm-up limit of this new number reached (${warmup.limit} messages per 24 hours during its first ${WARMUP_DAYS} days).`
      : null
  })

const contentOf = (m: OutboundMessage) =>
  Effect.gen(function* () {
    const storage = yield* FileStorage
    const file = m.files[0]
    const text = m.body
    if (m.type === 'location') {
      const l = (m.payload.location ?? {}) as Record<string, unknown>
      return {
        location: {
          degreesLatitude: Number(l.latitude),
          degreesLongitude: Number(l.longitude),
          name: typeof l.name === 'string' ? l.name : undefined,
          address: typeof l.address === 'string' ? l.address : undefined,
        },
      } satisfies AnyMessageContent
    }
    if (m.type === 'contact') {
      const c = (m.payload.contact ?? {}) as Record<string, string | null>
      const vcard = [
        'BEGIN:VCARD',
        'VERSION:3.0',
        `FN:${c.name ?? ''}`,
        ...(c.phone ? [`TEL;type=CELL;waid=${c.phone.replace(/\D/g, '')}:${c.phone}`] : []),
        ...(c.email ? [`EMAIL:${c.email}`] : []),
        'END:VCARD',
      ].join('\n')
      return { contacts: { displayName: c.name ?? '', contacts: [{ displayName: c.name ?? '', vcard }] } }
    }
    if (file) {
      const bytes = yield* storage.read(file.storageKey).pipe(Effect.orElseSucceed(() => null))
      if (!bytes) return null
      const buf = Buffer.from(bytes)
      const caption = text || undefined
      if (m.type === 'sticker') return { sticker: buf } satisfies AnyMessageContent
      if (file.mime.startsWith('image/')) return { image: buf, caption, mimetype: file.mime }
      if (file.mime.startsWith('video/')) return { video: buf, caption, mimetype: file.mime }
      if (file.mime.startsWith('audio/')) return { audio: buf, mimetype: file.mime }
      return { document: buf, mimetype: file.mime, fileName: file.name, caption }
    }
    return { text } satisfies AnyMessageContent
  })

/** Sends through this node's socket; `startBy`: a forwarded request not started by then is refused. */
const send = (node: Node, channel: ChannelRow, m: OutboundMessage, startBy?: number) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    const sock = node.live.openSocket(channel.id)
    const jid =
      m.group ??
      (m.to?.phone ? jidOfPhone(m.to.phone) : yield* Msgapp.lidChatOf(channel.id, m.conversationId))
    const refuse = (reason: string) =>
      Effect.as(
        Msgapp.logSend(channel.id, { messageId: m.messageId, jid: jid ?? '', ok: false, error: reason }),
        { _tag: 'Rejected', reason } as Delivery,
      )
    if (!jid) return yield* refuse('The contact has no phone number.')
    if (!sock) return yield* refuse('The number is not connected.')
    const warm = yield* warmupRefusal(channel.id)
    if (warm) return yield* refuse(warm)
    const content = yield* contentOf(m)
    if (!content) return yield* refuse('The file to send is missing.')
    yield* pace(node, channel.id, cfg.msgappPaceMs)
    if (startBy !== undefined && systemMillis() > startBy) return yield* refuse(Forward.TIMED_OUT)
    const quoted = m.replyTo
      ? ({ key: { remoteJid: jid, id: m.replyTo }, message: { conversation: '' } } as WAMessage)
      : undefined
    // The message's id is ours and remembered before the send: Baileys reports a sent message
    // back (`messages.upsert`, `append`) as soon as it is relayed, which the session may read
    // before this send's answer is handled; unknown then, it was imported as a second message.
    const ownId = ownMessageId()
    yield* Msgapp.remember(channel.id, ownId, {
      conversationId: m.conversationId,
      messageId: m.messageId,
      jid,
      fromMe: true,
      at: yield* currentTime,
    })
    const result = yield* Effect.promise(() =>
      sock.sendMessage(jid, content, { messageId: ownId, ...(quoted ? { quoted } : {}) }).then(
        (sent) => ({ ok: true as const, sent }),
        (e: unknown) => ({ ok: false as const, error: reasonOf(e) }),
      ),
    )
    node.lastSend.set(channel.id, performance.now())
    if (!result.ok) {
      if (result.error.code === 403 || result.error.code === 463)
        node.live.trouble.fire(channel.id, result.error.text)
      return yield* refuse(result.error.text)
    }
    if (channel.status === 'restricted') node.live.trouble.fire(channel.id, null)
    const waId = result.sent?.key.id ?? null
    yield* Msgapp.logSend(channel.id, { messageId: m.messageId, jid, ok: true, error: null })
    if (waId && waId !== ownId) {
      yield* Msgapp.remember(channel.id, waId, {
        conversationId: m.conversationId,
        messageId: m.messageId,
        jid,
        fromMe: true,
        at: yield* currentTime,
      })
    }
    return { _tag: 'Sent', externalId: waId } as Delivery
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.succeed<Delivery>({ _tag: 'Rejected', reason: `send failed: ${cause}` }),
    ),
  )

/** The chat JID of a conversation (contact's phone, else the LID chat they wrote from, or the group's id). */
const chatOf = (conversationId: number) =>
  Effect.gen(function* () {
    const c = yield* Conversations.byId(conversationId)
    if (!c) return null
    if (c.group_id !== null) return (yield* Groups.byId(c.workspace_id, c.group_id))?.external_id ?? null
    const contact = c.contact_id === null ? null : yield* Contacts.byId(c.workspace_id, c.contact_id)
    if (contact?.phone) return jidOfPhone(contact.phone)
    return c.channel_id === null ? null : yield* Msgapp.lidChatOf(c.channel_id, c.id)
  })

const signal = (node: Node, channel: ChannelRow, conversationId: number, s: Signal) =>
  Effect.gen(function* () {
    const sock = node.live.openSocket(channel.id)
    if (!sock || s.kind === 'history' || s.kind === 'agent_joined' || s.kind === 'typing') return
    const jid = yield* chatOf(conversationId)
    if (!jid) return
    const key = (id: string, fromMe: boolean) => ({ remoteJid: jid, id, fromMe })
    yield* Effect.promise(async () => {
      if (s.kind === 'edit') await sock.sendMessage(jid, { text: s.body, edit: key(s.externalId, true) })
      else if (s.kind === 'unsend') await sock.sendMessage(jid, { delete: key(s.externalId, true) })
      else if (s.kind === 'react')
        await sock.sendMessage(jid, { react: { text: s.emoji, key: key(s.externalId, false) } })
      else if (s.kind === 'read') await sock.readMessages(s.externalIds.map((id) => key(id, false)))
    }).pipe(Effect.catchAllCause(() => Effect.void))
  }).pipe(Effect.catchAllCause(() => Effect.void))

/** A number connected somewhere (its session sets these once its socket is open). */
const connectedSomewhere = (channel: ChannelRow) =>
  channel.status === 'active' || channel.status === 'restricted'

export const layer = Layer.scoped(
  ConnectorFor('msgapp'),
  Effect.gen(function* () {
    const cfg = yield* Config
    const ctx = yield* Effect.context<Config | FileStorage | SqlClient.SqlClient | WallClock>()
    const node: Node = { live: yield* MsgappLive, lastSend: new Map() }
    const local = {
      send: (channel: ChannelRow, m: OutboundMessage, startBy?: number) =>
        Effect.provide(send(node, channel, m, startBy), ctx),
      signal: (channel: ChannelRow, conversationId: number, s: Signal) =>
        Effect.provide(signal(node, channel, conversationId, s), ctx),
    }
    // One node (no Redis): there is no other node to forward to.
    const forward = cfg.redisUrl
      ? yield* Forward.make(
          {
            holds: (channelId) => node.live.openSocket(channelId) !== null,
            send: (channelId, m, startBy) =>
              Effect.flatMap(Effect.provide(Channels.byId(channelId), ctx), (row) =>
                row
                  ? local.send(row, m, startBy)
                  : Effect.succeed<Delivery>({ _tag: 'Rejected', reason: 'channel removed' }),
              ).pipe(
                Effect.catchAllCause((cause) =>
                  Effect.succeed<Delivery>({ _tag: 'Rejected', reason: `send failed: ${cause}` }),
                ),
              ),
            signal: (channelId, conversationId, s) =>
              Effect.flatMap(Effect.provide(Channels.byId(channelId), ctx), (row) =>
                row ? local.signal(row, conversationId, s) : Effect.void,
              ).pipe(Effect.catchAllCause(() => Effect.void)),
          },
          Math.max(1000, cfg.cluster.askTimeoutMs - 1000),
        )
      : null
    const elsewhere = (channel: ChannelRow) =>
      forward !== null && !node.live.openSocket(channel.id) && connectedSomewhere(channel) ? forward : null
    return {
      send: (channel, message) => {
        const f = elsewhere(channel)
        return f ? f.send(channel.id, message) : local.send(channel, message)
      },
      signal: (channel, conversationId, s) => {
        const f = elsewhere(channel)
        return f ? f.signal(channel.id, conversationId, s) : local.signal(channel, conversationId, s)
      },
    } satisfies ConnectorShape
  }),
)
