import { spawn } from 'node:child_process'
import * as fs from 'node:fs'
import { SqlClient } from '@effect/sql'
import { Effect, Either, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Database from '../../store/database'
import type { StuckReport } from '../../store/pool'
import { freshDatabase, tempDir } from '../support/server'

/**
 * The pool's guard (store/pool.ts) on both databases. On the embedded one (one connection), a
 * transaction that waits on work needing the connection it holds is the deadlock that took the
 * default install down (a lead import asking an actor inside its transaction): the waiting
 * statement fails within about two seconds with `DatabaseBusy` and the report names the holder's
 * statements, the transaction then finishes and the connection is free again. On both, a
 * statement never waits longer than the pool's bound for a connection.
 */
const adminUrl = process.env.DATABASE_URL

const open = async (url: string | undefined, guard: Partial<Database.DatabaseOptions['guard']> = {}) => {
  const dir = tempDir('kotak-pool-')
  const reports: StuckReport[] = []
  const runtime = ManagedRuntime.make(
    Database.layer({
      url,
      dataDir: 'memory',
      socketDir: dir,
      guard: { ...Database.defaultGuard, strict: true, ...guard },
      onStuck: (r) => reports.push(r),
    }),
  )
  // The layer (the embedded database's start) is built here, not in the first test's time.
  await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
  return {
    runtime,
    reports,
    close: async () => {
      await runtime.dispose()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

describe('the embedded database’s one connection', () => {
  let db: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    db = await open(undefined)
  }, 60_000)
  afterAll(() => db?.close())

  it('fails a statement that waits on an idle transaction holding the connection, and the transaction ends', async () => {
    const started = Date.now()
    const outcome = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 41 AS held_by_the_transaction`
            // Work outside the transaction's context (as an actor's fiber is): it needs the
            // connection the transaction holds.
            const outside = yield* Effect.promise(() =>
              db.runtime.runPromise(Effect.either(sql`SELECT 42 AS outside`)),
            )
            const inside = yield* sql<{ n: number }>`SELECT 43 AS n`
            return { outside, inside }
          }),
        ),
      ),
    )
    const waited = Date.now() - started
    expect(outcome.outside._tag).toBe('Left')
    const error = outcome.outside._tag === 'Left' ? outcome.outside.left : undefined
    expect(String((error as { cause?: unknown })?.cause)).toContain('has run no statement')
    expect(outcome.inside).toEqual([{ n: 43 }])
    // Broken after about two seconds of idleness, before the 5 s bound on waiting.
    expect(waited).toBeLessThan(4_000)
    expect(db.reports).toHaveLength(1)
    expect(db.reports[0]!.holderStatements.join(' ')).toContain('held_by_the_transaction')
    expect(db.reports[0]!.waiters).toBe(1)
    // The connection is free again.
    expect(
      await db.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 AS ok`)),
    ).toEqual([{ ok: 1 }])
  })

  it('lets statements queue behind a busy transaction without a report', async () => {
    const before = db.reports.length
    const rows = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all(
          [
            sql.withTransaction(
              Effect.gen(function* () {
                for (let i = 0; i < 20; i++) yield* sql`SELECT pg_sleep(0.05)`
                return 'tx'
              }),
            ),
            Effect.map(sql<{ n: number }>`SELECT 7 AS n`, (r) => r[0]!.n),
          ],
          { concurrency: 'unbounded' },
        ),
      ),
    )
    expect(rows).toEqual(['tx', 7])
    expect(db.reports.length).toBe(before)
  })

  it('does not count time the process was not scheduled as the holder’s idleness', async () => {
    // A machine with more work than cores, made certain: the process is stopped 400 ms at a time
    // (a tick that late is not a stall of the loop, and the loop looks idle meanwhile) and runs
    // 50 ms in between, for about 3 s, while a transaction holds the connection and another
    // statement waits for it. The holder is waiting its turn, not on the waiter: no report, and
    // the waiter is served once the transaction ends (before the 5 s bound on waiting).
    const before = db.reports.length
    const pid = process.pid
    const stopper = spawn(
      'sh',
      ['-c', `for i in 1 2 3 4 5 6 7; do sleep 0.05; kill -STOP ${pid}; sleep 0.4; kill -CONT ${pid}; done`],
      { stdio: 'ignore' },
    )
    const stopped = new Promise<void>((resolve) => stopper.on('exit', () => resolve()))
    const [tx, waiter] = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all(
          [
            sql.withTransaction(
              Effect.gen(function* () {
                yield* sql`SELECT 1 AS first`
                yield* Effect.promise(() => stopped)
                return yield* sql<{ n: number }>`SELECT 2 AS n`
              }),
            ),
            Effect.either(Effect.delay(sql<{ n: number }>`SELECT 3 AS n`, '20 millis')),
          ],
          { concurrency: 'unbounded' },
        ),
      ),
    )
    expect(tx).toEqual([{ n: 2 }])
    expect(waiter).toEqual(Either.right([{ n: 3 }]))
    expect(db.reports.length).toBe(before)
  })

  it('ends a transaction whose fiber is interrupted mid-statement without waiting on itself', async () => {
    // An interrupted statement is cancelled by @effect/sql-pg with `pg_cancel_backend` through
    // the pool: on one connection, the one the interrupted transaction holds. It must not wait
    // for it (CI saw the roll-up's transaction held idle 2 s that way, its guard report failing
    // the file): the transaction rolls back once its statement ends, and nothing is reported.
    const before = db.reports.length
    const outcome = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.gen(function* () {
          yield* sql`CREATE TEMP TABLE IF NOT EXISTS interrupted (n int)`
          const tx = sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`INSERT INTO interrupted VALUES (1)`
              yield* sql`SELECT pg_sleep(0.3)`
              yield* sql`INSERT INTO interrupted VALUES (2)`
            }),
          )
          const raced = yield* Effect.timeoutOption(tx, '100 millis')
          const rows = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM interrupted`
          return { raced, rows }
        }),
      ),
    )
    expect(outcome.raced._tag).toBe('None')
    // Rolled back: neither insert stayed.
    expect(outcome.rows).toEqual([{ n: 0 }])
    expect(db.reports.length).toBe(before)
  })
})

describe.skipIf(!adminUrl)('PostgreSQL’s pool', () => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>
  let db: Awaited<ReturnType<typeof open>>
  beforeAll(async () => {
    fresh = await freshDatabase(adminUrl!)
    db = await open(fresh.url, { acquireTimeoutMs: 3_000 })
  })
  afterAll(async () => {
    await db?.close()
    await fresh?.drop()
  })
  /** `n` statements at once, each sleeping `seconds`: the pool opens a connection for each. */
  const sleepAtOnce = (n: number, seconds: number) =>
    db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all(
          Array.from({ length: n }, () => sql`SELECT pg_sleep(${seconds})`),
          { concurrency: 'unbounded' },
        ),
      ),
    )

  it('serves a statement outside a transaction from another connection, and bounds waiting for one', async () => {
    const outcome = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT 1`
            return yield* Effect.promise(() => db.runtime.runPromise(sql<{ n: number }>`SELECT 2 AS n`))
          }),
        ),
      ),
    )
    expect(outcome).toEqual([{ n: 2 }])
    // Twenty connections held: the twenty-first caller fails after the bound, not never. (The
    // twenty are opened first: opening one is bounded by the same setting.)
    await sleepAtOnce(20, 0.3)
    const started = Date.now()
    const results = await db.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all(
          Array.from({ length: 21 }, () => Effect.either(sql`SELECT pg_sleep(4)`)),
          { concurrency: 'unbounded' },
        ),
      ),
    )
    const failed = results.filter((r) => r._tag === 'Left')
    expect(failed).toHaveLength(1)
    expect(String((failed[0] as { left: { cause?: unknown } }).left.cause)).toContain('timeout exceeded')
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(db.reports).toHaveLength(0)
  })

  it('keeps the connections a burst opened while they are idle, so they do not all close together', async () => {
    const backends = () =>
      db.runtime.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          Effect.map(
            sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND backend_type = 'client backend'`,
            (rows) => rows[0]!.n,
          ),
        ),
      )
    await sleepAtOnce(6, 0.2)
    const before = await backends()
    expect(before).toBeGreaterThanOrEqual(6)
    // pg's default closed each connection after 10 s idle: one would be left (this count's own).
    await new Promise((r) => setTimeout(r, 11_000))
    expect(await backends()).toBe(before)
  }, 30_000)
})
