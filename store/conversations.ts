import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

export interface ConversationRow {
  readonly id: number
  readonly workspace_id: number
  readonly channel_id: number | null
  readonly status: 'open' | 'solved' | 'closed'
  readonly team_id: number | null
  readonly assignee_id: number | null
  readonly last_seq: number
  readonly last_message_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface MessageRow {
  readonly id: number
  readonly workspace_id: number
  readonly conversation_id: number
  readonly seq: number
  readonly direction: 'in' | 'out'
  readonly type: string
  readonly body: string
  readonly sender: Readonly<Record<string, unknown>>
  readonly status: string
  readonly error: string | null
  readonly client_id: string | null
  readonly sent_at: Date | null
  readonly created_at: Date
}

/**
 * Who is looking, for spec 2 §1's visibility rules. `seesAll` = Owner, admin role, `view_all` or
 * an API key; `channelIds` null = every channel.
 */
export interface Viewer {
  readonly workspaceId: number
  readonly userId: number
  readonly seesAll: boolean
  readonly canView: boolean
  readonly channelIds: readonly number[] | null
}

/**
 * The one visibility rule for conversations, as SQL over alias `c`, shared by list, detail, count
 * and real-time authorisation:
 * - channel access always applies;
 * - those who see all data see every conversation;
 * - otherwise `interactions.view` is needed, and a conversation is visible when unassigned, when
 *   assigned to the viewer, or (no person assigned) when its Frontline team is one of theirs.
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: Viewer) => {
  const channel =
    v.channelIds === null ? sql`true` : sql`c.channel_id = ANY(${`{${v.channelIds.join(',')}}`}::int[])`
  if (v.seesAll) return sql`c.workspace_id = ${v.workspaceId} AND ${channel}`
  if (!v.canView) return sql`false`
  return sql`c.workspace_id = ${v.workspaceId} AND ${channel} AND (
    (c.assignee_id IS NULL AND c.team_id IS NULL)
    OR c.assignee_id = ${v.userId}
    OR (c.assignee_id IS NULL AND c.team_id IS NOT NULL AND EXISTS (
      SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = ${v.userId})))`
}

export const visibleById = (v: Viewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`SELECT c.* FROM conversations c WHERE c.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`SELECT * FROM conversations WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const create = (workspaceId: number, channelId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`
      INSERT INTO conversations (workspace_id, channel_id) VALUES (${workspaceId}, ${channelId})
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export interface NewMessage {
  readonly direction: 'in' | 'out'
  readonly type: string
  readonly body: string
  readonly sender: Readonly<Record<string, unknown>>
  readonly status?: string
  readonly clientId?: string | undefined
}

/**
 * Appends a message with the next sequence number. The counter is bumped with the insert in one
 * transaction (the row lock orders concurrent writers), so sequences have no gaps and no
 * duplicates whoever writes. A message whose `clientId` was already stored is returned as it is.
 */
export const append = (conversationId: number, m: NewMessage) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        if (m.clientId !== undefined) {
          const [existing] = yield* sql<MessageRow>`
            SELECT * FROM messages WHERE conversation_id = ${conversationId} AND client_id = ${m.clientId}`
          if (existing) return { message: existing, created: false }
        }
        const [conv] = yield* sql<{ last_seq: number; workspace_id: number }>`
          UPDATE conversations SET last_seq = last_seq + 1, last_message_at = now(), updated_at = now()
          WHERE id = ${conversationId} RETURNING last_seq, workspace_id`
        if (!conv) return null
        const [message] = yield* sql<MessageRow>`
          INSERT INTO messages (workspace_id, conversation_id, seq, direction, type, body, sender, status, client_id, sent_at)
          VALUES (${conv.workspace_id}, ${conversationId}, ${conv.last_seq}, ${m.direction}, ${m.type}, ${m.body},
                  ${JSON.stringify(m.sender)}::jsonb, ${m.status ?? 'sent'}, ${m.clientId ?? null}, now())
          RETURNING *`
        return { message: message!, created: true }
      }),
    ),
  )

export const setStatus = (id: number, status: ConversationRow['status']) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`UPDATE conversations SET status = ${status}, updated_at = now() WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const assign = (id: number, teamId: number | null, assigneeId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ConversationRow>`
      UPDATE conversations SET team_id = ${teamId}, assignee_id = ${assigneeId}, updated_at = now()
      WHERE id = ${id} RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** The viewer an active member is, from their membership, role and workspace. */
export const viewerOf = (
  m: { readonly user_id: number; readonly workspace_id: number; readonly view_all: boolean } & {
    readonly channel_access: 'all' | 'selected'
    readonly channel_ids: readonly number[]
  },
  role: { readonly is_admin: boolean; readonly is_owner: boolean; readonly permissions: readonly string[] },
  ownerUserId: number | null,
): Viewer => ({
  workspaceId: m.workspace_id,
  userId: m.user_id,
  seesAll: role.is_owner || role.is_admin || m.view_all || ownerUserId === m.user_id,
  canView: role.is_owner || role.is_admin || role.permissions.includes('interactions.view'),
  channelIds: m.channel_access === 'all' ? null : m.channel_ids,
})
