import { Effect } from 'effect'
import * as Broadcasts from '../../store/broadcasts'
import * as Msgapp from '../../store/msgapp'
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

/** An inbound message `messageId` stored in `conversationId`. */
export const reply = (conversationId: number, messageId: number) =>
  Effect.gen(function* () {
    for (const b of yield* Broadcasts.repliedBy(conversationId, messageId))
      yield* throttledChange(b.workspace_id, b.id, 'reply')
  })
