import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/** Messaging-app groups: conversations of kind `group` belong to one. */
export interface GroupRow {
  readonly id: number
  readonly workspace_id: number
  readonly channel_id: number | null
  readonly name: string
  readonly external_id: string | null
  /** `[{jid, name, phone}]` as the channel reported them. */
  readonly members: ReadonlyArray<Readonly<Record<string, unknown>>>
  readonly avatar_file_id: number | null
  readonly created_at: Date
}

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<GroupRow>`SELECT * FROM groups WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const create = (
  workspaceId: number,
  g: {
    readonly channelId: number | null
    readonly name: string
    readonly externalId?: string | null
    readonly members?: ReadonlyArray<Readonly<Record<string, unknown>>>
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<GroupRow>`
      INSERT INTO groups (workspace_id, channel_id, name, external_id, members)
      VALUES (${workspaceId}, ${g.channelId}, ${g.name}, ${g.externalId ?? null}, ${JSON.stringify(g.members ?? [])}::jsonb)
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

/** Group members matched to contacts of the workspace by phone (spec 2 §4.1 GET /groups/{id}). */
export const matchedContacts = (workspaceId: number, phones: readonly string[]) =>
  phones.length === 0
    ? Effect.succeed([] as ReadonlyArray<{ id: number; name: string; phone: string }>)
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ id: number; name: string; phone: string }>`
          SELECT id, name, phone FROM contacts WHERE workspace_id = ${workspaceId} AND phone IN ${sql.in(phones)}`,
      )
