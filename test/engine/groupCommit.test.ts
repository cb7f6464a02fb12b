import { describe, expect, it } from '@effect/vitest'
import { Effect, Exit, Fiber, Scope, TestClock } from 'effect'
import * as GroupCommit from '../../engine/groupCommit.js'

// On the TestClock: the gathering time passes only when the test moves the clock.

/** A writer whose flushes record their items and answer each item with itself doubled. */
const recording = (options: { readonly maxItems: number; readonly gatherMs?: number }) =>
  Effect.gen(function* () {
    const flushes: number[][] = []
    const writer = yield* GroupCommit.make({
      flush: (items: readonly number[]) =>
        Effect.sync(() => {
          flushes.push([...items])
          return items.map((i) => Exit.succeed(i * 2))
        }),
      maxItems: options.maxItems,
      concurrency: 1,
      ...(options.gatherMs === undefined ? {} : { gatherMs: options.gatherMs }),
    })
    return { writer, flushes }
  })

describe('group commit', () => {
  it.scoped(
    'an idle writer flushes at once; what comes within the gathering time shares the next flush',
    () =>
      Effect.gen(function* () {
        const { writer, flushes } = yield* recording({ maxItems: 100, gatherMs: 2 })
        expect(yield* writer.submit(1)).toBe(2)
        expect(flushes).toEqual([[1]])
        // Within 2 ms of the last flush: these wait for company.
        const later = yield* Effect.fork(
          Effect.all([writer.submit(2), writer.submit(3), writer.submit(4)], { concurrency: 'unbounded' }),
        )
        yield* TestClock.adjust('1 millis')
        expect(flushes).toEqual([[1]])
        yield* TestClock.adjust('1 millis')
        expect(yield* Fiber.join(later)).toEqual([4, 6, 8])
        expect(flushes).toEqual([[1], [2, 3, 4]])
        // Long after: at once again.
        yield* TestClock.adjust('1 seconds')
        expect(yield* writer.submit(5)).toBe(10)
        expect(flushes).toEqual([[1], [2, 3, 4], [5]])
      }),
  )

  it.scoped('a full batch does not wait for the gathering time', () =>
    Effect.gen(function* () {
      const { writer, flushes } = yield* recording({ maxItems: 2, gatherMs: 2 })
      yield* writer.submit(1)
      const full = yield* Effect.fork(
        Effect.all([writer.submit(2), writer.submit(3)], { concurrency: 'unbounded' }),
      )
      expect(yield* Fiber.join(full)).toEqual([4, 6])
      expect(flushes).toEqual([[1], [2, 3]])
    }),
  )

  it.scoped('without a gathering time, a flush starts whenever the writer is free', () =>
    Effect.gen(function* () {
      const { writer, flushes } = yield* recording({ maxItems: 100 })
      yield* writer.submit(1)
      yield* writer.submit(2)
      expect(flushes).toEqual([[1], [2]])
    }),
  )

  // On the real clock: a flush here takes real time, and the gathering time must not pass.
  it.live('closing its scope flushes what waits at once and waits for the flushes under way', () =>
    Effect.gen(function* () {
      const flushes: number[][] = []
      const scope = yield* Scope.make()
      const writer = yield* Scope.extend(
        GroupCommit.make({
          // Recorded when done, so a flush the close did not wait for is missing.
          flush: (items: readonly number[]) =>
            Effect.sleep('30 millis').pipe(
              Effect.map(() => {
                flushes.push([...items])
                return items.map((i) => Exit.succeed(i * 2))
              }),
            ),
          maxItems: 100,
          concurrency: 1,
          gatherMs: 60_000,
        }),
        scope,
      )
      expect(yield* writer.submit(1)).toBe(2)
      // Within the gathering time of the first flush: these would wait a minute for company.
      const later = yield* Effect.fork(
        Effect.all([writer.submit(2), writer.submit(3)], { concurrency: 'unbounded' }),
      )
      yield* Effect.sleep('5 millis')
      expect(flushes).toEqual([[1]])
      const started = Date.now()
      yield* Scope.close(scope, Exit.void)
      expect(flushes).toEqual([[1], [2, 3]])
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(yield* Fiber.join(later)).toEqual([4, 6])
    }),
  )
})
