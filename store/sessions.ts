import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { invalidateCredentials } from '../engine/events'
import { digest, randomToken } from '../engine/tokens'

export interface SessionRow {
  readonly id: number
  readonly user_id: number
  readonly csrf_token: string
  readonly via: 'oidc' | 'link' | 'passkey'
  readonly expires_at: Date
}

/** A new session; the token (cookie value) is returned once and stored only as a digest. */
export const create = (userId: number, via: SessionRow['via'], ttlHours: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const token = randomToken(32)
    const csrf = randomToken(24)
    return sql<SessionRow>`
      INSERT INTO sessions (user_id, token_hash, csrf_token, via, expires_at)
      VALUES (${userId}, ${digest(token)}, ${csrf}, ${via}, now() + make_interval(hours => ${ttlHours}))
      RETURNING id, user_id, csrf_token, via, expires_at`.pipe(Effect.map((r) => ({ session: r[0]!, token })))
  })

export const findActive = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<SessionRow>`
      SELECT id, user_id, csrf_token, via, expires_at FROM sessions
      WHERE token_hash = ${digest(token)} AND ended_at IS NULL AND expires_at > now()`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const end = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ user_id: number }>`UPDATE sessions SET ended_at = now() WHERE id = ${id} RETURNING user_id`.pipe(
      Effect.tap((r) => (r[0] ? invalidateCredentials({ userId: r[0].user_id }) : Effect.void)),
    ),
  )

/** Ends every session of a user (disabled member, sign-out everywhere). */
export const endAllOf = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE sessions SET ended_at = now() WHERE user_id = ${userId} AND ended_at IS NULL`.pipe(
      Effect.tap(() => invalidateCredentials({ userId })),
    ),
  )

/** One-time sign-in link for the operator CLI. */
export const createLoginLink = (userId: number, ttlMinutes: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const token = randomToken(32)
    return sql`
      INSERT INTO login_links (user_id, token_hash, expires_at)
      VALUES (${userId}, ${digest(token)}, now() + make_interval(mins => ${ttlMinutes}))`.pipe(
      Effect.as(token),
    )
  })

/** Consumes a link atomically: of two concurrent uses only one gets the user id. */
export const consumeLoginLink = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ user_id: number }>`
      UPDATE login_links SET used_at = now()
      WHERE token_hash = ${digest(token)} AND used_at IS NULL AND expires_at > now()
      RETURNING user_id`.pipe(Effect.map((r) => r[0]?.user_id ?? null)),
  )

export interface AuthRequest {
  readonly state: string
  readonly code_verifier: string
  readonly nonce: string
  readonly return_to: string
}

export const putAuthRequest = (req: AuthRequest) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`
      INSERT INTO auth_requests (state, code_verifier, nonce, return_to, expires_at)
      VALUES (${req.state}, ${req.code_verifier}, ${req.nonce}, ${req.return_to}, now() + interval '10 minutes')`,
  )

export const takeAuthRequest = (state: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<AuthRequest>`
      DELETE FROM auth_requests WHERE state = ${state} AND expires_at > now()
      RETURNING state, code_verifier, nonce, return_to`.pipe(Effect.map((r) => r[0] ?? null)),
  )
