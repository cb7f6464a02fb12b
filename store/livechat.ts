import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { digest, randomToken } from '../engine/tokens'
import type { ChannelRow } from './channels'
import * as Contacts from './contacts'
import type { ConversationRow } from './conversations'

/**
 * Live chat channels (spec 1 §4.4, §4.6): the public key and widget settings, the visitors with
 * their bearer token (kept as its SHA-256, like every credential) and real-time session id, the
 * single-use form tokens, and the queue of chats nobody has picked up.
 */
export const VISITOR_TOKEN_PREFIX = 'lcv_'
export const VISITOR_TOKEN_PATTERN = /^lcv_[A-Za-z0-9_-]{43}$/
export const PUBLIC_KEY_PATTERN = /^lc_[A-Za-z0-9_-]{24}$/

export interface LivechatRow {
  readonly channel_id: number
  readonly public_key: string
  readonly widget: Readonly<Record<string, unknown>>
}

export interface VisitorRow {
  readonly id: number
  readonly channel_id: number
  readonly workspace_id: number
  readonly session: string
  readonly contact_id: number | null
  readonly conversation_id: number
  readonly name: string
  /** Null when the channel's pre-chat form left it optional or hidden and none was given. */
  readonly email: string | null
  readonly phone: string | null
  readonly page_url: string | null
  readonly locale: string
  readonly seen_at: Date | null
  readonly online_at: Date | null
  readonly seen_message_id: number
  readonly created_at: Date
}

const VISITOR_COLUMNS =
  'id, channel_id, workspace_id, session, contact_id, conversation_id, name, email, phone, page_url, locale, seen_at, online_at, seen_message_id, created_at'

const newPublicKey = () => `lc_${randomToken(18)}`

export const byChannel = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LivechatRow>`SELECT channel_id, public_key, widget FROM livechat_channels WHERE channel_id = ${channelId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** The live (not archived) channel of a public key, with its widget; null for an unknown or replaced key. */
export const byPublicKey = (key: string) =>
  PUBLIC_KEY_PATTERN.test(key)
    ? Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<ChannelRow & { public_key: string; widget: Record<string, unknown> }>`
          SELECT c.*, l.public_key, l.widget FROM livechat_channels l JOIN channels c ON c.id = l.channel_id
          WHERE l.public_key = ${key} AND c.archived_at IS NULL`.pipe(
          Effect.map((r) => {
            const row = r[0]
            if (!row) return null
            const { public_key, widget, ...channel } = row
            return {
              channel: channel as ChannelRow,
              livechat: { channel_id: channel.id, public_key, widget },
            }
          }),
        ),
      )
    : Effect.succeed(null)

/**
 * Creates the channel and its public key unless the workspace's channel quota (shared by every
 * type; 0 = unlimited) is used up; the workspace row is locked for the count. Null when full.
 */
export const createWithinQuota = (
  workspaceId: number,
  limit: number,
  input: { readonly name: string; readonly widget: Readonly<Record<string, unknown>> },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        const [{ n }] = (yield* sql<{ n: number }>`
          SELECT count(*)::int AS n FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`) as [
          { n: number },
        ]
        if (limit > 0 && n >= limit) return null
        const [channel] = yield* sql<ChannelRow>`
          INSERT INTO channels (workspace_id, type, name, status)
          VALUES (${workspaceId}, 'livechat', ${input.name}, 'active') RETURNING *`
        const [livechat] = yield* sql<LivechatRow>`
          INSERT INTO livechat_channels (channel_id, public_key, widget)
          VALUES (${channel!.id}, ${newPublicKey()}, ${JSON.stringify(input.widget)}::jsonb)
          RETURNING channel_id, public_key, widget`
        return { channel: channel!, livechat: livechat! }
      }),
    ),
  )

/**
 * Merges widget settings: top-level keys replace, except `prechat`, merged one level down (a body
 * may name one of its fields) in the statement itself, so that two owners changing different
 * fields at once both keep their change.
 */
export const updateWidget = (channelId: number, patch: Readonly<Record<string, unknown>>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const { prechat, ...flat } = patch
    const nested =
      prechat === undefined
        ? sql``
        : sql`|| jsonb_build_object('prechat', COALESCE(widget->'prechat', '{}'::jsonb) || ${JSON.stringify(prechat)}::jsonb)`
    return sql<LivechatRow>`
      UPDATE livechat_channels SET widget = widget || ${JSON.stringify(flat)}::jsonb ${nested}
      WHERE channel_id = ${channelId} RETURNING channel_id, public_key, widget`.pipe(
      Effect.map((r) => r[0] ?? null),
    )
  })

/** A new public key; the old one names nothing from this statement on. */
export const replaceKey = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LivechatRow>`
      UPDATE livechat_channels SET public_key = ${newPublicKey()}
      WHERE channel_id = ${channelId} RETURNING channel_id, public_key, widget`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

// ---- Visitors ----------------------------------------------------------------------------------

export interface NewVisitor {
  readonly name: string
  readonly email: string | null
  readonly phone: string | null
  readonly pageUrl: string | null
  readonly locale: string
  readonly ip: string
}

/**
 * Starts a chat: the contact (an existing one of this workspace with the same e-mail is reused),
 * a new conversation on the channel, and the visitor with a fresh token. One transaction.
 */
export const start = (channel: ChannelRow, v: NewVisitor) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const who = yield* Contacts.matchOrCreate(channel.workspace_id, {
          name: v.name,
          phone: v.phone,
          email: v.email,
        })
        const contactId = who.id
        const [conversation] = yield* sql<ConversationRow>`
          INSERT INTO conversations (workspace_id, channel_id, contact_id)
          VALUES (${channel.workspace_id}, ${channel.id}, ${contactId}) RETURNING *`
        const token = VISITOR_TOKEN_PREFIX + randomToken(32)
        const [visitor] = yield* sql<VisitorRow>`
          INSERT INTO livechat_visitors (channel_id, workspace_id, session, token_digest, contact_id, conversation_id,
                                         name, email, phone, page_url, locale, ip, seen_at)
          VALUES (${channel.id}, ${channel.workspace_id}, ${randomToken(16)}, ${digest(token)}, ${contactId},
                  ${conversation!.id}, ${v.name}, ${v.email}, ${v.phone}, ${v.pageUrl}, ${v.locale}, ${v.ip}, now())
          RETURNING ${sql.literal(VISITOR_COLUMNS)}`
        return { visitor: visitor!, conversation: conversation!, token, contactCreated: who.created }
      }),
    ),
  )

/** The visitor a token belongs to, or null. */
export const visitorByToken = (token: string) =>
  VISITOR_TOKEN_PATTERN.test(token)
    ? Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<VisitorRow>`SELECT ${sql.literal(VISITOR_COLUMNS)} FROM livechat_visitors WHERE token_digest = ${digest(token)}`.pipe(
          Effect.map((r) => r[0] ?? null),
        ),
      )
    : Effect.succeed(null)

/** A visitor session whose channel is still live (real-time connect and subscribe). */
export const liveSession = (session: string, workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<VisitorRow>`
      SELECT ${sql.literal(
        VISITOR_COLUMNS.split(', ')
          .map((c) => `v.${c}`)
          .join(', '),
      )}
      FROM livechat_visitors v JOIN channels c ON c.id = v.channel_id
      WHERE v.session = ${session} AND v.workspace_id = ${workspaceId} AND c.archived_at IS NULL`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const visitorOfConversation = (conversationId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<VisitorRow>`
      SELECT ${sql.literal(VISITOR_COLUMNS)} FROM livechat_visitors WHERE conversation_id = ${conversationId}
      ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * The widget is open (heartbeat) and messages up to `messageId` were seen. Answers whether
 * `visitor.online` is due (at most once per `announceSeconds`, decided by the database so two nodes
 * never both announce).
 */
export const markSeen = (visitorId: number, messageId: number, announceSeconds: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ announce: boolean; seen_message_id: number; before: number }>`
      WITH old AS (SELECT seen_message_id AS before FROM livechat_visitors WHERE id = ${visitorId})
      UPDATE livechat_visitors v SET seen_at = now(),
        seen_message_id = GREATEST(v.seen_message_id, ${messageId}),
        online_at = CASE WHEN v.online_at IS NULL OR v.online_at < now() - make_interval(secs => ${announceSeconds})
                         THEN now() ELSE v.online_at END
      FROM old WHERE v.id = ${visitorId}
      RETURNING (v.online_at = now()) AS announce, v.seen_message_id, old.before`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** The ids of agent replies in a conversation up to `upTo` not yet marked read. */
export const unreadReplies = (conversationId: number, upTo: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT id FROM messages WHERE conversation_id = ${conversationId} AND direction = 'out' AND type <> 'note'
        AND id <= ${upTo} AND status IN ('pending', 'sent', 'delivered') ORDER BY id LIMIT 100`.pipe(
      Effect.map((r) => r.map((x) => x.id)),
    ),
  )

/** A file attached to a message of this conversation (never a note's), else null. */
export const fileInConversation = (conversationId: number, fileId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT file_id AS id FROM messages WHERE conversation_id = ${conversationId} AND file_id = ${fileId}
        AND type <> 'note' AND deleted_at IS NULL LIMIT 1`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

// ---- The queue ---------------------------------------------------------------------------------

/** 1-based place among the channel's open chats nobody picked up yet; 0 once someone has it. */
export const queuePosition = (c: ConversationRow) =>
  c.assignee_id !== null || c.status !== 'open' || c.channel_id === null
    ? Effect.succeed(0)
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        // Compared with the stored row, not the Date read back (JavaScript drops the microseconds).
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM conversations q, conversations me
          WHERE me.id = ${c.id} AND q.channel_id = me.channel_id AND q.status = 'open' AND q.assignee_id IS NULL
            AND (q.created_at, q.id) <= (me.created_at, me.id)`.pipe(
          Effect.map((r) => Math.max(1, r[0]?.n ?? 1)),
        ),
      )

/** The sessions still waiting on a channel, oldest first, with their place (for `queue` events). */
export const waiting = (channelId: number, limit = 200) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ session: string; conversation_id: number; position: number }>`
      SELECT v.session, q.id AS conversation_id, q.position::int AS position FROM (
        SELECT id, row_number() OVER (ORDER BY created_at, id) AS position FROM conversations
        WHERE channel_id = ${channelId} AND status = 'open' AND assignee_id IS NULL
      ) q JOIN livechat_visitors v ON v.conversation_id = q.id
      ORDER BY q.position LIMIT ${limit}`,
  )

// ---- Form tokens -------------------------------------------------------------------------------

/** Spends a form token's nonce; false when it was spent before. Prunes spent ones past `keepSeconds`. */
export const spendNonce = (nonce: string, keepSeconds: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      if (Math.random() < 0.05)
        yield* sql`DELETE FROM livechat_form_tokens WHERE used_at < now() - make_interval(secs => ${keepSeconds})`
      const r =
        yield* sql`INSERT INTO livechat_form_tokens (nonce) VALUES (${nonce}) ON CONFLICT DO NOTHING RETURNING nonce`
      return r.length === 1
    }),
  )

// ---- Channel icons (any channel type) -----------------------------------------------------------

export const iconOf = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ mime: string; bytes: Uint8Array; updated_at: Date }>`
      SELECT mime, bytes, updated_at FROM channel_icons WHERE channel_id = ${channelId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const setIcon = (channelId: number, mime: string, bytes: Uint8Array) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      INSERT INTO channel_icons (channel_id, mime, bytes) VALUES (${channelId}, ${mime}, ${Buffer.from(bytes)})
      ON CONFLICT (channel_id) DO UPDATE SET mime = EXCLUDED.mime, bytes = EXCLUDED.bytes, updated_at = now()`.pipe(
      Effect.asVoid,
    ),
  )

export const removeIcon = (channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM channel_icons WHERE channel_id = ${channelId} RETURNING channel_id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )
