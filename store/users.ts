import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { invalidateCredentials } from '../engine/events'

export interface UserRow {
  readonly id: number
  readonly email: string
  readonly name: string
  readonly avatar_url: string | null
  readonly locale: 'en' | 'id'
  readonly timezone: string | null
  readonly is_platform_admin: boolean
  readonly preferences: Readonly<Record<string, unknown>>
  readonly active_workspace_id: number | null
  readonly last_login_at: Date | null
  readonly created_at: Date
}

export const byEmail = (email: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`SELECT * FROM users WHERE lower(email) = lower(${email})`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`SELECT * FROM users WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** Finds the user by e-mail or creates one; an existing user keeps their name. */
export const ensure = (email: string, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`
      INSERT INTO users (email, name) VALUES (${email.trim()}, ${name.trim()})
      ON CONFLICT ((lower(email))) DO UPDATE SET email = users.email
      RETURNING *`.pipe(Effect.map((r) => r[0]!)),
  )

export const touchLogin = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE users SET last_login_at = now() WHERE id = ${id}`)

export const setActiveWorkspace = (userId: number, workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE users SET active_workspace_id = ${workspaceId} WHERE id = ${userId}`.pipe(
      Effect.tap(() => invalidateCredentials({ userId })),
    ),
  )

/** Changes locale and/or personal zone (null = follow the workspace); returns the updated user. */
export const updateProfile = (
  id: number,
  change: { readonly locale?: 'en' | 'id'; readonly timezone?: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`
      UPDATE users SET
        locale = COALESCE(${change.locale ?? null}, locale),
        timezone = CASE WHEN ${change.timezone !== undefined} THEN ${change.timezone ?? null} ELSE timezone END
      WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
      Effect.tap(() => invalidateCredentials({ userId: id })),
    ),
  )

/** Merges personal preferences (`null` removes a key); returns the updated user. */
export const mergePreferences = (id: number, patch: Readonly<Record<string, unknown>>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== null))
    const drop = Object.keys(patch).filter((k) => patch[k] === null)
    return sql<UserRow>`
      UPDATE users SET preferences = (preferences || ${JSON.stringify(set)}::jsonb) - ${`{${drop.join(',')}}`}::text[]
      WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
      Effect.tap(() => invalidateCredentials({ userId: id })),
    )
  })

/** Holds the user's row lock until the surrounding transaction ends (one account's creations). */
export const lock = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT id FROM users WHERE id = ${id} FOR UPDATE`)

/**
 * `setActiveWorkspace` inside a transaction: cached credentials are left to the caller, to drop
 * after the commit (dropped before it, another node could cache the old row again).
 */
export const setActiveWorkspaceUncached = (userId: number, workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`UPDATE users SET active_workspace_id = ${workspaceId} WHERE id = ${userId}`,
  )
