import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { type KbViewer, visibleWhere } from './kbArticles'

/**
 * Knowledge categories (spec 2 §2, §4.5): name unique per workspace (regardless of case),
 * description, position; listed by position with the count of published articles the caller may
 * see. Deleting one leaves its articles uncategorized (`ON DELETE SET NULL`).
 */
export interface KbCategoryRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly description: string
  readonly position: number
  readonly created_at: Date
  readonly updated_at: Date
}

export interface KbCategoryView extends KbCategoryRow {
  readonly articles_count: number
}

/** Categories by position, each with the published articles `v` may see. */
export const list = (v: KbViewer) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<KbCategoryView>`
      SELECT k.*, (SELECT count(*)::int FROM kb_articles a
                   WHERE a.category_id = k.id AND a.status = 'published' AND ${visibleWhere(sql, v)}) AS articles_count
      FROM kb_categories k WHERE k.workspace_id = ${v.workspaceId}
      ORDER BY k.position, lower(k.name), k.id`,
  )

export const view = (v: KbViewer, id: number) =>
  Effect.map(list(v), (rows) => rows.find((r) => r.id === id) ?? null)

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<KbCategoryRow>`SELECT * FROM kb_categories WHERE workspace_id = ${workspaceId} AND id = ${id}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const nameTaken = (workspaceId: number, name: string, except: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`SELECT 1 FROM kb_categories WHERE workspace_id = ${workspaceId} AND lower(name) = lower(${name})
          AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
  )

export interface CategoryFields {
  readonly name: string
  readonly description: string
  /** Absent on create: after the last one. */
  readonly position: number | undefined
}

/** A new category; null when its name was taken meanwhile (the unique index decides). */
export const insert = (workspaceId: number, c: CategoryFields) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<KbCategoryRow>`
      INSERT INTO kb_categories (workspace_id, name, description, position)
      VALUES (${workspaceId}, ${c.name}, ${c.description},
              COALESCE(${c.position ?? null}::int,
                       (SELECT COALESCE(max(position) + 1, 0) FROM kb_categories WHERE workspace_id = ${workspaceId})))
      ON CONFLICT DO NOTHING
      RETURNING *`.pipe(Effect.map((r) => r[0] ?? null)),
  )

/**
 * Changes the sent fields of a category (absent ones stay as they are when the change runs, so
 * another change of other fields meanwhile stays); false when its new name was taken meanwhile.
 */
export const change = (
  id: number,
  c: { readonly [K in keyof CategoryFields]?: NonNullable<CategoryFields[K]> | undefined },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE kb_categories SET name = COALESCE(${c.name ?? null}::text, name),
          description = COALESCE(${c.description ?? null}::text, description),
          position = COALESCE(${c.position ?? null}::int, position),
          updated_at = now() WHERE id = ${id}`.pipe(
      Effect.as(true),
      Effect.catchTag('SqlError', (e) =>
        /kb_categories_name|duplicate key/.test(String(e.cause)) ? Effect.succeed(false) : Effect.fail(e),
      ),
    ),
  )

/** Deletes a category; answers the ids of the articles it held (now uncategorized). */
export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const held = yield* sql<{ id: number }>`SELECT id FROM kb_articles WHERE category_id = ${id}`
        yield* sql`DELETE FROM kb_categories WHERE id = ${id}`
        return held.map((r) => r.id)
      }),
    ),
  )
