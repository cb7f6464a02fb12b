import pg from 'pg'

/**
 * One round trip to the database for its probe (store/reachability.ts), around the pool's gate
 * and queue: on PostgreSQL over a connection of the probe's own, on the embedded database over
 * the pool's only connection (store/pool.ts `PoolLink.ping`).
 */
export type PingOutcome =
  | { readonly _tag: 'Answered' }
  | { readonly _tag: 'Failed'; readonly error: Error }
  | { readonly _tag: 'Silent' }

export type Ping = (timeoutMs: number) => Promise<PingOutcome>

/** A timer this late means the event loop stood still or the process was not scheduled. */
const STALL_MS = 500

/** Ends a connection at once, whatever its socket does (a silent one never answers a goodbye). */
export const drop = (c: pg.Client): void => {
  c.connection.stream.destroy()
}

/**
 * `attempt`'s outcome, or `silent` once `timeoutMs` of this process's running time passed
 * without one. A timer that fires late means the process could not run: the wait starts again.
 * And an answer that arrived meanwhile is read before the verdict, since the poll phase runs
 * before `setImmediate`'s callbacks.
 */
const within = <A>(attempt: Promise<A>, timeoutMs: number, silent: A): Promise<A> =>
  new Promise((resolve) => {
    let settled = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const settle = (a: A) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(a)
    }
    const wait = () => {
      const due = performance.now() + timeoutMs
      timer = setTimeout(() => {
        if (performance.now() - due > STALL_MS) return wait()
        setImmediate(() => settle(silent))
      }, timeoutMs)
    }
    wait()
    void attempt.then(settle)
  })

type Connect = (
  cb: (err: Error | undefined, client: pg.PoolClient | undefined, release: (e?: unknown) => void) => void,
) => void

/**
 * The embedded database's ping: its only connection, taken with the pool's own `connect` (around
 * the gate and the guard). A statement there may wait behind another session's (PGlite runs one
 * at a time), so its answer is awaited as long as any statement's (`statementMs`), then the
 * connection is given up as a stuck one is and the ping fails with `timedOut`. One at a time: a
 * ping still waiting for the connection is the one the next waits for.
 */
export const throughPool = (connect: Connect, statementMs: number, timedOut: () => Error): Ping => {
  let inFlight: Promise<PingOutcome> | null = null
  const once = (): Promise<PingOutcome> =>
    new Promise((resolve) =>
      connect((err, client, release) => {
        if (err || !client) return resolve({ _tag: 'Failed', error: err ?? new Error('no connection') })
        let over = false
        const timer = setTimeout(() => {
          over = true
          const error = timedOut()
          release(error)
          resolve({ _tag: 'Failed', error })
        }, statementMs)
        timer.unref()
        client.query('SELECT 1', (e: Error | null) => {
          if (over) return
          clearTimeout(timer)
          release(e ?? undefined)
          resolve(e ? { _tag: 'Failed', error: e } : { _tag: 'Answered' })
        })
      }),
    )
  return (timeoutMs) => {
    inFlight ??= once().finally(() => {
      inFlight = null
    })
    return within(inFlight, timeoutMs, { _tag: 'Silent' })
  }
}

/**
 * PostgreSQL's ping: a connection of the probe's own, kept between pings that got an answer (a
 * pooled one would wait in the pool's queue, behind its dead connections). Several may be under
 * way at once, each on its own connection.
 */
export const ownConnection = (
  config: pg.ClientConfig,
): { readonly ping: Ping; readonly close: () => void } => {
  let spare: pg.Client | null = null
  let closed = false
  const fresh = () => {
    // Named, so an operator tells it from the pool's in pg_stat_activity.
    const c = new pg.Client({ application_name: `kotak-probe ${process.pid}`, ...config })
    c.on('error', () => {
      if (spare === c) spare = null
    })
    return c
  }
  const roundTrip = (c: pg.Client, connected: boolean): Promise<PingOutcome> =>
    (connected ? Promise.resolve() : c.connect()).then(
      () =>
        c.query('SELECT 1').then(
          (): PingOutcome => ({ _tag: 'Answered' }),
          (e: Error): PingOutcome => ({ _tag: 'Failed', error: e }),
        ),
      (e: Error): PingOutcome => ({ _tag: 'Failed', error: e }),
    )
  /** The ping's connection is `current.c` at any time, so that a silent one can be dropped. */
  const attempt = async (current: { c: pg.Client; gaveUp: boolean }): Promise<PingOutcome> => {
    const reused = current.c === spare
    if (reused) spare = null
    const first = await roundTrip(current.c, reused)
    if (first._tag === 'Answered' || !reused || current.gaveUp) return first
    // The kept connection may have been ended by the server for reasons of its own (an idle
    // timeout, an operator): only a fresh one's failure says the database is gone.
    drop(current.c)
    current.c = fresh()
    return roundTrip(current.c, false)
  }
  return {
    ping: async (timeoutMs) => {
      const current = { c: spare ?? fresh(), gaveUp: false }
      // A new connection (the first ping, or one after a failure) costs the server a process and
      // its start: it gets twice the time before its silence counts.
      const allowed = current.c === spare ? timeoutMs : 2 * timeoutMs
      const outcome = await within(attempt(current), allowed, { _tag: 'Silent' })
      current.gaveUp = true
      // Kept only after an answer, and only one; a silent or failed connection may hang for ever.
      if (outcome._tag !== 'Answered') drop(current.c)
      else if (spare === null && !closed) spare = current.c
      else void current.c.end().catch(() => {})
      return outcome
    },
    close: () => {
      closed = true
      if (spare) drop(spare)
      spare = null
    },
  }
}
