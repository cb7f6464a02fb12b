/** Query strings and cookies as the handlers see them; the request as the transport hands it on. */

/**
 * A request as the transport hands it over: everything copied out, but the peer's address, which
 * is read when first asked (uWS asks the kernel, getpeername(2), on every call; most requests,
 * those with a key or a session that write no audit entry, never need it).
 */
export interface Incoming {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
  readonly body: Uint8Array | null
  /** The body as it arrives, for routes that stream it (`streamBody`); `body` is then null. */
  readonly bodyStream?: AsyncIterable<Uint8Array>
  /** The peer's address (the same string on every call). */
  readonly ip: () => string
}

/**
 * A request as the transport hands it on, its keys always in this order: every request one hidden
 * class in V8 (docs/decisions.md, "Hidden classes on the hot path"). Positional, so that the
 * transport builds it without an object to copy from.
 */
export const incoming = (
  method: string,
  path: string,
  query: string,
  headers: ReadonlyMap<string, string>,
  ip: () => string,
  body: Uint8Array | null,
  bodyStream: AsyncIterable<Uint8Array> | undefined,
): Incoming => ({ method, path, query, headers, ip, body, bodyStream })

/** `a=1&b=2&b=3&c[]=4` → `{a: '1', b: ['2', '3'], c: ['4']}`: repeated or `[]` keys become arrays. */
export const parseQuery = (qs: string): Record<string, string | string[]> => {
  const out: Record<string, string | string[]> = {}
  for (const [k, v] of new URLSearchParams(qs)) {
    const arrayKey = k.endsWith('[]')
    const key = arrayKey ? k.slice(0, -2) : k
    const prev = out[key]
    if (prev === undefined) out[key] = arrayKey ? [v] : v
    else out[key] = Array.isArray(prev) ? [...prev, v] : [prev, v]
  }
  return out
}

/**
 * The media type of a `Content-Type` header, lower case and without its parameters
 * (`application/json; charset=utf-8` is `application/json`). Compared whole, never searched in:
 * `text/plain; x=application/json` is a type a cross-site form may send without asking first.
 */
export const mediaType = (contentType: string | undefined): string =>
  (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase()

/** A cookie's value, percent-decoded; one that cannot be (any site of the domain may set one) as it came. */
const cookieValue = (raw: string) => {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

export const parseCookies = (header: string | undefined): Map<string, string> => {
  const jar = new Map<string, string>()
  if (!header) return jar
  for (const part of header.split(';')) {
    const i = part.indexOf('=')
    if (i > 0) jar.set(part.slice(0, i).trim(), cookieValue(part.slice(i + 1).trim()))
  }
  return jar
}

/**
 * The client's address: the peer's, or with `trustedHops` proxies in front, the address the
 * outermost trusted proxy saw (counted from the right of `X-Forwarded-For`, so a client cannot
 * spoof it by sending its own header).
 */
export const clientAddress = (
  peer: string,
  forwardedFor: string | undefined,
  trustedHops: number,
): string => {
  if (trustedHops === 0 || !forwardedFor) return peer
  const hops = forwardedFor
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean)
  return hops[hops.length - trustedHops] ?? hops[0] ?? peer
}
