import { createHmac, timingSafeEqual } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { Effect, Either, Schema } from 'effect'
import { storableInPlace } from '../engine/storable'
import { parseJsonBody } from '../http/validation'
import * as Channels from './store/channels'
import * as Records from './store/records'
import { inRange } from './time'

/**
 * Ingestion of the platform's webhook notifications, in the shape of the Instagram Graph API
 * (`object: "instagram"`, `entry[].changes[]` with fields `comments` and `mentions`). The account
 * in `entry[].id` names the channel and so the workspace; notifications for accounts no workspace
 * has are acknowledged and dropped. See docs/decisions-social.md ("Ingestion").
 */

/** `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw body with the app secret>`, compared in constant time. */
export const verifySignature = (secret: string, body: Uint8Array, header: string | undefined): boolean => {
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '')
  if (!m) return false
  const expected = createHmac('sha256', secret).update(body).digest()
  return timingSafeEqual(expected, Buffer.from(m[1]!, 'hex'))
}

export const sign = (secret: string, body: string | Uint8Array): string =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`

const Id = Schema.Union(Schema.String, Schema.Number).pipe(
  Schema.transform(Schema.String, { strict: true, decode: String, encode: (s) => s }),
)
const Time = Schema.optional(Schema.Union(Schema.String, Schema.Number))
const From = Schema.Struct({ id: Id, username: Schema.optional(Schema.String) })
const Media = Schema.Struct({
  id: Id,
  caption: Schema.optional(Schema.String),
  permalink: Schema.optional(Schema.String),
})

const Comment = Schema.Struct({
  id: Id,
  text: Schema.optional(Schema.String),
  from: From,
  media: Schema.optional(Media),
  parent_id: Schema.optional(Id),
  timestamp: Time,
})

/** The platform names only ids; `text`, `from`, `caption`, `permalink` and `timestamp` are optional extras. */
const Mention = Schema.Struct({
  media_id: Id,
  comment_id: Schema.optional(Id),
  text: Schema.optional(Schema.String),
  from: Schema.optional(From),
  caption: Schema.optional(Schema.String),
  permalink: Schema.optional(Schema.String),
  timestamp: Time,
})

const Payload = Schema.Struct({
  object: Schema.String,
  entry: Schema.Array(
    Schema.Struct({
      id: Id,
      time: Schema.optional(Schema.Number),
      changes: Schema.optional(Schema.Array(Schema.Struct({ field: Schema.String, value: Schema.Unknown }))),
    }),
  ),
})

export type Payload = typeof Payload.Type

export const parsePayload = (body: Uint8Array | null): Payload | null => {
  // Strict UTF-8 and a bounded depth, as every JSON body of the API (http/validation.ts).
  const json = parseJsonBody(body ?? new Uint8Array())
  if (Either.isLeft(json)) return null
  // The platform's notification is stored, never refused: a NUL or lone surrogate in a text or
  // name becomes U+FFFD (a 422 would only make the platform retry and then drop the comment).
  const r = Schema.decodeUnknownEither(Payload)(storableInPlace(json.right))
  return Either.isRight(r) ? r.right : null
}

/** Seconds or milliseconds since the epoch, or an ISO 8601 string; anything else: the fallback. */
const timeOf = (v: string | number | undefined, fallback: Date): Date => {
  if (v === undefined) return fallback
  const d = typeof v === 'number' ? new Date(v > 1e12 ? v : v * 1000) : new Date(v)
  // PostgreSQL stores years from 0001 (JavaScript also has year 0 and negative years), and the
  // answers are written at +07:00 with a 4-digit year (JavaScript also has +010000).
  return Number.isNaN(d.getTime()) || !inRange(d) ? fallback : d
}

export interface IngestResult {
  /** Changes written (new or seen before: redeliveries are idempotent). */
  readonly received: number
  /** Changes dropped: unknown account, field or shape. */
  readonly ignored: number
}

interface Item {
  readonly conversation: Records.ConversationInput
  readonly message: Omit<Records.MessageInput, 'conversation_id'>
}

const commentItem = (channel: Channels.ChannelRow, c: typeof Comment.Type, at: Date): Item | null => {
  const out = c.from.id === channel.external_id
  // Our own top-level comment answers nobody: it starts no conversation.
  if (out && c.parent_id === undefined) return null
  const author = c.from.username ?? c.from.id
  const posted = timeOf(c.timestamp, at).toISOString()
  return {
    conversation: {
      external_id: `ig:comment:${c.parent_id ?? c.id}`,
      channel_id: channel.id,
      type: 'reply',
      contact_username: out ? '' : author,
      category: null,
      labels: [],
      tags: [],
      assignee: null,
      context_text: c.media?.caption ?? null,
      context_username: channel.username,
      context_permalink: c.media?.permalink ?? null,
      created_at: posted,
    },
    message: {
      external_id: `ig:${c.id}`,
      direction: out ? 'out' : 'in',
      author,
      text: c.text ?? '',
      media_type: 'text',
      attachments: [],
      status: out ? 'published' : 'received',
      permalink: null,
      posted_at: posted,
    },
  }
}

const mentionItem = (channel: Channels.ChannelRow, m: typeof Mention.Type, at: Date): Item => {
  const author = m.from?.username ?? m.from?.id ?? ''
  const posted = timeOf(m.timestamp, at).toISOString()
  const key = m.comment_id ?? `media:${m.media_id}`
  return {
    conversation: {
      external_id: `ig:mention:${key}`,
      channel_id: channel.id,
      type: 'mention',
      contact_username: author,
      category: null,
      labels: [],
      tags: [],
      assignee: null,
      context_text: m.caption ?? (m.comment_id === undefined ? (m.text ?? null) : null),
      context_username: m.comment_id === undefined ? author || null : null,
      context_permalink: m.permalink ?? null,
      created_at: posted,
    },
    message: {
      external_id: `ig:${key}`,
      direction: 'in',
      author: author || 'unknown',
      text: m.text ?? '',
      media_type: m.comment_id === undefined ? 'post' : 'text',
      attachments: [],
      status: 'received',
      permalink: m.permalink ?? null,
      posted_at: posted,
    },
  }
}

/** Writes one notification in one transaction and refreshes the conversations it touched. */
export const ingest = (payload: Payload, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        let received = 0
        let ignored = 0
        const touched = new Set<number>()
        for (const entry of payload.entry) {
          const changes = entry.changes ?? []
          const channel = payload.object === 'instagram' ? yield* Channels.byExternalId(entry.id) : null
          if (!channel) {
            ignored += changes.length
            continue
          }
          const at = entry.time === undefined ? now : timeOf(entry.time, now)
          for (const change of changes) {
            let item: Item | null = null
            if (change.field === 'comments' || change.field === 'live_comments') {
              const c = Schema.decodeUnknownEither(Comment)(change.value)
              if (Either.isRight(c)) item = commentItem(channel, c.right, at)
            } else if (change.field === 'mentions') {
              const m = Schema.decodeUnknownEither(Mention)(change.value)
              if (Either.isRight(m)) item = mentionItem(channel, m.right, at)
            }
            if (!item) {
              ignored++
              continue
            }
            const conv = yield* Records.ensureConversation(channel.workspace_id, item.conversation)
            yield* Records.upsertMessages(channel.workspace_id, [
              { ...item.message, conversation_id: conv.id },
            ])
            touched.add(conv.id)
            received++
          }
        }
        yield* Records.refresh(touched)
        return { received, ignored } satisfies IngestResult
      }),
    ),
  )
