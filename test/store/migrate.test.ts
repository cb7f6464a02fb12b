import { SqlClient } from '@effect/sql'
import { Effect, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Database from '../../store/database'
import { migrate } from '../../store/migrate'
import { freshDatabase } from '../support/server'

/**
 * Nodes starting together against one empty PostgreSQL must not both migrate: three pools race
 * `migrate`, and every migration is applied exactly once.
 */
const adminUrl = process.env.DATABASE_URL

// PostgreSQL only: the race needs several nodes on one database; the embedded database is opened
// by one node at a time (its data directory is locked), so there is nothing to race.
describe.skipIf(!adminUrl)('migrations under the advisory lock', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase(adminUrl!)
  })
  afterAll(() => db?.drop())

  it('applies each file once when three nodes start at the same time', async () => {
    const runtimes = [1, 2, 3].map(() =>
      ManagedRuntime.make(Database.layer({ url: db.url, dataDir: 'memory' })),
    )
    try {
      const applied = await Promise.all(runtimes.map((r) => r.runPromise(migrate)))
      const all = applied.flat()
      expect(new Set(all).size).toBe(all.length)
      expect(applied.filter((a) => a.length > 0)).toHaveLength(1)
      const rows = await runtimes[0]!.runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ name: string }>`SELECT name FROM schema_migrations`,
        ),
      )
      expect(rows.map((r) => r.name).sort()).toEqual([...all].sort())
    } finally {
      await Promise.all(runtimes.map((r) => r.dispose()))
    }
  })
})
