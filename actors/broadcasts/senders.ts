import { Context, Effect, Layer, Schedule, Scope } from 'effect'
import { Config } from '../../engine/config'
import * as ClaimsPg from '../../engine/owner/ClaimsPg'
import * as Owned from '../../engine/owner/Owned'
import * as Broadcasts from '../../store/broadcasts'
import { unavailableIn } from '../../store/pool'
import { run } from './BroadcastActor'
import { BroadcastNudge } from './nudge'

/**
 * BroadcastSenders: every running or scheduled broadcast has one sender (BroadcastActor.ts) on
 * exactly one node (`Owned` with a PostgreSQL advisory lock `(LOCK_CLASS, broadcast id)`; the
 * embedded database is one node). A broadcast that leaves the list (paused, cancelled, completed,
 * unscheduled) stops its sender; a node that dies drops its locks and another node takes its
 * broadcasts over at its next look, resuming from the recipients' durable progress. A sender that
 * fails is restarted with a capped backoff; one that failed because the database was out of reach
 * or busy is started again every second instead (each attempt fails at once while the database is
 * away), so sending resumes within a second of its return rather than after a backoff grown
 * during the outage.
 *
 * The sender is supervised work rather than an entity of the actor kit for the reason numbers are
 * (docs/decisions.md, "Messaging-app numbers"): it is long-lived and must not move on every shard
 * rebalance; the lock gives the same one-owner guarantee and the database guards every step.
 */
export const LOCK_CLASS = 0x4b42

export interface BroadcastSendersShape {
  readonly running: () => readonly number[]
}
export class BroadcastSenders extends Context.Tag('kotak/BroadcastSenders')<
  BroadcastSenders,
  BroadcastSendersShape
>() {}

/**
 * A broadcast's sender, started again when its loop ended but the broadcast is listed again.
 *
 * A sender's loop ends by itself when the broadcast leaves `running` (completed, paused, its number
 * gone). If it comes back (`/retry` on a completed broadcast, a resume) before the supervisor's
 * next look saw it gone, the look finds the key still held with the same version and would leave
 * the ended work be: the broadcast stayed `running` with queued recipients and nothing sent. So a
 * listing of a key whose loop has ended starts the loop again, in the same ownership.
 */
const sender = (tickMs: number) => (row: { readonly id: number }) =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    let ended = false
    const start = Owned.restarting(
      'broadcast',
      (r: { readonly id: number }) =>
        Effect.tap(
          Effect.retry(run(r.id, tickMs), {
            schedule: Schedule.spaced('1 second'),
            while: (e) => unavailableIn(e) !== undefined,
          }),
          Effect.sync(() => {
            ended = true
          }),
        ),
      { baseMs: 1000, maxMs: 60_000 },
    )
    yield* start(row)
    return {
      listed: (again: { readonly id: number }) =>
        Effect.suspend(() => {
          if (!ended) return Effect.void
          ended = false
          return Effect.asVoid(Scope.extend(start(again), scope))
        }),
    }
  })

const make = Effect.gen(function* () {
  const cfg = yield* Config
  const nudge = yield* BroadcastNudge
  const owned = yield* Owned.supervise({
    name: 'broadcast',
    pollMs: cfg.broadcastPollMs,
    claims: ClaimsPg.makeConfig(cfg.databaseUrl, LOCK_CLASS),
    list: Broadcasts.live,
    key: (row) => row.id,
    // Scheduled → running is the sender's own step: it must not restart it.
    version: () => 1,
    start: sender(cfg.broadcastPollMs),
    wake: nudge.on,
  })
  return { running: owned.running } satisfies BroadcastSendersShape
})

export const layer = Layer.scoped(BroadcastSenders, make)
