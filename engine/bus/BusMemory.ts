import { Effect, Layer } from 'effect'
import { Bus, type BusShape } from './Bus'

type Handler = (payload: Uint8Array) => void

/** This node's handlers per topic; the Redis adapter keeps its local side in one too. */
export interface Registry {
  /** `first`: the topic had no handler before. `remove` answers true when it took the last one. */
  readonly add: (
    topic: string,
    handler: Handler,
  ) => { readonly first: boolean; readonly remove: () => boolean }
  /** Calls every handler of `topic`, in subscription order; returns what the handlers threw. */
  readonly dispatch: (topic: string, payload: Uint8Array) => ReadonlyArray<unknown>
}

export const makeRegistry = (): Registry => {
  const topics = new Map<string, Set<Handler>>()
  return {
    add: (topic, handler) => {
      let set = topics.get(topic)
      const first = set === undefined
      if (!set) {
        set = new Set()
        topics.set(topic, set)
      }
      // A wrapper per subscription, so the same function subscribed twice is two subscriptions.
      const entry: Handler = (p) => handler(p)
      set.add(entry)
      let removed = false
      return {
        first,
        remove: () => {
          if (removed) return false
          removed = true
          const s = topics.get(topic)
          if (!s?.delete(entry) || s.size > 0) return false
          topics.delete(topic)
          return true
        },
      }
    },
    dispatch: (topic, payload) => {
      const set = topics.get(topic)
      if (!set) return []
      const thrown: unknown[] = []
      // A copy, so a handler that (un)subscribes during dispatch does not change this delivery.
      for (const h of [...set]) {
        try {
          h(payload)
        } catch (e) {
          thrown.push(e)
        }
      }
      return thrown
    },
  }
}

export const logThrown = (topic: string, thrown: ReadonlyArray<unknown>): Effect.Effect<void> =>
  thrown.length === 0
    ? Effect.void
    : Effect.logError('bus: a handler threw').pipe(
        Effect.annotateLogs({ topic, errors: thrown.map((e) => (e instanceof Error ? e.stack : String(e))) }),
      )

/** One node, no other: publish is local dispatch. */
export const make = (): BusShape => {
  const local = makeRegistry()
  return {
    publish: (topic, payload) => Effect.suspend(() => logThrown(topic, local.dispatch(topic, payload))),
    subscribe: (topic, handler) =>
      Effect.sync(() => {
        const { remove } = local.add(topic, handler)
        return Effect.sync(() => {
          remove()
        })
      }),
  }
}

export const layerMemory: Layer.Layer<Bus> = Layer.sync(Bus, make)
