import * as fs from 'node:fs'
import { SqlClient } from '@effect/sql'
import { Effect, Either, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Database from '../../store/database'
import { MAX_NAMED } from '../../store/prepared'
import { freshDatabase, tempDir } from '../support/server'

/**
 * Named statements (store/prepared.ts): on PostgreSQL a connection prepares its parameterised
 * statements once, keeps a bounded set of them, and gets over a migration that changed what a
 * prepared `SELECT *` returns; the embedded database, one session shared by its sockets, names
 * nothing.
 */
const adminUrl = process.env.DATABASE_URL

const open = async (url: string | undefined, prepared = true) => {
  const dir = tempDir('kotak-prepared-')
  const runtime = ManagedRuntime.make(
    Database.layer({
      url,
      dataDir: 'memory',
      socketDir: dir,
      guard: { ...Database.defaultGuard, strict: true, prepared },
    }),
  )
  await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
  return {
    run: <A, E>(e: Effect.Effect<A, E, SqlClient.SqlClient>) => runtime.runPromise(e),
    close: async () => {
      await runtime.dispose()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** The statements prepared on the connection this runs on (one transaction: one connection). */
const preparedHere = (sql: SqlClient.SqlClient) =>
  Effect.map(sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`, (rows) =>
    rows.map((r) => r.statement),
  )

describe.skipIf(!adminUrl)('on PostgreSQL', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>
  let db: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    fresh = await freshDatabase(adminUrl!)
    db = await open(fresh.url)
    await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`CREATE TABLE items (id int PRIMARY KEY, name text); INSERT INTO items VALUES (1, 'one'), (2, 'two')`.pipe(
          Effect.asVoid,
        ),
      ),
    )
  })
  afterAll(async () => {
    await db?.close()
    await fresh?.drop()
  })

  it('prepares a parameterised statement once per connection, and not one without parameters', async () => {
    const seen = await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            for (let i = 0; i < 3; i++) yield* sql`SELECT name FROM items WHERE id = ${1 + (i % 2)}`
            yield* sql`SELECT count(*) FROM items`
            return yield* preparedHere(sql)
          }),
        ),
      ),
    )
    expect(seen.filter((t) => t.includes('SELECT name FROM items WHERE id = $1'))).toHaveLength(1)
    expect(seen.some((t) => t.includes('count(*)'))).toBe(false)
  })

  it(`keeps at most ${MAX_NAMED} statements on a connection, and every statement past them still runs`, async () => {
    const { sum, named } = await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            let sum = 0
            for (let i = 0; i < MAX_NAMED + 50; i++) {
              // A text of its own each time, as a list of ids of every length makes.
              const [r] = yield* sql<{ n: number }>`SELECT ${i}::int + ${sql.literal(String(i))} AS n`
              sum += r!.n
            }
            return { sum, named: (yield* preparedHere(sql)).length }
          }),
        ),
      ),
    )
    expect(sum).toBe((MAX_NAMED + 49) * (MAX_NAMED + 50))
    expect(named).toBeGreaterThan(0)
    expect(named).toBeLessThanOrEqual(MAX_NAMED)
  })

  it('answers a prepared SELECT * after a migration added a column (sent again unnamed), and the next one too', async () => {
    const read = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM items WHERE id = ${1}`)
    for (let i = 0; i < 8; i++) expect((await db.run(read))[0]).toEqual({ id: 1, name: 'one' })
    await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE items ADD COLUMN note text DEFAULT 'x'`),
    )
    for (let i = 0; i < 4; i++) expect((await db.run(read))[0]).toEqual({ id: 1, name: 'one', note: 'x' })
  })

  it('inside a transaction a stale plan fails its statement (no second try there), and the next one is served', async () => {
    const read = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT * FROM items WHERE id = ${2}`)
    // One connection throughout: the pool hands back the one given back last.
    for (let i = 0; i < 8; i++) await db.run(read)
    await db.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE items ADD COLUMN tag text`))
    const inside = await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(read)).pipe(Effect.either),
    )
    expect(Either.isLeft(inside)).toBe(true)
    expect(String(Either.isLeft(inside) ? (inside.left as { cause?: unknown }).cause : '')).toContain(
      'cached plan',
    )
    expect((await db.run(read))[0]).toEqual({ id: 2, name: 'two', note: 'x', tag: null })
  })
})

describe('on the embedded database', () => {
  let db: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    db = await open(undefined)
  }, 60_000)
  afterAll(() => db?.close())

  it('names nothing: its sockets share one session', async () => {
    const seen = await db.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.gen(function* () {
          for (let i = 0; i < 3; i++) yield* sql`SELECT ${i}::int AS n`
          return yield* preparedHere(sql)
        }),
      ),
    )
    expect(seen).toEqual([])
  })
})

describe.skipIf(!adminUrl)('DB_PREPARED=off', () => {
  it('names nothing on PostgreSQL either (a pooler in transaction mode cannot keep names)', async () => {
    const fresh = await freshDatabase(adminUrl!)
    const db = await open(fresh.url, false)
    try {
      const seen = await db.run(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql.withTransaction(
            Effect.gen(function* () {
              for (let i = 0; i < 3; i++) yield* sql`SELECT ${i}::int AS n`
              return yield* preparedHere(sql)
            }),
          ),
        ),
      )
      expect(seen).toEqual([])
    } finally {
      await db.close()
      await fresh.drop()
    }
  })
})
