import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * Custom field definitions (spec 2 §2, §4.4) for the five entities; values live in each entity's
 * `custom` jsonb under the definition's key. Keys are unique per workspace and entity.
 */
export const ENTITIES = ['contact', 'interaction', 'ticket', 'lead', 'client'] as const
export type Entity = (typeof ENTITIES)[number]

export interface FieldRow {
  readonly id: number
  readonly workspace_id: number
  readonly entity: Entity
  readonly key: string
  readonly label: string
  readonly type: string
  readonly options: readonly string[]
  readonly position: number
  readonly created_at: Date
  readonly updated_at: Date
}

export const list = (workspaceId: number, entities: readonly Entity[]) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<FieldRow>`
      SELECT * FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ANY(${`{${entities.join(',')}}`}::text[])
      ORDER BY array_position(${`{${ENTITIES.join(',')}}`}::text[], entity), position, id`,
  )

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<FieldRow>`SELECT * FROM custom_fields WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface NewField {
  readonly entity: Entity
  readonly key: string
  readonly label: string
  readonly type: string
  readonly options: readonly string[]
}

/**
 * A new definition at the end of its entity's order, unless the entity has `max` already or the
 * key is taken: the workspace's definitions of that entity are locked for the count, so two
 * concurrent creations cannot pass the limit together.
 */
export const insertWithin = (workspaceId: number, f: NewField, max: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${workspaceId}, hashtext(${`custom_fields:${f.entity}`}))`
        const rows = yield* sql<{ key: string; position: number }>`
          SELECT key, position FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ${f.entity}`
        if (rows.length >= max) return { _tag: 'Full' as const }
        if (rows.some((r) => r.key === f.key)) return { _tag: 'KeyTaken' as const }
        const position = rows.reduce((m, r) => Math.max(m, r.position + 1), 0)
        const [row] = yield* sql<FieldRow>`
          INSERT INTO custom_fields (workspace_id, entity, key, label, type, options, position)
          VALUES (${workspaceId}, ${f.entity}, ${f.key}, ${f.label}, ${f.type}, ${JSON.stringify(f.options)}::jsonb, ${position})
          RETURNING *`
        return { _tag: 'Created' as const, row: row! }
      }),
    ),
  )

export const keysOf = (workspaceId: number, entity: Entity) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      key: string
    }>`SELECT key FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ${entity}`.pipe(
      Effect.map((r) => new Set(r.map((x) => x.key))),
    ),
  )

/** Changes the given fields only, so a change made meanwhile to the other stays. */
export const change = (id: number, f: { readonly label?: string; readonly options?: readonly string[] }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const sets = [
      sql`updated_at = now()`,
      ...(f.label !== undefined ? [sql`label = ${f.label}`] : []),
      ...(f.options !== undefined ? [sql`options = ${JSON.stringify(f.options)}::jsonb`] : []),
    ]
    return sql`UPDATE custom_fields SET ${sql.csv(sets)} WHERE id = ${id}`.pipe(Effect.asVoid)
  })

/** Moves a definition to `position` (0-based) within its entity, renumbering the others. */
export const move = (workspaceId: number, entity: Entity, id: number, position: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* sql<{ id: number }>`
          SELECT id FROM custom_fields WHERE workspace_id = ${workspaceId} AND entity = ${entity}
          ORDER BY position, id FOR UPDATE`
        const ids = rows.map((r) => r.id).filter((x) => x !== id)
        ids.splice(Math.min(position, ids.length), 0, id)
        yield* sql`UPDATE custom_fields f SET position = o.ord - 1
          FROM unnest(${`{${ids.join(',')}}`}::int[]) WITH ORDINALITY AS o(id, ord) WHERE f.id = o.id`
      }),
    ),
  )

/**
 * Deletes a definition and its values: contacts' and conversations' `custom` lose the key in the
 * same transaction (leads, clients and tickets too), so a field created
 * again later under the same key starts empty.
 */
export const remove = (f: FieldRow) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`DELETE FROM custom_fields WHERE id = ${f.id}`
        if (f.entity === 'contact')
          yield* sql`UPDATE contacts SET custom = custom - ${f.key}
            WHERE workspace_id = ${f.workspace_id} AND custom ? ${f.key}`
        if (f.entity === 'interaction')
          yield* sql`UPDATE conversations SET custom = custom - ${f.key}
            WHERE workspace_id = ${f.workspace_id} AND custom ? ${f.key}`
        if (f.entity === 'lead')
          yield* sql`UPDATE leads SET custom = custom - ${f.key}
            WHERE workspace_id = ${f.workspace_id} AND custom ? ${f.key}`
        if (f.entity === 'client')
          yield* sql`UPDATE clients SET custom = custom - ${f.key}
            WHERE workspace_id = ${f.workspace_id} AND custom ? ${f.key}`
        if (f.entity === 'ticket')
          yield* sql`UPDATE tickets SET custom = custom - ${f.key}
            WHERE workspace_id = ${f.workspace_id} AND custom ? ${f.key}`
      }),
    ),
  )
