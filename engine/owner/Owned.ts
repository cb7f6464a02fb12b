import {
  Cause,
  Duration,
  Effect,
  ExecutionStrategy,
  Exit,
  Fiber,
  Queue,
  Runtime,
  Schedule,
  Scope,
} from 'effect'
import { Log } from '../log'
import type { MakeClaims } from './Claims'

/**
 * Owned: runs long-lived work per listed key (a mailbox, a number, a sending job) on exactly one
 * node of a cluster, and on this node for as long as it owns the key.
 *
 * - Which keys: `list` is read every `pollMs` and whenever `wake` fires (a local nudge). A key that
 *   appears is claimed (`Claims`) and, if this node wins it, its work starts; a key that leaves
 *   the list is stopped and released; a key whose `version` changed is stopped and started again
 *   (still owned: no new claim); a key listed again unchanged is handed the row (`listed`).
 * - One look at a time: wakes during a look ask for one more afterwards, never for a queue of them.
 * - Losing the claims (the lock connection broke) stops every work of this node at once, since
 *   another node may already own the keys; the next look competes for them again.
 * - Takeover: a node that dies or shuts down drops its claims with its connection; the other
 *   nodes win them at their next look.
 * - Shutdown (the scope closes): the look in progress finishes, no new work starts, every work is
 *   stopped (`Released`), then the claims are given up.
 *
 * The work itself restarts, backs off and reports in whatever way its connector needs; `restarting`
 * gives a plain effect the usual restart with capped exponential backoff.
 */
export interface Spec<Row, R> {
  /** Names this supervisor in logs (`mailbox`, `msgapp`). */
  readonly name: string
  readonly pollMs: number
  readonly claims: MakeClaims
  /** The keys that should run somewhere now; a failure skips this look. */
  readonly list: Effect.Effect<ReadonlyArray<Row>, unknown, R>
  readonly key: (row: Row) => number
  /** A changed version restarts the key's work. */
  readonly version: (row: Row) => number
  /**
   * Starts the work for a key this node now owns. The scope is the work's own: it closes after
   * `stop`, so work forked into it (`Effect.forkScoped`) ends with the ownership. It runs inside
   * an uninterruptible look: what it forks must be made `Effect.interruptible`.
   */
  readonly start: (row: Row) => Effect.Effect<Work<Row, R>, unknown, R | Scope.Scope>
  /** Subscribes to local nudges (a look at once); returns the unsubscribe. */
  readonly wake?: (wake: () => void) => () => void
}

export interface Work<Row, R> {
  /** The key was listed again with the same version (a request may be waiting in the row). */
  readonly listed?: (row: Row) => Effect.Effect<void, unknown, R>
  /** Ends the work before its scope closes. */
  readonly stop?: (why: Stop<Row>) => Effect.Effect<void, never, R>
}

/** Why a work stops: a new version of its row, its key left the list, or this node let it go. */
export type Stop<Row> =
  | { readonly _tag: 'Changed'; readonly row: Row }
  | { readonly _tag: 'Dropped' }
  | { readonly _tag: 'Released' }

export interface OwnedShape {
  /** The keys whose work runs on this node now. */
  readonly running: () => readonly number[]
  readonly owns: (key: number) => boolean
}

interface Held<Row, R> {
  readonly version: number
  readonly work: Work<Row, R>
  readonly scope: Scope.CloseableScope
}

/**
 * A promise of a connector's library (a socket, a mail client) inside a work: its rejection is the
 * failure as thrown, so a log of it reads as the library wrote it.
 */
export const attempt = <A>(f: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: f, catch: (e): unknown => e })

export const supervise = <Row, R>(
  spec: Spec<Row, R>,
): Effect.Effect<OwnedShape, never, R | Log | Scope.Scope> =>
  Effect.gen(function* () {
    const logger = yield* Log
    const rt = yield* Effect.runtime<R>()
    // Forked before the release below is registered, so the works' scopes close after it ran.
    const works = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
    const running = new Map<number, Held<Row, R>>()
    const claimed = new Set<number>()
    let closing = false

    const stopOne = (held: Held<Row, R>, why: Stop<Row>) =>
      Effect.zipRight(held.work.stop?.(why) ?? Effect.void, Scope.close(held.scope, Exit.void))

    const stopAll = Effect.suspend(() => {
      const all = [...running.values()]
      running.clear()
      return Effect.forEach(all, (h) => stopOne(h, { _tag: 'Released' }), {
        concurrency: 'unbounded',
        discard: true,
      })
    })

    const claims = yield* spec.claims(() => {
      logger.warn(`${spec.name} lock connection lost; stopping this node’s sessions`, {})
      claimed.clear()
      Runtime.runFork(rt)(stopAll)
    })

    const warn = (msg: string) => (cause: Cause.Cause<unknown>) =>
      Effect.sync(() => logger.warn(`${spec.name} ${msg}`, { error: String(Cause.squash(cause)) }))

    const look = Effect.gen(function* () {
      const rows = yield* spec.list.pipe(
        Effect.catchAllCause((c) => Effect.as(warn('list unavailable')(c), null)),
      )
      if (!rows) return
      const want = new Map(rows.map((r) => [spec.key(r), r]))
      for (const [key, held] of running) {
        const w = want.get(key)
        if (w && spec.version(w) === held.version) continue
        running.delete(key)
        yield* stopOne(held, w ? { _tag: 'Changed', row: w } : { _tag: 'Dropped' })
        if (!w && claimed.delete(key)) yield* claims.release(key)
      }
      for (const row of rows) {
        if (closing) return
        const key = spec.key(row)
        const held = running.get(key)
        if (held) {
          if (held.work.listed) yield* held.work.listed(row)
          continue
        }
        if (!claimed.has(key)) {
          const mine = yield* claims
            .tryClaim(key)
            .pipe(Effect.catchAllCause((c) => Effect.as(warn('lock unavailable')(c), false)))
          if (!mine) continue
          claimed.add(key)
          if (closing) continue
        }
        const scope = yield* Scope.fork(works, ExecutionStrategy.sequential)
        const started = yield* Effect.exit(Scope.extend(spec.start(row), scope))
        if (Exit.isFailure(started)) {
          yield* Scope.close(scope, Exit.void)
          yield* warn('start failed')(started.cause)
          continue
        }
        const fresh = { version: spec.version(row), work: started.value, scope }
        // The claims were lost while it started (`onLost` stopped only the works already running):
        // another node may own the key now, so this work ends before anyone counts it as running.
        if (!claimed.has(key)) {
          yield* stopOne(fresh, { _tag: 'Released' })
          continue
        }
        running.set(key, fresh)
      }
    })

    // A dropping queue of one: a wake during a look leaves one more look pending, not many.
    const wakes = yield* Queue.dropping<void>(1)
    const trigger = () => {
      if (!closing) Queue.unsafeOffer(wakes, undefined)
    }

    yield* Effect.acquireRelease(
      Effect.gen(function* () {
        // Forked in an uninterruptible region: made interruptible again, or they could not be ended.
        const looking = yield* Effect.forkDaemon(
          Queue.take(wakes).pipe(
            Effect.zipRight(
              look.pipe(Effect.catchAllCause(warn('reconcile failed')), Effect.uninterruptible),
            ),
            Effect.forever,
            Effect.interruptible,
          ),
        )
        const polling = yield* Effect.forkDaemon(
          Effect.repeat(Effect.sync(trigger), Schedule.spaced(Duration.millis(spec.pollMs))).pipe(
            Effect.interruptible,
          ),
        )
        const off = spec.wake?.(trigger) ?? (() => {})
        return { looking, polling, off }
      }),
      ({ looking, polling, off }) =>
        Effect.gen(function* () {
          closing = true
          off()
          yield* Fiber.interrupt(polling)
          // Waits for a look in progress: looks are uninterruptible.
          yield* Fiber.interrupt(looking)
          yield* stopAll
        }),
    )

    return {
      running: () => [...running.keys()],
      owns: (key: number) => running.has(key),
    } satisfies OwnedShape
  })

/** Capped exponential backoff: `baseMs`, `2 × baseMs`, … never longer than `maxMs`. */
export const backoff = (baseMs: number, maxMs: number) =>
  Schedule.exponential(Duration.millis(baseMs)).pipe(Schedule.either(Schedule.spaced(Duration.millis(maxMs))))

/**
 * Work as one effect: started when the key is owned, interrupted when it is not. A failure or a
 * defect restarts it after a capped exponential backoff (logged); an effect that ends normally
 * stays ended until its row's version changes or its key comes back.
 */
export const restarting =
  <Row, R>(
    name: string,
    run: (row: Row) => Effect.Effect<unknown, unknown, R>,
    delays: { readonly baseMs: number; readonly maxMs: number },
  ) =>
  (row: Row): Effect.Effect<Work<Row, R>, never, R | Log | Scope.Scope> =>
    Effect.gen(function* () {
      const logger = yield* Log
      yield* Effect.forkScoped(
        Effect.suspend(() => run(row)).pipe(
          Effect.sandbox,
          Effect.tapError((cause) =>
            Effect.sync(() => logger.warn(`${name} work failed`, { error: String(Cause.squash(cause)) })),
          ),
          Effect.retry(backoff(delays.baseMs, delays.maxMs)),
          // `start` runs inside an uninterruptible look; the work must stay interruptible.
          Effect.interruptible,
        ),
      )
      return {}
    })
