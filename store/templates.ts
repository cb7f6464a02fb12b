import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { orIfTaken } from './unique'

/** Reply templates (spec 2 §4.2): name, shortcut, category, body and an optional attachment. */
export interface TemplateRow {
  readonly id: number
  readonly workspace_id: number
  readonly name: string
  readonly shortcut: string
  readonly category: string
  readonly body: string
  readonly file_id: number | null
  readonly created_by: number | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface TemplateView extends TemplateRow {
  readonly file_name: string | null
  readonly file_mime: string | null
  readonly file_size: number | null
}

const VIEW = `SELECT t.*, f.name AS file_name, f.mime AS file_mime, f.size AS file_size
  FROM templates t LEFT JOIN files f ON f.id = t.file_id`

const likePattern = (q: string) => `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`

export const list = (workspaceId: number, f: { readonly q?: string; readonly category?: string }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const parts: Fragment[] = [sql`t.workspace_id = ${workspaceId}`]
    if (f.q) {
      const p = likePattern(f.q)
      parts.push(sql`(t.name ILIKE ${p} OR t.shortcut ILIKE ${p} OR t.body ILIKE ${p})`)
    }
    if (f.category !== undefined) parts.push(sql`lower(t.category) = lower(${f.category})`)
    return sql<TemplateView>`${sql.literal(VIEW)} WHERE ${sql.and(parts)} ORDER BY lower(t.name), t.id`
  })

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<TemplateView>`${sql.literal(VIEW)} WHERE t.id = ${id} AND t.workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export interface TemplateInput {
  readonly name: string
  readonly shortcut: string
  readonly category: string
  readonly body: string
}

export const shortcutTaken = (workspaceId: number, shortcut: string, except: number | null) =>
  shortcut === ''
    ? Effect.succeed(false)
    : Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`SELECT 1 FROM templates WHERE workspace_id = ${workspaceId} AND lower(shortcut) = lower(${shortcut})
              AND id <> ${except ?? 0}`.pipe(Effect.map((r) => r.length > 0)),
      )

/** The new template's id, or null when its shortcut was taken meanwhile. */
export const insert = (workspaceId: number, t: TemplateInput, fileId: number | null, createdBy: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`
      INSERT INTO templates (workspace_id, name, shortcut, category, body, file_id, created_by)
      VALUES (${workspaceId}, ${t.name}, ${t.shortcut}, ${t.category}, ${t.body}, ${fileId}, ${createdBy})
      RETURNING id`.pipe(
      Effect.map((r) => r[0]!.id),
      orIfTaken(null),
    ),
  )

/** False when the shortcut was taken meanwhile. */
export const change = (id: number, t: TemplateInput) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE templates SET name = ${t.name}, shortcut = ${t.shortcut}, category = ${t.category}, body = ${t.body},
          updated_at = now() WHERE id = ${id}`.pipe(Effect.as(true), orIfTaken(false)),
  )

export const setFile = (id: number, fileId: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE templates SET file_id = ${fileId}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM templates WHERE id = ${id}`.pipe(Effect.asVoid),
  )

/**
 * Fills a template's variables: `{{contact_name}}`, `{{contact_phone}}`, `{{contact_email}}`,
 * `{{agent_name}}`, `{{workspace_name}}` (spaces inside the braces allowed). Unknown variables
 * stay as written; a known one without a value becomes empty.
 */
export const render = (body: string, vars: Readonly<Record<string, string | null | undefined>>): string =>
  body.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (m, name: string) => {
    const key = name.toLowerCase()
    // Own keys only: `{{constructor}}` or `{{__proto__}}` must not read the object's prototype.
    return Object.hasOwn(vars, key) ? (vars[key] ?? '') : m
  })
