import { SqlClient } from '@effect/sql'
import { Context, Effect, Layer } from 'effect'
import { andThen } from '../engine/step'
import type { MessageRow } from './conversations'

/**
 * Messages as the API shows them (spec 2 §2 Message resource): the row with its file and the
 * message it quotes, joined in one query; pages by id cursors; the changes the ConversationActor
 * makes after a message exists (delivery, edit, unsend, reactions). Appending lives with the
 * conversation's sequence in store/conversations.
 */
export interface MessageView extends MessageRow {
  readonly file_name: string | null
  readonly file_mime: string | null
  readonly file_size: number | null
  readonly r_id: number | null
  readonly r_type: string | null
  readonly r_body: string | null
  readonly r_direction: 'in' | 'out' | null
  readonly r_sender: Readonly<Record<string, unknown>> | null
  readonly r_deleted_at: Date | null
}

const VIEW = `SELECT m.*, f.name AS file_name, f.mime AS file_mime, f.size AS file_size,
    r.id AS r_id, r.type AS r_type, r.body AS r_body, r.direction AS r_direction, r.sender AS r_sender,
    r.deleted_at AS r_deleted_at
  FROM messages m LEFT JOIN files f ON f.id = m.file_id LEFT JOIN messages r ON r.id = m.reply_to_id`

export const view = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageView>`${sql.literal(VIEW)} WHERE m.id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageRow>`SELECT * FROM messages WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * A row as the API shows it; only a message with a file or a quote needs the join. Written out
 * field by field rather than spread: every append goes through here, and a literal of one shape
 * is several times cheaper than a spread that then grows.
 */
export const asView = (m: MessageRow) =>
  m.file_id === null && m.reply_to_id === null
    ? Effect.succeed<MessageView | null>({
        id: m.id,
        workspace_id: m.workspace_id,
        conversation_id: m.conversation_id,
        seq: m.seq,
        direction: m.direction,
        type: m.type,
        body: m.body,
        sender: m.sender,
        status: m.status,
        error: m.error,
        client_id: m.client_id,
        sent_at: m.sent_at,
        created_at: m.created_at,
        file_id: m.file_id,
        reply_to_id: m.reply_to_id,
        payload: m.payload,
        reactions: m.reactions,
        external_id: m.external_id,
        edited_at: m.edited_at,
        deleted_at: m.deleted_at,
        file_name: null,
        file_mime: null,
        file_size: null,
        r_id: null,
        r_type: null,
        r_body: null,
        r_direction: null,
        r_sender: null,
        r_deleted_at: null,
      })
    : view(m.id)

/** A message of one conversation (a message id from another conversation names nothing here). */
export const inConversation = (conversationId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageRow>`SELECT * FROM messages WHERE id = ${id} AND conversation_id = ${conversationId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byClientId = (conversationId: number, clientId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageView>`${sql.literal(VIEW)} WHERE m.conversation_id = ${conversationId} AND m.client_id = ${clientId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** An agent's message with this `client_id` in any conversation with this contact on this channel. */
export const byClientIdWith = (channelId: number, contactId: number, clientId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageView>`${sql.literal(VIEW)}
      WHERE m.client_id = ${clientId} AND m.direction = 'out' AND m.conversation_id IN (
        SELECT id FROM conversations WHERE channel_id = ${channelId} AND contact_id = ${contactId})
      ORDER BY m.id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export interface PageCursor {
  readonly before?: number
  readonly after?: number
  readonly limit: number
}

/**
 * A page of a conversation's messages, oldest to newest: the newest `limit` (no cursor), the
 * `limit` just before message `before`, or the `limit` just after message `after`. `more` says
 * whether messages lie beyond the page in the direction of travel.
 */
export const page = (conversationId: number, c: PageCursor) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const cursorSeq = (id: number) =>
        sql<{
          seq: number
        }>`SELECT seq FROM messages WHERE id = ${id} AND conversation_id = ${conversationId}`.pipe(
          Effect.map((r) => r[0]?.seq ?? null),
        )
      if (c.after !== undefined) {
        const seq = yield* cursorSeq(c.after)
        if (seq === null) return null
        const rows = yield* sql<MessageView>`${sql.literal(VIEW)}
          WHERE m.conversation_id = ${conversationId} AND m.seq > ${seq} ORDER BY m.seq LIMIT ${c.limit + 1}`
        return { rows: rows.slice(0, c.limit), more: rows.length > c.limit }
      }
      const seq = c.before !== undefined ? yield* cursorSeq(c.before) : Number.MAX_SAFE_INTEGER
      if (seq === null) return null
      const rows = yield* sql<MessageView>`${sql.literal(VIEW)}
        WHERE m.conversation_id = ${conversationId} AND m.seq < ${Math.min(seq, 2_147_483_647)}
        ORDER BY m.seq DESC LIMIT ${c.limit + 1}`
      return { rows: rows.slice(0, c.limit).reverse(), more: rows.length > c.limit }
    }),
  )

/** Internal notes, newest first (spec 2 §4.1: up to 200). */
export const notes = (conversationId: number, limit: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<MessageView>`${sql.literal(VIEW)}
      WHERE m.conversation_id = ${conversationId} AND m.type = 'note' ORDER BY m.id DESC LIMIT ${limit}`,
  )

/** Records the channel's answer to a delivery attempt. */
export const setDelivery = (
  conversationId: number,
  id: number,
  d: { readonly status: string; readonly error: string | null; readonly externalId: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MessageRow>`
      UPDATE messages SET status = ${d.status}, error = ${d.error}, external_id = COALESCE(${d.externalId}, external_id)
      WHERE id = ${id} AND conversation_id = ${conversationId} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const edit = (id: number, body: string, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE messages SET body = ${body}, edited_at = ${at} WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** Unsend for everyone: the content goes, the row stays (the sequence keeps its number). */
export const unsend = (id: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE messages SET body = '', file_id = NULL, payload = '{}'::jsonb, deleted_at = ${at} WHERE id = ${id}`.pipe(
      Effect.asVoid,
    ),
  )

export const setReactions = (id: number, reactions: ReadonlyArray<Readonly<Record<string, unknown>>>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE messages SET reactions = ${JSON.stringify(reactions)}::jsonb WHERE id = ${id}`.pipe(
      Effect.asVoid,
    ),
  )

/** External ids of the customer's messages not yet read (read receipts to the customer). */
export const unreadExternalIds = (conversationId: number, limit = 50) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ external_id: string }>`
      SELECT external_id FROM messages
      WHERE conversation_id = ${conversationId} AND direction = 'in' AND external_id IS NOT NULL
      ORDER BY seq DESC LIMIT ${limit}`.pipe(Effect.map((r) => r.map((x) => x.external_id))),
  )

/** The API keys' names this node has read (a service of the node: store/database.ts provides it). */
export class KeyNames extends Context.Tag('kotak/KeyNames')<KeyNames, Map<number, string>>() {}

export const keyNamesLayer: Layer.Layer<KeyNames> = Layer.sync(KeyNames, () => new Map())

/**
 * The name an API key's messages are recorded under (spec 2 §2: "the key's name"). Keys are never
 * renamed, so each node remembers the names it has read (bounded).
 */
export const keyName = (keyId: number) =>
  // A step (engine/step.ts): a name already read is answered without a fiber.
  andThen(KeyNames, (keyNames) => {
    const known = keyNames.get(keyId)
    if (known !== undefined) return Effect.succeed(known)
    return Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ name: string }>`SELECT name FROM api_keys WHERE id = ${keyId}`.pipe(
        Effect.map((r) => {
          const name = r[0]?.name ?? 'API'
          if (keyNames.size >= 10_000) keyNames.clear()
          if (r[0]) keyNames.set(keyId, name)
          return name
        }),
      ),
    )
  })

/**
 * The client ids of a conversation's latest `limit` messages (those with one) → their ids, oldest
 * first. A range of the (conversation, seq) index below `lastSeq`: a bounded read however long the
 * conversation and however few of its messages carry a client id.
 */
export const recentClientIds = (conversationId: number, lastSeq: number, limit: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ client_id: string; id: number }>`
      SELECT client_id, id FROM messages
      WHERE conversation_id = ${conversationId} AND seq > ${lastSeq - limit} AND client_id IS NOT NULL
      ORDER BY seq`.pipe(Effect.map((rows) => rows.map((r) => [r.client_id, r.id] as const))),
  )
