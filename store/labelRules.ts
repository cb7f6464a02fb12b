import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { orIfTaken } from './unique'

/**
 * Messaging-app label rules (spec 2 §4.2, Pro): when a business label is applied to a chat on the
 * phone, the rules of that number with that label name run: `contact_label` (add a contact
 * label), `assign_team` (hand the conversation to a Frontline team) or `solve`.
 */
export type RuleAction = 'contact_label' | 'assign_team' | 'solve'

export interface RuleRow {
  readonly id: number
  readonly workspace_id: number
  readonly channel_id: number
  readonly label_name: string
  readonly action: RuleAction
  readonly value: number | null
  readonly active: boolean
  readonly created_at: Date
}

export interface RuleView extends RuleRow {
  readonly ch_name: string
  readonly value_label: string | null
}

const VIEW = `SELECT r.*, ch.name AS ch_name,
    CASE r.action WHEN 'contact_label' THEN (SELECT l.name FROM labels l WHERE l.id = r.value)
                  WHEN 'assign_team' THEN (SELECT t.name FROM teams t WHERE t.id = r.value)
                  ELSE NULL END AS value_label
  FROM label_rules r JOIN channels ch ON ch.id = r.channel_id`

export const list = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<RuleView>`${sql.literal(VIEW)} WHERE r.workspace_id = ${workspaceId}
      ORDER BY lower(ch.name), lower(r.label_name), r.id`,
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<RuleView>`${sql.literal(VIEW)} WHERE r.id = ${id} AND r.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * The rule locked until the transaction ends: a change reads, checks and rewrites the whole row
 * (its action decides its value), so two changes at once take turns and the second starts from
 * the first's result.
 */
export const lockById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<RuleRow>`SELECT * FROM label_rules WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface RuleInput {
  readonly channelId: number
  readonly labelName: string
  readonly action: RuleAction
  readonly value: number | null
  readonly active: boolean
}

export const taken = (input: RuleInput, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM label_rules WHERE channel_id = ${input.channelId} AND lower(label_name) = lower(${input.labelName})
          AND action = ${input.action} AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

/** The new rule's id, or null when a rule of the same number, label and action was made meanwhile. */
export const insert = (workspaceId: number, r: RuleInput) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO label_rules (workspace_id, channel_id, label_name, action, value, active)
      VALUES (${workspaceId}, ${r.channelId}, ${r.labelName}, ${r.action}, ${r.value}, ${r.active}) RETURNING id`.pipe(
      Effect.map((x) => x[0]!.id),
      orIfTaken(null),
    ),
  )

/** False when another rule of the same number, label and action was made meanwhile. */
export const change = (id: number, r: RuleInput) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE label_rules SET channel_id = ${r.channelId}, label_name = ${r.labelName}, action = ${r.action},
          value = ${r.value}, active = ${r.active} WHERE id = ${id}`.pipe(Effect.as(true), orIfTaken(false)),
  )

export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM label_rules WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/** The active rules of a number for a label name (case-insensitive). */
export const matching = (channelId: number, labelName: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<RuleRow>`
      SELECT * FROM label_rules WHERE channel_id = ${channelId} AND lower(label_name) = lower(${labelName}) AND active
      ORDER BY id`,
  )
