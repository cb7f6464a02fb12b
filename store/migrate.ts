import * as fs from 'node:fs'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { Effect, Layer } from 'effect'
import { sourcePath } from '../engine/sourceTree'

const kernelDir = sourcePath('store', 'migrations')

// Any constant works; it only has to be the same on every node.
const MIGRATION_LOCK = 7_406_251

export interface MigrationSet {
  /** Folder of `NNNN_name.sql` files. */
  readonly dir: string
  /** A schema of its own (created if missing); its `schema_migrations` table records applied files. */
  readonly schema?: string
}

/**
 * Applies `store/migrations/*.sql` in name order, each once. All of it runs in one transaction
 * holding a transaction-level advisory lock, so nodes starting together migrate one at a time and
 * a failed migration leaves nothing half-applied.
 */
export const migrateSet = (set: MigrationSet) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const { dir } = set
    const files = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort()
    return yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
        if (set.schema) yield* sql`CREATE SCHEMA IF NOT EXISTS ${sql(set.schema)}`
        const table = set.schema ? sql`${sql(set.schema)}.schema_migrations` : sql`schema_migrations`
        yield* sql`CREATE TABLE IF NOT EXISTS ${table} (
          name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`
        const done = new Set((yield* sql<{ name: string }>`SELECT name FROM ${table}`).map((r) => r.name))
        const applied: string[] = []
        for (const file of files) {
          if (done.has(file)) continue
          yield* sql.unsafe(fs.readFileSync(path.join(dir, file), 'utf8'))
          yield* sql`INSERT INTO ${table} (name) VALUES (${file})`
          applied.push(file)
        }
        return applied
      }),
    )
  })

/** The workspace messaging service's own migrations. */
export const migrate = migrateSet({ dir: kernelDir })

/**
 * A layer that applies a migration set when built, so every layer provided on top of it sees a
 * current schema. `onApplied` hears which files were applied (none on a current database).
 */
export const layerMigrated = <E, R>(
  migration: Effect.Effect<readonly string[], E, R>,
  onApplied: (applied: readonly string[]) => void,
) =>
  Layer.effectDiscard(
    Effect.tap(migration, (applied) =>
      Effect.sync(() => {
        if (applied.length > 0) onApplied(applied)
      }),
    ),
  )
