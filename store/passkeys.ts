import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { invalidateCredentials } from '../engine/events'
import { pgArray } from './arrays'

/** A person's passkeys (WebAuthn credentials) and the challenges of ceremonies in flight. */

export interface PasskeyRow {
  readonly id: number
  readonly user_id: number
  /** The authenticator's credential id, base64url. */
  readonly credential_id: string
  readonly public_key: Uint8Array
  readonly counter: number
  readonly transports: readonly string[]
  readonly name: string
  readonly backed_up: boolean
  readonly created_at: Date
  readonly last_used_at: Date | null
}

/** Columns as read: the counter is a bigint, which node-postgres would hand over as text. */
const columns = (sql: SqlClient.SqlClient) =>
  sql`id, user_id, credential_id, public_key, counter::float8 AS counter, transports, name, backed_up,
      created_at, last_used_at`

export interface NewPasskey {
  readonly userId: number
  readonly credentialId: string
  readonly publicKey: Uint8Array
  readonly counter: number
  readonly transports: readonly string[]
  readonly name: string
  readonly backedUp: boolean
}

/** A new passkey, or null when that credential is registered already (to anyone). */
export const create = (p: NewPasskey) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PasskeyRow>`
      INSERT INTO passkeys (user_id, credential_id, public_key, counter, transports, name, backed_up)
      VALUES (${p.userId}, ${p.credentialId}, ${Buffer.from(p.publicKey)}, ${p.counter},
              ${pgArray(p.transports)}::text[], ${p.name}, ${p.backedUp})
      ON CONFLICT (credential_id) DO NOTHING
      RETURNING ${columns(sql)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export const listOf = (userId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<PasskeyRow>`SELECT ${columns(sql)} FROM passkeys WHERE user_id = ${userId} ORDER BY created_at, id`,
  )

export const byCredentialId = (credentialId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PasskeyRow>`SELECT ${columns(sql)} FROM passkeys WHERE credential_id = ${credentialId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/** Renames one of the user's passkeys; null when the user has none with that id. */
export const rename = (userId: number, id: number, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<PasskeyRow>`
      UPDATE passkeys SET name = ${name} WHERE id = ${id} AND user_id = ${userId}
      RETURNING ${columns(sql)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * Deletes one of the user's passkeys and, in the same statement, ends the sessions it began (the
 * column's ON DELETE SET NULL alone would leave them signed in); null when the user has none with
 * that id, else how many sessions ended.
 */
export const remove = (userId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ ended: number[] }>`
      WITH ended AS (
        UPDATE sessions SET ended_at = now()
        WHERE passkey_id = ${id} AND user_id = ${userId} AND ended_at IS NULL
        RETURNING id
      )
      DELETE FROM passkeys WHERE id = ${id} AND user_id = ${userId}
      RETURNING (SELECT coalesce(array_agg(id), '{}') FROM ended) AS ended`.pipe(
      Effect.flatMap((r) => {
        const row = r[0]
        if (!row) return Effect.succeed(null)
        const ended = row.ended.map(Number)
        return ended.length > 0 ? Effect.as(invalidateCredentials({ userId }), ended) : Effect.succeed(ended)
      }),
    ),
  )

/**
 * Records a sign-in with the passkey. The counter only moves forward and only from the value the
 * verification saw: of two sign-ins replaying one assertion at once, the second finds the counter
 * moved and gets false (an authenticator that keeps no counter reports 0 each time, and passes).
 */
export const used = (id: number, seenCounter: number, newCounter: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      UPDATE passkeys SET counter = ${newCounter}, last_used_at = now()
      WHERE id = ${id} AND counter = ${seenCounter}
      RETURNING id`.pipe(Effect.map((r) => r.length > 0)),
  )

export type Purpose = 'register' | 'sign_in'

/**
 * Keeps a challenge for one ceremony (five minutes); expired ones of any ceremony go at the same
 * time, so the table holds only what is in flight.
 */
export const putChallenge = (challenge: string, purpose: Purpose, userId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.zipRight(
      sql`DELETE FROM passkey_challenges WHERE expires_at < now()`,
      sql`
        INSERT INTO passkey_challenges (challenge, purpose, user_id, expires_at)
        VALUES (${challenge}, ${purpose}, ${userId}, now() + interval '5 minutes')`,
    ),
  )

/**
 * Takes a challenge once: true when it was issued for this ceremony (and, for a registration, to
 * this user) and has not expired. A match is gone after, whatever the verification then finds, so
 * a failed attempt cannot be retried with the same challenge.
 */
export const takeChallenge = (challenge: string, purpose: Purpose, userId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ live: boolean }>`
      DELETE FROM passkey_challenges
      WHERE challenge = ${challenge} AND purpose = ${purpose} AND user_id IS NOT DISTINCT FROM ${userId}
      RETURNING expires_at > now() AS live`.pipe(Effect.map((r) => r[0]?.live === true)),
  )
