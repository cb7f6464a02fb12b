import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'

export interface ChannelRow {
  readonly id: number
  readonly workspace_id: number
  readonly type: 'msgapp' | 'email' | 'livechat' | 'api'
  readonly name: string
  readonly status: string
  readonly settings: Readonly<Record<string, unknown>>
  readonly created_at: Date
  readonly archived_at: Date | null
  /** Set aside when a move to Free left no room for it (billing); back when there is room. */
  readonly suspended_at: Date | null
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

// ---- Channel management (spec 1 §4.4), common to every type ----------------------------------

/** Live channels of a workspace, or only those in `ids` (members with selected-channel access). */
export const listLive = (workspaceId: number, ids: readonly number[] | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    ids === null
      ? sql<ChannelRow>`SELECT * FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL ORDER BY id`
      : sql<ChannelRow>`
          SELECT * FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL
            AND id = ANY(${`{${ids.join(',')}}`}::int[]) ORDER BY id`,
  )

/** Channels counted against the quota (shared by all types): the live ones. */
export const countLive = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      n: number
    }>`SELECT count(*) AS n FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL`.pipe(
      Effect.map((r) => r[0]!.n),
    ),
  )

/** A live channel of this workspace, or null (another workspace's channel does not exist). */
export const liveInWorkspace = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ChannelRow>`SELECT * FROM channels WHERE id = ${id} AND workspace_id = ${workspaceId} AND archived_at IS NULL`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * Renames and/or merges keys into `settings` (top-level keys replace, `null` values are kept as
 * null); `autoReply` is merged one level down, over `settings.auto_reply` as this statement finds
 * it, so that changes of different keys at once all stay.
 */
export const updateCommon = (
  id: number,
  patch: {
    readonly name?: string
    readonly settings?: Readonly<Record<string, unknown>>
    readonly autoReply?: Readonly<Record<string, unknown>>
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const autoReply =
      patch.autoReply === undefined
        ? sql``
        : sql`|| jsonb_build_object('auto_reply', CASE WHEN jsonb_typeof(settings->'auto_reply') = 'object'
            THEN settings->'auto_reply' ELSE '{}'::jsonb END || ${JSON.stringify(patch.autoReply)}::jsonb)`
    return sql<ChannelRow>`
      UPDATE channels SET name = COALESCE(${patch.name ?? null}, name),
        settings = settings || ${JSON.stringify(patch.settings ?? {})}::jsonb ${autoReply}
      WHERE id = ${id} AND archived_at IS NULL RETURNING *`.pipe(Effect.map((r) => r[0] ?? null))
  })

/**
 * Deletes a channel, or archives it when conversations refer to it (they stay readable). Answers
 * what happened.
 */
export const deleteOrArchive = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<ChannelRow>`
          SELECT * FROM channels WHERE id = ${id} AND workspace_id = ${workspaceId} AND archived_at IS NULL FOR UPDATE`
        if (!row) return null
        const [used] = yield* sql`SELECT 1 FROM conversations WHERE channel_id = ${id} LIMIT 1`
        if (used) {
          yield* sql`UPDATE channels SET archived_at = now(), status = 'archived' WHERE id = ${id}`
          return 'archived' as const
        }
        yield* sql`DELETE FROM channels WHERE id = ${id}`
        return 'deleted' as const
      }),
    ),
  )

/**
 * `grant_selected_members` of channel creation (spec 1 §4.4): members on selected-channel access
 * get the new channel added to their channels. Answers how many members changed.
 */
export const grantSelectedMembers = (workspaceId: number, channelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      UPDATE members SET channel_ids = array_append(channel_ids, ${channelId}::int)
      WHERE workspace_id = ${workspaceId} AND channel_access = 'selected' AND NOT (${channelId}::int = ANY(channel_ids))
      RETURNING id`.pipe(Effect.map((r) => r.length)),
  )

/** Of `ids`, those that are not live channels of the workspace. */
export const unknownLive = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ id: number }>`
          SELECT id FROM channels WHERE workspace_id = ${workspaceId} AND archived_at IS NULL
            AND id = ANY(${pgArray(ids)}::int[])`.pipe(
          Effect.map((rows) => {
            const known = new Set(rows.map((r) => r.id))
            return ids.filter((i) => !known.has(i))
          }),
        ),
      )
