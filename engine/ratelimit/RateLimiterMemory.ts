import { Clock, Effect, Layer } from 'effect'
import { RateLimiter, type RateLimiterShape, resultOf, windowOf } from './RateLimiter'

export interface MemoryRateLimiter extends RateLimiterShape {
  /** Counters held (keys × windows); for tests of the sweep. */
  readonly size: () => number
}

/**
 * One node's counters: a Map per window. When the clock enters a new window, every older window
 * is dropped, so memory holds the current minute's keys only. A hit pinned to an older window
 * (`nowMs` in the past) is still counted, and that window lingers until the next one starts.
 * `clock` is what `hitNow` reads: the Effect clock `hit` reads (WallClock is built on it).
 */
export const make = (clock: Clock.Clock = Clock.make()): MemoryRateLimiter => {
  const windows = new Map<number, Map<string, number>>()
  let newest = Number.NEGATIVE_INFINITY

  const count = (key: string, window: number): number => {
    if (window > newest) {
      newest = window
      for (const w of windows.keys()) if (w < window) windows.delete(w)
    }
    let counts = windows.get(window)
    if (!counts) {
      counts = new Map()
      windows.set(window, counts)
    }
    const n = (counts.get(key) ?? 0) + 1
    counts.set(key, n)
    return n
  }

  const at = (key: string, limit: number, now: number) => {
    const window = windowOf(now)
    return resultOf(limit, count(key, window), window)
  }

  return {
    hit: (key, limit, nowMs) =>
      Effect.map(nowMs === undefined ? Clock.currentTimeMillis : Effect.succeed(nowMs), (now) =>
        at(key, limit, now),
      ),
    hitNow: (key, limit) => at(key, limit, clock.unsafeCurrentTimeMillis()),
    size: () => {
      let n = 0
      for (const counts of windows.values()) n += counts.size
      return n
    },
  }
}

export const layerMemory: Layer.Layer<RateLimiter> = Layer.effect(RateLimiter, Effect.map(Effect.clock, make))
