import { Context, Effect, Layer, Option } from 'effect'
import { Connector, type ConnectorShape } from '../actors/channels/Connector'
import { Config } from '../engine/config'
import type { ChannelRow } from '../store/channels'
import * as ConnectorLocal from './ConnectorLocal'

/**
 * The one `Connector` the ChannelActor talks to: it hands each call to the adapter of the
 * channel's type. A type whose adapter is not in the layer (or every type, with
 * `CONNECTORS=local`) gets the stand-in, which delivers nowhere and records what it was given.
 *
 * Stateful connectors (a Baileys socket, an IMAP session) split in two so the layers have no
 * cycle: the adapter registered here sits below the actors and finds the channel's live session
 * in a registry of its own; the supervisor that opens those sessions and feeds inbound messages
 * to the conversation actors sits above them (see `http/app.ts`).
 */
export type ChannelType = ChannelRow['type']

/** The adapter of one channel type; a connector's layer provides it. */
export const ConnectorFor = (type: ChannelType) =>
  Context.GenericTag<ConnectorShape>(`kotak/Connector/${type}`)

const TYPES: readonly ChannelType[] = ['msgapp', 'email', 'livechat', 'api']

/** The stand-in, exposed so tests can read what it recorded. */
export class LocalConnector extends Context.Tag('kotak/Connector/local')<
  LocalConnector,
  ConnectorLocal.LocalConnector
>() {}

export const layer: Layer.Layer<Connector | LocalConnector, never, Config> = Layer.effectContext(
  Effect.gen(function* () {
    const cfg = yield* Config
    const local = ConnectorLocal.make()
    const adapters = new Map<ChannelType, ConnectorShape>()
    if (cfg.connectors === 'real') {
      for (const type of TYPES) {
        const adapter = yield* Effect.serviceOption(ConnectorFor(type))
        if (Option.isSome(adapter)) adapters.set(type, adapter.value)
      }
    }
    const pick = (channel: ChannelRow) => adapters.get(channel.type) ?? local
    const router: ConnectorShape = {
      send: (channel, message) => pick(channel).send(channel, message),
      signal: (channel, conversationId, signal) => pick(channel).signal(channel, conversationId, signal),
    }
    return Context.make(Connector, router).pipe(Context.add(LocalConnector, local))
  }),
)
