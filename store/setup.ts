import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { digest } from '../engine/tokens'

/**
 * The first run's setup token (migration 0106): at most one row, holding only the token's
 * digest. Whether the install is unclaimed is read from the data itself (no workspace, no user),
 * never from a flag that could disagree with it.
 */

/** True while the database holds no workspace and no user: nobody has claimed the install. */
export const unclaimed = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ open: boolean }>`
    SELECT NOT EXISTS (SELECT 1 FROM workspaces) AND NOT EXISTS (SELECT 1 FROM users) AS open`.pipe(
    Effect.map((r) => r[0]!.open),
  ),
)

/** Whether any workspace exists (then setup is over, whatever the token). */
export const anyWorkspace = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ any: boolean }>`SELECT EXISTS (SELECT 1 FROM workspaces) AS any`.pipe(Effect.map((r) => r[0]!.any)),
)

/** Stores `token`'s digest as the only setup token: an earlier one stops working. */
export const replace = (token: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql`
      INSERT INTO setup_tokens (id, token_hash) VALUES (1, ${digest(token)})
      ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, created_at = now()`,
  )

/** Removes any setup token (the install is claimed, or was set up another way). */
export const clear = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM setup_tokens`)

/** Whether `token` is the current setup token. */
export const holds = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ any: boolean }>`
      SELECT EXISTS (SELECT 1 FROM setup_tokens WHERE token_hash = ${digest(token)}) AS any`.pipe(
      Effect.map((r) => r[0]!.any),
    ),
  )

/**
 * Takes the token, if it is the current one, and leaves none behind. Of two takers at once only
 * one gets true: the second's DELETE waits for the first's row lock and then finds no row.
 */
export const take = (token: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`DELETE FROM setup_tokens WHERE token_hash = ${digest(token)} RETURNING id`.pipe(
      Effect.map((r) => r.length > 0),
    ),
  )
