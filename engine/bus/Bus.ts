import { Context, type Effect } from 'effect'

/**
 * Topic publish/subscribe between the nodes of a deployment (Phoenix PubSub's shape): `publish`
 * dispatches to this node's handlers at once and hands the message to the adapter for the others.
 *
 * Guarantees:
 * - At-most-once. Nothing is stored or retried: a node that is not subscribed, or cut off from
 *   Redis, misses what is published meanwhile (publishes during a Redis outage are lost for other
 *   nodes; local delivery goes on). Clients recover through the API (reload) or a replay cursor.
 * - Order: messages one node publishes to one topic reach every handler in publish order.
 * - The publishing node's handlers run synchronously inside `publish`, exactly once (the Redis
 *   adapter drops its own echo). Other nodes' handlers run when the message arrives.
 * - Once `subscribe` completes, the handler receives what any node publishes after that (if Redis
 *   answered within the adapter's timeout; otherwise the failure is logged and the subscription
 *   takes effect when Redis is back).
 * - Nothing fails: Redis failures are logged, never returned. A handler that throws is logged and
 *   does not keep the message from the other handlers.
 *
 * Handlers must return quickly and must not modify the payload: every handler of a node gets the
 * same bytes.
 */
export interface BusShape {
  readonly publish: (topic: string, payload: Uint8Array) => Effect.Effect<void>
  /**
   * Subscribes a local handler; the returned effect unsubscribes it (running it again does
   * nothing). Subscribing the same function twice delivers twice, once per subscription.
   */
  readonly subscribe: (
    topic: string,
    handler: (payload: Uint8Array) => void,
  ) => Effect.Effect<Effect.Effect<void>>
}

export class Bus extends Context.Tag('kotak/Bus')<Bus, BusShape>() {}
