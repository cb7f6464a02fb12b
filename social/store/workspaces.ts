import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

import type { Plan } from '../plan'

export { type Plan, plans } from '../plan'

export interface WorkspaceRow {
  readonly id: number
  readonly name: string
  readonly plan: Plan
  /** Last day of the Pro plan (`YYYY-MM-DD`, Asia/Jakarta), or null for no end. */
  readonly pro_until: string | null
  /** On an active Pro plan today (Asia/Jakarta): what the API requires (else 402). */
  readonly plan_active: boolean
  readonly created_at: Date
}

const columns = (sql: SqlClient.SqlClient) => sql`
  id, name, plan, to_char(pro_until, 'YYYY-MM-DD') AS pro_until, created_at,
  (plan = 'pro' AND (pro_until IS NULL OR pro_until >= (now() AT TIME ZONE 'Asia/Jakarta')::date)) AS plan_active`

export const create = (name: string, plan: Plan, proUntil: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`
      INSERT INTO social.workspaces (name, plan, pro_until) VALUES (${name}, ${plan}, ${proUntil}::date)
      RETURNING ${columns(sql)}`.pipe(Effect.map((r) => r[0]!)),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`SELECT ${columns(sql)} FROM social.workspaces WHERE id = ${id}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const list = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<WorkspaceRow>`SELECT ${columns(sql)} FROM social.workspaces ORDER BY id`,
)

export const setPlan = (id: number, plan: Plan, proUntil: string | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow>`
      UPDATE social.workspaces SET plan = ${plan}, pro_until = ${proUntil}::date WHERE id = ${id}
      RETURNING ${columns(sql)}`.pipe(Effect.map((r) => r[0] ?? null)),
  )
