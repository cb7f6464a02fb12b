import { Context, type Effect } from 'effect'
import type { ChannelRow } from '../../store/channels'

/**
 * The outbound side of a channel connection: what the inbox asks of a messaging-app number, a
 * mailbox, a live-chat widget or an API-channel webhook. The ChannelActor owning the channel is
 * the only caller, so a connector sees one request at a time per channel.
 *
 * Guarantees every adapter keeps:
 * - `send` never fails: the channel's refusal (number logged out, address rejected, webhook down
 *   after its retries) is a `Rejected` delivery with a human reason; the message is then kept
 *   with status `failed` and that reason. At most once per call: a retry is a new call.
 * - `signal` (edits, unsends, reactions, read receipts, "agent joined", history requests) is best
 *   effort: a channel that cannot carry it ignores it.
 * Adapters: `ConnectorLocal` (stand-in that delivers nowhere); the real connectors (Baileys,
 * IMAP/SMTP, live chat, API channel) come with their issues and route by `channel.type`.
 */
export interface OutboundFile {
  readonly storageKey: string
  readonly name: string
  readonly mime: string
  readonly size: number
}

export interface OutboundMessage {
  readonly messageId: number
  readonly conversationId: number
  readonly type: string
  /** The text as the customer will read it (agent initial appended where the channel wants it). */
  readonly body: string
  readonly to: {
    readonly name: string
    readonly phone: string | null
    readonly email: string | null
  } | null
  /** The group's id on the channel, for group conversations. */
  readonly group: string | null
  readonly subject: string | null
  readonly files: readonly OutboundFile[]
  /** The channel's id of the quoted message. */
  readonly replyTo: string | null
  /** Type-specific content: location, shared contact, e-mail fields. */
  readonly payload: Readonly<Record<string, unknown>>
}

export type Delivery =
  | { readonly _tag: 'Sent'; readonly externalId: string | null }
  | { readonly _tag: 'Rejected'; readonly reason: string }

export type Signal =
  | { readonly kind: 'edit'; readonly externalId: string; readonly body: string }
  | { readonly kind: 'unsend'; readonly externalId: string }
  | { readonly kind: 'react'; readonly externalId: string; readonly emoji: string }
  | { readonly kind: 'read'; readonly externalIds: readonly string[] }
  | { readonly kind: 'agent_joined'; readonly agentName: string }
  | { readonly kind: 'history' }
  /** An agent typing in the inbox (live chat shows it to the visitor). */
  | { readonly kind: 'typing'; readonly name: string; readonly typing: boolean }

export interface ConnectorShape {
  readonly send: (channel: ChannelRow, message: OutboundMessage) => Effect.Effect<Delivery>
  readonly signal: (channel: ChannelRow, conversationId: number, signal: Signal) => Effect.Effect<void>
}

export class Connector extends Context.Tag('kotak/Connector')<Connector, ConnectorShape>() {}
