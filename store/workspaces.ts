import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { systemTime } from '../engine/clock'
import { invalidateCredentials } from '../engine/events'
import { pgArray } from './arrays'
import { defaultRoles } from './permissions'
import type { Limits, Plan } from './plans'
import * as Users from './users'

export interface WorkspaceRow {
  readonly id: number
  readonly name: string
  readonly slug: string
  readonly plan: Plan
  readonly pro_until: Date | null
  readonly timezone: string
  readonly limits: Partial<Limits>
  readonly frozen_at: Date | null
  readonly owner_user_id: number | null
  readonly created_at: Date
}

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`SELECT * FROM workspaces WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

const slugify = (name: string) =>
  name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'workspace'

export interface CreateWorkspace {
  readonly name: string
  readonly timezone: string
  readonly plan: Plan
  readonly proUntil: Date | null
  readonly owner: { readonly email: string; readonly name: string }
}

/**
 * A workspace with its default roles and its Owner as an active member, in one transaction.
 * The owner becomes a user if the e-mail is new; their active workspace is set if they had none.
 */
export const create = (input: CreateWorkspace) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const user = yield* Users.ensure(input.owner.email, input.owner.name)
        const base = slugify(input.name)
        const taken = yield* sql<{ slug: string }>`SELECT slug FROM workspaces WHERE slug LIKE ${`${base}%`}`
        const used = new Set(taken.map((r) => r.slug))
        let slug = base
        for (let i = 2; used.has(slug); i++) slug = `${base}-${i}`
        const [ws] = yield* sql<WorkspaceRow>`
          INSERT INTO workspaces (name, slug, plan, pro_until, timezone, owner_user_id)
          VALUES (${input.name.trim()}, ${slug}, ${input.plan}, ${input.proUntil}, ${input.timezone}, ${user.id})
          RETURNING *`
        let ownerRoleId = 0
        for (const role of defaultRoles) {
          const [r] = yield* sql<{ id: number }>`
            INSERT INTO roles (workspace_id, name, permissions, is_admin, is_owner)
            VALUES (${ws!.id}, ${role.name}, ${pgArray(role.permissions)}::text[], ${role.is_admin}, ${role.is_owner})
            RETURNING id`
          if (role.is_owner) ownerRoleId = r!.id
        }
        yield* sql`INSERT INTO members (workspace_id, user_id, role_id) VALUES (${ws!.id}, ${user.id}, ${ownerRoleId})`
        yield* sql`UPDATE users SET active_workspace_id = ${ws!.id} WHERE id = ${user.id} AND active_workspace_id IS NULL`
        return { workspace: ws!, user }
      }),
    ),
  )

export const setPlan = (id: number, plan: Plan, proUntil: Date | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`UPDATE workspaces SET plan = ${plan}, pro_until = ${proUntil} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
      Effect.tap(() => invalidateCredentials({ workspaceId: id })),
    ),
  )

export const setFrozen = (id: number, frozen: boolean) =>
  Effect.flatMap(Effect.zip(SqlClient.SqlClient, systemTime), ([sql, now]) =>
    sql`UPDATE workspaces SET frozen_at = ${frozen ? now : null} WHERE id = ${id}`.pipe(
      Effect.tap(() => invalidateCredentials({ workspaceId: id })),
    ),
  )

// ---- Administration (spec 1 §4.1 workspaces) --------------------------------------------------

export const rename = (id: number, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`UPDATE workspaces SET name = ${name.trim()} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** A workspace where the user is an active member, with their role. */
export interface Membership {
  readonly workspace: WorkspaceRow
  readonly role_id: number
  readonly role_name: string
  readonly member_id: number
}

export const activeFor = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow & { role_id: number; role_name: string; member_id: number }>`
      SELECT w.*, r.id AS role_id, r.name AS role_name, m.id AS member_id
      FROM members m JOIN workspaces w ON w.id = m.workspace_id JOIN roles r ON r.id = m.role_id
      WHERE m.user_id = ${userId} AND m.status = 'active'
      ORDER BY lower(w.name), w.id`.pipe(
      Effect.map((rows) =>
        rows.map(
          ({ role_id, role_name, member_id, ...workspace }): Membership => ({
            workspace: workspace as WorkspaceRow,
            role_id,
            role_name,
            member_id,
          }),
        ),
      ),
    ),
  )

/**
 * How many workspaces a user owns and may own. Free and Pro accounts own one; the Owner of a
 * Custom workspace as many as its contract allows (`contract_workspaces`, 0 = unlimited).
 */
export const ownership = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ owned: number; allowance: number | null; unlimited: boolean }>`
      SELECT count(*) AS owned,
        max(CASE WHEN plan = 'custom' THEN contract_workspaces END) AS allowance,
        bool_or(plan = 'custom' AND contract_workspaces = 0) AS unlimited
      FROM workspaces WHERE owner_user_id = ${userId}`.pipe(
      Effect.map((r) => {
        const row = r[0]!
        const limit = row.unlimited ? 0 : Math.max(1, row.allowance ?? 1)
        return { owned: row.owned, limit, allowed: limit === 0 || row.owned < limit }
      }),
    ),
  )

export const setContractWorkspaces = (id: number, n: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`UPDATE workspaces SET contract_workspaces = ${n} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * Holds the workspace's row lock until the surrounding transaction ends: decisions that count
 * members or invitations against the plan are taken one at a time.
 */
export const lock = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT id FROM workspaces WHERE id = ${id} FOR UPDATE`)
