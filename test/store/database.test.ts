import { SqlClient } from '@effect/sql'
import { Effect, ManagedRuntime } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Database from '../../store/database'
import { freshDatabase } from '../support/server'

/**
 * The service's PostgreSQL connections run without JIT (store/database `withoutJit`): compiling
 * a plan cost about 210 ms per run of a background query that executes in microseconds. Options
 * the operator put in DATABASE_URL are kept, and a `jit` of their own wins.
 */
const adminUrl = process.env.DATABASE_URL

const withOptions = (url: string, options: string) => {
  const u = new URL(url)
  u.searchParams.set('options', options)
  return u.href
}

const settings = async (url: string) => {
  const runtime = ManagedRuntime.make(Database.layer({ url, dataDir: 'memory' }))
  try {
    return await runtime.runPromise(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ jit: string; timeout: string }>`
            SELECT current_setting('jit') AS jit, current_setting('statement_timeout') AS timeout`,
      ),
    )
  } finally {
    await runtime.dispose()
  }
}

describe('withoutJit', () => {
  it('adds jit=off to the options, keeps the rest, and leaves what it cannot read', () => {
    expect(Database.withoutJit('postgres://u@h:5432/db?sslmode=require')).toBe(
      'postgres://u@h:5432/db?sslmode=require&options=-c+jit%3Doff',
    )
    expect(Database.withoutJit('not a url')).toBe('not a url')
  })
})

// PostgreSQL only: these are DATABASE_URL's connection options, and JIT needs LLVM; the embedded
// database has no URL, and PGlite is built without LLVM (pg_jit_available() is false there).
describe.skipIf(!adminUrl)('database connections', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>
  beforeAll(async () => {
    db = await freshDatabase(adminUrl!)
  })
  afterAll(() => db?.drop())

  it('turn JIT off, keeping the options of DATABASE_URL', async () => {
    expect(await settings(db.url)).toEqual([{ jit: 'off', timeout: '0' }])
    expect(await settings(withOptions(db.url, '-c statement_timeout=5000'))).toEqual([
      { jit: 'off', timeout: '5s' },
    ])
  })

  it('leave a jit setting of DATABASE_URL as it is', async () => {
    expect(await settings(withOptions(db.url, '-cjit=on'))).toEqual([{ jit: 'on', timeout: '0' }])
  })
})
