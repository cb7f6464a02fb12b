import { Context, Layer } from 'effect'
import * as Signal from '../../engine/signal'
import type { MsgappSocket } from './Transport'

/**
 * This node's open number sockets, shared by the session supervisor (above the actors, which
 * opens them) and the outbound adapter (below the actors, which sends through them), plus a
 * local nudge so a request made here is carried out at once instead of at the next poll. Only a
 * hint: the database is the truth, and other nodes see requests at their next poll. A service of
 * the node (made with its layer), so two nodes in one process never see each other's sockets.
 */
export interface MsgappLiveShape {
  readonly openSocket: (channelId: number) => MsgappSocket | null
  readonly setOpen: (channelId: number, s: MsgappSocket) => void
  /** Forgets the number's socket (only `s`, when given: a newer socket stays). */
  readonly clearOpen: (channelId: number, s?: MsgappSocket) => void
  readonly nudge: Signal.Signal
  /**
   * The adapter saw the service refuse the number (restriction, `reason`) or, for a number marked
   * restricted, a send go through again (`reason` null): the supervisor surfaces it.
   */
  readonly trouble: Signal.Signal<[channelId: number, reason: string | null]>
}

export class MsgappLive extends Context.Tag('kotak/MsgappLive')<MsgappLive, MsgappLiveShape>() {}

export const make = (): MsgappLiveShape => {
  const sockets = new Map<number, MsgappSocket>()
  return {
    openSocket: (channelId) => sockets.get(channelId) ?? null,
    setOpen: (channelId, s) => {
      sockets.set(channelId, s)
    },
    clearOpen: (channelId, s) => {
      if (!s || sockets.get(channelId) === s) sockets.delete(channelId)
    },
    nudge: Signal.make(),
    trouble: Signal.make<[channelId: number, reason: string | null]>(),
  }
}

export const layer: Layer.Layer<MsgappLive> = Layer.sync(MsgappLive, make)
