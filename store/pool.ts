import pg from 'pg'
import { systemMillis } from '../engine/clock'
import type { PoolMetrics } from '../engine/metrics'

/**
 * The connection pool under the SQL client, with two bounds no caller can forget:
 *
 * - **Waiting.** A caller that has waited `acquireTimeoutMs` for a connection fails (an HTTP
 *   request answers 503 with `Retry-After`) instead of waiting for ever; so does a statement that
 *   has had no answer for `queryTimeoutMs` (a stuck server, a lock held elsewhere), and its
 *   connection is closed when given back, which rolls back what it held.
 * - **Holding while waited for** (one connection only: the embedded database). A transaction that
 *   holds the only connection and runs no statement while another caller waits for it is, in
 *   practice, waiting on that caller: an actor asked from inside the transaction, whose own query
 *   needs the connection. Neither can move. Once the holder has been idle `idleHolderMs` (only
 *   the time the event loop was quiet counts: a deadlock is quiet, a busy process is not) with a
 *   caller waiting all that time, the waiting callers fail with `DatabaseBusy`, which unwinds the
 *   holder too (its ask fails, its transaction rolls back, the connection is free). Each such event
 *   is reported with the holder's last statements; with `strict` (the test suite) it is also
 *   recorded, and the test server fails its file when any was (docs/decisions.md, "One
 *   connection, no waiting on it").
 *
 * On PostgreSQL's pool of many connections only the first bound applies: there a waiter is served
 * by another connection, and a transaction waiting on it is no deadlock. Cursors (streamed
 * exports) are bounded by neither: a slow reader may hold one as long as it reads.
 */
export interface PoolGuard {
  readonly acquireTimeoutMs: number
  /** A statement without an answer this long fails (`DatabaseBusy`) and its connection is closed. */
  readonly queryTimeoutMs: number
  readonly idleHolderMs: number
  readonly strict: boolean
}

export interface StuckReport {
  readonly at: string
  /** How long the holder had run no statement. */
  readonly holderIdleMs: number
  /** How long the holder had held the connection. */
  readonly heldMs: number
  /** The holder's last statements, oldest first. */
  readonly holderStatements: readonly string[]
  readonly waiters: number
  readonly longestWaitMs: number
}

/** The cause of a statement that could not get a connection in time. */
export class DatabaseBusy extends Error {
  readonly _tag = 'DatabaseBusy'
}

/** Whether a failure is the database being busy or out of reach (safe to retry later). */
export const isBusy = (cause: unknown): boolean =>
  cause instanceof DatabaseBusy ||
  (cause instanceof Error &&
    (/timeout exceeded when trying to connect|Connection terminated|ECONNREFUSED|ENOENT|Query read timeout/.test(
      cause.message,
    ) ||
      ['ECONNREFUSED', 'ECONNRESET', 'ENOENT', 'EPIPE', '57P01', '57P03', '53300'].includes(
        String((cause as { code?: unknown }).code),
      )))

export interface GuardedPool {
  readonly pool: pg.Pool
  /** What the guard found (strict mode keeps every report; otherwise the last 20). */
  readonly reports: () => readonly StuckReport[]
  readonly close: () => Promise<void>
}

type ConnectCallback = (
  err: Error | undefined,
  client: pg.PoolClient | undefined,
  release: (e?: unknown) => void,
) => void

interface Waiter {
  readonly since: number
  readonly cb: ConnectCallback
  done: boolean
}

interface Running {
  readonly client: pg.PoolClient
  readonly holder: Holder
  readonly since: number
  readonly text: string
  readonly cb: (...r: unknown[]) => void
  done: boolean
}

const brief = (sql: string, n: number) => sql.replace(/\s+/g, ' ').trim().slice(0, n)

interface Holder {
  readonly client: pg.PoolClient
  readonly since: number
  inFlight: number
  lastActive: number
  readonly statements: string[]
}

const TICK_MS = 100
/** A tick this late means the event loop stood still or the process was not scheduled. */
const STALL_MS = 500
const KEEP_STATEMENTS = 5

export const guardedPool = (
  config: pg.PoolConfig,
  guard: PoolGuard,
  onStuck: (r: StuckReport) => void,
  metrics?: PoolMetrics,
): GuardedPool => {
  const pool = new pg.Pool({ ...config, connectionTimeoutMillis: guard.acquireTimeoutMs })
  const untrack = metrics?.track({
    open: () => pool.totalCount,
    idle: () => pool.idleCount,
    waiting: () => pool.waitingCount,
    max: config.max ?? 10,
  })
  // An idle client's error (the server restarted) is the next caller's to see, not the process's.
  pool.on('error', () => {})
  const found: StuckReport[] = []
  const single = config.max === 1
  const waiters = new Set<Waiter>()
  const holders = new Map<pg.PoolClient, Holder>()
  // Clients whose statement ran out of time: closed when given back, which ends whatever they
  // still hold (the server rolls back their transaction).
  const poisoned = new WeakSet<pg.PoolClient>()
  // Statements sent and not answered yet: the tick fails those past `queryTimeoutMs` (one timer
  // for all, not one per statement).
  const running = new Set<Running>()
  const tracked = new WeakSet<pg.PoolClient>()

  /** Bounds a held client's statements in time and counts them (the guard's sign of life). */
  const track = (client: pg.PoolClient) => {
    if (tracked.has(client)) return
    tracked.add(client)
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    ;(client as { query: unknown }).query = (...args: unknown[]) => {
      const h = holders.get(client)
      const last = args.length - 1
      const cb = args[last]
      // A cursor (submittable) keeps the client busy until it is closed; pg's activeQuery says so.
      if (!h || typeof cb !== 'function') return query(...args)
      const first = args[0] as string | { text?: string } | undefined
      const text = typeof first === 'string' ? first : (first?.text ?? '')
      // The text is kept as given (no copy); it is shortened only if a report needs it.
      if (single) {
        h.statements.push(text)
        if (h.statements.length > KEEP_STATEMENTS) h.statements.shift()
      }
      const now = performance.now()
      h.lastActive = now
      h.inFlight++
      const r: Running = { client, holder: h, since: now, text, cb: cb as Running['cb'], done: false }
      running.add(r)
      args[last] = (...res: unknown[]) => {
        if (r.done) return
        r.done = true
        running.delete(r)
        h.inFlight--
        h.lastActive = performance.now()
        r.cb(...res)
      }
      return query(...args)
    }
  }

  const connect = pool.connect.bind(pool) as (cb: ConnectCallback) => void
  const guarded = (cb?: ConnectCallback): Promise<pg.PoolClient> | undefined => {
    if (!cb)
      return new Promise((resolve, reject) =>
        guarded((err, client) => (err || !client ? reject(err) : resolve(client))),
      )
    const w: Waiter = { since: performance.now(), cb, done: false }
    if (single) waiters.add(w)
    connect((err, client, release) => {
      waiters.delete(w)
      if (w.done) {
        // The guard already failed this caller: hand the connection straight back.
        if (client) release()
        return
      }
      w.done = true
      if (err || !client) {
        // pg's own words for a wait that ran past `connectionTimeoutMillis`.
        if (err?.message.includes('timeout exceeded when trying to connect'))
          metrics?.waitFailed('acquire_timeout')
        return cb(err, client, release)
      }
      metrics?.acquired((performance.now() - w.since) / 1000)
      track(client)
      const h: Holder = {
        client,
        since: performance.now(),
        inFlight: 0,
        lastActive: performance.now(),
        statements: [],
      }
      holders.set(client, h)
      const plain = client.release.bind(client)
      const give = (e?: unknown) => {
        holders.delete(client)
        client.release = plain
        if (poisoned.has(client)) {
          poisoned.delete(client)
          return plain(new Error('a statement ran out of time on this connection'))
        }
        return plain(e as Error | boolean | undefined)
      }
      client.release = give
      cb(undefined, client, give)
    })
    return undefined
  }
  ;(pool as { connect: unknown }).connect = guarded

  const expire = (now: number) => {
    for (const r of running) {
      if (now - r.since < guard.queryTimeoutMs) continue
      r.done = true
      running.delete(r)
      r.holder.inFlight--
      poisoned.add(r.client)
      metrics?.waitFailed('query_timeout')
      r.cb(
        new DatabaseBusy(
          `a statement had no answer within ${guard.queryTimeoutMs} ms: ${brief(r.text, 120)}`,
        ),
      )
    }
  }
  const busy = (h: Holder) => {
    // pg's own fields (its getters of the same names are deprecated): a cursor in progress.
    const c = h.client as unknown as { _activeQuery?: unknown; _queryQueue?: unknown[] }
    return h.inFlight > 0 || c._activeQuery != null || (c._queryQueue?.length ?? 0) > 0
  }
  // Ages, waits and the tick's lateness are durations: the monotonic clock, which a change of the
  // system time does not move.
  let lastTick = performance.now()
  let loop = performance.eventLoopUtilization()
  const timer = setInterval(() => {
    const now = performance.now()
    const interval = now - lastTick
    const late = interval - TICK_MS
    lastTick = now
    const busyShare = performance.eventLoopUtilization(loop).utilization
    loop = performance.eventLoopUtilization()
    expire(now)
    if (!single) return
    const h = holders.values().next().value
    if (!h) return
    // Time the process spent on other work says nothing about the holder: its next statement may
    // be queued behind that work (a busy process's fibers wait their turn; two statements of one
    // claim were seen 2 s apart on a loaded machine). Only the quiet share of the interval counts
    // as idleness, and a real deadlock is quiet: with the only connection held, all database work
    // stops. A late tick is time the process could not run (the loop stood still, or, on a
    // machine with more work than cores, it was not scheduled: the event loop looks idle then, so
    // the busy share misses it), so lateness never counts as quiet either; a tick very late does
    // not count at all. CI once failed a roll-up whose next statement came 2 s late this way.
    const stalled = late > STALL_MS
    h.lastActive += Math.max(Math.max(late, 0), interval * busyShare)
    if (stalled) return
    if (waiters.size === 0 || busy(h)) return
    const idle = now - h.lastActive
    if (idle < guard.idleHolderMs) return
    const stuck = [...waiters].filter((w) => now - w.since >= guard.idleHolderMs)
    if (stuck.length === 0) return
    const report: StuckReport = {
      at: new Date(systemMillis()).toISOString(),
      holderIdleMs: idle,
      heldMs: now - h.since,
      holderStatements: h.statements.map((t) => brief(t, 200)),
      waiters: stuck.length,
      longestWaitMs: Math.max(...stuck.map((w) => now - w.since)),
    }
    found.push(report)
    if (!guard.strict && found.length > 20) found.shift()
    onStuck(report)
    const error = new DatabaseBusy(
      `the database's only connection is held by a transaction that has run no statement for ${idle} ms ` +
        `while this statement waited for it (a transaction waiting on work that needs its connection?); ` +
        `its last statements: ${h.statements.map((t) => brief(t, 200)).join(' | ')}`,
    )
    for (const w of stuck) {
      metrics?.waitFailed('held_idle')
      w.done = true
      waiters.delete(w)
      w.cb(error, undefined, () => {})
    }
  }, TICK_MS)
  timer.unref()
  return {
    pool,
    reports: () => found,
    close: () => {
      clearInterval(timer)
      untrack?.()
      return pool.end()
    },
  }
}
