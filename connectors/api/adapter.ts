import type { SqlClient } from '@effect/sql'
import { Effect, Layer } from 'effect'
import type { ConnectorShape, Delivery, OutboundMessage } from '../../actors/channels/Connector'
import type { WallClock } from '../../engine/clock'
import type { Config } from '../../engine/config'
import type { SigningKey } from '../../engine/tokens'
import * as ChannelApi from '../../store/channelApi'
import type { ChannelRow } from '../../store/channels'
import { ConnectorFor } from '../router'
import { queueReply } from './webhooks'

/**
 * The outbound side of an API channel: an agent's reply becomes a `message.created` delivery in
 * the webhook outbox (the worker signs, sends and retries it; when it fails for good the message
 * turns `failed`). A channel without a webhook URL has nowhere to deliver, so the reply is refused
 * with that reason. The worker's own poll queues replies stored while a node went away.
 */
const make = Effect.gen(function* () {
  // The ChannelActor calls the adapter without services: it keeps its own.
  const services = yield* Effect.context<SqlClient.SqlClient | Config | SigningKey | WallClock>()

  const send = (channel: ChannelRow, message: OutboundMessage) =>
    Effect.gen(function* () {
      const api = yield* ChannelApi.byChannel(channel.id)
      if (!api?.webhook_url)
        return {
          _tag: 'Rejected',
          reason: 'The channel has no webhook URL to deliver to.',
        } satisfies Delivery
      yield* queueReply(channel.id, message.messageId)
      return { _tag: 'Sent', externalId: null } satisfies Delivery
    }).pipe(
      Effect.catchAllCause(() =>
        Effect.succeed<Delivery>({ _tag: 'Rejected', reason: 'The webhook outbox is unavailable.' }),
      ),
      Effect.provide(services),
    )

  return { send, signal: () => Effect.void } satisfies ConnectorShape
})

export const layer = Layer.effect(ConnectorFor('api'), make)
