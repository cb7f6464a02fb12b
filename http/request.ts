/** Query strings and cookies as the handlers see them. */

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

export const parseCookies = (header: string | undefined): Map<string, string> => {
  const jar = new Map<string, string>()
  if (!header) return jar
  for (const part of header.split(';')) {
    const i = part.indexOf('=')
    if (i > 0) jar.set(part.slice(0, i).trim(), decodeURIComponent(part.slice(i + 1).trim()))
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
