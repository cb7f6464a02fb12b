import { randomBytes } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'

/**
 * A named random key shared by every node: the first node to ask creates it, later ones read the
 * same row (`ON CONFLICT DO NOTHING` then select), so nodes never disagree.
 */
export const getOrCreate = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      yield* sql`INSERT INTO server_keys (name, key) VALUES (${name}, ${randomBytes(32)}) ON CONFLICT (name) DO NOTHING`
      const [row] = yield* sql<{ key: Buffer }>`SELECT key FROM server_keys WHERE name = ${name}`
      return row!.key
    }),
  )
