import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * Who can take conversations (spec 2 §4.1 assignees, the PATCH assignee rule and `meta.teams`):
 * Frontline teams with their members, and the active members who may see a channel's
 * conversations. Read-only views over the administration tables.
 */
export interface TeamRow {
  readonly id: number
  readonly workspace_id: number
  readonly type: 'frontline' | 'backoffice'
  readonly name: string
}

export interface FrontlineTeam {
  readonly id: number
  readonly name: string
  readonly member_ids: readonly number[]
}

/** A workspace's teams of both types with their members (one read for the inbox list). */
export interface TeamWithMembers extends FrontlineTeam {
  readonly type: 'frontline' | 'backoffice'
}

/**
 * A workspace's teams with their members as one JSON value (a column of another statement: the
 * inbox list reads them with its kept counts, one round trip fewer per request).
 */
export const teamsWithMembersJson = (sql: SqlClient.SqlClient, workspaceId: number) =>
  sql`(SELECT COALESCE(json_agg(json_build_object('id', t.id, 'name', t.name, 'type', t.type,
        'member_ids', COALESCE(ARRAY(SELECT tm.user_id FROM team_members tm WHERE tm.team_id = t.id ORDER BY tm.user_id), '{}'))
        ORDER BY lower(t.name), t.id), '[]'::json)
      FROM teams t WHERE t.workspace_id = ${workspaceId})`

/** `teamsWithMembersJson`'s value as read: node-postgres parses a json column on both databases. */
export const teamsFromJson = (value: unknown): readonly TeamWithMembers[] =>
  value as readonly TeamWithMembers[]

export const teamsWithMembers = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ readonly teams: unknown }>`SELECT ${teamsWithMembersJson(sql, workspaceId)} AS teams`.pipe(
      Effect.map((r) => teamsFromJson(r[0]?.teams)),
    ),
  )

export const frontlineTeams = (workspaceId: number) =>
  Effect.map(teamsWithMembers(workspaceId), (teams): readonly FrontlineTeam[] =>
    teams.filter((t) => t.type === 'frontline'),
  )

export const teamById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TeamRow>`SELECT id, workspace_id, type, name FROM teams WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const isTeamMember = (teamId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM team_members WHERE team_id = ${teamId} AND user_id = ${userId}`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

export interface Assignable {
  readonly id: number
  readonly name: string
  readonly email: string
  readonly avatar_url: string | null
  readonly is_admin: boolean
  readonly team_ids: readonly number[]
}

const ASSIGNABLE = `
  SELECT u.id, u.name, u.email, u.avatar_url,
         (r.is_admin OR r.is_owner OR w.owner_user_id = u.id) AS is_admin,
         COALESCE(ARRAY(SELECT tm.team_id FROM team_members tm JOIN teams t ON t.id = tm.team_id
                        WHERE tm.user_id = u.id AND t.workspace_id = m.workspace_id AND t.type = 'frontline'
                        ORDER BY tm.team_id), '{}') AS team_ids
  FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
  JOIN workspaces w ON w.id = m.workspace_id
  WHERE m.status = 'active' AND (r.is_admin OR r.is_owner OR w.owner_user_id = u.id OR 'interactions.view' = ANY(r.permissions))`

/**
 * Active members who may hold conversations of a channel: they can view conversations and have
 * access to the channel (null channel: any member who can view conversations).
 */
export const assignable = (workspaceId: number, channelId: number | null) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<Assignable>`${sql.literal(ASSIGNABLE)} AND m.workspace_id = ${workspaceId}
      AND (${channelId === null} OR m.channel_access = 'all' OR ${channelId ?? 0} = ANY(m.channel_ids))
      ORDER BY lower(u.name), u.id`,
  )

/** One member as an assignee candidate for a channel, or null when they cannot hold it. */
export const assignableOne = (workspaceId: number, channelId: number | null, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Assignable>`${sql.literal(ASSIGNABLE)} AND m.workspace_id = ${workspaceId} AND u.id = ${userId}
      AND (${channelId === null} OR m.channel_access = 'all' OR ${channelId ?? 0} = ANY(m.channel_ids))`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const userName = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ name: string }>`SELECT name FROM users WHERE id = ${userId}`.pipe(
      Effect.map((r) => r[0]?.name ?? ''),
    ),
  )
