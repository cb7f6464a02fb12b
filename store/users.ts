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

/**
 * Changes name, locale and/or personal zone (null = follow the workspace); returns the updated
 * user.
 */
export const updateProfile = (
  id: number,
  change: { readonly name?: string; readonly locale?: 'en' | 'id'; readonly timezone?: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`
      UPDATE users SET
        name = COALESCE(${change.name ?? null}, name),
        locale = COALESCE(${change.locale ?? null}, locale),
        timezone = CASE WHEN ${change.timezone !== undefined} THEN ${change.timezone ?? null} ELSE timezone END
      WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
      Effect.tap(() => invalidateCredentials({ userId: id })),
    ),
  )

/** A person's uploaded photo, or null. */
export const avatarOf = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ mime: string; bytes: Uint8Array; updated_at: Date }>`
      SELECT mime, bytes, updated_at FROM user_avatars WHERE user_id = ${id}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Stores a person's photo and points `avatar_url` at it (`url`), in one statement; the updated user. */
export const setAvatar = (id: number, mime: string, bytes: Uint8Array, url: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`
      WITH a AS (
        INSERT INTO user_avatars (user_id, mime, bytes) VALUES (${id}, ${mime}, ${Buffer.from(bytes)})
        ON CONFLICT (user_id) DO UPDATE SET mime = EXCLUDED.mime, bytes = EXCLUDED.bytes, updated_at = now()
      )
      UPDATE users SET avatar_url = ${url} WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
      Effect.tap(() => invalidateCredentials({ userId: id })),
    ),
  )

/** Drops a person's photo (`avatar_url` back to null); the updated user. */
export const removeAvatar = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<UserRow>`
      WITH a AS (DELETE FROM user_avatars WHERE user_id = ${id})
      UPDATE users SET avatar_url = NULL WHERE id = ${id} RETURNING *`.pipe(
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
