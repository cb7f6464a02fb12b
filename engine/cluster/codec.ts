/**
 * What crosses nodes for an actor: the message, and the outcome of handling it (the reply, or the
 * handler's typed error), msgpackr-encoded. The same bytes are produced whether the owner is this
 * node or another, so an actor behaves the same wherever its entity lives.
 *
 * Values: plain objects, arrays, strings, numbers, booleans, null, undefined, bigint, `Date`, `Map`,
 * `Set`, `Uint8Array`, `Error` and `RegExp` keep their type (msgpackr records + structured clone).
 * Other class instances arrive as plain objects with their own enumerable fields: replies and
 * errors must be data, not behaviour.
 *
 * Typed errors (anything with a string `_tag`) cross as `{tag, fields}` and are re-created on the
 * caller's side: as an instance of the very class when the class is known to the codec (the kit's
 * errors always; the classes of the modules passed as `errors`), otherwise as an instance of a
 * stand-in class made with `Data.TaggedError(tag)` carrying the same fields, so `catchTag` and
 * `_tag` checks work either way (only `instanceof` needs the class to be known). A field holding a
 * `Cause` crosses as its rendering, wrapped in `Cause.die`.
 */
import { Cause, Data, Exit } from 'effect'
import { Packr } from 'msgpackr'
import { ActorDefect, ActorLoadFailed, ActorStopped } from '../actor/Actor.js'

const packr = new Packr({ structuredClone: true, mapsAsObjects: false, moreTypes: true })

export const pack = (value: unknown): Uint8Array => packr.pack(value)
export const unpack = (bytes: Uint8Array): unknown => packr.unpack(bytes)

// ---------------------------------------------------------------------------------------------
// Typed errors
// ---------------------------------------------------------------------------------------------

type ErrorClass = new (fields: never) => object

const CAUSE = '~cause'

/** Error classes by `_tag`. The kit's own are always there. */
export interface ErrorRegistry {
  readonly byTag: ReadonlyMap<string, ErrorClass>
}

const isClass = (v: unknown): v is ErrorClass =>
  typeof v === 'function' && typeof v.prototype === 'object' && v.prototype instanceof Error

/** The `_tag` instances of `cls` get, found by making one with no fields (tagged errors take any). */
const tagOf = (cls: ErrorClass): string | undefined => {
  try {
    const probe = new cls({} as never) as { readonly _tag?: unknown }
    return typeof probe._tag === 'string' ? probe._tag : undefined
  } catch {
    return undefined
  }
}

/**
 * A registry from error classes and from modules (every exported tagged error class of a module
 * namespace is taken, so errors added to a module later are covered without a list to keep).
 */
export const registry = (sources: ReadonlyArray<object> = []): ErrorRegistry => {
  const byTag = new Map<string, ErrorClass>()
  const add = (cls: ErrorClass) => {
    const tag = tagOf(cls)
    if (tag !== undefined && !byTag.has(tag)) byTag.set(tag, cls)
  }
  for (const cls of [ActorStopped, ActorDefect, ActorLoadFailed] as ReadonlyArray<ErrorClass>) add(cls)
  for (const source of sources) {
    if (isClass(source)) add(source)
    else for (const value of Object.values(source)) if (isClass(value)) add(value)
  }
  return { byTag }
}

/** Stand-ins for tags no registered class has, one class per tag. */
const standIns = new Map<string, ErrorClass>()
const standInFor = (tag: string): ErrorClass => {
  let cls = standIns.get(tag)
  if (cls === undefined) {
    cls = class extends Data.TaggedError(tag)<Record<string, unknown>> {}
    standIns.set(tag, cls)
  }
  return cls
}

/** An encoded failure: `[tag, fields]` for a typed error, `[null, message]` for anything else. */
type EncodedError = readonly [tag: string, fields: Record<string, unknown>] | readonly [null, string]

/**
 * A Cause as text, with the causes of its errors: a defect such as a failed `COMMIT` (`orDie` in
 * the SQL client) is known by its cause ("Connection terminated"), which is what tells a caller on
 * another node that the request may simply be tried again.
 */
const render = (cause: Cause.Cause<unknown>): string => Cause.pretty(cause, { renderErrorCause: true })

const encodeField = (value: unknown): unknown => (Cause.isCause(value) ? { [CAUSE]: render(value) } : value)

const decodeField = (value: unknown): unknown => {
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && CAUSE in value) {
    const rendered = (value as Record<string, unknown>)[CAUSE]
    return Cause.die(new Error(typeof rendered === 'string' ? rendered : 'remote cause'))
  }
  return value
}

export const encodeError = (error: unknown): EncodedError => {
  if (error !== null && typeof error === 'object' && typeof (error as { _tag?: unknown })._tag === 'string') {
    const e = error as Record<string, unknown> & { readonly _tag: string }
    const fields: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(e)) if (k !== '_tag') fields[k] = encodeField(v)
    // `cause` and `message` of an Error are not enumerable; carry them when they hold something.
    if (!('cause' in fields) && e.cause !== undefined) fields.cause = encodeField(e.cause)
    if (!('message' in fields) && Object.hasOwn(e, 'message') && e.message !== '') fields.message = e.message
    return [e._tag, fields]
  }
  return [null, error instanceof Error ? error.message : String(error)]
}

export const decodeError = (encoded: EncodedError, errors: ErrorRegistry): unknown => {
  if (encoded[0] === null) return new Error(encoded[1])
  const [tag, raw] = encoded
  const fields: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(raw)) fields[k] = decodeField(v)
  const cls = errors.byTag.get(tag)
  if (cls !== undefined) {
    try {
      return new cls(fields as never)
    } catch {
      // A class whose constructor wants something else: keep its prototype and the fields.
      return Object.assign(Object.create(cls.prototype) as object, fields, { _tag: tag })
    }
  }
  return new (standInFor(tag))(fields as never)
}

// ---------------------------------------------------------------------------------------------
// Outcomes
// ---------------------------------------------------------------------------------------------

const OK = 0
const FAILED = 1
const DEFECT = 2

/** Encodes what the owner's `ask` (or `tell`) ended with. */
export const encodeOutcome = (exit: Exit.Exit<unknown, unknown>): Uint8Array => {
  if (Exit.isSuccess(exit)) return pack([OK, exit.value])
  const failure = Cause.failureOption(exit.cause)
  if (failure._tag === 'Some') return pack([FAILED, encodeError(failure.value)])
  return pack([DEFECT, render(exit.cause)])
}

export type Outcome =
  | { readonly _tag: 'Success'; readonly value: unknown }
  | { readonly _tag: 'Failure'; readonly error: unknown }
  | { readonly _tag: 'Defect'; readonly rendered: string }

export const decodeOutcome = (bytes: Uint8Array, errors: ErrorRegistry): Outcome => {
  const v = unpack(bytes)
  if (!Array.isArray(v) || v.length !== 2) return { _tag: 'Defect', rendered: 'unreadable actor outcome' }
  if (v[0] === OK) return { _tag: 'Success', value: v[1] }
  if (v[0] === FAILED) return { _tag: 'Failure', error: decodeError(v[1] as EncodedError, errors) }
  return { _tag: 'Defect', rendered: String(v[1]) }
}

// ---------------------------------------------------------------------------------------------
// Entity ids
// ---------------------------------------------------------------------------------------------

/** Entity ids travel as JSON text, so `5` and `"5"` stay apart and come back as they went. */
export const encodeId = (id: string | number): string => JSON.stringify(id)

export const decodeId = (text: string): string | number => {
  const v: unknown = JSON.parse(text)
  if (typeof v === 'string' || typeof v === 'number') return v
  throw new Error(`not an entity id: ${text}`)
}
