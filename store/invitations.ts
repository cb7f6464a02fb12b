import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { digest, randomToken } from '../engine/tokens'
import { pgArray } from './arrays'
import { limitsOf } from './plans'
import * as Teams from './teams'
import type { UserRow } from './users'
import * as Users from './users'
import type { WorkspaceRow } from './workspaces'

/**
 * Invitations (spec 1 §3): pending until accepted or cancelled. Expiry is a point in time, not
 * a stored state: an expired invitation stays listed and can be resent. The e-mailed link's token
 * exists only in the answer of `create` and `renew`; a renewal replaces it, so the old link dies.
 */
export const VALID_DAYS = 7

export type Status = 'pending' | 'expired' | 'accepted' | 'cancelled'

export interface InvitationRow {
  readonly id: number
  readonly workspace_id: number
  readonly email: string
  readonly role_id: number
  readonly team_ids: readonly number[]
  readonly view_all: boolean
  readonly channel_access: 'all' | 'selected'
  readonly channel_ids: readonly number[]
  readonly invited_by: number | null
  readonly mail_status: 'off' | 'sent' | 'failed'
  readonly sent_at: Date | null
  readonly expires_at: Date
  readonly accepted_at: Date | null
  readonly cancelled_at: Date | null
  readonly created_at: Date
}

export interface InvitationView extends InvitationRow {
  readonly role_name: string
  readonly role_is_admin: boolean
  readonly inviter_name: string | null
  readonly workspace_name: string
}

export const statusOf = (i: InvitationRow, now: Date): Status =>
  i.cancelled_at
    ? 'cancelled'
    : i.accepted_at
      ? 'accepted'
      : i.expires_at.getTime() <= now.getTime()
        ? 'expired'
        : 'pending'

const expiry = (now: Date) => new Date(now.getTime() + VALID_DAYS * 86_400_000)

const COLUMNS = `i.id, i.workspace_id, i.email, i.role_id, i.team_ids, i.view_all, i.channel_access, i.channel_ids,
  i.invited_by, i.mail_status, i.sent_at, i.expires_at, i.accepted_at, i.cancelled_at, i.created_at`

const selectViews = (
  sql: SqlClient.SqlClient,
  where: ReturnType<SqlClient.SqlClient['and']>,
) => sql<InvitationView>`
  SELECT ${sql.literal(COLUMNS)}, r.name AS role_name, r.is_admin AS role_is_admin, u.name AS inviter_name,
    w.name AS workspace_name
  FROM invitations i JOIN roles r ON r.id = i.role_id JOIN workspaces w ON w.id = i.workspace_id
  LEFT JOIN users u ON u.id = i.invited_by
  WHERE ${where} ORDER BY i.created_at DESC, i.id DESC`

/** Unaccepted, uncancelled invitations of a workspace, expired ones included. */
export const listOpen = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    selectViews(
      sql,
      sql.and([
        sql`i.workspace_id = ${workspaceId}`,
        sql`i.accepted_at IS NULL`,
        sql`i.cancelled_at IS NULL`,
      ]),
    ),
  )

/** Valid (pending, unexpired) invitations for an e-mail address, across workspaces. */
export const validFor = (email: string, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    selectViews(
      sql,
      sql.and([
        sql`lower(i.email) = lower(${email})`,
        sql`i.accepted_at IS NULL`,
        sql`i.cancelled_at IS NULL`,
        sql`i.expires_at > ${now}`,
      ]),
    ),
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      selectViews(sql, sql.and([sql`i.id = ${id}`, sql`i.workspace_id = ${workspaceId}`])),
      (r) => r[0] ?? null,
    ),
  )

/** The invitation an e-mailed link points at (its current token only). */
export const byToken = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(selectViews(sql, sql.and([sql`i.token_hash = ${digest(token)}`])), (r) => r[0] ?? null),
  )

/** Open invitations not expired at `now`: they hold a place in the user quota. */
export const countPending = (workspaceId: number, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`
      SELECT count(*) AS n FROM invitations
      WHERE workspace_id = ${workspaceId} AND accepted_at IS NULL AND cancelled_at IS NULL AND expires_at > ${now}`.pipe(
      Effect.map((r) => r[0]!.n),
    ),
  )

export const openFor = (workspaceId: number, email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`
      SELECT 1 FROM invitations WHERE workspace_id = ${workspaceId} AND lower(email) = lower(${email})
        AND accepted_at IS NULL AND cancelled_at IS NULL`.pipe(Effect.map((r) => r.length > 0)),
  )

export interface NewInvitation {
  readonly workspaceId: number
  readonly email: string
  readonly roleId: number
  readonly teamIds: readonly number[]
  readonly viewAll: boolean
  readonly channelAccess: 'all' | 'selected'
  readonly channelIds: readonly number[]
  readonly invitedBy: number
  readonly now: Date
}

/**
 * Stores an invitation and makes sure the address has an account (without any membership), so
 * the invitee can sign in through the identity provider to accept it. Returns the row and the
 * link's token, or null when an open invitation for the address exists already.
 */
export const create = (i: NewInvitation) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const token = randomToken(32)
      const rows = yield* sql<InvitationRow>`
        INSERT INTO invitations (workspace_id, email, role_id, team_ids, view_all, channel_access, channel_ids,
                                 token_hash, invited_by, expires_at, created_at)
        VALUES (${i.workspaceId}, ${i.email.trim()}, ${i.roleId}, ${pgArray(i.teamIds)}::int[], ${i.viewAll},
                ${i.channelAccess}, ${pgArray(i.channelIds)}::int[], ${digest(token)}, ${i.invitedBy},
                ${expiry(i.now)}, ${i.now})
        ON CONFLICT DO NOTHING RETURNING *`
      if (!rows[0]) return null
      yield* Users.ensure(i.email, i.email.split('@')[0]!)
      return { row: rows[0], token }
    }),
  )

/** A new link and a new validity period for an open invitation (old link dead); null if not open. */
export const renew = (workspaceId: number, id: number, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const token = randomToken(32)
    return sql<InvitationRow>`
      UPDATE invitations SET token_hash = ${digest(token)}, expires_at = ${expiry(now)}
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND accepted_at IS NULL AND cancelled_at IS NULL
      RETURNING *`.pipe(Effect.map((r) => (r[0] ? { row: r[0], token } : null)))
  })

export const markMail = (id: number, status: 'sent' | 'failed', now: Date) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`UPDATE invitations SET mail_status = ${status},
            sent_at = CASE WHEN ${status === 'sent'} THEN ${now}::timestamptz ELSE sent_at END
          WHERE id = ${id}`,
  )

export const cancel = (workspaceId: number, id: number, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<InvitationRow>`
      UPDATE invitations SET cancelled_at = ${now}
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND accepted_at IS NULL AND cancelled_at IS NULL
      RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export type AcceptOutcome =
  | { readonly _tag: 'Accepted'; readonly invitation: InvitationView; readonly memberId: number }
  | { readonly _tag: 'NotFound' }
  | { readonly _tag: 'Expired' }
  | { readonly _tag: 'AlreadyMember' }
  | { readonly _tag: 'QuotaFull' }

/**
 * Accepts an invitation addressed to `user`'s e-mail: membership with the invited role, access
 * and teams (those still existing), and the workspace becomes the user's active one. The user
 * quota of the workspace's plan is checked under a lock on the workspace.
 */
export const accept = (user: UserRow, id: number, now: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<InvitationRow>`
          SELECT * FROM invitations WHERE id = ${id} AND lower(email) = lower(${user.email})
            AND accepted_at IS NULL AND cancelled_at IS NULL FOR UPDATE`
        if (!row) return { _tag: 'NotFound' } as const
        if (row.expires_at.getTime() <= now.getTime()) return { _tag: 'Expired' } as const
        const [ws] =
          yield* sql<WorkspaceRow>`SELECT * FROM workspaces WHERE id = ${row.workspace_id} FOR UPDATE`
        const [existing] = yield* sql`
          SELECT 1 FROM members WHERE workspace_id = ${row.workspace_id} AND user_id = ${user.id}`
        if (existing) return { _tag: 'AlreadyMember' } as const
        const limit = limitsOf(ws!).users
        const [{ n }] = (yield* sql<{ n: number }>`
          SELECT count(*) AS n FROM members WHERE workspace_id = ${row.workspace_id} AND status = 'active'`) as [
          { n: number },
        ]
        if (limit > 0 && n >= limit) return { _tag: 'QuotaFull' } as const
        const [member] = yield* sql<{ id: number }>`
          INSERT INTO members (workspace_id, user_id, role_id, view_all, channel_access, channel_ids, joined_at)
          VALUES (${row.workspace_id}, ${user.id}, ${row.role_id}, ${row.view_all}, ${row.channel_access},
                  ${pgArray(row.channel_ids)}::int[], ${now})
          RETURNING id`
        yield* Teams.setTeamsOfUser(row.workspace_id, user.id, row.team_ids)
        yield* sql`UPDATE invitations SET accepted_at = ${now}, accepted_by = ${user.id} WHERE id = ${id}`
        yield* sql`UPDATE users SET active_workspace_id = ${row.workspace_id} WHERE id = ${user.id}`
        const view = yield* byId(row.workspace_id, id)
        return { _tag: 'Accepted', invitation: view!, memberId: member!.id } as const
      }),
    ),
  )
