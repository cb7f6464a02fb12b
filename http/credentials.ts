import { Context, Deferred, Effect, Exit, FiberId, Layer } from 'effect'
import type { Caller } from '../actors/admin/caller'
import { Bus } from '../engine/bus/Bus'
import { systemMillis } from '../engine/clock'
import { CREDENTIALS_TOPIC, type CredentialScope } from '../engine/events'
import type { ChannelRow } from '../store/channels'
import type { WorkspaceRow } from '../store/workspaces'

/**
 * Resolved credentials (API key or session → caller; API-channel key → channel and workspace), so
 * a busy key costs no database round trip per request. Correctness does not rest on the TTL:
 * whatever revokes a key, ends a session or changes a workspace, member or role publishes
 * `invalidateCredentials`, and every node drops the entries it names at once. The TTL only bounds
 * staleness for changes made where no shared bus reaches (the operator CLI against a database
 * without Redis).
 */
export const TTL_MS = 5_000
/**
 * A credential used in the last second of its entry is looked up again in the background
 * (`refresh`), so a busy one never expires under its requests: the entry is replaced before its
 * TTL and no request waits for the lookup. Without it, every five seconds each request in flight
 * missed and waited; under the storm's 5,000 messages a second those seconds were its slowest
 * (docs/decisions.md, "The credential cache's expiry"). Staleness is still bounded by the TTL: an
 * entry is never served after it.
 */
export const REFRESH_AHEAD_MS = 1_000
const MAX_ENTRIES = 50_000

/** What an API channel's key resolves to (spec 1 §4.7 access C). */
export interface ChannelCredential {
  readonly channel: ChannelRow
  readonly workspace: WorkspaceRow
}

interface Entry<V> {
  readonly value: V
  readonly until: number
}

export interface CredentialCacheShape {
  readonly get: (digest: string) => Caller | undefined
  /**
   * A credential that missed `get`: resolves it with `lookup` and keeps the result. Requests that
   * miss while a lookup of the same credential runs wait for it instead of each asking the
   * database (a busy key whose entry just expired is looked up once, not once per request in
   * flight). A lookup that began before an invalidation neither fills the cache nor is joined
   * by requests after it, so a revoked key is never served from a lookup older than the revocation.
   */
  readonly load: <E, R>(digest: string, lookup: Effect.Effect<Caller, E, R>) => Effect.Effect<Caller, E, R>
  /**
   * For a credential just answered from the cache: when its entry is in its last second and no
   * lookup of it runs, an effect that starts `load` in the background and returns at once;
   * otherwise undefined, so the usual hit stays without a fiber (engine/step.ts).
   */
  readonly refresh: <E, R>(
    digest: string,
    lookup: () => Effect.Effect<Caller, E, R>,
  ) => Effect.Effect<void, never, R> | undefined
  readonly getChannel: (digest: string) => ChannelCredential | undefined
  /** `load` and `refresh` for API-channel keys. */
  readonly loadChannel: <E, R>(
    digest: string,
    lookup: Effect.Effect<ChannelCredential, E, R>,
  ) => Effect.Effect<ChannelCredential, E, R>
  readonly refreshChannel: <E, R>(
    digest: string,
    lookup: () => Effect.Effect<ChannelCredential, E, R>,
  ) => Effect.Effect<void, never, R> | undefined
  /**
   * Whether the key's `last_used_at` is due a write from this node (none in the minute before
   * `now`, a monotonic time); true marks it written.
   */
  readonly touchDue: (keyId: number, now: number) => boolean
}

export class CredentialCache extends Context.Tag('kotak/CredentialCache')<
  CredentialCache,
  CredentialCacheShape
>() {}

const matches = (scope: CredentialScope, caller: Caller) =>
  'all' in scope
    ? true
    : 'userId' in scope
      ? caller.user.id === scope.userId
      : caller.workspace?.id === scope.workspaceId

/** One TTL map; `drop` removes the entries a scope names. */
const store = <V>(matches: (scope: CredentialScope, value: V) => boolean) => {
  const entries = new Map<string, Entry<V>>()
  // Lookups under way, by digest; their error type is the caller's (one per credential kind).
  const pending = new Map<string, Deferred.Deferred<V, unknown>>()
  // Bumped by every invalidation: a lookup that saw an older value may hold what was just revoked.
  let generation = 0
  const put = (digest: string, value: V) => {
    // Least recently looked up first out when full (Map keeps insertion order): a refreshed entry
    // moves to the end, and replacing one evicts nothing.
    if (!entries.delete(digest) && entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
    // Entries expire by the process clock (engine/clock), read synchronously on every request.
    entries.set(digest, { value, until: systemMillis() + TTL_MS })
  }
  const load = <E, R>(digest: string, lookup: Effect.Effect<V, E, R>): Effect.Effect<V, E, R> => {
    const running = pending.get(digest) as Deferred.Deferred<V, E> | undefined
    if (running) return Deferred.await(running)
    const result = Deferred.unsafeMake<V, E>(FiberId.none)
    pending.set(digest, result as Deferred.Deferred<V, unknown>)
    const startedAt = generation
    return Effect.onExit(lookup, (exit) =>
      Effect.suspend(() => {
        if (pending.get(digest) === result) pending.delete(digest)
        if (Exit.isSuccess(exit) && generation === startedAt) put(digest, exit.value)
        return Deferred.done(result, exit)
      }),
    )
  }
  return {
    get: (digest: string): V | undefined => {
      const e = entries.get(digest)
      if (!e) return undefined
      if (e.until < systemMillis()) {
        entries.delete(digest)
        return undefined
      }
      return e.value
    },
    load,
    refresh: <E, R>(
      digest: string,
      lookup: () => Effect.Effect<V, E, R>,
    ): Effect.Effect<void, never, R> | undefined => {
      const e = entries.get(digest)
      if (!e || e.until - systemMillis() >= REFRESH_AHEAD_MS || pending.has(digest)) return undefined
      return Effect.suspend(() => {
        if (pending.has(digest)) return Effect.void
        const startedAt = generation
        // A refresh that failed takes the entry with it: the credential may have been revoked
        // where no bus reaches, so the next request looks up (and is refused) itself.
        const renewed = Effect.catchAllCause(load(digest, lookup()), () =>
          Effect.sync(() => {
            if (generation === startedAt && entries.get(digest) === e) entries.delete(digest)
          }),
        )
        return Effect.asVoid(Effect.forkDaemon(renewed))
      })
    },
    drop: (scope: CredentialScope) => {
      generation++
      pending.clear()
      for (const [k, e] of entries) if (matches(scope, e.value)) entries.delete(k)
    },
  }
}

const channelMatches = (scope: CredentialScope, c: ChannelCredential) =>
  'all' in scope ? true : 'workspaceId' in scope ? c.workspace.id === scope.workspaceId : false

/** `last_used_at` is kept to the minute. */
const TOUCH_EVERY_MS = 60_000

export const make = (): CredentialCacheShape & { readonly drop: (scope: CredentialScope) => void } => {
  const callers = store<Caller>(matches)
  const channels = store<ChannelCredential>(channelMatches)
  const lastTouched = new Map<number, number>()
  return {
    get: callers.get,
    load: callers.load,
    refresh: callers.refresh,
    getChannel: channels.get,
    loadChannel: channels.load,
    refreshChannel: channels.refresh,
    touchDue: (keyId, now) => {
      if ((lastTouched.get(keyId) ?? Number.NEGATIVE_INFINITY) > now - TOUCH_EVERY_MS) return false
      lastTouched.set(keyId, now)
      return true
    },
    drop: (scope) => {
      callers.drop(scope)
      channels.drop(scope)
    },
  }
}

export const layer = Layer.scoped(
  CredentialCache,
  Effect.gen(function* () {
    const bus = yield* Bus
    const cache = make()
    const unsubscribe = yield* bus.subscribe(CREDENTIALS_TOPIC, (payload) => {
      try {
        cache.drop(JSON.parse(Buffer.from(payload).toString('utf8')) as CredentialScope)
      } catch {
        cache.drop({ all: true })
      }
    })
    yield* Effect.addFinalizer(() => unsubscribe)
    return cache
  }),
)
