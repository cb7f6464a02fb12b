import type {
  AnyMessageContent,
  AuthenticationState,
  BaileysEventEmitter,
  BaileysEventMap,
  GroupMetadata,
  MiscMessageGenerationOptions,
  WAMessage,
  WAMessageKey,
  WAPresence,
} from 'baileys'
import { Context } from 'effect'

/**
 * The port between a number's session and the messaging service: `connect` opens one socket with
 * the number's auth state. Adapters: `TransportBaileys` (Baileys' `makeWASocket`, the real
 * service) and `TransportTest` (a socket whose `ev` is Baileys' own event buffer, driven by tests
 * with real protocol objects; selected by `MSGAPP_TRANSPORT=test`, never in production).
 *
 * Guarantees every adapter keeps: everything the socket reports arrives on `ev` as Baileys'
 * events (`connection.update`, `creds.update`, `messages.upsert`, …), in order; a closed socket
 * reports `connection.update` with `connection: 'close'` and `lastDisconnect.error.output
 * .statusCode` exactly once; `end` never throws.
 */
/** Baileys' buffered emitter: `process` hands over each batch of events in order. */
export type MsgappEvents = BaileysEventEmitter & {
  process(handler: (events: Partial<BaileysEventMap>) => void | Promise<void>): () => void
}

export interface MsgappSocket {
  readonly ev: MsgappEvents
  /** The linked account (`id` is the number's JID) once the socket is open. */
  readonly user: { readonly id: string; readonly name?: string | undefined } | undefined
  readonly sendMessage: (
    jid: string,
    content: AnyMessageContent,
    options?: MiscMessageGenerationOptions,
  ) => Promise<WAMessage | undefined>
  readonly requestPairingCode: (phone: string) => Promise<string>
  readonly logout: () => Promise<void>
  readonly end: (error: Error | undefined) => void
  readonly fetchMessageHistory: (
    count: number,
    oldest: WAMessageKey,
    oldestTimestamp: number,
  ) => Promise<string>
  readonly groupMetadata: (jid: string) => Promise<GroupMetadata>
  /** The URL of a chat's or group's photo (undefined when it has none or hides it). */
  readonly profilePictureUrl: (jid: string) => Promise<string | undefined>
  readonly readMessages: (keys: WAMessageKey[]) => Promise<void>
  readonly sendPresenceUpdate: (type: WAPresence, jid?: string) => Promise<void>
  readonly rejectCall: (callId: string, from: string) => Promise<void>
  /** Media re-upload when a download link expired (Baileys' `updateMediaMessage`). */
  readonly updateMediaMessage: (m: WAMessage) => Promise<WAMessage>
}

export interface TransportShape {
  readonly connect: (channelId: number, auth: AuthenticationState) => Promise<MsgappSocket>
}

export class Transport extends Context.Tag('kotak/msgapp/Transport')<Transport, TransportShape>() {}

/** Baileys wants a pino-like logger; ours stays silent (our own log records what matters). */
export const quietLogger = {
  level: 'silent',
  child() {
    return quietLogger
  },
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
}
