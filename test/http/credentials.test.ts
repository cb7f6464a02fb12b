import { describe, expect, it } from '@effect/vitest'
import { Deferred, Effect, Exit, Fiber } from 'effect'
import type { Caller } from '../../actors/admin/caller'
import * as Credentials from '../../http/credentials'

/**
 * The node's credential cache under concurrency: requests that miss together share one lookup,
 * and a lookup that began before an invalidation cannot bring back what was revoked. (That a
 * revoked key is refused at once on every node, end to end, is test/cluster/cluster.test.ts and
 * test/http/kernel.test.ts.)
 */
const caller = (userId: number, workspaceId: number) =>
  ({ user: { id: userId }, workspace: { id: workspaceId } }) as unknown as Caller

describe('credential cache', () => {
  it.effect('requests that miss while a lookup runs wait for it instead of looking up again', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const gate = yield* Deferred.make<void>()
      let lookups = 0
      const lookup = Effect.zipRight(
        Effect.sync(() => {
          lookups++
        }),
        Effect.as(Deferred.await(gate), caller(1, 10)),
      )
      const first = yield* Effect.fork(cache.load('d', lookup))
      const second = yield* Effect.fork(cache.load('d', lookup))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      const [a, b] = [yield* Fiber.join(first), yield* Fiber.join(second)]
      expect(lookups).toBe(1)
      expect(a).toBe(b)
      expect(cache.get('d')).toBe(a)
    }),
  )

  it.effect('a lookup begun before an invalidation neither fills the cache nor is joined after it', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const gate = yield* Deferred.make<void>()
      let lookups = 0
      const slow = Effect.zipRight(
        Effect.sync(() => {
          lookups++
        }),
        Effect.as(Deferred.await(gate), caller(1, 10)),
      )
      const before = yield* Effect.fork(cache.load('d', slow))
      yield* Effect.yieldNow()
      // The key is revoked while its lookup is under way.
      cache.drop({ workspaceId: 10 })
      const after = yield* Effect.exit(cache.load('d', Effect.fail('revoked' as const)))
      expect(after).toStrictEqual(Exit.fail('revoked'))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(before)
      expect(lookups).toBe(1)
      expect(cache.get('d')).toBeUndefined()
    }),
  )

  it.effect('a failed lookup is not kept: the next request looks up again', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const failed = yield* Effect.exit(cache.load('d', Effect.fail('unauthorized' as const)))
      expect(Exit.isFailure(failed)).toBe(true)
      expect(cache.get('d')).toBeUndefined()
      const found = yield* cache.load('d', Effect.succeed(caller(2, 20)))
      expect(cache.get('d')).toBe(found)
    }),
  )
})
