import { randomUUID } from 'node:crypto'
import { Deferred, Duration, Effect, Option, Runtime, type Scope } from 'effect'
import type { Delivery, OutboundMessage, Signal } from '../../actors/channels/Connector'
import { Bus } from '../../engine/bus/Bus'
import { systemMillis } from '../../engine/clock'

/**
 * Forwarding between nodes (cluster mode): a number's ChannelActor runs where its shard is, its
 * socket where its advisory lock is (sessions.ts). When the actor's node has no socket for the
 * number, the adapter hands the request to the node that has one, over the Bus, and that node
 * carries it out as if it were local.
 *
 * - One request topic (`msgapp.forward`) every node subscribes to at start; a node acts on a
 *   request only while it holds the number's open socket (`Local.holds`), and otherwise
 *   ignores it. Only one node holds a number's socket (its advisory lock), so exactly one node
 *   answers; a request nobody holds a socket for is answered by no one (the sender times out).
 * - `send` is a request/reply: the request names this node's reply topic (`msgapp.forwarded.<node
 *   id>`, subscribed at start) and a request id; the socket's node sends (pacing, warm-up refusal,
 *   send log, restriction reporting: all there, exactly as a local send) and publishes the
 *   `Delivery`. The sender waits at most `timeoutMs`.
 * - At most once. The Bus stores and retries nothing, and neither does this: a request whose
 *   answer does not come within `timeoutMs` (the socket's node died, Redis lost the message, no
 *   node holds a socket) is `Rejected` with `TIMED_OUT` and never sent again by itself. The request
 *   carries a deadline (`startBy`, the sender's clock, a quarter of the wait before its end): the
 *   socket's node refuses a request it would start after that (logged in its send log), so a late
 *   request does not go out after its sender gave up, unless the clocks of the nodes disagree by
 *   more than that margin or the service takes longer than the margin to answer a send that
 *   started in time. Then the message is recorded failed though it may have arrived. Forwarded
 *   sends of one number are carried out one at a time on the socket's node.
 * - `signal` (edits, reactions, receipts…) is forwarded fire-and-forget, best effort as locally.
 */
export const REQUESTS = 'msgapp.forward'
const repliesOf = (node: string) => `msgapp.forwarded.${node}`

export const TIMED_OUT =
  "The node holding the number's connection did not answer in time; the message was not sent again (it may or may not have arrived)."

type Request =
  | {
      readonly kind: 'send'
      readonly id: string
      readonly replyTo: string
      readonly channelId: number
      readonly startBy: number
      readonly message: OutboundMessage
    }
  | {
      readonly kind: 'signal'
      readonly channelId: number
      readonly conversationId: number
      readonly signal: Signal
    }

interface Reply {
  readonly id: string
  readonly delivery: Delivery
}

const encoder = new TextEncoder()
const decoder = new TextDecoder()
const encode = (v: Request | Reply) => encoder.encode(JSON.stringify(v))
const decode = <A>(bytes: Uint8Array): A | null => {
  try {
    return JSON.parse(decoder.decode(bytes)) as A
  } catch {
    return null
  }
}

export interface ForwardShape {
  /** Sends through the node holding the number's socket; never fails (see the module's guarantees). */
  readonly send: (channelId: number, message: OutboundMessage) => Effect.Effect<Delivery>
  readonly signal: (channelId: number, conversationId: number, signal: Signal) => Effect.Effect<void>
}

/** What this node does with a forwarded request when it holds the number's socket. */
export interface Local<R> {
  /** Whether this node holds the number's open socket (connectors/msgapp/live.ts). */
  readonly holds: (channelId: number) => boolean
  readonly send: (
    channelId: number,
    message: OutboundMessage,
    startBy: number,
  ) => Effect.Effect<Delivery, never, R>
  readonly signal: (
    channelId: number,
    conversationId: number,
    signal: Signal,
  ) => Effect.Effect<void, never, R>
}

/** Subscribes this node (for the scope's life) and returns the sending side. */
export const make = <R>(
  local: Local<R>,
  timeoutMs: number,
): Effect.Effect<ForwardShape, never, Bus | Scope.Scope | R> =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const runtime = yield* Effect.runtime<R>()
    const node = randomUUID()
    const replies = repliesOf(node)
    const pending = new Map<string, Deferred.Deferred<Delivery>>()
    // One forwarded send at a time per number here too (a request its sender gave up on may still
    // be pacing when the actor's next one arrives).
    const turns = new Map<number, Effect.Semaphore>()
    const turnOf = (channelId: number) => {
      const t = turns.get(channelId) ?? Effect.unsafeMakeSemaphore(1)
      turns.set(channelId, t)
      return t
    }

    yield* Effect.acquireRelease(
      bus.subscribe(replies, (bytes) => {
        const r = decode<Reply>(bytes)
        const waiting = r ? pending.get(r.id) : undefined
        if (r && waiting) Deferred.unsafeDone(waiting, Effect.succeed(r.delivery))
      }),
      (off) => off,
    )
    yield* Effect.acquireRelease(
      bus.subscribe(REQUESTS, (bytes) => {
        const q = decode<Request>(bytes)
        if (!q || !local.holds(q.channelId)) return
        if (q.kind === 'signal') {
          Runtime.runFork(runtime)(local.signal(q.channelId, q.conversationId, q.signal))
          return
        }
        Runtime.runFork(runtime)(
          Effect.flatMap(
            turnOf(q.channelId).withPermits(1)(local.send(q.channelId, q.message, q.startBy)),
            (delivery) => bus.publish(q.replyTo, encode({ id: q.id, delivery })),
          ),
        )
      }),
      (off) => off,
    )

    const send = (channelId: number, message: OutboundMessage) =>
      Effect.gen(function* () {
        const id = randomUUID()
        const answer = yield* Deferred.make<Delivery>()
        pending.set(id, answer)
        const request: Request = {
          kind: 'send',
          id,
          replyTo: replies,
          channelId,
          // A deadline another node reads: the process clock both sides share (engine/clock).
          startBy: systemMillis() + Math.floor((timeoutMs * 3) / 4),
          message,
        }
        const got = yield* bus
          .publish(REQUESTS, encode(request))
          .pipe(
            Effect.zipRight(Deferred.await(answer)),
            Effect.timeoutOption(Duration.millis(timeoutMs)),
            Effect.ensuring(Effect.sync(() => pending.delete(id))),
          )
        return Option.getOrElse(got, (): Delivery => ({ _tag: 'Rejected', reason: TIMED_OUT }))
      })

    return {
      send,
      signal: (channelId, conversationId, signal) =>
        bus.publish(REQUESTS, encode({ kind: 'signal', channelId, conversationId, signal })),
    } satisfies ForwardShape
  })
