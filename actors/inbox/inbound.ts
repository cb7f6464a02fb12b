import { Effect } from 'effect'
import { WallClock } from '../../engine/clock'
import { andThen } from '../../engine/step'
import type { ChannelRow } from '../../store/channels'
import type { NewMessage } from '../../store/conversations'
import { publish, topics } from '../events'
import { afterInbound } from './autoReply'
import { type Appended, ConversationActor } from './ConversationActor'
import { type Arrival, automationRuns, isNewConversation, type Opening } from './inboundRules'

/**
 * The one way a customer's message enters the inbox, whatever its channel: connectors parse their
 * transport and find the message's conversation, then hand it here. Appended through the
 * ConversationActor (sequence, `message.created`, `inbox.changed`), a conversation opened for it
 * announced to the inbox, and the automation it calls for (inboundRules.ts) run.
 *
 * Built from steps (engine/step.ts), not a generator: the API channel's inbound message runs this
 * on the request path without a fiber; a message with no automatic replies to send finishes in
 * the actor's reply callback.
 */
export interface InboundMessage {
  readonly channel: ChannelRow
  readonly conversationId: number
  readonly opening: Opening
  readonly message: NewMessage
  readonly arrival: Arrival
  /**
   * The channel row is current (the API channel's comes from the credential cache, which every
   * channel change clears): its automatic-reply settings need not be read again.
   */
  readonly channelIsCurrent?: boolean
}

/**
 * `recorded` is what the channel keeps of the stored message before anyone hears of it (its own
 * ids for redeliveries, the visitor's copy, further files): it runs right after the append, and its
 * result is the answer.
 */
export const receiveInbound = <A, E, R>(
  m: InboundMessage,
  recorded: (stored: Appended) => Effect.Effect<A, E, R>,
) =>
  andThen(
    andThen(ConversationActor, (actor) => actor.ask(m.conversationId, { _tag: 'Append', ...m.message })),
    (stored) =>
      andThen(recorded(stored), (answer) =>
        andThen(announce(m), () => andThen(automation(m, stored), () => Effect.succeed(answer))),
      ),
  )

/** The append told `ws:` about the message; a new conversation is worth a word of its own. */
const announce = (m: InboundMessage) =>
  m.opening === 'created'
    ? publish(topics.workspace(m.channel.workspace_id), 'inbox.changed', {
        interaction_id: m.conversationId,
        channel_id: m.channel.id,
        reason: 'conversation.created',
      })
    : Effect.void

// The clock's instance, read synchronously: a step, so the API channel's message stays fiberless.
const automation = (m: InboundMessage, stored: Appended) =>
  andThen(WallClock, (clock) =>
    automationRuns(m.arrival, stored.duplicate === true, clock.unsafeMillis())
      ? afterInbound(m.channel, m.conversationId, {
          newConversation: isNewConversation(m.opening, stored.seq),
          fresh: m.channelIsCurrent === true,
        })
      : Effect.void,
  )
