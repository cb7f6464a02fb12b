import type { NumberLink } from '../../actors/channels/msgapp'
import { phoneOf } from './inbound'
import { nudge } from './live'

/** The numbers' connector as the channel operations see it (actors/channels/msgapp.ts). */
export const numberLink: NumberLink = { nudge, phoneOf: (jid) => phoneOf(jid) }
