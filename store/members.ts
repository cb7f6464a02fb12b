import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { disconnectUser, invalidateCredentials } from '../engine/events'
import { pgArray } from './arrays'
import * as Sessions from './sessions'

export interface MemberRow {
  readonly id: number
  readonly workspace_id: number
  readonly user_id: number
  readonly role_id: number
  readonly status: 'active' | 'disabled'
  readonly disabled_reason: string | null
  readonly view_all: boolean
  readonly channel_access: 'all' | 'selected'
  readonly channel_ids: readonly number[]
  readonly reply_initial: string
  readonly joined_at: Date
}

export interface RoleRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly permissions: readonly string[]
  readonly is_admin: boolean
  readonly is_owner: boolean
}

/** The user's active membership in a workspace with its role, or null (none, or disabled). */
export const activeMembership = (userId: number, workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MemberRow & { r_name: string; r_permissions: string[]; r_is_admin: boolean; r_is_owner: boolean }>`
      SELECT m.*, r.name AS r_name, r.permissions AS r_permissions, r.is_admin AS r_is_admin, r.is_owner AS r_is_owner
      FROM members m JOIN roles r ON r.id = m.role_id
      WHERE m.user_id = ${userId} AND m.workspace_id = ${workspaceId} AND m.status = 'active'`.pipe(
      Effect.map((rows) => {
        const m = rows[0]
        if (!m) return null
        const { r_name, r_permissions, r_is_admin, r_is_owner, ...member } = m
        const role: RoleRow = {
          id: m.role_id,
          workspace_id: m.workspace_id,
          name: r_name,
          permissions: r_permissions,
          is_admin: r_is_admin,
          is_owner: r_is_owner,
        }
        return { member: member as MemberRow, role }
      }),
    ),
  )

/** Any workspace where the user is an active member, oldest membership first. */
export const firstActiveWorkspaceId = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ workspace_id: number }>`
      SELECT workspace_id FROM members WHERE user_id = ${userId} AND status = 'active'
      ORDER BY joined_at, id LIMIT 1`.pipe(Effect.map((r) => r[0]?.workspace_id ?? null)),
  )

/** Adds a user to a workspace with the named role (fixtures and, later, accepted invitations). */
export const addWithRole = (workspaceId: number, userId: number, roleName: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO members (workspace_id, user_id, role_id)
      SELECT ${workspaceId}, ${userId}, r.id FROM roles r WHERE r.workspace_id = ${workspaceId} AND r.name = ${roleName}
      RETURNING id`.pipe(
      Effect.map((r) => r[0]?.id ?? null),
      Effect.tap(() => invalidateCredentials({ userId })),
    ),
  )

// ---- Administration (spec 1 §4.2 members) -----------------------------------------------------

/** A member as the administration screens show them: user, role and teams of this workspace. */
export interface MemberView extends MemberRow {
  readonly user_name: string
  readonly user_email: string
  readonly user_avatar_url: string | null
  readonly role_name: string
  readonly role_is_admin: boolean
  readonly role_is_owner: boolean
  readonly team_ids: readonly number[]
}

const selectViews = (
  sql: SqlClient.SqlClient,
  workspaceId: number,
  memberId: number | null,
) => sql<MemberView>`
  SELECT m.*, u.name AS user_name, u.email AS user_email, u.avatar_url AS user_avatar_url,
    r.name AS role_name, r.is_admin AS role_is_admin, r.is_owner AS role_is_owner,
    COALESCE((SELECT array_agg(t.id ORDER BY t.id) FROM team_members tm JOIN teams t ON t.id = tm.team_id
              WHERE tm.user_id = m.user_id AND t.workspace_id = m.workspace_id), '{}') AS team_ids
  FROM members m JOIN users u ON u.id = m.user_id JOIN roles r ON r.id = m.role_id
  WHERE m.workspace_id = ${workspaceId} AND ${memberId === null ? sql`true` : sql`m.id = ${memberId}`}
  ORDER BY m.joined_at, m.id`

/** Every member of the workspace, active and disabled, oldest first. */
export const listViews = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => selectViews(sql, workspaceId, null))

export const viewById = (workspaceId: number, memberId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(selectViews(sql, workspaceId, memberId), (r) => r[0] ?? null),
  )

export const viewByUser = (workspaceId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`SELECT id FROM members WHERE workspace_id = ${workspaceId} AND user_id = ${userId}`.pipe(
      Effect.flatMap((r) => (r[0] ? viewById(workspaceId, r[0].id) : Effect.succeed(null))),
    ),
  )

/** Active members: what the user quota counts. */
export const countActive = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      SELECT count(*) AS n FROM members WHERE workspace_id = ${workspaceId} AND status = 'active'`.pipe(
      Effect.map((r) => r[0]!.n),
    ),
  )

export interface MemberChange {
  readonly roleId?: number
  readonly viewAll?: boolean
  readonly channelAccess?: 'all' | 'selected'
  readonly channelIds?: readonly number[]
  readonly status?: 'active' | 'disabled'
  /** With `status`: why a member is disabled (`by_admin`, `plan_limit`); cleared when enabled. */
  readonly disabledReason?: string | null
  readonly replyInitial?: string
}

/** Writes a validated change; returns the row or null when there is no such member. */
export const applyChange = (workspaceId: number, memberId: number, c: MemberChange) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<MemberRow>`
      UPDATE members SET
        role_id = COALESCE(${c.roleId ?? null}, role_id),
        view_all = COALESCE(${c.viewAll ?? null}, view_all),
        channel_access = COALESCE(${c.channelAccess ?? null}, channel_access),
        channel_ids = CASE WHEN ${c.channelIds !== undefined} THEN ${`{${(c.channelIds ?? []).join(',')}}`}::int[]
                           ELSE channel_ids END,
        status = COALESCE(${c.status ?? null}, status),
        disabled_reason = CASE WHEN ${c.status !== undefined} THEN ${c.status === 'disabled' ? (c.disabledReason ?? 'by_admin') : null}
                               ELSE disabled_reason END,
        reply_initial = COALESCE(${c.replyInitial ?? null}, reply_initial)
      WHERE id = ${memberId} AND workspace_id = ${workspaceId} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Takes a user out of a workspace: membership and their places in its teams. */
export const removeFromWorkspace = (workspaceId: number, userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`
        DELETE FROM team_members WHERE user_id = ${userId}
          AND team_id IN (SELECT id FROM teams WHERE workspace_id = ${workspaceId})`
      const r =
        yield* sql`DELETE FROM members WHERE workspace_id = ${workspaceId} AND user_id = ${userId} RETURNING id`
      return r.length > 0
    }),
  )

/**
 * After a user lost a workspace (disabled, left, removed): their active workspace moves to another
 * one where they are active, or, with none left, every session of theirs ends; their sockets are
 * closed (4503) and every node forgets their cached credentials. Run after the change committed.
 */
export const endAccess = (userId: number, workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [user] = yield* sql<{ active_workspace_id: number | null }>`
        SELECT active_workspace_id FROM users WHERE id = ${userId}`
      if (user && (user.active_workspace_id === workspaceId || user.active_workspace_id === null)) {
        const other = yield* firstActiveWorkspaceId(userId)
        yield* sql`UPDATE users SET active_workspace_id = ${other} WHERE id = ${userId}`
        if (other === null) yield* Sessions.endAllOf(userId)
      }
      yield* invalidateCredentials({ userId })
      yield* disconnectUser(userId)
    }),
  )

/** Whether the address belongs to a member (active or disabled) of the workspace. */
export const hasEmail = (workspaceId: number, email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT 1 FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND lower(u.email) = lower(${email})`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

/** Of the given user ids, those that are not members (active or disabled) of the workspace. */
export const strangers = (workspaceId: number, userIds: readonly number[]) =>
  userIds.length === 0
    ? Effect.succeed([] as number[])
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ user_id: number }>`
          SELECT user_id FROM members WHERE workspace_id = ${workspaceId} AND user_id = ANY(${pgArray(userIds)}::int[])`.pipe(
          Effect.map((rows) => {
            const known = new Set(rows.map((r) => r.user_id))
            return userIds.filter((u) => !known.has(u))
          }),
        ),
      )
