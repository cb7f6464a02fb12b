import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { invalidateCredentials } from '../engine/events'

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
