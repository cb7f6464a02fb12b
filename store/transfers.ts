import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import * as Audit from './audit'
import * as Billing from './billing'
import * as Members from './members'
import * as Teams from './teams'
import * as Workspaces from './workspaces'

/**
 * Ownership transfers (spec 1 §3): the Owner asks a member to take over; pending until the Owner
 * cancels or the recipient accepts or declines. At most one pending request per workspace.
 */
export type TransferStatus = 'pending' | 'cancelled' | 'accepted' | 'declined'

export interface TransferRow {
  readonly id: number
  readonly workspace_id: number
  readonly from_user_id: number
  readonly to_user_id: number
  readonly stay: boolean
  readonly stay_role_id: number | null
  readonly stay_team_ids: readonly number[]
  readonly status: TransferStatus
  readonly created_at: Date
  readonly decided_at: Date | null
}

export interface TransferView extends TransferRow {
  readonly workspace_name: string
  readonly workspace_plan: 'free' | 'pro' | 'custom'
  readonly from_name: string
  readonly from_email: string
  readonly to_name: string
  readonly to_email: string
  readonly stay_role_name: string | null
}

const selectViews = (
  sql: SqlClient.SqlClient,
  where: ReturnType<SqlClient.SqlClient['and']>,
) => sql<TransferView>`
  SELECT t.*, w.name AS workspace_name, w.plan AS workspace_plan, f.name AS from_name, f.email AS from_email,
    r.name AS stay_role_name, u.name AS to_name, u.email AS to_email
  FROM ownership_transfers t JOIN workspaces w ON w.id = t.workspace_id
  JOIN users f ON f.id = t.from_user_id JOIN users u ON u.id = t.to_user_id
  LEFT JOIN roles r ON r.id = t.stay_role_id
  WHERE ${where} ORDER BY t.created_at DESC, t.id DESC`

export const pendingOf = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      selectViews(sql, sql.and([sql`t.workspace_id = ${workspaceId}`, sql`t.status = 'pending'`])),
      (r) => r[0] ?? null,
    ),
  )

/** Requests waiting for the user's answer. */
export const waitingFor = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    selectViews(sql, sql.and([sql`t.to_user_id = ${userId}`, sql`t.status = 'pending'`])),
  )

/** A request addressed to the user, in any state. */
export const forRecipient = (userId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      selectViews(sql, sql.and([sql`t.id = ${id}`, sql`t.to_user_id = ${userId}`])),
      (r) => r[0] ?? null,
    ),
  )

export interface NewTransfer {
  readonly workspaceId: number
  readonly fromUserId: number
  readonly toUserId: number
  readonly stay: boolean
  readonly stayRoleId: number | null
  readonly stayTeamIds: readonly number[]
}

/** Creates the pending request, or null when one is pending already. */
export const request = (t: NewTransfer) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO ownership_transfers (workspace_id, from_user_id, to_user_id, stay, stay_role_id, stay_team_ids)
      VALUES (${t.workspaceId}, ${t.fromUserId}, ${t.toUserId}, ${t.stay}, ${t.stayRoleId},
              ${pgArray(t.stayTeamIds)}::int[])
      ON CONFLICT DO NOTHING RETURNING id`.pipe(Effect.map((r) => r[0]?.id ?? null)),
  )

/** Ends a pending request (`cancelled` or `declined`); returns it, or null when none was pending. */
export const close = (
  where: { readonly workspaceId: number } | { readonly id: number; readonly toUserId: number },
  status: 'cancelled' | 'declined',
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TransferRow>`
      UPDATE ownership_transfers SET status = ${status}, decided_at = now()
      WHERE status = 'pending' AND ${
        'workspaceId' in where
          ? sql`workspace_id = ${where.workspaceId}`
          : sql`id = ${where.id} AND to_user_id = ${where.toUserId}`
      }
      RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** A Custom contract belongs to whoever signed it: a transferred Custom workspace moves to Free. */
export const becomesFree = (plan: string) => plan === 'custom'

export interface Eligibility {
  readonly canAccept: boolean
  /** Why not: `not_member` (no longer an active member), `owns_workspace` (owns as many as allowed). */
  readonly reason: 'not_member' | 'owns_workspace' | null
}

/** Whether a user could become the Owner of a workspace now. */
export const eligibility = (workspaceId: number, userId: number) =>
  Effect.gen(function* () {
    const membership = yield* Members.activeMembership(userId, workspaceId)
    if (!membership) return { canAccept: false, reason: 'not_member' } satisfies Eligibility as Eligibility
    const own = yield* Workspaces.ownership(userId)
    if (!own.allowed)
      return { canAccept: false, reason: 'owns_workspace' } satisfies Eligibility as Eligibility
    return { canAccept: true, reason: null } satisfies Eligibility as Eligibility
  })

/**
 * The recipient takes over: they get the Owner role, the previous Owner stays with the chosen role
 * and teams or leaves, a Custom workspace moves to Free (`becomesFree`), and the workspace becomes
 * the recipient's active one. Returns the accepted request, or null when it is not pending for this
 * recipient; `ineligible` when they may not own it (checked under the workspace's lock).
 */
export const accept = (userId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [t] = yield* sql<TransferRow>`
          SELECT * FROM ownership_transfers WHERE id = ${id} AND to_user_id = ${userId} AND status = 'pending'
          FOR UPDATE`
        if (!t) return null
        const [ws] = yield* sql<{
          plan: string
        }>`SELECT plan FROM workspaces WHERE id = ${t.workspace_id} FOR UPDATE`
        // Locks the recipient's account so two transfers to them cannot both pass the count.
        yield* sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`
        const e = yield* eligibility(t.workspace_id, userId)
        if (!e.canAccept) return { ineligible: e.reason } as const
        const [owner] = yield* sql<{ id: number }>`
          SELECT id FROM roles WHERE workspace_id = ${t.workspace_id} AND is_owner LIMIT 1`
        yield* sql`UPDATE members SET role_id = ${owner!.id}, status = 'active', disabled_reason = NULL
                   WHERE workspace_id = ${t.workspace_id} AND user_id = ${userId}`
        const free = becomesFree(ws!.plan)
        yield* sql`
          UPDATE workspaces SET owner_user_id = ${userId},
            plan = CASE WHEN ${free} THEN 'free' ELSE plan END,
            pro_until = CASE WHEN ${free} THEN NULL ELSE pro_until END,
            frozen_at = CASE WHEN ${free} THEN NULL ELSE frozen_at END
          WHERE id = ${t.workspace_id}`
        if (t.stay && t.stay_role_id !== null) {
          yield* sql`UPDATE members SET role_id = ${t.stay_role_id}
                     WHERE workspace_id = ${t.workspace_id} AND user_id = ${t.from_user_id}`
          yield* Teams.setTeamsOfUser(t.workspace_id, t.from_user_id, t.stay_team_ids)
        } else {
          yield* Members.removeFromWorkspace(t.workspace_id, t.from_user_id)
        }
        const dropped = free ? yield* Billing.applyFreeLimits(t.workspace_id, null) : []
        if (free)
          yield* Audit.record({
            workspaceId: t.workspace_id,
            userId: null,
            action: 'billing.downgraded',
            details: 'custom → free (ownership transferred)',
          })
        yield* sql`UPDATE users SET active_workspace_id = ${t.workspace_id} WHERE id = ${userId}`
        yield* sql`UPDATE ownership_transfers SET status = 'accepted', decided_at = now() WHERE id = ${id}`
        return { transfer: t, becameFree: free, dropped } as const
      }),
    ),
  )

/** A member leaving: a request addressed to them can no longer be accepted. */
export const cancelPendingTo = (workspaceId: number, userId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE ownership_transfers SET status = 'cancelled', decided_at = now()
      WHERE workspace_id = ${workspaceId} AND to_user_id = ${userId} AND status = 'pending'`,
  )
