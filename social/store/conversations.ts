import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { ConversationStatus } from '../state'

/** Reads of conversations; every query is scoped to the caller's workspace. */

export interface TicketBrief {
  readonly number: number
  readonly subject: string
  readonly status: string
  readonly priority: string
}

export interface ConversationRow {
  readonly id: number
  readonly channel_id: number
  readonly channel_username: string
  readonly type: 'reply' | 'mention'
  readonly status: ConversationStatus
  readonly contact_username: string
  readonly category: string | null
  readonly labels: readonly string[]
  readonly tags: readonly string[]
  readonly assignee: string | null
  readonly first_response_secs: number | null
  readonly reopened_count: number
  readonly created_at: Date
  readonly last_message_at: Date
  readonly solved_at: Date | null
  readonly closed_at: Date | null
  readonly tickets: readonly TicketBrief[]
}

export interface ConversationFilter {
  readonly status?: ConversationStatus | undefined
  readonly channelId?: number | undefined
  readonly type?: 'reply' | 'mention' | undefined
  /** Creation time from (inclusive) … to (exclusive). */
  readonly from?: Date | undefined
  readonly to?: Date | undefined
}

/**
 * Seconds from the conversation's start to its first published reply, whole seconds (truncated),
 * never negative; null when unanswered. The summary's FRT figures aggregate this same value.
 * `bigint`: a conversation of 1900 answered in 2026 is past an `integer`'s 68 years.
 */
export const FIRST_RESPONSE_SECS = `CASE WHEN c.first_response_at IS NULL THEN NULL
  ELSE GREATEST(0, floor(extract(epoch FROM c.first_response_at - c.created_at)))::bigint END`

const select = (sql: SqlClient.SqlClient) => sql`
  SELECT c.id, c.channel_id, ch.username AS channel_username, c.type, c.status, c.contact_username,
    c.category, c.labels, c.tags, c.assignee, ${sql.unsafe(FIRST_RESPONSE_SECS)} AS first_response_secs,
    c.reopened_count, c.created_at, c.last_message_at, c.solved_at, c.closed_at,
    COALESCE((SELECT json_agg(json_build_object('number', t.number, 'subject', t.subject,
        'status', t.status, 'priority', t.priority) ORDER BY t.number)
      FROM social.tickets t WHERE t.conversation_id = c.id), '[]'::json) AS tickets
  FROM social.conversations c JOIN social.channels ch ON ch.id = c.channel_id`

const where = (sql: SqlClient.SqlClient, workspaceId: number, f: ConversationFilter) =>
  sql.and([
    sql`c.workspace_id = ${workspaceId}`,
    ...(f.status ? [sql`c.status = ${f.status}`] : []),
    ...(f.channelId !== undefined ? [sql`c.channel_id = ${f.channelId}`] : []),
    ...(f.type ? [sql`c.type = ${f.type}`] : []),
    ...(f.from ? [sql`c.created_at >= ${f.from}`] : []),
    ...(f.to ? [sql`c.created_at < ${f.to}`] : []),
  ])

/** Newest first (creation time, then id), one page. */
export const list = (workspaceId: number, f: ConversationFilter, limit: number, offset: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all({
      rows: sql<ConversationRow>`${select(sql)} WHERE ${where(sql, workspaceId, f)}
        ORDER BY c.created_at DESC, c.id DESC LIMIT ${limit} OFFSET ${offset}`,
      total: sql<{ n: number }>`SELECT count(*) AS n FROM social.conversations c
        WHERE ${where(sql, workspaceId, f)}`.pipe(Effect.map((r) => r[0]!.n)),
    }),
  )

export interface ConversationDetailRow extends ConversationRow {
  readonly context_text: string | null
  readonly context_username: string | null
  readonly context_permalink: string | null
}

export interface MessageRow {
  readonly id: number
  readonly direction: 'in' | 'out'
  readonly author: string
  readonly text: string
  readonly media_type: string
  readonly attachments: readonly unknown[]
  readonly status: string
  readonly permalink: string | null
  readonly posted_at: Date
}

export interface NoteRow {
  readonly body: string
  readonly author: string
  readonly source: string
  readonly ticket_number: number | null
  readonly created_at: Date
}

/** One conversation of this workspace with its messages (oldest first) and notes, or null. */
export const detail = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [row] = yield* sql<ConversationDetailRow>`
        SELECT x.*, c.context_text, c.context_username, c.context_permalink
        FROM (${select(sql)} WHERE c.workspace_id = ${workspaceId} AND c.id = ${id}) x
        JOIN social.conversations c ON c.id = x.id`
      if (!row) return null
      const messages = yield* sql<MessageRow>`
        SELECT id, direction, author, text, media_type, attachments, status, permalink, posted_at
        FROM social.messages WHERE conversation_id = ${id} ORDER BY posted_at, id`
      const notes = yield* sql<NoteRow>`
        SELECT n.body, n.author, n.source, t.number AS ticket_number, n.created_at
        FROM social.notes n LEFT JOIN social.tickets t ON t.id = n.ticket_id
        WHERE n.conversation_id = ${id} ORDER BY n.created_at, n.id`
      return { row, messages, notes }
    }),
  )
