/**
 * Where the app may send the browser after a sign-in: a path of this site's app (`/app…`) or an
 * invitation (`/invite/…`), read as the browser will read it; anything else is `/app`. The
 * server's rule, word for word (http/routes/auth.ts `safeReturnTo`): printable ASCII without a
 * backslash (a browser reads `/\evil.example` as `//evil.example` and drops tabs and newlines),
 * then resolved here, where it must keep this page's origin and the app's or an invitation's path.
 */
export const sameSitePath = (v: string | null | undefined): string | null => {
  if (!v || !/^\/(?!\/)[\x21-\x5b\x5d-\x7e]*$/.test(v)) return null
  const url = new URL(v, location.origin)
  if (url.origin !== location.origin) return null
  const p = url.pathname
  return p === '/app' || p.startsWith('/app/') || p.startsWith('/invite/')
    ? `${p}${url.search}${url.hash}`
    : null
}

export const returnPath = (v: string | null | undefined): string => sameSitePath(v) ?? '/app'
