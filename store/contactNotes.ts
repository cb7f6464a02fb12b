import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/** Notes on a contact (spec 2 §4.4): newest first, up to 200 listed (spec 2 §8). */
export const NOTES_LISTED = 200

export interface NoteRow {
  readonly id: number
  readonly workspace_id: number
  readonly contact_id: number
  readonly author_id: number | null
  readonly author_name: string | null
  readonly body: string
  readonly created_at: Date
  readonly updated_at: Date
}

const VIEW = `SELECT n.*, u.name AS author_name FROM contact_notes n LEFT JOIN users u ON u.id = n.author_id`

export const list = (contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<NoteRow>`${sql.literal(VIEW)} WHERE n.contact_id = ${contactId} ORDER BY n.id DESC LIMIT ${NOTES_LISTED}`,
  )

export const byId = (contactId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<NoteRow>`${sql.literal(VIEW)} WHERE n.id = ${id} AND n.contact_id = ${contactId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const insert = (workspaceId: number, contactId: number, authorId: number, body: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO contact_notes (workspace_id, contact_id, author_id, body)
      VALUES (${workspaceId}, ${contactId}, ${authorId}, ${body}) RETURNING id`.pipe(
      Effect.map((r) => r[0]!.id),
    ),
  )

export const change = (id: number, body: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE contact_notes SET body = ${body}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM contact_notes WHERE id = ${id}`.pipe(Effect.asVoid),
  )
