import { Clock, Context, Duration, Effect, Layer } from 'effect'
import * as Broadcasts from '../../store/broadcasts'
import { publish, topics } from '../events'

/**
 * The two events of segments and broadcasts (spec 1 §6), on `ws:{workspace}`, after commit:
 * `segments.changed {segment_id, reason}` and `broadcasts.changed {broadcast_id, reason}`; a
 * progress event also carries the counts (at most about one a second per broadcast: the sender
 * throttles them, see BroadcastActor.ts); so do `receipt` and `reply` (`throttledChange`).
 */
export type SegmentReason = 'created' | 'updated' | 'deleted'
export type BroadcastReason =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'scheduled'
  | 'started'
  | 'paused'
  | 'resumed'
  | 'cancelled'
  | 'completed'
  | 'unscheduled'
  | 'progress'
  | 'receipt'
  | 'reply'

export const segmentsChanged = (workspaceId: number, segmentId: number, reason: SegmentReason) =>
  publish(topics.workspace(workspaceId), 'segments.changed', { segment_id: segmentId, reason })

export const broadcastsChanged = (
  workspaceId: number,
  broadcastId: number,
  reason: BroadcastReason,
  extra: Readonly<Record<string, unknown>> = {},
) =>
  publish(topics.workspace(workspaceId), 'broadcasts.changed', {
    broadcast_id: broadcastId,
    reason,
    ...extra,
  })

/** The least gap between two events of one broadcast and reason (progress keeps the same rule). */
export const EVENT_GAP_MS = 1000

/**
 * Per broadcast and reason: when the last event went out, and whether one is due at the gap's end.
 * A service of the node (actors/index.ts), so two nodes in one process throttle apart.
 */
export class EventWindows extends Context.Tag('kotak/BroadcastEventWindows')<
  EventWindows,
  Map<string, { last: number; due: boolean }>
>() {}

export const windowsLayer: Layer.Layer<EventWindows> = Layer.sync(EventWindows, () => new Map())

/**
 * `broadcasts.changed` with the broadcast's counts, at most one per `EVENT_GAP_MS` per broadcast
 * and reason on this node (a number's receipts and replies all arrive on the node that runs it):
 * the first of a burst goes out at once, the rest become one more event at the end of the gap, so
 * a client always sees the last change and a burst of receipts does not flood the sockets.
 */
export const throttledChange = (workspaceId: number, broadcastId: number, reason: 'receipt' | 'reply') =>
  Effect.gen(function* () {
    const windows = yield* EventWindows
    const key = `${broadcastId}:${reason}`
    const publishCounts = Effect.gen(function* () {
      windows.set(key, { last: yield* Clock.currentTimeMillis, due: false })
      const counts = (yield* Broadcasts.countsOf([broadcastId])).get(broadcastId)
      yield* broadcastsChanged(workspaceId, broadcastId, reason, {
        counts: counts ? { ...counts, reasons: undefined } : null,
      })
    })
    const now = yield* Clock.currentTimeMillis
    const w = windows.get(key)
    if (!w || now - w.last >= EVENT_GAP_MS) {
      if (windows.size > 10_000)
        for (const [k, v] of windows) if (!v.due && now - v.last >= EVENT_GAP_MS) windows.delete(k)
      return yield* publishCounts
    }
    if (w.due) return
    w.due = true
    yield* Effect.forkDaemon(
      Effect.sleep(Duration.millis(w.last + EVENT_GAP_MS - now)).pipe(
        Effect.zipRight(publishCounts),
        Effect.catchAllCause(() => Effect.sync(() => windows.delete(key))),
      ),
    )
  })
