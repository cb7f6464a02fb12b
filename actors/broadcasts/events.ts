import { publishEvent } from '../../engine/events'

/**
 * The two events of segments and broadcasts (spec 1 §6), on `ws:{workspace}`, after commit:
 * `segments.changed {segment_id, reason}` and `broadcasts.changed {broadcast_id, reason}`; a
 * progress event also carries the counts (at most about one a second per broadcast: the sender
 * throttles them, see BroadcastActor.ts).
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
  publishEvent(`ws:${workspaceId}`, 'segments.changed', { segment_id: segmentId, reason })

export const broadcastsChanged = (
  workspaceId: number,
  broadcastId: number,
  reason: BroadcastReason,
  extra: Readonly<Record<string, unknown>> = {},
) => publishEvent(`ws:${workspaceId}`, 'broadcasts.changed', { broadcast_id: broadcastId, reason, ...extra })
