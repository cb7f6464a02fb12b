import { Effect } from 'effect'
import type { ConnectorShape, Delivery, OutboundMessage, Signal } from '../actors/channels/Connector'
import type { ChannelRow } from '../store/channels'

/**
 * The stand-in connector used until the real ones exist (and by tests): every message is
 * "sent" at once with a made-up external id, unless the channel's settings carry
 * `local_reject: "<reason>"`, in which case it is rejected with that reason. It remembers the
 * last 1,000 sends and signals of this node so tests can see what a channel would have received.
 */
export interface Recorded {
  readonly channelId: number
  readonly conversationId: number
  readonly message?: OutboundMessage
  readonly signal?: Signal
}

export interface LocalConnector extends ConnectorShape {
  readonly recorded: () => readonly Recorded[]
}

const KEEP = 1_000

export const make = (): LocalConnector => {
  const log: Recorded[] = []
  let counter = 0
  const remember = (r: Recorded) => {
    log.push(r)
    if (log.length > KEEP) log.shift()
  }
  const rejection = (channel: ChannelRow) => {
    const reason = channel.settings.local_reject
    return typeof reason === 'string' && reason !== '' ? reason : null
  }
  return {
    send: (channel, message) =>
      Effect.sync((): Delivery => {
        const reason = rejection(channel)
        if (reason !== null) return { _tag: 'Rejected', reason }
        remember({ channelId: channel.id, conversationId: message.conversationId, message })
        counter += 1
        return { _tag: 'Sent', externalId: `local-${channel.id}-${message.messageId}-${counter}` }
      }),
    signal: (channel, conversationId, signal) =>
      Effect.sync(() => remember({ channelId: channel.id, conversationId, signal })),
    recorded: () => [...log],
  }
}
