import { Context, Layer } from 'effect'
import * as Signal from '../../engine/signal'

/**
 * A hint, inside one node, that e-mail channel settings changed or a sync was asked for, so this
 * node's session supervisor looks at once instead of at its next poll. Only a hint: the database
 * is the truth, and other nodes see the change at their next poll.
 */
export class EmailNudge extends Context.Tag('kotak/EmailNudge')<EmailNudge, Signal.Signal>() {}

export const layer: Layer.Layer<EmailNudge> = Layer.sync(EmailNudge, () => Signal.make())
