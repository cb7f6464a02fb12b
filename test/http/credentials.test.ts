import { afterEach, describe, expect, it, vi } from '@effect/vitest'
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

/** Entries expire by the wall clock: the tests set it. */
const clockAt = (ms: number) => vi.spyOn(Date, 'now').mockReturnValue(ms)

afterEach(() => {
  vi.restoreAllMocks()
})

/** A cache holding `caller(1, 10)` as 'd', the clock in the entry's last second. */
const dueEntry = (start: number) =>
  Effect.gen(function* () {
    const cache = Credentials.make()
    clockAt(start)
    yield* cache.load('d', Effect.succeed(caller(1, 10)))
    clockAt(start + Credentials.TTL_MS - Credentials.REFRESH_AHEAD_MS / 2)
    return cache
  })

/** A lookup that counts its runs and answers `value` once `gate` opens. */
const gatedLookup = <A>(gate: Deferred.Deferred<void>, count: { n: number }, value: A) =>
  Effect.zipRight(
    Effect.sync(() => {
      count.n++
    }),
    Effect.as(Deferred.await(gate), value),
  )

describe('credential cache', () => {
  it.effect('requests that miss while a lookup runs wait for it instead of looking up again', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const gate = yield* Deferred.make<void>()
      const lookups = { n: 0 }
      const lookup = gatedLookup(gate, lookups, caller(1, 10))
      const first = yield* Effect.fork(cache.load('d', lookup))
      const second = yield* Effect.fork(cache.load('d', lookup))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      const [a, b] = [yield* Fiber.join(first), yield* Fiber.join(second)]
      expect(lookups.n).toBe(1)
      expect(a).toBe(b)
      expect(cache.get('d')).toBe(a)
    }),
  )

  it.effect('a lookup begun before an invalidation neither fills the cache nor is joined after it', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const gate = yield* Deferred.make<void>()
      const lookups = { n: 0 }
      const slow = gatedLookup(gate, lookups, caller(1, 10))
      const before = yield* Effect.fork(cache.load('d', slow))
      yield* Effect.yieldNow()
      // The key is revoked while its lookup is under way.
      cache.drop({ workspaceId: 10 })
      const after = yield* Effect.exit(cache.load('d', Effect.fail('revoked' as const)))
      expect(after).toStrictEqual(Exit.fail('revoked'))
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(before)
      expect(lookups.n).toBe(1)
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

  it.effect(
    'a credential in its last second is answered from the cache and looked up again once, in the background',
    () =>
      Effect.gen(function* () {
        const cache = Credentials.make()
        const start = 1_000_000
        clockAt(start)
        const first = yield* cache.load('d', Effect.succeed(caller(1, 10)))
        const gate = yield* Deferred.make<void>()
        const lookups = { n: 0 }
        const lookup = gatedLookup(gate, lookups, caller(1, 11))
        // Fresh: nothing to do, the hit stays without a fiber.
        clockAt(start + Credentials.TTL_MS - Credentials.REFRESH_AHEAD_MS - 1)
        expect(cache.refresh('d', () => lookup)).toBeUndefined()
        // Its last second: the answer is still the entry; the lookup starts beside it, once.
        clockAt(start + Credentials.TTL_MS - Credentials.REFRESH_AHEAD_MS + 1)
        const refresh = cache.refresh('d', () => lookup)
        expect(refresh).toBeDefined()
        yield* refresh!
        yield* Effect.yieldNow()
        expect(lookups.n).toBe(1)
        expect(cache.get('d')).toBe(first)
        expect(cache.refresh('d', () => lookup)).toBeUndefined()
        // A request that misses meanwhile (the entry expired) joins the lookup under way.
        clockAt(start + Credentials.TTL_MS + 1)
        expect(cache.get('d')).toBeUndefined()
        const missed = yield* Effect.fork(cache.load('d', lookup))
        yield* Deferred.succeed(gate, undefined)
        const renewed = yield* Fiber.join(missed)
        expect(lookups.n).toBe(1)
        expect(renewed).toStrictEqual(caller(1, 11))
        expect(cache.get('d')).toBe(renewed)
        expect(cache.refresh('d', () => lookup)).toBeUndefined()
      }),
  )

  it.effect('API-channel keys: misses share one lookup, and the entry is refreshed in its last second', () =>
    Effect.gen(function* () {
      const cache = Credentials.make()
      const start = 2_000_000
      clockAt(start)
      const gate = yield* Deferred.make<void>()
      const lookups = { n: 0 }
      const credential = (workspaceId: number) =>
        ({ channel: { id: 5 }, workspace: { id: workspaceId } }) as unknown as Credentials.ChannelCredential
      const lookup = (workspaceId: number) => gatedLookup(gate, lookups, credential(workspaceId))
      const a = yield* Effect.fork(cache.loadChannel('k', lookup(7)))
      const b = yield* Effect.fork(cache.loadChannel('k', lookup(7)))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(gate, undefined)
      expect(yield* Fiber.join(a)).toBe(yield* Fiber.join(b))
      expect(lookups.n).toBe(1)
      expect(cache.refreshChannel('k', () => lookup(8))).toBeUndefined()
      clockAt(start + Credentials.TTL_MS - Credentials.REFRESH_AHEAD_MS / 2)
      yield* cache.refreshChannel('k', () => lookup(8))!
      yield* Effect.yieldNow()
      expect(lookups.n).toBe(2)
      expect(cache.getChannel('k')?.workspace.id).toBe(8)
      // Invalidated: gone at once, whatever its TTL.
      cache.drop({ workspaceId: 8 })
      expect(cache.getChannel('k')).toBeUndefined()
    }),
  )

  it.effect('a refresh begun before an invalidation does not fill the cache', () =>
    Effect.gen(function* () {
      const cache = yield* dueEntry(3_000_000)
      const gate = yield* Deferred.make<void>()
      const lookups = { n: 0 }
      yield* cache.refresh('d', () => gatedLookup(gate, lookups, caller(1, 10)))!
      yield* Effect.yieldNow()
      expect(lookups.n).toBe(1)
      // Revoked while the refresh runs: gone at once, and the refresh's answer is not kept.
      cache.drop({ workspaceId: 10 })
      yield* Deferred.succeed(gate, undefined)
      yield* Effect.yieldNow()
      expect(cache.get('d')).toBeUndefined()
      const after = yield* Effect.exit(cache.load('d', Effect.fail('revoked' as const)))
      expect(after).toStrictEqual(Exit.fail('revoked'))
    }),
  )

  it.effect('a failed refresh takes the entry with it: the next request looks up itself', () =>
    Effect.gen(function* () {
      const cache = yield* dueEntry(4_000_000)
      // Revoked where no bus reaches: the lookup now refuses the key.
      yield* cache.refresh('d', () => Effect.fail('unauthorized' as const))!
      yield* Effect.yieldNow()
      expect(cache.get('d')).toBeUndefined()
      const next = yield* Effect.exit(cache.load('d', Effect.fail('unauthorized' as const)))
      expect(next).toStrictEqual(Exit.fail('unauthorized'))
    }),
  )
})
