import * as fs from 'node:fs'
import * as path from 'node:path'
import { SqlClient } from '@effect/sql'
import { Effect, ManagedRuntime } from 'effect'
import type pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import * as Database from '../../store/database'
import { type GuardedPool, guardedPool, unavailable } from '../../store/pool'
import * as Reachability from '../../store/reachability'
import { waitFor } from '../support/cluster'
import { type TcpProxy, tcpProxy, type Upstream } from '../support/proxy'
import { freshDatabase, tempDir } from '../support/server'

/**
 * The pool's gate and the probe that moves it (store/pool.ts, store/reachability.ts), on both
 * databases, through a proxy that plays the outage. While the database is out of reach, what was
 * running fails and every statement fails at once (`down`), none waits for a connection; at the
 * database's return the first ping opens the gate and statements are served again within about a
 * second. Bounds on durations are loose on purpose: they catch a statement waiting out the pool's
 * 5 s bound, or a query's 30 s one, not a slow machine.
 *
 * The embedded database lives in the node's own process: nothing but the node stops it, so only
 * its socket refusing is played (the path a dead database thread would take); PostgreSQL is also
 * played silent (a black hole), where only a timeout tells.
 */
const adminUrl = process.env.DATABASE_URL
const AT_ONCE_MS = 2_500

interface Target {
  readonly upstream: Upstream
  readonly config: (port: number) => pg.PoolConfig
  readonly done: () => Promise<void>
}

const postgres = async (): Promise<Target> => {
  const db = await freshDatabase(adminUrl!)
  const url = new URL(db.url)
  return {
    upstream: { host: url.hostname, port: Number(url.port || 5432) },
    config: (port) => {
      const via = new URL(db.url)
      via.hostname = '127.0.0.1'
      via.port = String(port)
      return { connectionString: via.href, max: 20 }
    },
    done: () => db.drop(),
  }
}

const embedded = async (): Promise<Target> => {
  const dir = tempDir('kotak-reach-')
  const runtime = ManagedRuntime.make(Database.layer({ url: undefined, dataDir: 'memory', socketDir: dir }))
  await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1`))
  return {
    upstream: { path: path.join(dir, '.s.PGSQL.5432') },
    // One connection, as the node's pool on the embedded database.
    config: (port) => ({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 1 }),
    done: async () => {
      await runtime.dispose()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

const timed = async <A>(f: () => Promise<A>) => {
  const t0 = performance.now()
  try {
    return { ok: true as const, value: await f(), ms: performance.now() - t0 }
  } catch (error) {
    return { ok: false as const, error, ms: performance.now() - t0 }
  }
}

describe.each([
  { name: 'PostgreSQL', enabled: Boolean(adminUrl), target: postgres },
  { name: 'the embedded database', enabled: true, target: embedded },
])('$name out of reach', ({ name, enabled, target }) => {
  let t: Target
  let proxy: TcpProxy
  let g: GuardedPool
  let watch: Reachability.Watch
  const told: string[] = []

  beforeAll(async () => {
    if (!enabled) return
    t = await target()
  }, 60_000)
  afterAll(async () => {
    await t?.done()
  })
  const open = async () => {
    proxy = await tcpProxy(t.upstream)
    g = guardedPool(t.config(proxy.port), { ...Database.defaultGuard, strict: true }, () => {})
    watch = Reachability.watch(g.link, {
      down: (reason) => told.push(`down: ${reason}`),
      up: () => told.push('up'),
    })
    await watch.ready
    expect(watch.state()).toBe('ok')
    expect((await g.pool.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }])
  }
  afterEach(async () => {
    watch?.stop()
    await g?.close().catch(() => {})
    await proxy?.close()
    expect(g.reports()).toEqual([])
  })

  /** After the database's return: the time until a statement is served again. */
  const resumes = async () => {
    await proxy.restore()
    const back = performance.now()
    await waitFor(
      'a statement served again',
      async () => (await g.pool.query('SELECT 1 AS n')).rows[0]?.n === 1,
      { timeoutMs: 3_000, intervalMs: 20 },
    )
    const ms = performance.now() - back
    expect(watch.state()).toBe('ok')
    return ms
  }

  /** While the database is known down: every statement fails at once, none waits in the pool. */
  const refusedAtOnce = async () => {
    const all = await Promise.all(Array.from({ length: 30 }, () => timed(() => g.pool.query('SELECT 1'))))
    for (const r of all) {
      expect(r.ok).toBe(false)
      expect(unavailable(r.ok ? undefined : r.error)).toBe('down')
      expect(r.ms).toBeLessThan(AT_ONCE_MS)
    }
    expect(g.link.longestWaitMs()).toBe(0)
    return Math.max(...all.map((r) => r.ms))
  }

  it.runIf(enabled)(
    'refused: down at once, what ran fails, the rest at once, back within a second',
    async () => {
      await open()
      // A statement under way when the database goes. (PGlite goes on with it after the cut, and
      // takes no new session before it ends: short, so that its end is not what is measured.)
      const running = timed(() => g.pool.query('SELECT pg_sleep(0.5)'))
      await new Promise((r) => setTimeout(r, 200))
      const cutAt = performance.now()
      await proxy.cut()
      const known = await waitFor(
        'the probe to say down',
        () => watch.state() === 'down' && performance.now(),
        {
          timeoutMs: 3_000,
          intervalMs: 10,
        },
      )
      const r = await running
      expect(r.ok).toBe(false)
      expect(performance.now() - cutAt).toBeLessThan(AT_ONCE_MS)
      const slowest = await refusedAtOnce()
      const back = await resumes()
      expect(told).toContain('up')
      if (process.env.OUTAGE_FIGURES)
        console.info(
          `${name} refused: known down after ${Math.round(known - cutAt)} ms, slowest refusal ${Math.round(slowest)} ms, served again ${Math.round(back)} ms after its return`,
        )
    },
  )

  it.runIf(enabled && name === 'PostgreSQL')(
    'silent (a black hole): down within about two seconds, what waited fails, back within a second',
    async () => {
      await open()
      const silentAt = performance.now()
      proxy.blackhole()
      // Sent into the silence: pool connections that will never answer again.
      const waiting = await Promise.all(
        Array.from({ length: 5 }, () => timed(() => g.pool.query('SELECT 1'))),
      )
      const known = performance.now() - silentAt
      expect(watch.state()).toBe('down')
      for (const w of waiting) {
        expect(w.ok).toBe(false)
        // Not the pool's 5 s bound on waiting, nor a query's 30 s one.
        expect(w.ms).toBeLessThan(4_000)
      }
      const slowest = await refusedAtOnce()
      const back = await resumes()
      if (process.env.OUTAGE_FIGURES)
        console.info(
          `${name} silent: waiting statements failed after ${Math.round(known)} ms, slowest refusal ${Math.round(slowest)} ms, served again ${Math.round(back)} ms after its return`,
        )
    },
  )

  it.runIf(enabled)('a pool nobody probes keeps its gate open', async () => {
    proxy = await tcpProxy(t.upstream)
    g = guardedPool(t.config(proxy.port), { ...Database.defaultGuard, strict: true }, () => {})
    watch = undefined as unknown as Reachability.Watch
    await proxy.cut()
    await expect(g.pool.query('SELECT 1')).rejects.toThrow()
    await proxy.restore()
    expect((await g.pool.query('SELECT 1 AS n')).rows).toEqual([{ n: 1 }])
  })
})
