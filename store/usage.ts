import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/** Used amount of one counter in one period (0 when nothing was used yet). */
export const used = (workspaceId: number, counter: string, period: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ used: number }>`
      SELECT used FROM usage_counters WHERE workspace_id = ${workspaceId} AND counter = ${counter} AND period = ${period}`.pipe(
      Effect.map((r) => r[0]?.used ?? 0),
    ),
  )

/**
 * Adds `n` unless that would pass `limit` (0 = unlimited); returns the new total or null when
 * refused. The check is part of the UPDATE, so two writers can never overshoot together.
 */
export const consume = (workspaceId: number, counter: string, period: string, n: number, limit: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ used: number }>`
      INSERT INTO usage_counters AS u (workspace_id, counter, period, used)
      SELECT ${workspaceId}, ${counter}, ${period}, ${n} WHERE ${limit}::int = 0 OR ${n}::int <= ${limit}::int
      ON CONFLICT (workspace_id, counter, period) DO UPDATE SET used = u.used + ${n}
      WHERE ${limit}::int = 0 OR u.used + ${n} <= ${limit}::int
      RETURNING used`.pipe(Effect.map((r) => r[0]?.used ?? null)),
  )

/**
 * Gives back `n` of a counter in one period (a reservation the caller did not use up); never
 * below 0. Returns the new total.
 */
export const release = (workspaceId: number, counter: string, period: string, n: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ used: number }>`
      UPDATE usage_counters SET used = GREATEST(used - ${n}, 0)
      WHERE workspace_id = ${workspaceId} AND counter = ${counter} AND period = ${period}
      RETURNING used`.pipe(Effect.map((r) => r[0]?.used ?? 0)),
  )
