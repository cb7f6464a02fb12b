import { Effect, Layer } from 'effect'
import { NumberLink, type NumberLinkShape } from '../../actors/channels/msgapp'
import { phoneOf } from './jid'
import { MsgappLive } from './live'

/** The numbers' connector as the channel operations see it (actors/channels/msgapp.ts). */
export const layer = Layer.effect(
  NumberLink,
  Effect.map(
    MsgappLive,
    (live): NumberLinkShape => ({ nudge: live.nudge.fire, phoneOf: (jid) => phoneOf(jid) }),
  ),
)
