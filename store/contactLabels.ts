import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { LabelRow } from './contacts'
import { orIfTaken } from './unique'

/**
 * The label resource of spec 2 §4.4 (`/labels`): name (unique per workspace, case-insensitive),
 * colour, order, and how many live contacts carry each. Deleting a label removes it from every
 * contact (contact_labels cascades).
 */
export interface LabelWithCount extends LabelRow {
  readonly contacts_count: number
}

export const list = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LabelWithCount>`
      SELECT l.*, (SELECT count(*)::int FROM contact_labels cl JOIN contacts c ON c.id = cl.contact_id
                   WHERE cl.label_id = l.id AND c.merged_into IS NULL AND c.deleting_at IS NULL) AS contacts_count
      FROM labels l WHERE l.workspace_id = ${workspaceId} ORDER BY l.position, l.id`,
  )

export const nameTaken = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM labels WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name})
          AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

/**
 * A new label at the end of the order, or null when the name is taken (the unique index decides
 * between two creations at once).
 */
export const insert = (workspaceId: number, name: string, color: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`
      INSERT INTO labels (workspace_id, name, color, position)
      VALUES (${workspaceId}, ${name}, ${color},
              (SELECT COALESCE(max(position) + 1, 0) FROM labels WHERE workspace_id = ${workspaceId}))
      ON CONFLICT (workspace_id, lower(name)) DO NOTHING RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/** The label of this name, regardless of case. */
export const byNameOf = (workspaceId: number, name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`SELECT * FROM labels WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name})`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

/**
 * Changes the given fields only (a change made meanwhile to the other stays); false when the new
 * name is taken (the unique index decides between two changes at once).
 */
export const change = (id: number, f: { readonly name?: string; readonly color?: string }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets = [
      ...(f.name !== undefined ? [sql`name = ${f.name}`] : []),
      ...(f.color !== undefined ? [sql`color = ${f.color}`] : []),
    ]
    if (sets.length === 0) return Effect.succeed(true)
    return sql`UPDATE labels SET ${sql.csv(sets)} WHERE id = ${id}`.pipe(Effect.as(true), orIfTaken(false))
  })

/** Moves a label to `position` (0-based) and renumbers the others of the workspace around it. */
export const move = (workspaceId: number, id: number, position: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql<{ id: number }>`
          SELECT id FROM labels WHERE workspace_id = ${workspaceId} ORDER BY position, id FOR UPDATE`
        const ids = rows.map((r) => r.id).filter((x) => x !== id)
        ids.splice(Math.min(position, ids.length), 0, id)
        yield* sql`UPDATE labels l SET position = o.ord - 1
          FROM unnest(${`{${ids.join(',')}}`}::int[]) WITH ORDINALITY AS o(id, ord) WHERE l.id = o.id`
      }),
    ),
  )

export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM labels WHERE id = ${id}`.pipe(Effect.asVoid))

/** Every label of the workspace by lower-cased name (the CSV import's `labels` column). */
export const byName = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`SELECT * FROM labels WHERE workspace_id = ${workspaceId}`.pipe(
      Effect.map((rows) => new Map(rows.map((l) => [l.name.toLowerCase(), l]))),
    ),
  )
