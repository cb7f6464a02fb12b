import { SqlClient } from '@effect/sql'
import { Duration, Effect, Schedule } from 'effect'
import { webhookPolicy } from '../../actors/channels/apiChannel'
import { ConversationActor, presentMessage } from '../../actors/inbox/ConversationActor'
import { currentTime, systemMillis } from '../../engine/clock'
import { type AppConfig, Config } from '../../engine/config'
import { Log } from '../../engine/log'
import { type OutboundPolicy, OutboundRefused, send } from '../../engine/net/outbound'
import { sign } from '../../engine/net/signature'
import { iso } from '../../engine/time'
import * as ChannelApi from '../../store/channelApi'
import type * as Channels from '../../store/channels'
import type { MessageRow } from '../../store/conversations'
import { attachmentsOf } from './files'

/**
 * Webhooks of API channels (spec 1 §6 rules 5 and 7; our scheme in docs/decisions-channels.md).
 *
 * Body: `{id, event, created_at, data}` where `id` is the delivery id. Headers:
 * `X-Kotak-Event`, `X-Kotak-Delivery` (the same on every attempt), `X-Kotak-Timestamp` (Unix
 * seconds of this attempt) and `X-Kotak-Signature` = `sha256=` + hex HMAC-SHA256 of
 * `timestamp + "." + body` with the channel's webhook secret.
 *
 * Every delivery is stored first (`webhook_deliveries`) and sent by the worker of whichever node
 * claims it, so deliveries survive a restart; a 2xx answer is success, anything else (including
 * refusals by the outbound guard) is retried up to the channel's `retries` with backoff
 * `base × 3^(n-1)`.
 */
export interface AttemptResult {
  readonly status: 'delivered' | 'failed'
  readonly http_status: number | null
  readonly duration_ms: number
  readonly error: string | null
}

export const headersFor = (
  secret: string,
  event: string,
  deliveryId: string,
  body: string,
  nowMs: number,
) => {
  const timestamp = Math.floor(nowMs / 1000)
  return {
    'content-type': 'application/json',
    'user-agent': 'Kotak-Webhooks/1',
    'x-kotak-event': event,
    'x-kotak-delivery': deliveryId,
    'x-kotak-timestamp': String(timestamp),
    'x-kotak-signature': sign(secret, timestamp, body),
  }
}

/** One attempt now; never fails. */
export const attempt = (
  url: string,
  secret: string,
  event: string,
  deliveryId: string,
  body: string,
  policy: OutboundPolicy,
) =>
  Effect.promise(async (): Promise<AttemptResult> => {
    const started = performance.now()
    try {
      const res = await send(
        url,
        { method: 'POST', headers: headersFor(secret, event, deliveryId, body, systemMillis()), body },
        policy,
      )
      const ok = res.status >= 200 && res.status < 300
      return {
        status: ok ? 'delivered' : 'failed',
        http_status: res.status,
        duration_ms: res.durationMs,
        error: ok ? null : `HTTP ${res.status}`,
      }
    } catch (e) {
      return {
        status: 'failed',
        http_status: null,
        duration_ms: Math.round(performance.now() - started),
        error:
          e instanceof OutboundRefused
            ? `refused (${e.reason}): ${e.message}`
            : e instanceof Error
              ? e.message
              : String(e),
      }
    }
  })

export const envelope = (deliveryId: string, event: string, data: unknown) =>
  // Read by another process: the process clock (engine/clock), as log lines.
  JSON.stringify({ id: deliveryId, event, created_at: iso(new Date(systemMillis())), data })

/**
 * `POST /channels/{id}/api/test-webhook`: a `ping` sent now (one attempt, no retries), recorded
 * in the delivery log like the others.
 */
export const ping = (channel: Channels.ChannelRow, api: ChannelApi.ChannelApiRow) =>
  Effect.gen(function* () {
    const policy = webhookPolicy(yield* Config)
    const uid = ChannelApi.newDeliveryId()
    const body = envelope(uid, 'ping', { channel_id: channel.id, name: channel.name })
    const stored = yield* ChannelApi.enqueue(channel.id, {
      uid,
      event: 'ping',
      subject: null,
      body,
      maxAttempts: 1,
      // Not due for the worker while this request sends it.
      leaseSeconds: 60,
    })
    const result: AttemptResult = api.webhook_url
      ? yield* attempt(api.webhook_url, api.webhook_secret, 'ping', uid, body, policy)
      : { status: 'failed', http_status: null, duration_ms: 0, error: 'no webhook_url set' }
    yield* ChannelApi.recordAttempt(stored!.id, {
      at: iso(yield* currentTime)!,
      http_status: result.http_status,
      duration_ms: result.duration_ms,
      error: result.error,
      delivered: result.status === 'delivered',
      retryInSeconds: null,
    })
    return result
  })

const messageBody = (
  uid: string,
  m: MessageRow,
  externalId: string | null,
  channelId: number,
  attachments: readonly unknown[],
) =>
  envelope(uid, 'message.created', {
    channel_id: channelId,
    conversation_id: externalId,
    interaction_id: m.conversation_id,
    message: { ...presentMessage(m), attachments },
  })

/**
 * Queues `message.created` for one agent reply; a reply queued before whose delivery failed for
 * good is queued again (an agent's retry), with the channel's retries afresh. Nothing happens to
 * one still pending or delivered.
 */
export const queueReply = (channelId: number, messageId: number) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const api = yield* ChannelApi.byChannel(channelId)
    const [m] = yield* sql<MessageRow>`SELECT * FROM messages WHERE id = ${messageId}`
    // Internal notes are the team's: never queued for the customer's system, whoever asks.
    if (!api || !m || m.type === 'note' || m.direction !== 'out') return
    const subject = `message.created:${m.id}`
    const uid = ChannelApi.newDeliveryId()
    const thread = yield* ChannelApi.threadOfConversation(m.conversation_id)
    const stored = yield* ChannelApi.enqueue(channelId, {
      uid,
      event: 'message.created',
      subject,
      body: messageBody(
        uid,
        m,
        thread?.external_id ?? null,
        channelId,
        yield* attachmentsOf(m.workspace_id, channelId, m.file_id),
      ),
      maxAttempts: api.retries + 1,
    })
    if (!stored) yield* ChannelApi.requeueFailed(channelId, subject, api.retries + 1)
  })

/** Queues `message.created` for agent replies not queued yet, then moves the cursors on. */
export const queueReplies = Effect.gen(function* () {
  const pending = yield* ChannelApi.pendingReplies(200)
  for (const p of pending) yield* queueReply(p.channel_id, p.message_id)
  yield* ChannelApi.advanceCursors
  return pending.length
})

/** The reply a `message.created` delivery carries. */
const replyIdOf = (d: ChannelApi.DeliveryRow) => {
  const id = Number(/^message\.created:(\d+)$/.exec(d.subject ?? '')?.[1] ?? Number.NaN)
  return Number.isSafeInteger(id) ? id : null
}

/**
 * Whether the reply a delivery carries was unsent since it was queued: an agent who takes a reply
 * back while the customer's system is not answering must not see it delivered once it is.
 */
const unsentReply = (d: ChannelApi.DeliveryRow) =>
  Effect.gen(function* () {
    const id = d.event === 'message.created' ? replyIdOf(d) : null
    if (id === null) return false
    const sql = yield* SqlClient.SqlClient
    const [m] = yield* sql<{ deleted_at: Date | null }>`SELECT deleted_at FROM messages WHERE id = ${id}`
    return m?.deleted_at != null
  })

/**
 * A reply whose `message.created` failed for good is `failed` on the message too, with the
 * reason, so the agent sees it and may retry (through the ConversationActor, like every delivery).
 */
const replyFailed = (d: ChannelApi.DeliveryRow, error: string | null) =>
  Effect.gen(function* () {
    const id = replyIdOf(d)
    if (id === null) return
    const sql = yield* SqlClient.SqlClient
    const [m] = yield* sql<{ conversation_id: number }>`SELECT conversation_id FROM messages WHERE id = ${id}`
    if (!m) return
    const actor = yield* ConversationActor
    yield* actor
      .ask(m.conversation_id, {
        _tag: 'Delivered',
        messageId: id,
        delivery: { _tag: 'Rejected', reason: `Webhook delivery failed: ${error ?? 'no answer'}` },
      })
      .pipe(Effect.ignore)
  })

/** Queues `conversation.updated` for conversations whose status, assignee or team changed. */
export const queueConversationUpdates = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const changed = yield* ChannelApi.changedConversations(200)
  const state = (c: (typeof changed)[number]): ChannelApi.ThreadState => ({
    status: c.status,
    assignee_id: c.assignee_id,
    team_id: c.team_id,
  })
  // Changed and changed back since the last look (open, solved, open): nothing to tell, one write.
  yield* ChannelApi.markSeen(
    changed
      .filter((c) => !c.differs)
      .map((c) => ({
        channel_id: c.channel_id,
        external_id: c.external_id,
        seq: c.change_seq,
        state: state(c),
      })),
  )
  for (const c of changed) {
    if (!c.differs) continue
    const now = state(c)
    // Under the thread's lock: another node may have told a newer state since this read.
    yield* sql.withTransaction(
      Effect.gen(function* () {
        const look = yield* ChannelApi.lockForNotice(c.channel_id, c.external_id, c.change_seq, now)
        if (!look) return
        if (look.differs) {
          const uid = ChannelApi.newDeliveryId()
          yield* ChannelApi.enqueue(c.channel_id, {
            uid,
            event: 'conversation.updated',
            // The count names the change exactly (a change and back within a millisecond included).
            subject: `conversation.updated:${c.conversation_id}:${c.change_seq}`,
            body: envelope(uid, 'conversation.updated', {
              channel_id: c.channel_id,
              conversation_id: c.external_id,
              interaction_id: c.conversation_id,
              ...now,
              updated_at: iso(c.updated_at),
            }),
            maxAttempts: c.retries + 1,
          })
        }
        yield* ChannelApi.setNotified(c.channel_id, c.external_id, c.change_seq, now)
      }),
    )
  }
})

const UNSENT = 'unsent before it was delivered'

/** Sends the due deliveries once each; the lease keeps another node off them meanwhile. */
export const sendDue = (policy: OutboundPolicy, retryBaseMs: number) =>
  Effect.gen(function* () {
    const due = yield* ChannelApi.claimDue(20, 60)
    // One channel's deliveries go out one after another, oldest first, so the customer's system
    // hears of a conversation's messages in the order they were made (a greeting before the away
    // message); different channels go side by side.
    const byChannel = new Map<number, ChannelApi.DeliveryRow[]>()
    for (const d of [...due].sort((x, y) => Number(x.id) - Number(y.id))) {
      const list = byChannel.get(d.channel_id)
      if (list) list.push(d)
      else byChannel.set(d.channel_id, [d])
    }
    const sendOne = (d: ChannelApi.DeliveryRow) =>
      // A node shutting down finishes the attempts it started and records them, rather than
      // leaving them leased (and late) until the lease runs out.
      Effect.uninterruptible(
        Effect.gen(function* () {
          if (yield* unsentReply(d)) {
            yield* ChannelApi.dropUnsent(d.id, iso(yield* currentTime)!, UNSENT)
            return
          }
          const api = yield* ChannelApi.byChannel(d.channel_id)
          const result: AttemptResult = api?.webhook_url
            ? yield* attempt(api.webhook_url, api.webhook_secret, d.event, d.uid, d.body, policy)
            : { status: 'failed', http_status: null, duration_ms: 0, error: 'no webhook_url set' }
          const n = d.attempts + 1
          const retry = result.status === 'failed' && n < d.max_attempts
          yield* ChannelApi.recordAttempt(d.id, {
            at: iso(yield* currentTime)!,
            http_status: result.http_status,
            duration_ms: result.duration_ms,
            error: result.error,
            delivered: result.status === 'delivered',
            retryInSeconds: retry ? (retryBaseMs * 3 ** (n - 1)) / 1000 : null,
          })
          if (result.status === 'failed' && !retry && d.event === 'message.created')
            yield* replyFailed(d, result.error)
        }),
      )
    yield* Effect.forEach(byChannel.values(), (list) => Effect.forEach(list, sendOne, { discard: true }), {
      concurrency: 8,
      discard: true,
    })
    return due.length
  })

/** The loop every server node runs: queue new agent replies, send what is due. */
export const worker = (cfg: Pick<AppConfig, 'webhookAllowPrivate' | 'webhookRetryBaseMs'>) => {
  const policy = webhookPolicy(cfg)
  const pollMs = Math.min(1000, Math.max(20, cfg.webhookRetryBaseMs))
  const tick = Effect.gen(function* () {
    yield* queueReplies
    yield* queueConversationUpdates
    yield* sendDue(policy, cfg.webhookRetryBaseMs)
  }).pipe(
    Effect.catchAllCause((cause) =>
      Effect.flatMap(Log, (log) =>
        Effect.sync(() => log.warn('webhook worker tick failed', { cause: String(cause) })),
      ),
    ),
  )
  return Effect.repeat(tick, Schedule.spaced(Duration.millis(pollMs)))
}
