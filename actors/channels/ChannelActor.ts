import { Clock, Data, Effect } from 'effect'
import * as Actor from '../../engine/actor/Actor'
import { RateLimiter } from '../../engine/ratelimit/RateLimiter'
import * as Channels from '../../store/channels'
import { apiAnswer, notFound, rateLimited } from '../errors'
import { publish, topics } from '../events'
import { Connector, type Delivery, type OutboundMessage, type Signal } from './Connector'

/**
 * ChannelActor: owns one channel connection. Here: its status, the outbound throttle of 30
 * messages a minute per number (counted through the rate limiter port so it holds across nodes),
 * and outbound delivery through the connector port, one request at a time per channel. The
 * connector issues add the sockets, sessions and queues each type needs.
 */
export const OUTBOUND_PER_MINUTE = 30

/** The reason a note handed to the ChannelActor is refused (a bug upstream if it ever shows). */
export const NOTE_REFUSED = 'An internal note is never sent to the customer.'

export class ChannelNotFound extends Data.TaggedError('ChannelNotFound')<{ readonly id: number }> {
  [apiAnswer]() {
    return notFound()
  }
}
export class Throttled extends Data.TaggedError('Throttled')<{ readonly retryAfterSeconds: number }> {
  [apiAnswer]() {
    return rateLimited(this.retryAfterSeconds, 'messages.throttled')
  }
}

export interface ChannelState {
  readonly row: Channels.ChannelRow | null
}

const existing = (state: ChannelState, id: number) =>
  state.row ? Effect.succeed(state.row) : Effect.fail(new ChannelNotFound({ id }))

export const definition = Actor.define({
  name: 'channel',
  load: (id: number) => Effect.map(Channels.byId(id), (row): ChannelState => ({ row })),
  idleMs: 30 * 60_000,
  handlers: {
    /** Takes one outbound slot of this minute, or fails with Throttled (→ 429). */
    TakeOutboundSlot: (state: ChannelState, m: { readonly nowMs?: number }, ctx) =>
      Effect.gen(function* () {
        yield* existing(state, ctx.id)
        const limiter = yield* RateLimiter
        const r = yield* limiter.hit(`channel-out:${ctx.id}`, OUTBOUND_PER_MINUTE, m.nowMs)
        if (!r.allowed) {
          // The limiter's clock (Effect's), which set resetAtMs.
          const now = m.nowMs ?? (yield* Clock.currentTimeMillis)
          return yield* Effect.fail(
            new Throttled({ retryAfterSeconds: Math.max(1, Math.ceil((r.resetAtMs - now) / 1000)) }),
          )
        }
        return [r.remaining, state] as const
      }),
    /**
     * Hands one message to the channel's connector; a refusal comes back as `Rejected`, never fails.
     * An internal note is refused here whatever the caller did before: no connector ever sees one.
     */
    Deliver: (state: ChannelState, m: { readonly message: OutboundMessage }, ctx) =>
      Effect.gen(function* () {
        const row = yield* existing(state, ctx.id)
        if (m.message.type === 'note') {
          yield* Effect.logError('refused to hand an internal note to a connector', {
            channel: ctx.id,
            message: m.message.messageId,
          })
          return [{ _tag: 'Rejected', reason: NOTE_REFUSED } satisfies Delivery, state] as const
        }
        const connector = yield* Connector
        return [yield* connector.send(row, m.message), state] as const
      }),
    /** Best-effort side signals: edits, unsends, reactions, read receipts, "agent joined", history. */
    Signal: (state: ChannelState, m: { readonly conversationId: number; readonly signal: Signal }, ctx) =>
      Effect.gen(function* () {
        const row = yield* existing(state, ctx.id)
        const connector = yield* Connector
        yield* connector.signal(row, m.conversationId, m.signal)
        return [undefined, state] as const
      }),
    /** Re-reads the channel (its settings changed). */
    Reload: (_: ChannelState, __: unknown, ctx) =>
      Effect.map(Channels.byId(ctx.id), (row) => [row, { row }] as const),
    SetStatus: (state: ChannelState, m: { readonly status: string }, ctx) =>
      Effect.gen(function* () {
        const before = yield* existing(state, ctx.id)
        if (before.status === m.status) return [before, state] as const
        const row = yield* Channels.setStatus(ctx.id, m.status)
        if (!row) return yield* Effect.fail(new ChannelNotFound({ id: ctx.id }))
        yield* publish(topics.workspace(row.workspace_id), 'channel.updated', {
          channel_id: row.id,
          status: row.status,
        })
        return [row, { row }] as const
      }),
  },
})

export class ChannelActor extends Actor.Tag('kotak/ChannelActor')<ChannelActor, typeof definition>() {}

export const layer = Actor.layer(ChannelActor, definition)
