import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { disconnectSession, invalidateCredentials } from '../engine/events'
import { digest, randomToken } from '../engine/tokens'

export interface SessionRow {
  readonly id: number
  readonly user_id: number
  readonly csrf_token: string
  readonly via: 'oidc' | 'link' | 'passkey'
  readonly expires_at: Date
}

/** Where a session began: the browser's user agent (cut to 400 characters) and address. */
export interface SessionDevice {
  readonly userAgent: string | null
  readonly ip: string | null
}

/**
 * A new session; the token (cookie value) is returned once and stored only as a digest. A session
 * begun with a passkey names it, so deleting the passkey ends the session (store/passkeys.ts).
 */
export const create = (
  userId: number,
  via: SessionRow['via'],
  ttlHours: number,
  passkeyId: number | null,
  device: SessionDevice = { userAgent: null, ip: null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const token = randomToken(32)
    const csrf = randomToken(24)
    return sql<SessionRow>`
      INSERT INTO sessions (user_id, token_hash, csrf_token, via, expires_at, passkey_id, user_agent, ip)
      VALUES (${userId}, ${digest(token)}, ${csrf}, ${via}, now() + make_interval(hours => ${ttlHours}),
              ${passkeyId}, ${device.userAgent?.slice(0, 400) ?? null}, ${device.ip})
      RETURNING id, user_id, csrf_token, via, expires_at`.pipe(Effect.map((r) => ({ session: r[0]!, token })))
  })

export interface ListedSession {
  readonly id: number
  readonly via: SessionRow['via']
  readonly created_at: Date
  readonly expires_at: Date
  readonly user_agent: string | null
  readonly ip: string | null
}

/** A person's sessions still going, newest first (never their tokens). */
export const activeOf = (userId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<ListedSession>`
      SELECT id, via, created_at, expires_at, user_agent, ip FROM sessions
      WHERE user_id = ${userId} AND ended_at IS NULL AND expires_at > now()
      ORDER BY created_at DESC, id DESC`,
  )

/**
 * What ending a session tells the nodes: cached credentials of its user go, and the real-time
 * sockets it opened close (4503), so a signed-out browser stops receiving at once.
 */
const ended = (r: ReadonlyArray<{ readonly id: number; readonly user_id: number }>) =>
  r[0]
    ? Effect.zipRight(
        invalidateCredentials({ userId: r[0].user_id }),
        disconnectSession(r[0].user_id, r[0].id),
      )
    : Effect.void

/** Ends one of a person's sessions if it is theirs and still going: whether it did. */
export const endOf = (userId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number; user_id: number }>`
      UPDATE sessions SET ended_at = now()
      WHERE id = ${id} AND user_id = ${userId} AND ended_at IS NULL AND expires_at > now()
      RETURNING id, user_id`.pipe(
      Effect.tap(ended),
      Effect.map((r) => r.length > 0),
    ),
  )

/** Whether a session is still going: a real-time token names the session that asked for it. */
export const isActive = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      SELECT id FROM sessions WHERE id = ${id} AND ended_at IS NULL AND expires_at > now()`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )

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
    sql<{ id: number; user_id: number }>`
      UPDATE sessions SET ended_at = now() WHERE id = ${id} RETURNING id, user_id`.pipe(Effect.tap(ended)),
  )

/** Ends the session a cookie names, whoever's it is, if it is still going. */
export const endByToken = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number; user_id: number }>`
      UPDATE sessions SET ended_at = now() WHERE token_hash = ${digest(token)} AND ended_at IS NULL
      RETURNING id, user_id`.pipe(Effect.tap(ended)),
  )

/**
 * Ends every session of a user (disabled member, sign-out everywhere) and, in the same statement,
 * every sign-in link of theirs still unused: a link mailed or printed before would otherwise start
 * a new session right after. The links expire rather than count as used (their page then says
 * "expired", not that someone used them). Answers how many sessions ended.
 */
export const endAllOf = (userId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      WITH links AS (
        UPDATE login_links SET expires_at = now()
        WHERE user_id = ${userId} AND used_at IS NULL AND expires_at > now()
      )
      UPDATE sessions SET ended_at = now() WHERE user_id = ${userId} AND ended_at IS NULL RETURNING id`.pipe(
      Effect.tap(() => invalidateCredentials({ userId })),
      Effect.map((r) => r.length),
    ),
  )

/**
 * One-time sign-in link (the operator CLI's, or e-mailed on request: then `requestedFrom` is the
 * asking address, which the hourly cap counts by).
 */
export const createLoginLink = (userId: number, ttlMinutes: number, requestedFrom: string | null = null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const token = randomToken(32)
    return sql`
      INSERT INTO login_links (user_id, token_hash, expires_at, requested_from)
      VALUES (${userId}, ${digest(token)}, now() + make_interval(mins => ${ttlMinutes}), ${requestedFrom})`.pipe(
      Effect.as(token),
    )
  })

export type LoginLinkStatus = 'valid' | 'used' | 'expired' | 'invalid'

/**
 * What a link is without using it (its page asks before offering the button): `invalid` for a
 * token no link has, else whether it was used or expired, and whose it is.
 */
export const loginLinkStatus = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ email: string; used: boolean; live: boolean }>`
      SELECT u.email, l.used_at IS NOT NULL AS used, l.expires_at > now() AS live
      FROM login_links l JOIN users u ON u.id = l.user_id
      WHERE l.token_hash = ${digest(token)}`.pipe(
      Effect.map((r): { readonly status: LoginLinkStatus; readonly email: string | null } => {
        const l = r[0]
        if (!l) return { status: 'invalid', email: null }
        return { status: l.used ? 'used' : l.live ? 'valid' : 'expired', email: l.email }
      }),
    ),
  )

/**
 * Links made for a user in the last `minutes`: all of them, and those asked from `address` (the
 * caps on e-mailed links per person, and per person and address).
 */
export const recentLoginLinks = (userId: number, minutes: number, address: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ total: number; from_address: number }>`
      SELECT count(*)::int AS total,
             (count(*) FILTER (WHERE requested_from = ${address}))::int AS from_address
      FROM login_links
      WHERE user_id = ${userId} AND created_at > now() - make_interval(mins => ${minutes})`.pipe(
      Effect.map((r) => ({ total: r[0]?.total ?? 0, fromAddress: r[0]?.from_address ?? 0 })),
    ),
  )

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
