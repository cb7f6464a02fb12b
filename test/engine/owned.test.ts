import { Effect, Exit, Scope } from 'effect'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { Log, type Logger } from '../../engine/log'
import * as Claims from '../../engine/owner/Claims'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'

/**
 * The "owned by one node" supervisor: nodes compete for a key through real advisory locks (their
 * own connections to DATABASE_URL, a lock space of their own per test); the work runs on exactly
 * one node, moves when its owner closes, stops at once when its owner loses the lock connection,
 * and restarts with a capped backoff.
 */
const DATABASE_URL = process.env.DATABASE_URL

interface Row {
  readonly key: number
  readonly version: number
}

const quiet: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const until = async (ok: () => boolean | Promise<boolean>, ms = 5000) => {
  const end = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`)
    await sleep(10)
  }
}

/** One node's supervisor over `rows`, recording what its work does. */
const startNode = async (
  claims: Claims.MakeClaims,
  rows: () => readonly Row[],
  start?: Owned.Spec<Row, Log>['start'],
) => {
  const events: string[] = []
  const scope = Effect.runSync(Scope.make())
  const owned = await Effect.runPromise(
    Owned.supervise<Row, Log>({
      name: 'test',
      pollMs: 30,
      claims,
      list: Effect.sync(rows),
      key: (r) => r.key,
      version: (r) => r.version,
      start:
        start ??
        ((r) =>
          Effect.sync(() => {
            events.push(`start ${r.key}@${r.version}`)
            return {
              listed: (row: Row) => Effect.sync(() => events.push(`listed ${row.key}`)),
              stop: (why: Owned.Stop<Row>) => Effect.sync(() => events.push(`stop ${r.key} ${why._tag}`)),
            }
          })),
    }).pipe(Scope.extend(scope), Effect.provideService(Log, quiet)),
  )
  return {
    owned,
    events,
    starts: () => events.filter((e) => e.startsWith('start')).length,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void)),
  }
}

describe('Owned with local claims (one node)', () => {
  it('starts listed keys, hands unchanged rows on, restarts on a new version, stops dropped keys', async () => {
    let rows: Row[] = [{ key: 1, version: 1 }]
    const n = await startNode(Claims.local, () => rows)
    await until(() => n.events.includes('listed 1'))
    expect(n.owned.running()).toEqual([1])
    rows = [{ key: 1, version: 2 }]
    await until(() => n.events.includes('start 1@2'))
    expect(n.events).toContain('stop 1 Changed')
    rows = []
    await until(() => n.owned.running().length === 0)
    expect(n.events.at(-1)).toBe('stop 1 Dropped')
    rows = [{ key: 2, version: 1 }]
    await until(() => n.owned.owns(2))
    await n.close()
    expect(n.events.at(-1)).toBe('stop 2 Released')
    expect(n.owned.running()).toEqual([])
  })
})

// PostgreSQL only: advisory-lock claims share keys among several nodes on one PostgreSQL; the
// embedded database has one node, which uses the local claims tested above (ClaimsPg.makeConfig).
describe.skipIf(!DATABASE_URL)('Owned with advisory-lock claims (PostgreSQL)', () => {
  const url = DATABASE_URL ?? ''
  // A lock space per test, so runs in parallel (or left-over sessions) never share a key.
  const space = () => 0x10000 + Math.floor(Math.random() * 0x7fff0000)
  const rows = () => [{ key: 7, version: 1 }]

  it('two nodes compete for one key: exactly one runs it; the other takes over when the winner closes', async () => {
    const s = space()
    const a = await startNode(ClaimsPg.make(url, s), rows)
    const b = await startNode(ClaimsPg.make(url, s), rows)
    try {
      await until(() => a.owned.owns(7) || b.owned.owns(7))
      // Several looks later, still one owner and one start in all.
      await sleep(300)
      expect([a.owned.owns(7), b.owned.owns(7)].filter(Boolean)).toHaveLength(1)
      expect(a.starts() + b.starts()).toBe(1)
      const [winner, loser] = a.owned.owns(7) ? [a, b] : [b, a]
      await winner.close()
      expect(winner.events.at(-1)).toBe('stop 7 Released')
      await until(() => loser.owned.owns(7))
      expect(loser.starts()).toBe(1)
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('a node whose lock connection dies stops its work at once; then exactly one node runs it', async () => {
    const s = space()
    const a = await startNode(ClaimsPg.make(url, s), rows)
    await until(() => a.owned.owns(7))
    const b = await startNode(ClaimsPg.make(url, s), rows)
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    try {
      await sleep(150)
      expect(b.owned.owns(7)).toBe(false)
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND classid = $1 AND objid = 7 AND granted`,
        [s],
      )
      expect(killed.rowCount).toBe(1)
      await until(() => a.events.includes('stop 7 Released'))
      // Both compete again at their next look (the old owner reconnects): one of them wins.
      await until(() => a.starts() + b.starts() === 2)
      await sleep(200)
      expect([a.owned.owns(7), b.owned.owns(7)].filter(Boolean)).toHaveLength(1)
      expect(a.starts() + b.starts()).toBe(2)
    } finally {
      await admin.end()
      await a.close()
      await b.close()
    }
  })

  // Found by the review of session 38: a node that lost its lock connection while a work was
  // starting kept that work (it was not yet among the running ones that the loss stopped), and ran
  // it without the lock for as long as the key stayed listed, beside the node that took it over.
  it('a work whose lock is lost while it starts is stopped, not kept beside the new owner', async () => {
    const s = space()
    let slow = true
    const a = await startNode(ClaimsPg.make(url, s), rows, (r) =>
      Effect.gen(function* () {
        a.events.push(`starting ${r.key}`)
        if (slow) yield* Effect.sleep('300 millis')
        a.events.push(`start ${r.key}@${r.version}`)
        return {
          stop: (why: Owned.Stop<Row>) => Effect.sync(() => a.events.push(`stop ${r.key} ${why._tag}`)),
        }
      }),
    )
    const admin = new pg.Client({ connectionString: url })
    await admin.connect()
    let b: Awaited<ReturnType<typeof startNode>> | undefined
    try {
      await until(() => a.events.includes('starting 7'))
      const killed = await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks
         WHERE locktype = 'advisory' AND classid = $1 AND objid = 7 AND granted`,
        [s],
      )
      expect(killed.rowCount).toBe(1)
      slow = false
      b = await startNode(ClaimsPg.make(url, s), rows)
      await until(() => a.events.includes('start 7@1'))
      await until(() => b!.owned.owns(7) || a.owned.owns(7))
      // Several looks later: one node runs the key, and it holds the lock.
      await sleep(400)
      expect([a.owned.owns(7), b.owned.owns(7)].filter(Boolean)).toHaveLength(1)
      const holders = await admin.query(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = 7 AND granted`,
        [s],
      )
      expect(holders.rows[0].n).toBe(1)
    } finally {
      await admin.end()
      await a.close()
      await b?.close()
    }
  })

  it('work given as an effect restarts after failures with a capped backoff', async () => {
    const attempts: number[] = []
    const n = await startNode(
      ClaimsPg.make(url, space()),
      rows,
      Owned.restarting<Row, Log>(
        'test',
        () =>
          Effect.suspend(() => {
            attempts.push(Date.now())
            return Effect.fail('refused')
          }),
        { baseMs: 20, maxMs: 80 },
      ),
    )
    try {
      await sleep(700)
      // Waits of 20, 40, then 80 ms at most: about ten attempts in 700 ms, not thousands.
      expect(attempts.length).toBeGreaterThanOrEqual(5)
      expect(attempts.length).toBeLessThanOrEqual(14)
      const gaps = attempts.slice(1).map((t, i) => t - attempts[i]!)
      expect(gaps[1]!).toBeGreaterThanOrEqual(35)
      for (const g of gaps.slice(3)) {
        expect(g).toBeGreaterThanOrEqual(70)
        expect(g).toBeLessThan(500)
      }
      expect(n.owned.owns(7)).toBe(true)
    } finally {
      await n.close()
    }
    // Closing the scope interrupted the work: no attempt after it.
    const count = attempts.length
    await sleep(200)
    expect(attempts.length).toBe(count)
  })
})
