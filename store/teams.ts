import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'

/**
 * Teams (spec 1 §2, §4.2): Frontline teams handle conversations, Back Office teams tickets and
 * leads. The type never changes. Membership is by user (`team_members`), within the team's
 * workspace.
 */
export type TeamType = 'frontline' | 'backoffice'
export const teamTypes: readonly TeamType[] = ['frontline', 'backoffice']

export interface TeamRow {
  readonly id: number
  readonly workspace_id: number
  readonly type: TeamType
  readonly name: string
  readonly description: string
  readonly created_at: Date
}

export interface TeamMember {
  readonly id: number
  readonly name: string
  readonly email: string
  readonly avatar_url: string | null
}

export interface TeamView extends TeamRow {
  readonly members: readonly TeamMember[]
}

const withMembers = (sql: SqlClient.SqlClient, rows: readonly TeamRow[]) =>
  Effect.gen(function* () {
    if (rows.length === 0) return [] as TeamView[]
    const people = yield* sql<TeamMember & { team_id: number }>`
      SELECT tm.team_id, u.id, u.name, u.email, u.avatar_url
      FROM team_members tm JOIN users u ON u.id = tm.user_id
      WHERE tm.team_id = ANY(${pgArray(rows.map((r) => r.id))}::int[])
      ORDER BY lower(u.name), u.id`
    return rows.map(
      (r): TeamView => ({
        ...r,
        members: people
          .filter((p) => p.team_id === r.id)
          .map(({ id, name, email, avatar_url }) => ({ id, name, email, avatar_url })),
      }),
    )
  })

export const list = (workspaceId: number, type?: TeamType) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      sql<TeamRow>`
        SELECT * FROM teams WHERE workspace_id = ${workspaceId}
          AND ${type === undefined ? sql`true` : sql`type = ${type}`}
        ORDER BY type, lower(name), id`,
      (rows) => withMembers(sql, rows),
    ),
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      sql<TeamRow>`SELECT * FROM teams WHERE id = ${id} AND workspace_id = ${workspaceId}`,
      (rows) => Effect.map(withMembers(sql, rows), (v) => v[0] ?? null),
    ),
  )

/** Of `ids`, those naming teams of the workspace (optionally of one type). */
export const existing = (workspaceId: number, ids: readonly number[], type?: TeamType) =>
  ids.length === 0
    ? Effect.succeed([] as TeamRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<TeamRow>`
          SELECT * FROM teams WHERE workspace_id = ${workspaceId} AND id = ANY(${pgArray(ids)}::int[])
            AND ${type === undefined ? sql`true` : sql`type = ${type}`}`,
      )

export const nameTaken = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT 1 FROM teams WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name.trim()})
        AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

/** Replaces the team's members by `userIds` (members of the workspace, checked by the caller). */
const setMembers = (sql: SqlClient.SqlClient, teamId: number, userIds: readonly number[]) =>
  Effect.gen(function* () {
    yield* sql`DELETE FROM team_members WHERE team_id = ${teamId} AND NOT (user_id = ANY(${pgArray(userIds)}::int[]))`
    if (userIds.length > 0)
      yield* sql`
        INSERT INTO team_members (team_id, user_id) SELECT ${teamId}, u FROM unnest(${pgArray(userIds)}::int[]) u
        ON CONFLICT DO NOTHING`
  })

/**
 * Members who would be left without any team (a non-admin role needs one): of `userIds` (those
 * with a non-admin role, if they lost team `exceptTeamId`), or holders of role `roleId` (if it
 * stopped being an admin role).
 */
export const wouldBeTeamless = (
  workspaceId: number,
  who: { readonly userIds: readonly number[]; readonly exceptTeamId: number } | { readonly roleId: number },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ user_id: number }>`
      SELECT m.user_id FROM members m JOIN roles r ON r.id = m.role_id
      WHERE m.workspace_id = ${workspaceId}
        AND ${
          'roleId' in who
            ? sql`m.role_id = ${who.roleId}`
            : sql`m.user_id = ANY(${pgArray(who.userIds)}::int[]) AND NOT r.is_admin AND NOT r.is_owner`
        }
        AND NOT EXISTS (
          SELECT 1 FROM team_members tm JOIN teams t ON t.id = tm.team_id AND t.workspace_id = ${workspaceId}
          WHERE tm.user_id = m.user_id AND tm.team_id <> ${'roleId' in who ? 0 : who.exceptTeamId})`.pipe(
      Effect.map((r) => r.map((x) => x.user_id)),
    ),
  )

export interface NewTeam {
  readonly name: string
  readonly type: TeamType
  readonly description: string
  readonly memberIds: readonly number[]
}

export const create = (workspaceId: number, t: NewTeam) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<TeamRow>`
          INSERT INTO teams (workspace_id, type, name, description)
          VALUES (${workspaceId}, ${t.type}, ${t.name.trim()}, ${t.description.trim()}) RETURNING *`
        yield* setMembers(sql, row!.id, t.memberIds)
        return row!
      }),
    ),
  )

export interface TeamChange {
  readonly name?: string
  readonly description?: string
  readonly memberIds?: readonly number[]
}

export const update = (workspaceId: number, id: number, c: TeamChange) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<TeamRow>`
          UPDATE teams SET name = COALESCE(${c.name?.trim() ?? null}, name),
            description = COALESCE(${c.description?.trim() ?? null}, description)
          WHERE id = ${id} AND workspace_id = ${workspaceId} RETURNING *`
        if (!row) return null
        if (c.memberIds !== undefined) yield* setMembers(sql, id, c.memberIds)
        return row
      }),
    ),
  )

/** Puts a user in exactly `teamIds` among the workspace's teams (their other workspaces untouched). */
export const setTeamsOfUser = (workspaceId: number, userId: number, teamIds: readonly number[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`
        DELETE FROM team_members WHERE user_id = ${userId}
          AND team_id IN (SELECT id FROM teams WHERE workspace_id = ${workspaceId})
          AND NOT (team_id = ANY(${pgArray(teamIds)}::int[]))`
      if (teamIds.length > 0)
        yield* sql`
          INSERT INTO team_members (team_id, user_id)
          SELECT t.id, ${userId} FROM teams t
          WHERE t.workspace_id = ${workspaceId} AND t.id = ANY(${pgArray(teamIds)}::int[])
          ON CONFLICT DO NOTHING`
    }),
  )

/**
 * Tables that point at teams besides `team_members` (conversations today; tickets, leads and
 * team-only articles as their domains land), found in the catalogue so a new domain's data is
 * covered without a list to maintain. Each is a one-column foreign key.
 */
interface Reference {
  readonly tbl: string
  readonly col: string
  /** Other columns of each unique constraint holding `col`, so a move cannot make duplicates. */
  readonly uniques: ReadonlyArray<readonly string[]>
}

const references = (sql: SqlClient.SqlClient) =>
  Effect.map(
    sql<{ tbl: string; col: string; uniques: string[][] | null }>`
      SELECT c.conrelid::regclass::text AS tbl, quote_ident(a.attname) AS col,
        (SELECT json_agg((SELECT COALESCE(json_agg(quote_ident(a2.attname)), '[]'::json)
                          FROM pg_attribute a2
                          WHERE a2.attrelid = u.conrelid AND a2.attnum = ANY (u.conkey) AND a2.attnum <> a.attnum))
         FROM pg_constraint u
         WHERE u.conrelid = c.conrelid AND u.contype IN ('p', 'u') AND a.attnum = ANY (u.conkey)) AS uniques
      FROM pg_constraint c
      JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
      WHERE c.contype = 'f' AND c.confrelid = 'teams'::regclass AND cardinality(c.conkey) = 1
        AND c.conrelid <> 'team_members'::regclass`,
    (rows): Reference[] => rows.map((r) => ({ tbl: r.tbl, col: r.col, uniques: r.uniques ?? [] })),
  )

/** Whether the team still has members or any data pointing at it. */
export const inUse = (teamId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [member] = yield* sql`SELECT 1 FROM team_members WHERE team_id = ${teamId} LIMIT 1`
      if (member) return true
      // Team-only knowledge articles name their teams in an array (no foreign key).
      const [article] = yield* sql`SELECT 1 FROM kb_articles WHERE ${teamId} = ANY(team_ids) LIMIT 1`
      if (article) return true
      for (const ref of yield* references(sql)) {
        const rows = yield* sql.unsafe(`SELECT 1 FROM ${ref.tbl} WHERE ${ref.col} = $1 LIMIT 1`, [teamId])
        if (rows.length > 0) return true
      }
      return false
    }),
  )

/**
 * Deletes a team; with a replacement (same type, checked by the caller) its members join the
 * replacement and its data moves there first. Answers the user ids whose teams changed.
 */
export const remove = (workspaceId: number, id: number, replacementId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [team] = yield* sql<TeamRow>`
          SELECT * FROM teams WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`
        if (!team) return null
        const moved = yield* sql<{ user_id: number }>`SELECT user_id FROM team_members WHERE team_id = ${id}`
        if (replacementId !== null) {
          yield* sql`
            INSERT INTO team_members (team_id, user_id)
            SELECT ${replacementId}, user_id FROM team_members WHERE team_id = ${id} ON CONFLICT DO NOTHING`
          for (const ref of yield* references(sql)) {
            for (const others of ref.uniques) {
              if (others.length === 0) continue
              const same = others.map((c) => `u.${c} = t.${c}`).join(' AND ')
              yield* sql.unsafe(
                `DELETE FROM ${ref.tbl} t WHERE t.${ref.col} = $1
                   AND EXISTS (SELECT 1 FROM ${ref.tbl} u WHERE u.${ref.col} = $2 AND ${same})`,
                [id, replacementId],
              )
            }
            yield* sql.unsafe(`UPDATE ${ref.tbl} SET ${ref.col} = $2 WHERE ${ref.col} = $1`, [
              id,
              replacementId,
            ])
          }
        }
        // Open invitations name teams in an array (no foreign key): they follow the team's members.
        yield* replacementId === null
          ? sql`UPDATE invitations SET team_ids = array_remove(team_ids, ${id})
                WHERE workspace_id = ${workspaceId} AND ${id} = ANY(team_ids)`
          : sql`UPDATE invitations SET team_ids = (
                  SELECT coalesce(array_agg(DISTINCT t), '{}') FROM unnest(array_replace(team_ids, ${id}, ${replacementId})) AS t)
                WHERE workspace_id = ${workspaceId} AND ${id} = ANY(team_ids)`
        // Team-only knowledge articles too (spec 1 §4.3: "including team-only articles"); without
        // a replacement (only when no article names the team) there is nothing to move.
        if (replacementId !== null)
          yield* sql`UPDATE kb_articles SET team_ids = CASE WHEN ${replacementId} = ANY(team_ids)
                       THEN array_remove(team_ids, ${id}) ELSE array_replace(team_ids, ${id}, ${replacementId}) END
                     WHERE workspace_id = ${workspaceId} AND ${id} = ANY(team_ids)`
        yield* sql`DELETE FROM teams WHERE id = ${id}`
        return { team, userIds: moved.map((m) => m.user_id) }
      }),
    ),
  )

/** Team ids of a user within one workspace. */
export const idsOfUser = (workspaceId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT t.id FROM team_members tm JOIN teams t ON t.id = tm.team_id
      WHERE tm.user_id = ${userId} AND t.workspace_id = ${workspaceId} ORDER BY t.id`.pipe(
      Effect.map((r) => r.map((x) => x.id)),
    ),
  )
