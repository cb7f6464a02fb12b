import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { allPermissions, type Permission } from './permissions'

/**
 * Roles (spec 1 §4.2): named permission sets of a workspace. Admin roles hold every permission;
 * the Owner's role is fixed. Usage counts members and open invitations (and a pending ownership
 * transfer that would give the role to the previous Owner): a role in use cannot be deleted.
 */
export interface RoleView {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly permissions: readonly string[]
  readonly is_admin: boolean
  readonly is_owner: boolean
  readonly created_at: Date
  readonly members: number
  readonly invitations: number
}

const select = (sql: SqlClient.SqlClient, workspaceId: number, id: number | null) => sql<RoleView>`
  SELECT r.*,
    (SELECT count(*) FROM members m WHERE m.role_id = r.id) AS members,
    (SELECT count(*) FROM invitations i WHERE i.role_id = r.id AND i.accepted_at IS NULL AND i.cancelled_at IS NULL) AS invitations
  FROM roles r
  WHERE r.workspace_id = ${workspaceId} AND ${id === null ? sql`true` : sql`r.id = ${id}`}
  ORDER BY r.is_owner DESC, r.is_admin DESC, lower(r.name), r.id`

export const list = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => select(sql, workspaceId, null))

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => Effect.map(select(sql, workspaceId, id), (r) => r[0] ?? null))

export const nameTaken = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT 1 FROM roles WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name.trim()})
        AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

/** Admin roles store the whole catalogue, so the row says what the role holds. */
const stored = (permissions: readonly Permission[], isAdmin: boolean) =>
  pgArray(isAdmin ? allPermissions : allPermissions.filter((p) => permissions.includes(p)))

export interface NewRole {
  readonly name: string
  readonly permissions: readonly Permission[]
  readonly isAdmin: boolean
}

export const create = (workspaceId: number, r: NewRole) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO roles (workspace_id, name, permissions, is_admin)
      VALUES (${workspaceId}, ${r.name.trim()}, ${stored(r.permissions, r.isAdmin)}::text[], ${r.isAdmin})
      RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id)),
  )

export interface RoleChange {
  readonly name?: string
  readonly permissions?: readonly Permission[]
  readonly isAdmin?: boolean
}

/** Changes a role that is not the Owner's; returns whether a row changed. */
export const update = (workspaceId: number, current: RoleView, c: RoleChange) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const isAdmin = c.isAdmin ?? current.is_admin
    const permissions = c.permissions ?? (current.permissions as Permission[])
    return sql`
      UPDATE roles SET name = ${c.name?.trim() ?? current.name},
        permissions = ${stored(permissions, isAdmin)}::text[], is_admin = ${isAdmin}
      WHERE id = ${current.id} AND workspace_id = ${workspaceId} AND NOT is_owner RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    )
  })

/**
 * Deletes a role nobody uses: `deleted`, `in_use`, or null when there is no such role. Checked
 * and deleted under a lock on the role, so a concurrent invitation cannot slip in between.
 */
export const remove = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [role] = yield* sql<{ id: number; is_owner: boolean }>`
          SELECT id, is_owner FROM roles WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`
        if (!role) return null
        const [used] = yield* sql`
          SELECT 1 FROM members WHERE role_id = ${id}
          UNION ALL SELECT 1 FROM invitations WHERE role_id = ${id} AND accepted_at IS NULL AND cancelled_at IS NULL
          UNION ALL SELECT 1 FROM ownership_transfers WHERE stay_role_id = ${id} AND status = 'pending'
          LIMIT 1`
        if (used || role.is_owner) return 'in_use' as const
        // Accepted and cancelled invitations still name the role; nothing reads them any more (the
        // audit log keeps what happened), so they go with it.
        yield* sql`DELETE FROM invitations WHERE role_id = ${id}`
        yield* sql`DELETE FROM roles WHERE id = ${id}`
        return 'deleted' as const
      }),
    ),
  )

/** A name for a copy that no role of the workspace has yet: `Agent (copy)`, `Agent (copy 2)`… */
export const copyName = (workspaceId: number, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const taken = new Set(
        (yield* sql<{
          n: string
        }>`SELECT lower(name) AS n FROM roles WHERE workspace_id = ${workspaceId}`).map((r) => r.n),
      )
      const base = `${name} (copy`.slice(0, 50)
      for (let i = 1; ; i++) {
        const candidate = i === 1 ? `${base})` : `${base} ${i})`
        if (!taken.has(candidate.toLowerCase())) return candidate
      }
    }),
  )

/** The Owner role of a workspace. */
export const ownerRoleId = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`SELECT id FROM roles WHERE workspace_id = ${workspaceId} AND is_owner LIMIT 1`.pipe(
      Effect.map((r) => r[0]?.id ?? null),
    ),
  )
