import { describe, expect, it } from '@effect/vitest'
import { Deferred, Effect, Fiber, Ref } from 'effect'
import * as Memo from '../../engine/memo'

// The memo ages entries by the monotonic clock (performance.now), so these tests wait a few real
// milliseconds past a TTL of 5 ms; no assertion is about how long anything took.
const pastTtl = Effect.promise(() => new Promise((r) => setTimeout(r, 20)))

describe('Memo', () => {
  it.effect('shares one computation among concurrent callers of a key', () =>
    Effect.gen(function* () {
      const memo = Memo.make<number, never>(5)
      const runs = yield* Ref.make(0)
      const gate = yield* Deferred.make<void>()
      const compute = Effect.zipRight(
        Ref.updateAndGet(runs, (n) => n + 1),
        Effect.as(Deferred.await(gate), 7),
      )
      const a = yield* Effect.fork(memo.get('k', 's', compute))
      const b = yield* Effect.fork(memo.get('k', 's', compute))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      expect([yield* Fiber.join(a), yield* Fiber.join(b)]).toEqual([7, 7])
      expect(yield* Ref.get(runs)).toBe(1)
    }),
  )

  it.live('past its TTL with the same stamp answers the kept value at once and refreshes it behind', () =>
    Effect.gen(function* () {
      const memo = Memo.make<number, never>(5)
      const value = yield* Ref.make(1)
      const gate = yield* Deferred.make<void>()
      const slow = Effect.zipRight(Deferred.await(gate), Ref.get(value))
      expect(yield* memo.get('k', 's', Ref.get(value))).toBe(1)
      yield* Ref.set(value, 2)
      yield* pastTtl
      // The refresh waits on the gate: the callers do not.
      expect(yield* memo.get('k', 's', slow)).toBe(1)
      expect(yield* memo.get('k', 's', slow)).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      yield* pastTtl.pipe(Effect.zipRight(Effect.yieldNow()))
      // The refreshed value is fresh: no refresh asked of this compute, which would answer 3.
      expect(yield* memo.get('k', 's', Effect.succeed(3))).toBe(2)
    }),
  )

  it.live('a changed stamp waits for the new value; a refresh never overwrites a newer entry', () =>
    Effect.gen(function* () {
      const memo = Memo.make<number, never>(5)
      const gate = yield* Deferred.make<void>()
      expect(yield* memo.get('k', 'v1', Effect.succeed(1))).toBe(1)
      yield* pastTtl
      // A refresh of v1 starts and hangs on the gate; meanwhile the stamp moves to v2.
      expect(yield* memo.get('k', 'v1', Effect.as(Deferred.await(gate), 10))).toBe(1)
      expect(yield* memo.get('k', 'v2', Effect.succeed(2))).toBe(2)
      yield* Deferred.succeed(gate, undefined)
      yield* pastTtl
      expect(yield* memo.get('k', 'v2', Effect.succeed(20))).toBe(2)
    }),
  )

  it.live('a failure is not kept', () =>
    Effect.gen(function* () {
      const memo = Memo.make<number, string>(5)
      expect(yield* Effect.flip(memo.get('k', 's', Effect.fail('no')))).toBe('no')
      expect(yield* memo.get('k', 's', Effect.succeed(4))).toBe(4)
    }),
  )
})
