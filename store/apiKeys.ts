import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { invalidateCredentials } from '../engine/events'
import { digest, randomToken } from '../engine/tokens'

export const KEY_PREFIX = 'svca_live_'
/** `svca_live_` followed by 43 base64url characters (32 random bytes). */
export const KEY_PATTERN = /^svca_live_[A-Za-z0-9_-]{43}$/
export const MAX_ACTIVE_KEYS = 10

export type Scope = 'read' | 'write'

export interface ApiKeyRow {
  readonly id: number
  readonly workspace_id: number
  readonly created_by: number
  readonly name: string
  readonly scope: Scope
  readonly prefix: string
  readonly last_used_at: Date | null
  readonly revoked_at: Date | null
  readonly created_at: Date
}

/** Creates a key; the full secret exists only in this return value. */
export const create = (workspaceId: number, createdBy: number, name: string, scope: Scope) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const key = KEY_PREFIX + randomToken(32)
    const prefix = key.slice(0, KEY_PREFIX.length + 6)
    return sql<ApiKeyRow>`
      INSERT INTO api_keys (workspace_id, created_by, name, scope, prefix, secret_hash)
      VALUES (${workspaceId}, ${createdBy}, ${name}, ${scope}, ${prefix}, ${digest(key)})
      RETURNING id, workspace_id, created_by, name, scope, prefix, last_used_at, revoked_at, created_at`.pipe(
      Effect.map((r) => ({ row: r[0]!, key })),
    )
  })

/**
 * Creates a key unless the workspace already has `MAX_ACTIVE_KEYS` active ones. The workspace row
 * is locked for the count, so concurrent creations cannot overshoot the limit.
 */
export const createWithinLimit = (workspaceId: number, createdBy: number, name: string, scope: Scope) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM workspaces WHERE id = ${workspaceId} FOR UPDATE`
        if ((yield* countActive(workspaceId)) >= MAX_ACTIVE_KEYS) return null
        return yield* create(workspaceId, createdBy, name, scope)
      }),
    ),
  )

export const listActive = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<ApiKeyRow & { creator_name: string }>`
      SELECT k.id, k.workspace_id, k.created_by, k.name, k.scope, k.prefix, k.last_used_at, k.revoked_at,
             k.created_at, u.name AS creator_name
      FROM api_keys k JOIN users u ON u.id = k.created_by
      WHERE k.workspace_id = ${workspaceId} AND k.revoked_at IS NULL
      ORDER BY k.created_at DESC, k.id DESC`,
  )

export const countActive = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      n: number
    }>`SELECT count(*) AS n FROM api_keys WHERE workspace_id = ${workspaceId} AND revoked_at IS NULL`.pipe(
      Effect.map((r) => r[0]!.n),
    ),
  )

/**
 * The active key with this secret, or null. Marks it used at most once a minute, so a busy key
 * does not turn every read into a write.
 */
export const findActive = (secret: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const hash = digest(secret)
    return sql<ApiKeyRow>`
      WITH touched AS (
        UPDATE api_keys SET last_used_at = now()
        WHERE secret_hash = ${hash} AND revoked_at IS NULL
          AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
        RETURNING id)
      SELECT id, workspace_id, created_by, name, scope, prefix, last_used_at, revoked_at, created_at
      FROM api_keys WHERE secret_hash = ${hash} AND revoked_at IS NULL`.pipe(Effect.map((r) => r[0] ?? null))
  })

export const revoke = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      UPDATE api_keys SET revoked_at = now()
      WHERE id = ${id} AND workspace_id = ${workspaceId} AND revoked_at IS NULL RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
      // Nodes that cached this key drop it before the revocation is answered.
      Effect.tap((revoked) => (revoked ? invalidateCredentials({ workspaceId }) : Effect.void)),
    ),
  )

/** Marks a key used now (callers throttle this to once a minute). */
export const touch = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE api_keys SET last_used_at = now() WHERE id = ${id}`)
