import { Effect, Layer } from 'effect'
import { RateLimiter, type RateLimiterShape, WINDOW_MS } from './RateLimiter'

/** One node's counters in a Map; windows older than the current one are dropped as time moves. */
export const make = (): RateLimiterShape => {
  let window = -1
  let counts = new Map<string, number>()
  return {
    hit: (key, limit, nowMs) =>
      Effect.sync(() => {
        const now = nowMs ?? Date.now()
        const w = Math.floor(now / WINDOW_MS)
        if (w !== window) {
          window = w
          counts = new Map()
        }
        const count = (counts.get(key) ?? 0) + 1
        counts.set(key, count)
        return {
          allowed: count <= limit,
          limit,
          remaining: Math.max(0, limit - count),
          resetAtMs: (w + 1) * WINDOW_MS,
        }
      }),
  }
}

export const layerMemory = Layer.sync(RateLimiter, make)
