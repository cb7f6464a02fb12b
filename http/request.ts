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
