import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

export interface ChannelRow {
  readonly id: number
  readonly workspace_id: number
  readonly type: 'msgapp' | 'email' | 'livechat' | 'api'
  readonly name: string
  readonly status: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly created_at: Date
  readonly archived_at: Date | null
}

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelRow>`SELECT * FROM channels WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const create = (workspaceId: number, type: ChannelRow['type'], name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelRow>`INSERT INTO channels (workspace_id, type, name) VALUES (${workspaceId}, ${type}, ${name}) RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

export const setStatus = (id: number, status: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelRow>`UPDATE channels SET status = ${status} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )
