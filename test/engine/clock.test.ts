import { describe, expect, it } from '@effect/vitest'
import { Effect, TestClock } from 'effect'
import * as WallClock from '../../engine/clock.js'

// WallClock is Effect's Clock plus the offset tests move (issue 42, one clock).

describe('WallClock', () => {
  it.effect('follows the TestClock it was built on, and advance shifts every reading', () =>
    Effect.gen(function* () {
      const clock = yield* Effect.provide(WallClock.WallClock, WallClock.layer)
      expect(yield* clock.millis).toBe(0)
      yield* TestClock.adjust('5 seconds')
      expect(yield* clock.millis).toBe(5_000)
      expect(clock.unsafeMillis()).toBe(5_000)
      yield* clock.advance(60_000)
      expect(yield* clock.millis).toBe(65_000)
      expect(clock.unsafeMillis()).toBe(65_000)
      expect((yield* clock.now).getTime()).toBe(65_000)
      yield* clock.advance(-60_000)
      expect(yield* clock.millis).toBe(5_000)
    }),
  )

  it('on the default clock it reads the system time', () => {
    const clock = WallClock.make()
    const before = WallClock.systemMillis()
    const read = clock.unsafeMillis()
    expect(read).toBeGreaterThanOrEqual(before)
    expect(read - before).toBeLessThan(1_000)
  })
})
