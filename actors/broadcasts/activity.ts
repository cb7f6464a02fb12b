import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Recipients from '../../store/broadcastRecipients'
import * as Broadcasts from '../../store/broadcasts'
import type { ChannelRow } from '../../store/channels'
import * as Msgapp from '../../store/msgapp'
import { pauseNumber } from './BroadcastActor'
import { throttledChange } from './events'

/**
 * What the number's customers do to a broadcast after it was sent, told to clients as
 * `broadcasts.changed` (throttled, with the counts): a receipt (delivered, read) for a broadcast
 * message, and a contact's first reply after one. Called by the messaging-app connector once the
 * inbox has stored the change; the figures themselves are computed in SQL when read.
 */
export const receipt = (channelId: number, waId: string) =>
  Effect.gen(function* () {
    const known = yield* Msgapp.lookup(channelId, waId)
    if (!known) return
    for (const b of yield* Broadcasts.ofMessage(known.message_id))
      yield* throttledChange(b.workspace_id, b.id, 'receipt')
  })

/**
 * The service refused a message after it had left (the inbox has failed it): a broadcast's
 * recipient of it is failed too, and a refusal that names a restriction pauses the number's
 * broadcasts, as the same refusal at the send does.
 */
export const refused = (channel: ChannelRow, waId: string, reason: string, restricts: boolean) =>
  Effect.gen(function* () {
    const known = yield* Msgapp.lookup(channel.id, waId)
    if (!known) return
    const failed = yield* Recipients.failLate(known.message_id, reason, yield* currentTime)
    for (const r of failed) yield* throttledChange(r.workspace_id, r.broadcast_id, 'receipt')
    if (failed.length > 0 && restricts) yield* pauseNumber(channel, 'number_restricted')
  })

/** An inbound message `messageId` stored in `conversationId`. */
export const reply = (conversationId: number, messageId: number) =>
  Effect.gen(function* () {
    for (const b of yield* Broadcasts.repliedBy(conversationId, messageId))
      yield* throttledChange(b.workspace_id, b.id, 'reply')
  })
