import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { digest, randomToken } from '../../engine/tokens'

/** Keys of this service: `svcb_live_` + 43 base64url characters (32 random bytes). */
export const KEY_PREFIX = 'svcb_live_'
export const KEY_PATTERN = /^svcb_live_[A-Za-z0-9_-]{43}$/

export interface KeyRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly prefix: string
  readonly last_used_at: Date | null
  readonly revoked_at: Date | null
  readonly created_at: Date
}

/** The active key behind a request, with what the pipeline needs of its workspace. */
export interface Credential {
  readonly key_id: number
  readonly workspace_id: number
  readonly plan_active: boolean
}

/** Creates a key; the secret exists only in this return value (stored as its SHA-256). */
export const create = (workspaceId: number, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const key = KEY_PREFIX + randomToken(32)
    return sql<KeyRow>`
      INSERT INTO social.api_keys (workspace_id, name, prefix, secret_hash)
      VALUES (${workspaceId}, ${name}, ${key.slice(0, KEY_PREFIX.length + 6)}, ${digest(key)})
      RETURNING id, workspace_id, name, prefix, last_used_at, revoked_at, created_at`.pipe(
      Effect.map((r) => ({ row: r[0]!, key })),
    )
  })

export const list = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<KeyRow>`
      SELECT id, workspace_id, name, prefix, last_used_at, revoked_at, created_at
      FROM social.api_keys WHERE workspace_id = ${workspaceId} ORDER BY id`,
  )

/** Revokes at once: the next request with the key gets 401. False if unknown or already revoked. */
export const revoke = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      UPDATE social.api_keys SET revoked_at = now()
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND revoked_at IS NULL RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

/**
 * The active key with this secret and its workspace's plan state, or null. `last_used_at` is
 * written at most once a minute, so a busy key does not turn every read into a write.
 */
export const authenticate = (secret: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const hash = digest(secret)
    return sql<Credential>`
      WITH touched AS (
        UPDATE social.api_keys SET last_used_at = now()
        WHERE secret_hash = ${hash} AND revoked_at IS NULL
          AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
        RETURNING id)
      SELECT k.id AS key_id, k.workspace_id,
        (w.plan = 'pro' AND (w.pro_until IS NULL
          OR w.pro_until >= (now() AT TIME ZONE 'Asia/Jakarta')::date)) AS plan_active
      FROM social.api_keys k JOIN social.workspaces w ON w.id = k.workspace_id
      WHERE k.secret_hash = ${hash} AND k.revoked_at IS NULL`.pipe(Effect.map((r) => r[0] ?? null))
  })
