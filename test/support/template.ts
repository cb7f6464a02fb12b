import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'
import { Effect } from 'effect'
import pg from 'pg'
import * as Database from '../../store/database'
import { migrate } from '../../store/migrate'

/**
 * A database with the kernel's migrations applied, made once per test run (globalSetup.ts) and
 * copied for each test server: applying 110 migrations took about 5 s per server on the embedded
 * database (under 1.5 s from a copy) and a second on PostgreSQL. Only migrations: nothing a node
 * writes when it starts (keys, cluster runners) is in it. The variables name the copies' source;
 * without them (bench/, a test run without globalSetup) a server migrates its own database.
 */
export const PG_TEMPLATE = 'KOTAK_TEST_PG_TEMPLATE'
export const EMBEDDED_TEMPLATE = 'KOTAK_TEST_EMBEDDED_TEMPLATE'

const migrated = (opts: Database.DatabaseOptions) =>
  Effect.runPromise(Effect.asVoid(migrate.pipe(Effect.provide(Database.layer(opts)))))

/** Makes the run's template and sets its variable; returns what removes it. */
export const makeTemplate = async (): Promise<() => Promise<void>> => {
  const adminUrl = process.env.DATABASE_URL
  if (adminUrl) {
    // Named like the test databases, so CI's sweep removes one a crashed run left.
    const name = `kotak_t_template_${process.pid}`
    const admin = async (q: string) => {
      const c = new pg.Client({ connectionString: adminUrl })
      await c.connect()
      try {
        await c.query(q)
      } finally {
        await c.end()
      }
    }
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await admin(`CREATE DATABASE ${name}`)
    const url = new URL(adminUrl)
    url.pathname = `/${name}`
    await migrated({ url: url.href, dataDir: 'memory' })
    process.env[PG_TEMPLATE] = name
    return () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kotak-template-'))
  await migrated({ url: undefined, dataDir: dir, socketDir: dir })
  process.env[EMBEDDED_TEMPLATE] = path.join(dir, 'pg')
  return async () => fs.rmSync(dir, { recursive: true, force: true })
}
