import FindMyWay from 'find-my-way'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
export const methods: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

export type Match<T> =
  | { readonly _tag: 'Found'; readonly value: T; readonly params: Readonly<Record<string, string>> }
  | { readonly _tag: 'MethodNotAllowed'; readonly allow: readonly string[] }
  | { readonly _tag: 'NotFound' }

/**
 * Method + path to a value. Paths use the spec's `{name}` form. Knows the difference between an
 * unknown path (404) and a known path with another method (405 with `Allow`). `HEAD` matches the
 * path's `GET`; any other method it was not given, known or not, is a 405.
 */
export interface Router<T> {
  readonly add: (method: Method, path: string, value: T) => void
  readonly match: (method: string, path: string) => Match<T>
}

export const make = <T>(): Router<T> => {
  // Signed tokens travel as path parameters (file links, invitations): the default 100 is too short.
  const fmw = FindMyWay({
    ignoreTrailingSlash: true,
    ignoreDuplicateSlashes: false,
    caseSensitive: true,
    maxParamLength: 1000,
  })
  const noop = () => undefined
  // A path without parameters, asked exactly as declared (most hot requests: an inbound message,
  // `GET /v1/me`), is found by one Map look-up: find-my-way's walk, its URL checks and its result
  // object cost about 1 % of a message's CPU in the storm. The same answer as find-my-way's: an
  // exact static path wins over a parametric one there too; anything else (a trailing slash, an
  // encoded character, HEAD) is left to it.
  const exact = new Map<string, Match<T>>()
  const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({})
  return {
    add: (method, path, value) => {
      fmw.on(method, path.replace(/\{(\w+)\}/g, ':$1'), noop, { value })
      if (!path.includes('{')) exact.set(`${method} ${path}`, { _tag: 'Found', value, params: NO_PARAMS })
    },
    match: (method, raw) => {
      const known = exact.get(`${method} ${raw}`)
      if (known !== undefined) return known
      // A stray `%` (a link cut short, `abc%`) is taken as itself: find-my-way finds nothing for a
      // path it cannot decode, and the page behind it (a link's, an invitation's) says best what
      // is wrong with it.
      const path = raw.includes('%') ? raw.replace(/%(?![0-9a-fA-F]{2})/g, '%25') : raw
      const found = fmw.find((method === 'HEAD' ? 'GET' : method) as Method, path)
      if (found) {
        return {
          _tag: 'Found',
          value: (found.store as { value: T }).value,
          params: found.params as Record<string, string>,
        }
      }
      const routed = methods.filter((m) => fmw.find(m, path) !== null)
      if (routed.length === 0) return { _tag: 'NotFound' }
      // Every GET answers HEAD too (RFC 9110 §9.3.2), so a path with a GET allows both.
      const allow = routed.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m]))
      return { _tag: 'MethodNotAllowed', allow }
    },
  }
}
