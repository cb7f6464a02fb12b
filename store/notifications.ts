import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { iso } from '../engine/time'

export interface NotificationRow {
  readonly id: number
  readonly workspace_id: number
  readonly user_id: number
  readonly kind: string
  readonly title: string
  readonly body: string
  readonly link: string | null
  readonly data: Readonly<Record<string, unknown>>
  readonly read_at: Date | null
  readonly created_at: Date
}

export const LATEST = 20

export const present = (n: NotificationRow) => ({
  id: n.id,
  kind: n.kind,
  title: n.title,
  body: n.body,
  link: n.link,
  data: n.data,
  read: n.read_at !== null,
  read_at: iso(n.read_at),
  created_at: iso(n.created_at),
})

export interface NewNotification {
  readonly workspaceId: number
  readonly userId: number
  readonly kind: string
  readonly title: string
  readonly body?: string
  readonly link?: string | null
  readonly data?: Readonly<Record<string, unknown>>
}

/** Stores a notification in the caller's transaction; `announce` it (actors/notifications) after that commits. */
export const insert = (n: NewNotification) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<NotificationRow>`
      INSERT INTO notifications (workspace_id, user_id, kind, title, body, link, data)
      VALUES (${n.workspaceId}, ${n.userId}, ${n.kind}, ${n.title}, ${n.body ?? ''}, ${n.link ?? null},
              ${JSON.stringify(n.data ?? {})}::jsonb)
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export const latest = (workspaceId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all({
      rows: sql<NotificationRow>`
        SELECT * FROM notifications WHERE workspace_id = ${workspaceId} AND user_id = ${userId}
        ORDER BY id DESC LIMIT ${LATEST}`,
      unread: sql<{ n: number }>`
        SELECT count(*) AS n FROM notifications
        WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND read_at IS NULL`.pipe(
        Effect.map((r) => r[0]!.n),
      ),
    }),
  )

/** Marks one (or, without id, every) notification of the user read; returns how many changed. */
export const markRead = (workspaceId: number, userId: number, id: number | undefined) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      UPDATE notifications SET read_at = now()
      WHERE workspace_id = ${workspaceId} AND user_id = ${userId} AND read_at IS NULL
        AND ${id === undefined ? sql`true` : sql`id = ${id}`}
      RETURNING id`.pipe(Effect.map((r) => r.length)),
  )

export const exists = (workspaceId: number, userId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM notifications WHERE id = ${id} AND workspace_id = ${workspaceId} AND user_id = ${userId}`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )
