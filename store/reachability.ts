import type { PingOutcome } from './ping'
import { type PoolLink, unavailable } from './pool'

/**
 * Whether the database can serve, as a probe finds it (docs/decisions.md, "A database outage"):
 *
 * - `ok`: the last ping was answered and no caller has waited long for a connection.
 * - `slow`: a caller has waited `slowMs` for a connection, or (the embedded database, which runs
 *   one session's statements at a time) a ping has waited that long. Requests still try.
 * - `down`: a ping failed, or (PostgreSQL) had no answer within `answerMs`. The pool's gate is
 *   closed: what was running fails, and every request that needs the database fails at once
 *   (503 with `Retry-After`) instead of queueing behind connections that cannot come.
 *
 * While the database answers, one ping every `everyMs`, one at once when a connection or a
 * statement fails the way an unreachable database fails, and one when a statement or a wait for
 * a connection has lasted `suspectMs` (a silent database fails nothing: it only stops answering;
 * a slow query costs one ping per `suspectMs` at most). While it is down, a ping starts every
 * `downEveryMs` (on PostgreSQL without waiting for the last: a connection into a black hole only
 * ends at its timeout), and the first answer opens the gate again: service resumes within about
 * `downEveryMs` and one round trip of the database's return.
 */
export type DatabaseState = 'ok' | 'slow' | 'down'

export interface Timing {
  readonly everyMs: number
  readonly downEveryMs: number
  readonly answerMs: number
  readonly slowMs: number
  readonly suspectMs: number
  /** Pings under way at once while the database is down (PostgreSQL; the embedded one: one). */
  readonly parallel: number
}

export const defaultTiming: Timing = {
  everyMs: 1_000,
  downEveryMs: 250,
  // A PostgreSQL server answers `SELECT 1` on a connection of its own in milliseconds however
  // busy its other sessions are; a second of silence is a server or a network that is gone.
  answerMs: 1_000,
  slowMs: 1_500,
  suspectMs: 500,
  // Enough that a new ping starts every `downEveryMs` even when each waits out its silence (a
  // new connection's: twice `answerMs`).
  parallel: 8,
}

export interface Watch {
  readonly state: () => DatabaseState
  /** Settles with the first ping. */
  readonly ready: Promise<void>
  readonly stop: () => void
}

export interface Transitions {
  readonly down: (reason: string) => void
  readonly up: (downForMs: number) => void
}

const TICK_MS = 50

export const watch = (link: PoolLink, told: Transitions, timing: Timing = defaultTiming): Watch => {
  const silentAfter = link.silence === 'down' ? timing.answerMs : timing.slowMs
  const parallel = link.silence === 'down' ? timing.parallel : 1
  let down: { readonly reason: string; readonly since: number } | null = null
  // When the gate last opened: a ping started before it is too old to close it again.
  let upAt = Number.NEGATIVE_INFINITY
  let silent = false
  let pings = 0
  let lastStart = Number.NEGATIVE_INFINITY
  let lastEnd = Number.NEGATIVE_INFINITY
  let wanted = false
  let stopped = false
  let first: () => void = () => {}
  const ready = new Promise<void>((resolve) => {
    first = resolve
  })

  const settle = (startedAt: number, outcome: PingOutcome) => {
    pings--
    lastEnd = performance.now()
    first()
    if (stopped) return
    if (outcome._tag === 'Answered') {
      silent = false
      if (down === null) return
      const was = down
      down = null
      upAt = performance.now()
      link.open()
      told.up(upAt - was.since)
      return
    }
    // A ping that waited out a bound (for the embedded database's only connection, for an
    // answer) says no more than silence does.
    const quiet = outcome._tag === 'Silent' || unavailable(outcome.error) === 'busy'
    if (quiet && link.silence === 'slow') {
      silent = true
      return
    }
    if (down !== null || startedAt < upAt) return
    const reason = outcome._tag === 'Failed' ? outcome.error.message : `no answer within ${silentAfter} ms`
    down = { reason, since: performance.now() }
    link.cut(reason)
    told.down(reason)
  }

  const start = () => {
    const startedAt = performance.now()
    pings++
    lastStart = startedAt
    wanted = false
    void link.ping(silentAfter).then((o) => settle(startedAt, o))
  }

  const tick = () => {
    if (stopped) return
    const now = performance.now()
    if (down !== null) {
      if (pings < parallel && now - lastStart >= timing.downEveryMs) start()
    } else if (pings > 0) return
    else if (wanted || now - lastEnd >= timing.everyMs) start()
    else if (now - lastStart >= timing.suspectMs && link.longestPendingMs() >= timing.suspectMs) start()
  }

  link.onTrouble(() => {
    wanted = true
    queueMicrotask(tick)
  })
  start()
  const timer = setInterval(tick, TICK_MS)
  timer.unref()

  return {
    state: () => {
      if (down !== null) return 'down'
      return silent || link.longestWaitMs() >= timing.slowMs ? 'slow' : 'ok'
    },
    ready,
    stop: () => {
      stopped = true
      clearInterval(timer)
    },
  }
}
