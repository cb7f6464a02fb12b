import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { orIfTaken } from './unique'

/**
 * Conversation categories (spec 2 §4.2): a tree of at most 3 levels and 200 categories per
 * workspace, names unique within one parent. Every change runs in a transaction holding the
 * workspace's category lock, so limits and cycles are checked against a tree nobody else is
 * changing. The tree is small (≤ 200), so its shape is worked out in memory.
 */
export const MAX_DEPTH = 3
export const MAX_CATEGORIES = 200

export interface CategoryRow {
  readonly id: number
  readonly workspace_id: number
  readonly parent_id: number | null
  readonly name: string
  readonly color: string
  readonly position: number
  readonly created_at: Date
}

export interface CategoryNode extends CategoryRow {
  /** 0 = top level, at most MAX_DEPTH - 1. */
  readonly depth: number
  readonly path_text: string
  readonly children_count: number
}

const order = (a: CategoryRow, b: CategoryRow) =>
  a.position - b.position || a.name.localeCompare(b.name) || a.id - b.id

/** Tree order: each parent, then its children (by position, then name), depth-first. */
export const treeOf = (rows: readonly CategoryRow[]): CategoryNode[] => {
  const children = new Map<number | null, CategoryRow[]>()
  for (const r of rows) {
    const list = children.get(r.parent_id) ?? []
    list.push(r)
    children.set(r.parent_id, list)
  }
  const out: CategoryNode[] = []
  const walk = (parent: number | null, depth: number, path: string) => {
    for (const r of (children.get(parent) ?? []).sort(order)) {
      const path_text = path === '' ? r.name : `${path} › ${r.name}`
      out.push({ ...r, depth, path_text, children_count: children.get(r.id)?.length ?? 0 })
      walk(r.id, depth + 1, path_text)
    }
  }
  walk(null, 0, '')
  return out
}

/** The category and everything below it. */
export const subtreeIds = (rows: readonly CategoryRow[], id: number): number[] => {
  const out = [id]
  for (let i = 0; i < out.length; i++) for (const r of rows) if (r.parent_id === out[i]) out.push(r.id)
  return out
}

/** Levels below a category (0 for a leaf). */
export const heightOf = (rows: readonly CategoryRow[], id: number): number => {
  const kids = rows.filter((r) => r.parent_id === id)
  return kids.length === 0 ? 0 : 1 + Math.max(...kids.map((k) => heightOf(rows, k.id)))
}

export const depthOf = (rows: readonly CategoryRow[], id: number | null): number => {
  let depth = -1
  for (let at = id; at !== null && depth < MAX_CATEGORIES; depth++) {
    at = rows.find((r) => r.id === at)?.parent_id ?? null
  }
  return depth
}

export const all = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<CategoryRow>`SELECT * FROM conversation_categories WHERE workspace_id = ${workspaceId}`,
  )

/** Runs `f` over the workspace's categories in a transaction that holds its category lock. */
export const locked = <A, E, R>(
  workspaceId: number,
  f: (rows: readonly CategoryRow[]) => Effect.Effect<A, E, R>,
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(hashtext('conversation_categories'), ${workspaceId})`
        return yield* f(yield* all(workspaceId))
      }),
    ),
  )

export const insert = (
  workspaceId: number,
  c: {
    readonly name: string
    readonly color: string
    readonly parentId: number | null
    readonly position: number
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<CategoryRow>`
      INSERT INTO conversation_categories (workspace_id, parent_id, name, color, position)
      VALUES (${workspaceId}, ${c.parentId}, ${c.name}, ${c.color}, ${c.position}) RETURNING *`.pipe(
      Effect.map((r): CategoryRow | null => r[0]!),
      orIfTaken(null),
    ),
  )

export const change = (
  id: number,
  c: {
    readonly name: string
    readonly color: string
    readonly parentId: number | null
    readonly position: number
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<CategoryRow>`
      UPDATE conversation_categories
      SET name = ${c.name}, color = ${c.color}, parent_id = ${c.parentId}, position = ${c.position}
      WHERE id = ${id} RETURNING *`.pipe(
      Effect.map((r): CategoryRow | null => r[0]!),
      orIfTaken(null),
    ),
  )

/**
 * Deletes a category: its subcategories (renamed `Name (2)` if their parent already has one of
 * that name) and its conversations move to its parent; at top level, conversations become
 * uncategorized. Returns the ids of the conversations moved.
 *
 * The deleted category first takes a name no category can have (names are trimmed), so a
 * subcategory of the same name moves up and keeps it. Names are compared as the unique index
 * does (PostgreSQL's `lower`, which differs from JavaScript's, e.g. for a final sigma): each move
 * runs under a savepoint, and a name the index refuses tries the next number.
 */
export const removeInto = (rows: readonly CategoryRow[], target: CategoryRow) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`UPDATE conversation_categories SET name = ${`\n${target.id}`} WHERE id = ${target.id}`
      const siblings = new Set(
        rows
          .filter((r) => r.parent_id === target.parent_id && r.id !== target.id)
          .map((r) => r.name.toLowerCase()),
      )
      for (const child of rows.filter((r) => r.parent_id === target.id)) {
        for (let n = 1; ; n++) {
          const name = n === 1 ? child.name : `${child.name} (${n})`
          if (siblings.has(name.toLowerCase())) continue
          const moved = yield* sql
            .withTransaction(
              sql`UPDATE conversation_categories SET parent_id = ${target.parent_id}, name = ${name} WHERE id = ${child.id}`,
            )
            .pipe(Effect.as(true), orIfTaken(false))
          siblings.add(name.toLowerCase())
          if (moved) break
        }
      }
      const moved = yield* sql<{ id: number }>`
        UPDATE conversations SET category_id = ${target.parent_id} WHERE category_id = ${target.id} RETURNING id`
      yield* sql`DELETE FROM conversation_categories WHERE id = ${target.id}`
      return moved.map((r) => r.id)
    }),
  )

export const nameTaken = (
  rows: readonly CategoryRow[],
  parentId: number | null,
  name: string,
  except: number | null = null,
) =>
  rows.some((r) => r.parent_id === parentId && r.id !== except && r.name.toLowerCase() === name.toLowerCase())
