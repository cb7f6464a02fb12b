import { SqlClient } from '@effect/sql'
import { Data, Effect } from 'effect'

/** A platform account ("channel" in the API). */
export interface ChannelRow {
  readonly id: number
  readonly workspace_id: number
  readonly platform: string
  readonly external_id: string
  readonly username: string
  readonly created_at: Date
}

/** The account is already another workspace's. */
export class AccountTaken extends Data.TaggedError('AccountTaken')<{
  readonly externalId: string
  readonly workspaceId: number
}> {}

/**
 * Adds an account to a workspace, or renames it when the workspace already has it. An account
 * belongs to one workspace: webhook notifications are routed by it.
 */
export const upsert = (workspaceId: number, externalId: string, username: string, platform = 'instagram') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [row] = yield* sql<ChannelRow>`
        INSERT INTO social.channels (workspace_id, platform, external_id, username)
        VALUES (${workspaceId}, ${platform}, ${externalId}, ${username})
        ON CONFLICT (platform, external_id) DO UPDATE SET username = EXCLUDED.username
          WHERE social.channels.workspace_id = EXCLUDED.workspace_id
        RETURNING *`
      if (row) return row
      const [owner] = yield* sql<{ workspace_id: number }>`
        SELECT workspace_id FROM social.channels WHERE platform = ${platform} AND external_id = ${externalId}`
      return yield* Effect.fail(new AccountTaken({ externalId, workspaceId: owner?.workspace_id ?? 0 }))
    }),
  )

export const list = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ChannelRow>`SELECT * FROM social.channels WHERE workspace_id = ${workspaceId} ORDER BY id`,
  )

export const byExternalId = (externalId: string, platform = 'instagram') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelRow>`
      SELECT * FROM social.channels WHERE platform = ${platform} AND external_id = ${externalId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )
