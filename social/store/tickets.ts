import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

export type TicketStatus = 'open' | 'in_progress' | 'waiting' | 'resolved' | 'closed'
export const ticketStatuses: readonly TicketStatus[] = [
  'open',
  'in_progress',
  'waiting',
  'resolved',
  'closed',
]
/** Priorities are ours (spec 3 leaves them open). */
export const priorities = ['low', 'normal', 'high', 'urgent'] as const

export interface TicketRow {
  readonly number: number
  readonly subject: string
  readonly status: TicketStatus
  readonly priority: string
  readonly conversation_id: number
  readonly assignees: readonly string[]
  readonly due_at: Date | null
  readonly created_at: Date
  readonly resolved_at: Date | null
  readonly closed_at: Date | null
}

export interface CommentRow {
  readonly id: number
  readonly author: string
  readonly body: string
  readonly created_at: Date
}

const columns = (sql: SqlClient.SqlClient) =>
  sql`number, subject, status, priority, conversation_id, assignees, due_at, created_at, resolved_at, closed_at`

/** Highest number first, one page. */
export const list = (workspaceId: number, status: TicketStatus | undefined, limit: number, offset: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const where = sql.and([sql`workspace_id = ${workspaceId}`, ...(status ? [sql`status = ${status}`] : [])])
    return Effect.all({
      rows: sql<TicketRow>`SELECT ${columns(sql)} FROM social.tickets WHERE ${where}
        ORDER BY number DESC LIMIT ${limit} OFFSET ${offset}`,
      total: sql<{ n: number }>`SELECT count(*) AS n FROM social.tickets WHERE ${where}`.pipe(
        Effect.map((r) => r[0]!.n),
      ),
    })
  })

/** One ticket of this workspace with its description and discussion (oldest first), or null. */
export const detail = (workspaceId: number, number: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [row] = yield* sql<TicketRow & { id: number; description: string }>`
        SELECT id, description, ${columns(sql)} FROM social.tickets
        WHERE workspace_id = ${workspaceId} AND number = ${number}`
      if (!row) return null
      const discussion = yield* sql<CommentRow>`
        SELECT id, author, body, created_at FROM social.ticket_comments
        WHERE ticket_id = ${row.id} ORDER BY created_at, id`
      return { row, discussion }
    }),
  )
