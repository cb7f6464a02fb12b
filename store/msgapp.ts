import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { ChannelRow } from './channels'
import type { ConversationRow } from './conversations'
import type { GroupRow } from './groups'

/**
 * Messaging-app numbers (spec 1 §4.4): link state and requests for the session supervisor, the
 * sealed Baileys auth state, business labels, channel message ids and the per-number send log.
 * Requests (pair, logout, reconnect, history) are rows, not calls: the node that holds the
 * number's lock carries them out, whichever node answered the HTTP request.
 */
export interface NumberRow {
  readonly channel_id: number
  readonly phone: string | null
  readonly linked_at: Date | null
  readonly qr: string | null
  readonly qr_expires_at: Date | null
  readonly version: number
  readonly logout_requested_at: Date | null
  readonly pair_phone: string | null
  readonly pair_requested_at: Date | null
  readonly pair_code: string | null
  readonly pair_code_at: Date | null
  readonly history_days: number | null
  readonly history_requested_at: Date | null
  readonly history_progress: number
  readonly history_imported: number
  readonly last_close_code: number | null
  readonly last_connected_at: Date | null
  readonly updated_at: Date
}

export interface ActiveNumber extends NumberRow {
  readonly workspace_id: number
  readonly status: string
}

const sqlOf = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f) as Effect.Effect<A, never, SqlClient.SqlClient>

const first = <A>(rows: readonly A[]) => rows[0] ?? null

/** A new number within the workspace's channel quota (0 = no limit), or null when it is full. */
export const createWithinQuota = (workspaceId: number, limit: number, name: string) =>
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
          VALUES (${workspaceId}, 'msgapp', ${name}, 'connecting') RETURNING *`
        const [number] = yield* sql<NumberRow>`
          INSERT INTO msgapp_numbers (channel_id) VALUES (${channel!.id}) RETURNING *`
        return { channel: channel!, number: number! }
      }),
    ),
  )

export const byChannel = (channelId: number) =>
  sqlOf((sql) =>
    sql<NumberRow>`SELECT * FROM msgapp_numbers WHERE channel_id = ${channelId}`.pipe(Effect.map(first)),
  )

/** Numbers a session should run for: live, not logged out or banned. */
export const active = sqlOf(
  (sql) => sql<ActiveNumber>`
    SELECT n.*, c.workspace_id, c.status FROM msgapp_numbers n JOIN channels c ON c.id = n.channel_id
    WHERE c.type = 'msgapp' AND c.archived_at IS NULL AND c.status NOT IN ('logged_out', 'banned')
    ORDER BY n.channel_id`,
)

export const setQr = (channelId: number, qr: string, expiresAt: Date) =>
  sqlOf(
    (sql) =>
      sql`UPDATE msgapp_numbers SET qr = ${qr}, qr_expires_at = ${expiresAt}, updated_at = now()
          WHERE channel_id = ${channelId}`,
  )

/** The phone is linked and the socket open: the QR and pairing code are spent. */
export const opened = (channelId: number, phone: string | null) =>
  sqlOf(
    (sql) => sql`
      UPDATE msgapp_numbers SET phone = COALESCE(${phone}, phone), linked_at = COALESCE(linked_at, now()),
        last_connected_at = now(), qr = NULL, qr_expires_at = NULL, pair_code = NULL, pair_phone = NULL,
        last_close_code = NULL, updated_at = now()
      WHERE channel_id = ${channelId}`,
  )

export const closed = (channelId: number, code: number | null) =>
  sqlOf(
    (sql) => sql`
      UPDATE msgapp_numbers SET last_close_code = ${code}, qr = NULL, qr_expires_at = NULL, updated_at = now()
      WHERE channel_id = ${channelId}`,
  )

/** Logged out (on the phone or here): the link is gone; a new one starts from a fresh QR. */
export const unlinked = (channelId: number) =>
  sqlOf((sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`DELETE FROM msgapp_auth WHERE channel_id = ${channelId}`
        yield* sql`
          UPDATE msgapp_numbers SET linked_at = NULL, qr = NULL, qr_expires_at = NULL, pair_code = NULL,
            pair_phone = NULL, history_requested_at = NULL, updated_at = now()
          WHERE channel_id = ${channelId}`
      }),
    ),
  )

export const requestPair = (channelId: number, phone: string) =>
  sqlOf((sql) =>
    sql<NumberRow>`
      UPDATE msgapp_numbers SET pair_phone = ${phone}, pair_requested_at = date_trunc('milliseconds', clock_timestamp()), pair_code = NULL,
        pair_code_at = NULL, updated_at = now()
      WHERE channel_id = ${channelId} RETURNING *`.pipe(Effect.map(first)),
  )

export const setPairCode = (channelId: number, requestedAt: Date, code: string) =>
  sqlOf(
    (sql) => sql`
      UPDATE msgapp_numbers SET pair_code = ${code}, pair_code_at = now()
      WHERE channel_id = ${channelId} AND pair_requested_at = ${requestedAt}`,
  )

/** Reconnect or logout: the running session (older version) stops; a new one starts if live. */
export const bump = (channelId: number, logout: boolean) =>
  sqlOf((sql) =>
    sql<NumberRow>`
      UPDATE msgapp_numbers SET version = version + 1, updated_at = now(),
        logout_requested_at = CASE WHEN ${logout} THEN now() ELSE logout_requested_at END
      WHERE channel_id = ${channelId} RETURNING *`.pipe(Effect.map(first)),
  )

export const requestHistory = (channelId: number, days: number) =>
  sqlOf((sql) =>
    sql<NumberRow>`
      UPDATE msgapp_numbers SET history_days = ${days}, history_requested_at = date_trunc('milliseconds', clock_timestamp()),
        history_progress = 0, history_imported = 0, updated_at = now()
      WHERE channel_id = ${channelId} RETURNING *`.pipe(Effect.map(first)),
  )

export const historyProgress = (channelId: number, progress: number, imported: number) =>
  sqlOf((sql) =>
    sql<NumberRow>`
      UPDATE msgapp_numbers SET history_progress = GREATEST(history_progress, ${progress}),
        history_imported = history_imported + ${imported}, updated_at = now()
      WHERE channel_id = ${channelId} RETURNING *`.pipe(Effect.map(first)),
  )

// ---- Auth state (sealed values; engine/secrets) ----------------------------------------------

export const readAuth = (channelId: number, kind: string, ids: readonly string[]) =>
  sqlOf(
    (sql) => sql<{ key_id: string; sealed: string }>`
      SELECT key_id, sealed FROM msgapp_auth
      WHERE channel_id = ${channelId} AND kind = ${kind} AND key_id IN ${sql.in(ids.length ? ids : [''])}`,
  )

/** Writes (sealed) or deletes (null) auth entries in one transaction. */
export const writeAuth = (
  channelId: number,
  entries: ReadonlyArray<{ kind: string; id: string; sealed: string | null }>,
) =>
  sqlOf((sql) =>
    sql.withTransaction(
      Effect.forEach(
        entries,
        (e) =>
          e.sealed === null
            ? sql`DELETE FROM msgapp_auth WHERE channel_id = ${channelId} AND kind = ${e.kind} AND key_id = ${e.id}`
            : sql`
              INSERT INTO msgapp_auth (channel_id, kind, key_id, sealed) VALUES (${channelId}, ${e.kind}, ${e.id}, ${e.sealed})
              ON CONFLICT (channel_id, kind, key_id) DO UPDATE SET sealed = EXCLUDED.sealed`,
        { discard: true },
      ),
    ),
  )

// ---- Labels ------------------------------------------------------------------------------------

export interface LabelRow {
  readonly label_id: string
  readonly name: string
  readonly color: number
  readonly deleted: boolean
}

export const upsertLabel = (channelId: number, l: LabelRow) =>
  sqlOf(
    (sql) => sql`
      INSERT INTO msgapp_labels (channel_id, label_id, name, color, deleted)
      VALUES (${channelId}, ${l.label_id}, ${l.name}, ${l.color}, ${l.deleted})
      ON CONFLICT (channel_id, label_id) DO UPDATE SET name = EXCLUDED.name, color = EXCLUDED.color,
        deleted = EXCLUDED.deleted`,
  )

export const labels = (channelId: number) =>
  sqlOf(
    (sql) => sql<LabelRow>`
      SELECT label_id, name, color, deleted FROM msgapp_labels WHERE channel_id = ${channelId} AND NOT deleted
      ORDER BY lower(name), label_id`,
  )

export const label = (channelId: number, labelId: string) =>
  sqlOf((sql) =>
    sql<LabelRow>`SELECT label_id, name, color, deleted FROM msgapp_labels
      WHERE channel_id = ${channelId} AND label_id = ${labelId}`.pipe(Effect.map(first)),
  )

// ---- Channel message ids ---------------------------------------------------------------------

export const remember = (
  channelId: number,
  waId: string,
  m: { conversationId: number; messageId: number; jid: string; fromMe: boolean; at: Date },
) =>
  sqlOf(
    (sql) => sql`
      INSERT INTO msgapp_messages (channel_id, wa_id, conversation_id, message_id, jid, from_me, at)
      VALUES (${channelId}, ${waId}, ${m.conversationId}, ${m.messageId}, ${m.jid}, ${m.fromMe}, ${m.at})
      ON CONFLICT DO NOTHING`,
  )

/** The oldest known message of each chat of a number (where a history request starts from). */
export const oldestPerChat = (channelId: number) =>
  sqlOf(
    (sql) => sql<{ wa_id: string; jid: string; from_me: boolean; at: Date }>`
      SELECT DISTINCT ON (jid) wa_id, jid, from_me, at FROM msgapp_messages
      WHERE channel_id = ${channelId} AND jid <> '' ORDER BY jid, at LIMIT 500`,
  )

/** A channel message id's stored message, with the chat it was in and whether the number sent it. */
export const lookup = (channelId: number, waId: string) =>
  sqlOf((sql) =>
    sql<{ conversation_id: number; message_id: number; jid: string; from_me: boolean }>`
      SELECT conversation_id::int AS conversation_id, message_id::int AS message_id, jid, from_me
      FROM msgapp_messages
      WHERE channel_id = ${channelId} AND wa_id = ${waId}`.pipe(Effect.map(first)),
  )

// ---- Send log ----------------------------------------------------------------------------------

export const logSend = (
  channelId: number,
  e: { messageId: number | null; jid: string; ok: boolean; error: string | null },
) =>
  sqlOf(
    (sql) => sql`
      INSERT INTO msgapp_send_log (channel_id, message_id, jid, ok, error)
      VALUES (${channelId}, ${e.messageId}, ${e.jid}, ${e.ok}, ${e.error})`,
  )

export const sentSince = (channelId: number, since: Date) =>
  sqlOf((sql) =>
    sql<{ n: number }>`
      SELECT count(*)::int AS n FROM msgapp_send_log WHERE channel_id = ${channelId} AND ok AND at >= ${since}`.pipe(
      Effect.map((r) => r[0]?.n ?? 0),
    ),
  )

export interface SendLogRow {
  readonly at: Date
  readonly message_id: number | null
  readonly jid: string
  readonly ok: boolean
  readonly error: string | null
}

/** The latest sends of a number, newest first, with the 24-hour counts. */
export const sendLog = (channelId: number, limit: number) =>
  sqlOf((sql) =>
    Effect.all({
      rows: sql<SendLogRow>`
        SELECT at, message_id::int AS message_id, jid, ok, error FROM msgapp_send_log
        WHERE channel_id = ${channelId} ORDER BY at DESC, id DESC LIMIT ${limit}`,
      counts: sql<{ sent: number; failed: number }>`
        SELECT count(*) FILTER (WHERE ok)::int AS sent, count(*) FILTER (WHERE NOT ok)::int AS failed
        FROM msgapp_send_log WHERE channel_id = ${channelId} AND at >= now() - interval '24 hours'`.pipe(
        Effect.map((r) => r[0] ?? { sent: 0, failed: 0 }),
      ),
    }),
  )

// ---- Contacts, groups and conversations of a number -----------------------------------------

export const contactByPhone = (workspaceId: number, phone: string) =>
  sqlOf((sql) =>
    sql<{
      id: number
    }>`SELECT COALESCE(merged_into, id) AS id FROM contacts WHERE workspace_id = ${workspaceId}
        AND phone = ${phone} AND deleting_at IS NULL
      ORDER BY id LIMIT 1`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

/**
 * The contact of a chat's latest conversation on a number, by the chat's JID as stored with its
 * messages: the only name a customer known by a LID alone (no phone) has.
 */
export const contactOfChat = (channelId: number, jid: string) =>
  sqlOf((sql) =>
    sql<{ id: number }>`
      SELECT COALESCE(k.merged_into, k.id)::int AS id FROM msgapp_messages mm
      JOIN conversations c ON c.id = mm.conversation_id
      JOIN contacts k ON k.id = c.contact_id
      WHERE mm.channel_id = ${channelId} AND mm.jid = ${jid} AND k.deleting_at IS NULL
      ORDER BY mm.at DESC LIMIT 1`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

/**
 * The LID chat a conversation's customer last wrote from: where a reply goes when the contact has
 * no phone (the service hides some customers' numbers behind a LID).
 */
export const lidChatOf = (channelId: number, conversationId: number) =>
  sqlOf((sql) =>
    sql<{ jid: string }>`
      SELECT jid FROM msgapp_messages
      WHERE conversation_id = ${conversationId} AND jid LIKE '%@lid' AND channel_id = ${channelId}
      ORDER BY at DESC LIMIT 1`.pipe(Effect.map((r) => r[0]?.jid ?? null)),
  )

/** The number's record of a group, created or refreshed (name, members). */
export const upsertGroup = (
  workspaceId: number,
  channelId: number,
  g: { externalId: string; name: string | null; members: ReadonlyArray<Record<string, unknown>> | null },
) =>
  sqlOf((sql) =>
    sql<GroupRow>`
      INSERT INTO groups (workspace_id, channel_id, name, external_id, members)
      VALUES (${workspaceId}, ${channelId}, ${g.name ?? ''}, ${g.externalId}, ${JSON.stringify(g.members ?? [])}::jsonb)
      ON CONFLICT (channel_id, external_id) WHERE external_id IS NOT NULL DO UPDATE SET
        name = CASE WHEN ${g.name === null} THEN groups.name ELSE EXCLUDED.name END,
        members = CASE WHEN ${g.members === null} THEN groups.members ELSE EXCLUDED.members END
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export const groupByJid = (channelId: number, jid: string) =>
  sqlOf((sql) =>
    sql<GroupRow>`SELECT * FROM groups WHERE channel_id = ${channelId} AND external_id = ${jid}`.pipe(
      Effect.map(first),
    ),
  )

export const setGroupAvatar = (groupId: number, fileId: number | null) =>
  sqlOf((sql) => sql`UPDATE groups SET avatar_file_id = ${fileId} WHERE id = ${groupId}`)

/** The open conversation of a group, or a new one (`kind = group`). */
export const openGroupConversation = (workspaceId: number, channelId: number, groupId: number, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM groups WHERE id = ${groupId} FOR UPDATE`
        const [open] = yield* sql<ConversationRow>`
          SELECT * FROM conversations WHERE channel_id = ${channelId} AND group_id = ${groupId} AND status = 'open'
          ORDER BY id DESC LIMIT 1`
        if (open) return { row: open, reused: true }
        const [row] = yield* sql<ConversationRow>`
          INSERT INTO conversations (workspace_id, channel_id, group_id, kind, created_at, updated_at)
          VALUES (${workspaceId}, ${channelId}, ${groupId}, 'group', ${at}, ${at}) RETURNING *`
        return { row: row!, reused: false }
      }),
    ),
  )

/** The latest conversation of a chat (contact phone or group id) on a number. */
export const conversationOfChat = (channelId: number, chat: { phone: string } | { group: string }) =>
  sqlOf((sql) =>
    ('group' in chat
      ? sql<{ id: number }>`
          SELECT c.id FROM conversations c JOIN groups g ON g.id = c.group_id
          WHERE c.channel_id = ${channelId} AND g.external_id = ${chat.group} ORDER BY c.id DESC LIMIT 1`
      : sql<{ id: number }>`
          SELECT c.id FROM conversations c JOIN contacts k ON k.id = c.contact_id
          WHERE c.channel_id = ${channelId} AND c.kind = 'chat' AND k.phone = ${chat.phone}
          ORDER BY c.id DESC LIMIT 1`
    ).pipe(Effect.map((r) => (r[0] ? Number(r[0].id) : null))),
  )

/** Members who manage channels (Owner, admin roles, or roles with `channels.manage`). */
export const channelManagers = (workspaceId: number) =>
  sqlOf(
    (sql) =>
      sql<{ user_id: number; locale: string | null }>`
      SELECT m.user_id, u.locale FROM members m JOIN roles r ON r.id = m.role_id JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND m.status = 'active'
        AND (r.is_owner OR r.is_admin OR 'channels.manage' = ANY(r.permissions))`,
  )
