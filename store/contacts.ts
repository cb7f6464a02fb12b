import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * The minimal contact record conversations point at (name, phone, e-mail) and contact labels.
 * The contacts issue adds the full resource (company, owner, custom fields, merge, import).
 */
export interface ContactRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly phone: string | null
  readonly email: string | null
  readonly avatar_file_id: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactRow>`SELECT * FROM contacts WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const create = (
  workspaceId: number,
  c: { readonly name: string; readonly phone?: string | null; readonly email?: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<ContactRow>`
      INSERT INTO contacts (workspace_id, name, phone, email)
      VALUES (${workspaceId}, ${c.name}, ${c.phone ?? null}, ${c.email ?? null}) RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

/**
 * The contact a channel's customer is: an existing one of the workspace with the same e-mail
 * (case-insensitive), else the same phone, else a new one. Joins the caller's transaction.
 */
export const matchOrCreate = (
  workspaceId: number,
  c: { readonly name: string; readonly phone: string | null; readonly email: string | null },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const [known] = yield* sql<{ id: number }>`
        SELECT id FROM contacts WHERE workspace_id = ${workspaceId}
          AND ((${c.email}::text IS NOT NULL AND lower(email) = lower(${c.email}))
            OR (${c.email}::text IS NULL AND ${c.phone}::text IS NOT NULL AND phone = ${c.phone}))
        ORDER BY id LIMIT 1`
      if (known) return { id: known.id, created: false }
      return { id: (yield* create(workspaceId, c)).id, created: true }
    }),
  )

export interface LabelRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly color: string
  readonly position: number
}

export const labelById = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`SELECT * FROM labels WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const labelsByIds = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as readonly LabelRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<LabelRow>`SELECT * FROM labels WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(ids)}`,
      )

export const createLabel = (workspaceId: number, name: string, color = '') =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<LabelRow>`INSERT INTO labels (workspace_id, name, color) VALUES (${workspaceId}, ${name}, ${color}) RETURNING *`.pipe(
      Effect.map((r) => r[0]!),
    ),
  )

/** Adds a label to a contact (nothing happens when it has it already). */
export const addLabel = (contactId: number, labelId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO contact_labels (contact_id, label_id) VALUES (${contactId}, ${labelId}) ON CONFLICT DO NOTHING`.pipe(
      Effect.asVoid,
    ),
  )

export const labelsOf = (contactId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<LabelRow>`
      SELECT l.* FROM labels l JOIN contact_labels cl ON cl.label_id = l.id
      WHERE cl.contact_id = ${contactId} ORDER BY l.position, l.id`,
  )
