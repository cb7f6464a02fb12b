import type { NumberLinkShape } from '../../actors/channels/msgapp'
import { phoneOf } from './jid'
import { nudge } from './live'

/** The numbers' connector as the channel operations see it (actors/channels/msgapp.ts). */
export const numberLink: NumberLinkShape = { nudge, phoneOf: (jid) => phoneOf(jid) }
