import pg from 'pg'
import { systemMillis } from '../engine/clock'
import type { PoolMetrics } from '../engine/metrics'
import * as Ping from './ping'
import { preparedStatements } from './prepared'

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
  /**
   * Parameterised statements are prepared by name on PostgreSQL (store/prepared.ts) unless this
   * is false (`DB_PREPARED=off`: behind a pooler in transaction mode, which cannot keep them).
   */
  readonly prepared?: boolean
}

export interface StuckReport {
  readonly at: string
  /** How long the holder had run no statement. */
  readonly holderIdleMs: number
  /** How long the holder had held the connection. */
  readonly heldMs: number
  /**
   * Wall time since the holder's last statement was sent or answered: more than `holderIdleMs`
   * by the time discounted as the process's other work or its lateness.
   */
  readonly sinceLastStatementMs: number
  /** The holder's last statements, oldest first. */
  readonly holderStatements: readonly string[]
  readonly waiters: number
  readonly longestWaitMs: number
}

/** The cause of a statement that could not get a connection in time. */
export class DatabaseBusy extends Error {
  readonly _tag = 'DatabaseBusy'
}

/**
 * The cause of a statement refused at once because the database is out of reach (the probe's
 * verdict, store/reachability.ts). The message's opening words are kept: an error re-created on
 * another node (engine/cluster/codec.ts) is known by them.
 */
export class DatabaseDown extends Error {
  readonly _tag = 'DatabaseDown'
  constructor(reason: string) {
    super(`the database is out of reach: ${reason}`)
  }
}

const DOWN_CODES = [
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOENT',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down)
  '57P01',
  '57P02',
  '57P03',
]
/**
 * The same in words: an error re-created on another node (engine/cluster/codec.ts) is text, its
 * codes gone. A crashed actor's cause from another node reads "… [cause]: Error: read ECONNRESET"
 * when its statement's connection was cut: it must answer 503 as it does on its own node, not
 * 500 (the failover bench's PostgreSQL outage saw 7 such 500s in one run).
 */
const DOWN_MESSAGE = new RegExp(
  [
    'the database is out of reach',
    'Connection terminated',
    'not queryable',
    'terminating connection due to administrator command',
    'the database system is (?:starting up|shutting down|in recovery mode)',
    `\\b(?:${DOWN_CODES.filter((c) => c.startsWith('E')).join('|')})\\b`,
  ].join('|'),
)

/**
 * Why a failure means the database cannot serve now, if it does: `down` when it is out of reach
 * (refused, cut, shutting down, or the probe said so), `busy` when it answered too slowly or had
 * no connection free in time. Either way the same request may succeed in a moment.
 */
export const unavailable = (cause: unknown): 'down' | 'busy' | undefined => {
  if (cause instanceof DatabaseDown) return 'down'
  if (cause instanceof DatabaseBusy) return 'busy'
  if (!(cause instanceof Error)) return undefined
  const code = String((cause as { code?: unknown }).code)
  if (DOWN_CODES.includes(code) || DOWN_MESSAGE.test(cause.message)) return 'down'
  if (
    code === '53300' ||
    /timeout exceeded when trying to connect|Query read timeout|timeout expired/.test(cause.message)
  )
    return 'busy'
  return undefined
}

/**
 * `unavailable` of the first failure in a chain of causes that is one: the error, its `cause`,
 * and so on a few levels down (`next` steps into what the caller knows more of).
 */
export const unavailableIn = (
  error: unknown,
  next: (e: unknown) => unknown = (e) => (e as { cause?: unknown }).cause,
): { readonly why: 'down' | 'busy'; readonly error: Error } | undefined => {
  let e: unknown = error
  for (let depth = 0; depth < 6 && e !== undefined && e !== null; depth++) {
    const why = unavailable(e)
    if (why) return { why, error: e as Error }
    e = next(e)
  }
  return undefined
}

export interface GuardedPool {
  readonly pool: pg.Pool
  /** What the guard found (strict mode keeps every report; otherwise the last 20). */
  readonly reports: () => readonly StuckReport[]
  /** The gate the database's probe opens and closes (store/reachability.ts). */
  readonly link: PoolLink
  readonly close: () => Promise<void>
}

/**
 * The pool's side of the database's reachability, for the probe that decides it
 * (store/reachability.ts). Nothing closes the gate but `cut`: a pool nobody probes (the test
 * harness's, the social service's) behaves as before.
 */
export interface PoolLink {
  /**
   * One round trip that neither waits in the pool's queue nor passes its gate: on PostgreSQL over
   * a connection of the probe's own (several may be under way), on the embedded database over its
   * only connection (one at a time). `Silent` when no answer came within `timeoutMs` of the time
   * this process could run (twice that on a new connection of the probe's).
   */
  readonly ping: Ping.Ping
  /**
   * What a ping without an answer means. PostgreSQL answers a connection of its own at once
   * however busy its other sessions are, so there silence is a server or a network that is gone;
   * the embedded database runs one session's statements at a time, so there it is only waiting.
   */
  readonly silence: 'down' | 'slow'
  /**
   * Statements the pool runs at once at most (1: the embedded database). Long background work
   * sizes its transactions by it: with one connection, every request waits behind them.
   */
  readonly connections: number
  /**
   * Closes the gate: callers waiting for a connection fail, every connection is dropped (what it
   * was running fails with it), and until `open` every caller fails at once with `DatabaseDown`
   * instead of waiting on a database that cannot answer.
   */
  readonly cut: (reason: string) => void
  readonly open: () => void
  /** How long the caller waiting longest for a connection has waited (0 when none waits). */
  readonly longestWaitMs: () => number
  /**
   * How long the oldest statement or wait for a connection under way has lasted (0: none): what
   * a database that went silent looks like from here, and a slow query too.
   */
  readonly longestPendingMs: () => number
  /** `listener` is told when a connection or a statement failed the way an unreachable database fails. */
  readonly onTrouble: (listener: () => void) => void
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
  /** `lastActive` before the guard's discounts: when the last statement was sent or answered. */
  lastStatement: number
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
  // Every connection the pool makes, connecting ones included, so that a cut can drop them all
  // (pg-pool keeps its own list private).
  const clients = new Set<pg.Client>()
  class TrackedClient extends pg.Client {
    constructor(c?: string | pg.ClientConfig) {
      super(c)
      clients.add(this)
      this.once('end', () => clients.delete(this))
    }
  }
  const max = config.max ?? 10
  const pool = new pg.Pool({
    // Connections stay open once made (pg closes each after 10 s idle by default). The ones a
    // burst opened together went idle together and were closed together, mid-storm: 17 backends
    // exiting at once took both cores for ~150 ms and every request waited (docs/decisions.md,
    // "The pool keeps its connections"). The kernel's keep-alive probes find a connection that a
    // network dropped while idle, and the pool then forgets it.
    idleTimeoutMillis: 0,
    keepAlive: true,
    keepAliveInitialDelayMillis: 30_000,
    ...config,
    connectionTimeoutMillis: guard.acquireTimeoutMs,
    Client: TrackedClient,
  })
  const untrack = metrics?.track({
    open: () => pool.totalCount,
    idle: () => pool.idleCount,
    waiting: () => pool.waitingCount,
    max,
  })
  // An idle client's error (the server restarted) is the next caller's to see, not the process's.
  pool.on('error', () => {})
  const found: StuckReport[] = []
  const single = max === 1
  // One connection is the embedded database, whose sockets share one session (store/prepared.ts).
  const prepared = single || guard.prepared === false ? undefined : preparedStatements()
  // Callers waiting for a connection: the guard of the single connection looks at them, a cut
  // fails them, and the probe reads how long the oldest has waited.
  const waiters = new Set<Waiter>()
  // Why the gate is closed (the database out of reach), or null while it is open.
  let down: string | null = null
  const troubleListeners: Array<() => void> = []
  const trouble = (e: unknown) => {
    // Our own refusals say nothing new about the database.
    if (e instanceof DatabaseDown || e instanceof DatabaseBusy || unavailable(e) === undefined) return
    for (const l of troubleListeners) l()
  }
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
    ;(client as { query: unknown }).query = (...given: unknown[]) => {
      const h = holders.get(client)
      const args =
        prepared && typeof given[given.length - 1] === 'function'
          ? prepared.name(client, given, query)
          : given
      const last = args.length - 1
      const cb = args[last]
      // A cursor (submittable) keeps the client busy until it is closed; pg's activeQuery says so.
      if (!h || typeof cb !== 'function') return query(...args)
      if (down !== null) {
        // A statement on a connection held across the cut (a transaction's ROLLBACK, say) would
        // wait on a socket that is gone: it fails at once, as pg's callbacks do, asynchronously.
        const refused = new DatabaseDown(down)
        process.nextTick(() => (cb as (e: Error) => void)(refused))
        return undefined
      }
      const first = args[0] as string | { text?: string } | undefined
      const text = typeof first === 'string' ? first : (first?.text ?? '')
      // The text is kept as given (no copy); it is shortened only if a report needs it.
      if (single) {
        h.statements.push(text)
        if (h.statements.length > KEEP_STATEMENTS) h.statements.shift()
      }
      const now = performance.now()
      h.lastActive = now
      h.lastStatement = now
      h.inFlight++
      const r: Running = { client, holder: h, since: now, text, cb: cb as Running['cb'], done: false }
      running.add(r)
      let again = args !== given
      const answered = (...res: unknown[]) => {
        if (r.done) return
        // A name the connection lost or a plan a migration made stale (store/prepared.ts): sent
        // again unnamed, once, when it was a statement of its own (not inside a transaction).
        if (again && prepared?.stale(client, res[0], query)) {
          again = false
          return query(...given.slice(0, -1), answered)
        }
        r.done = true
        running.delete(r)
        h.inFlight--
        h.lastActive = performance.now()
        h.lastStatement = h.lastActive
        trouble(res[0])
        r.cb(...res)
      }
      args[last] = answered
      return query(...args)
    }
  }

  const connect = pool.connect.bind(pool) as (cb: ConnectCallback) => void
  const guarded = (cb?: ConnectCallback): Promise<pg.PoolClient> | undefined => {
    if (!cb)
      return new Promise((resolve, reject) =>
        guarded((err, client) => (err || !client ? reject(err) : resolve(client))),
      )
    if (down !== null) {
      cb(new DatabaseDown(down), undefined, () => {})
      return undefined
    }
    const w: Waiter = { since: performance.now(), cb, done: false }
    waiters.add(w)
    connect((err, client, release) => {
      waiters.delete(w)
      if (w.done) {
        // The guard (or a cut) already failed this caller: hand the connection straight back.
        if (client) release()
        return
      }
      w.done = true
      if (err || !client) {
        // pg's own words for a wait that ran past `connectionTimeoutMillis`.
        if (err?.message.includes('timeout exceeded when trying to connect'))
          metrics?.waitFailed('acquire_timeout')
        trouble(err)
        return cb(err, client, release)
      }
      metrics?.acquired((performance.now() - w.since) / 1000)
      track(client)
      const h: Holder = {
        client,
        since: performance.now(),
        inFlight: 0,
        lastActive: performance.now(),
        lastStatement: performance.now(),
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
  if (single) {
    // @effect/sql-pg cancels an interrupted statement with `pg_cancel_backend` through the pool,
    // and waits for it: on one connection, that is the connection the interrupted statement
    // holds, so the cancel waited on its own transaction until the guard broke it (CI saw the
    // roll-up's transaction idle 2 s this way). PGlite runs one statement at a time in its thread
    // and cannot cancel it anyway: the cancel is answered at once, the statement runs to its end
    // and the transaction rolls back after it.
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown
    ;(pool as { query: unknown }).query = (...args: unknown[]) => {
      const cb = args[args.length - 1]
      if (
        typeof args[0] === 'string' &&
        args[0].startsWith('SELECT pg_cancel_backend(') &&
        typeof cb === 'function'
      ) {
        process.nextTick(() => (cb as (e: null, r: { rows: [] }) => void)(null, { rows: [] }))
        return undefined
      }
      return query(...args)
    }
  }

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
      // No answer for that long: the probe looks at once whether the database is there at all.
      for (const l of troubleListeners) l()
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
      sinceLastStatementMs: now - h.lastStatement,
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

  const pingThroughPool = Ping.throughPool(
    connect,
    guard.queryTimeoutMs,
    () => new DatabaseBusy(`the probe had no answer within ${guard.queryTimeoutMs} ms`),
  )
  const pingOwn = Ping.ownConnection(config)

  const link: PoolLink = {
    silence: single ? 'slow' : 'down',
    connections: max,
    ping: single ? pingThroughPool : pingOwn.ping,
    cut: (reason) => {
      down = reason
      const refused = new DatabaseDown(reason)
      for (const w of waiters) {
        w.done = true
        w.cb(refused, undefined, () => {})
      }
      waiters.clear()
      for (const c of clients) Ping.drop(c)
    },
    open: () => {
      down = null
    },
    longestWaitMs: () => {
      const now = performance.now()
      let longest = 0
      for (const w of waiters) longest = Math.max(longest, now - w.since)
      return longest
    },
    longestPendingMs: () => {
      const now = performance.now()
      let longest = 0
      for (const w of waiters) longest = Math.max(longest, now - w.since)
      for (const r of running) longest = Math.max(longest, now - r.since)
      return longest
    },
    onTrouble: (listener) => {
      troubleListeners.push(listener)
    },
  }

  return {
    pool,
    reports: () => found,
    link,
    close: () => {
      clearInterval(timer)
      untrack?.()
      pingOwn.close()
      return pool.end()
    },
  }
}
