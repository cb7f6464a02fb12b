import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations')

// Any constant works; it only has to be the same on every node.
const MIGRATION_LOCK = 7_406_251

/**
 * Applies `store/migrations/*.sql` in name order, each once. All of it runs in one transaction
 * holding a transaction-level advisory lock, so nodes starting together migrate one at a time and
 * a failed migration leaves nothing half-applied.
 */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()
  return yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
      yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
      const done = new Set(
        (yield* sql<{ name: string }>`SELECT name FROM schema_migrations`).map((r) => r.name),
      )
      const applied: string[] = []
      for (const file of files) {
        if (done.has(file)) continue
        yield* sql.unsafe(fs.readFileSync(path.join(dir, file), 'utf8'))
        yield* sql`INSERT INTO schema_migrations (name) VALUES (${file})`
        applied.push(file)
      }
      return applied
    }),
  )
})
