import { Context, Effect, Layer } from 'effect'
import { Bus } from '../engine/bus/Bus'
import { CREDENTIALS_TOPIC, type CredentialScope } from '../engine/events'
import type { Caller } from './caller'

/**
 * Resolved credentials (API key or session → caller), so a busy key costs no database round trip
 * per request. Correctness does not rest on the TTL: whatever revokes a key, ends a session or
 * changes a workspace, member or role publishes `invalidateCredentials`, and every node drops the
 * entries it names at once. The TTL only bounds staleness for changes made where no shared bus
 * reaches (the operator CLI against a database without Redis).
 */
export const TTL_MS = 5_000
const MAX_ENTRIES = 50_000

interface Entry {
  readonly caller: Caller
  readonly until: number
}

export interface CredentialCacheShape {
  readonly get: (digest: string) => Caller | undefined
  readonly put: (digest: string, caller: Caller) => void
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

export const make = (): CredentialCacheShape & { readonly drop: (scope: CredentialScope) => void } => {
  const entries = new Map<string, Entry>()
  return {
    get: (digest) => {
      const e = entries.get(digest)
      if (!e) return undefined
      if (e.until < Date.now()) {
        entries.delete(digest)
        return undefined
      }
      return e.caller
    },
    put: (digest, caller) => {
      // Oldest first out when full; Map keeps insertion order.
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value!)
      entries.set(digest, { caller, until: Date.now() + TTL_MS })
    },
    drop: (scope) => {
      for (const [k, e] of entries) if (matches(scope, e.caller)) entries.delete(k)
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
