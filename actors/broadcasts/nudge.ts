import { Context, Effect, Layer } from 'effect'
import * as Signal from '../../engine/signal'

/**
 * A local nudge for this node's broadcast senders: a change made here (schedule, pause, resume,
 * cancel, retry) is looked at at once instead of at the next poll. Only a hint: the database is
 * the truth, and other nodes see the change at their next look.
 */
export class BroadcastNudge extends Context.Tag('kotak/BroadcastNudge')<BroadcastNudge, Signal.Signal>() {}

export const layer: Layer.Layer<BroadcastNudge> = Layer.sync(BroadcastNudge, () => Signal.make())

export const nudge = Effect.flatMap(BroadcastNudge, (n) => Effect.sync(n.fire))
