import type uws from 'uWebSockets.js'
import { randomBytes } from 'node:crypto'
import { Effect } from 'effect'
import type { BusShape } from '../../engine/bus/Bus'

/**
 * Local delivery: which topics this node's sockets hold, one bus subscription per topic (taken by
 * the first local subscriber, dropped a little after the last one leaves, so a quick resubscribe
 * does not churn Redis), and a short replay buffer per topic. Each event is framed once per node
 * and handed to uWS' native topic publish, which writes the same bytes to every subscriber.
 */
export const REPLAY_EVENTS = 200
const RELEASE_DELAY_MS = 5_000

interface TopicState {
  count: number
  /** Node sequence when this topic was joined; older cursors predate what this node holds. */
  readonly since: number
  /** Sequence of the newest event dropped from the buffer (0: none). */
  evicted: number
  buffer: Array<{ seq: number; bytes: Buffer }>
  unsubscribe: Effect.Effect<void> | undefined
  /** Settles once the bus subscription is in place (or failed, which is logged by `run`). */
  readonly ready: Promise<void>
  releaseTimer: NodeJS.Timeout | undefined
}

export interface Hub {
  /**
   * Takes the topic for one more local subscriber. The promise settles when the bus delivers the
   * topic's events, so a client told `subscribed` after it misses nothing published from then on.
   */
  readonly join: (topic: string) => Promise<void>
  readonly leave: (topic: string) => void
  /** Events of `topic` after `cursor` from the buffer, or null when the client must reload. */
  readonly since: (topic: string, cursor: string) => Buffer[] | null
  readonly close: () => void
}

export const makeHub = (
  app: uws.TemplatedApp,
  bus: BusShape,
  run: <A>(e: Effect.Effect<A>) => void,
  /** Takes a topic's payload before framing; true means handled (not for clients). */
  intercept?: (topic: string, payload: Uint8Array) => boolean,
): Hub => {
  // Cursors from another node or an earlier run of this one cannot be resumed.
  const epoch = randomBytes(4).toString('hex')
  const topics = new Map<string, TopicState>()
  // One sequence for all topics of this node, so cursors never repeat across a topic's rejoin.
  let nodeSeq = 0

  const dispatch = (topic: string, state: TopicState, payload: Uint8Array) => {
    if (intercept?.(topic, payload)) return
    nodeSeq += 1
    const seq = nodeSeq
    const cursor = `${epoch}.${seq}`
    // `{"cursor":"…",` + the encoded event minus its opening brace: framed once, not re-encoded.
    // A view of the payload, not a copy: concat copies it once into the frame.
    const event = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).subarray(1)
    const bytes = Buffer.concat([Buffer.from(`{"cursor":"${cursor}",`), event])
    state.buffer.push({ seq, bytes })
    if (state.buffer.length > REPLAY_EVENTS) state.evicted = state.buffer.shift()!.seq
    app.publish(topic, bytes, false)
  }

  return {
    join: (topic) => {
      let state = topics.get(topic)
      if (!state) {
        let settle = () => {}
        const ready = new Promise<void>((resolve) => {
          settle = resolve
        })
        state = {
          count: 0,
          since: nodeSeq,
          evicted: 0,
          buffer: [],
          unsubscribe: undefined,
          ready,
          releaseTimer: undefined,
        }
        topics.set(topic, state)
        const s = state
        run(
          Effect.map(
            bus.subscribe(topic, (payload) => dispatch(topic, s, payload)),
            (unsubscribe) => {
              s.unsubscribe = unsubscribe
            },
          ).pipe(Effect.ensuring(Effect.sync(settle))),
        )
      }
      if (state.releaseTimer) {
        clearTimeout(state.releaseTimer)
        state.releaseTimer = undefined
      }
      state.count += 1
      return state.ready
    },
    leave: (topic) => {
      const state = topics.get(topic)
      if (!state) return
      state.count -= 1
      if (state.count > 0) return
      state.releaseTimer = setTimeout(() => {
        if (state.count > 0) return
        topics.delete(topic)
        if (state.unsubscribe) run(state.unsubscribe)
      }, RELEASE_DELAY_MS)
      state.releaseTimer.unref()
    },
    since: (topic, cursor) => {
      const [e, n] = cursor.split('.')
      const seq = Number(n)
      const state = topics.get(topic)
      if (e !== epoch || !Number.isInteger(seq) || !state) return null
      if (seq < state.since || seq < state.evicted || seq > nodeSeq) return null
      return state.buffer.filter((b) => b.seq > seq).map((b) => b.bytes)
    },
    close: () => {
      for (const state of topics.values()) {
        if (state.releaseTimer) clearTimeout(state.releaseTimer)
        if (state.unsubscribe) run(state.unsubscribe)
      }
      topics.clear()
    },
  }
}
