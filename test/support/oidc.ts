/**
 * A real OpenID Connect provider (oidc-provider 9) on a random loopback port, plus a script "browser"
 * that signs in through it, so sign-in can be tested end to end without a browser.
 *
 * Relying party with openid-client 6 (authorization code + PKCE) — the calls the app must make:
 *
 *   import * as client from 'openid-client'
 *
 *   // once, at start-up (or lazily on first login); cache the Configuration
 *   const config = await client.discovery(
 *     new URL(issuer),                          // e.g. 'http://127.0.0.1:54321' from startOidcProvider()
 *     clientId,
 *     { client_secret: clientSecret },          // client metadata (or just the secret string)
 *     client.ClientSecretBasic(clientSecret),   // the harness registers the client as client_secret_basic;
 *                                               // openid-client's own default is ClientSecretPost — pass it
 *                                               // explicitly and set tokenEndpointAuthMethod to match
 *     issuer.startsWith('http:') ? { execute: [client.allowInsecureRequests] } : undefined,
 *   )                                           // allowInsecureRequests is REQUIRED for an http:// issuer: it
 *                                               // covers the discovery request and every later request
 *
 *   // GET /login
 *   const codeVerifier = client.randomPKCECodeVerifier()
 *   const codeChallenge = await client.calculatePKCECodeChallenge(codeVerifier)   // S256
 *   const state = client.randomState()          // optional with PKCE, but recommended
 *   // keep { codeVerifier, state } server-side, keyed by a short-lived HttpOnly cookie (SameSite=Lax, NOT
 *   // Strict: the callback arrives as a cross-site navigation from the provider)
 *   const url = client.buildAuthorizationUrl(config, {
 *     redirect_uri: 'http://127.0.0.1:<appPort>/callback', // must equal a registered redirect URI exactly
 *     scope: 'openid email profile',
 *     code_challenge: codeChallenge,
 *     code_challenge_method: 'S256',
 *     state,
 *   })
 *   // -> 302 Location: url.href
 *
 *   // GET /callback?code=...&state=...&iss=...
 *   const tokens = await client.authorizationCodeGrant(
 *     config,
 *     new URL(req.url, publicBaseUrl),          // the FULL current URL: its origin+path (query stripped) is
 *                                               // sent as redirect_uri to the token endpoint, so build it
 *                                               // from the public base URL, i.e. the registered redirect URI
 *     { pkceCodeVerifier: codeVerifier, expectedState: state, idTokenExpected: true },
 *   )                                           // throws client.AuthorizationResponseError (.error,
 *                                               // .error_description) on ?error=... e.g. access_denied;
 *                                               // other errors on bad state/iss/code/ID token
 *   const claims = tokens.claims()!             // { iss, sub, aud, exp, iat, email, email_verified, name, ... }
 *   // identify the user by (iss, sub); use claims.email only when claims.email_verified === true
 *   // optional: await client.fetchUserInfo(config, tokens.access_token, claims.sub)
 *
 *   // logout (optional): client.buildEndSessionUrl(config, { id_token_hint: tokens.id_token!,
 *   //   post_logout_redirect_uri: '<registered post-logout URI>' })  -> see browserLogout()
 *
 * The provider: http://127.0.0.1:<random port>, one confidential client (client_secret_basic by default,
 * response_type code, grant authorization_code), PKCE S256 required, scopes `openid email profile`,
 * ID token carries sub/email/email_verified/name. Login page takes just an e-mail (the login id); an
 * unknown e-mail is refused with HTTP 401. Consent is asked once per grant. The provider keeps an SSO
 * session in its `_session` cookie: a second browserLogin with the same cookie jar goes straight back to
 * the app without any form (and ignores the e-mail) unless the app sends `prompt=login`.
 */
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
// @ts-expect-error oidc-provider ships no type declarations; the few members used are typed below
import OidcProviderClass from 'oidc-provider'

export interface OidcAccount {
  email: string
  name: string
  /** Subject identifier; default is derived from the e-mail (stable across provider restarts). */
  sub?: string
}

export interface OidcProviderOptions {
  clientId: string
  clientSecret: string
  redirectUris: string[]
  postLogoutRedirectUris?: string[]
  accounts: OidcAccount[]
  /** How the client authenticates at the token endpoint. Default `client_secret_basic`. */
  tokenEndpointAuthMethod?: 'client_secret_basic' | 'client_secret_post'
}

export interface RunningOidcProvider {
  /** Issuer identifier, e.g. `http://127.0.0.1:54321` (no trailing slash). */
  issuer: string
  /** The `sub` claim the provider issues for an e-mail (undefined for an unknown e-mail). */
  subFor: (email: string) => string | undefined
  close: () => Promise<void>
}

/** Stable default subject for an e-mail: not the e-mail itself, so sub/email confusion shows up in tests. */
export const defaultSubFor = (email: string): string =>
  'u_' + createHash('sha256').update(email.toLowerCase()).digest('hex').slice(0, 24)

// --- minimal typing of the oidc-provider surface used here -------------------------------------------

interface InteractionDetails {
  uid: string
  prompt: { name: string; details: Record<string, unknown> }
  params: Record<string, unknown>
  session?: { accountId?: string }
  grantId?: string
}
interface OidcGrant {
  addOIDCScope(scope: string): void
  addOIDCClaims(claims: string[]): void
  addResourceScope(indicator: string, scope: string): void
  save(): Promise<string>
}
interface OidcProvider {
  callback(): (req: http.IncomingMessage, res: http.ServerResponse) => void
  interactionDetails(req: http.IncomingMessage, res: http.ServerResponse): Promise<InteractionDetails>
  interactionFinished(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    result: Record<string, unknown>,
    opts?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>
  Grant: (new (init: {
    accountId: string
    clientId: string
  }) => OidcGrant) & {
    find(id: string): Promise<OidcGrant | undefined>
  }
}
const Provider = OidcProviderClass as new (issuer: string, config: Record<string, unknown>) => OidcProvider

// --- provider -------------------------------------------------------------------------------------------

type Payload = Record<string, unknown>

const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'BackchannelAuthenticationRequest',
  'PreAuthorizedCode',
])

/** Per-instance in-memory storage (the built-in one is shared by the process and warns on start). */
const memoryAdapter = () => {
  const store = new Map<string, { payload: Payload; expiresAt: number }>()
  const live = (key: string): Payload | undefined => {
    const entry = store.get(key)
    if (!entry) return undefined
    if (entry.expiresAt <= Date.now()) {
      store.delete(key)
      return undefined
    }
    return entry.payload
  }
  return (model: string) => {
    const key = (id: string) => `${model}:${id}`
    const findBy = (field: string, value: string) => {
      for (const [k, entry] of store) {
        if (k.startsWith(`${model}:`) && entry.payload[field] === value) return live(k)
      }
      return undefined
    }
    return {
      upsert: async (id: string, payload: Payload, expiresIn?: number) => {
        store.set(key(id), { payload, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : Infinity })
      },
      find: async (id: string) => live(key(id)),
      findByUid: async (uid: string) => findBy('uid', uid),
      findByUserCode: async (userCode: string) => findBy('userCode', userCode),
      consume: async (id: string) => {
        const payload = live(key(id))
        if (payload) payload.consumed = Math.floor(Date.now() / 1000)
      },
      destroy: async (id: string) => {
        store.delete(key(id))
      },
      // only tokens: an Interaction also carries a grantId and must survive (account switch, logout)
      revokeByGrantId: async (grantId: string) => {
        for (const [k, entry] of store) {
          if (GRANTABLE.has(k.slice(0, k.indexOf(':'))) && entry.payload.grantId === grantId) store.delete(k)
        }
      },
    }
  }
}

const esc = (s: unknown) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  )

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>` +
  `<h1>${esc(title)}</h1>${body}</body></html>`

const readForm = async (req: http.IncomingMessage): Promise<URLSearchParams> => {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'))
}

const sendHtml = (res: http.ServerResponse, status: number, html: string) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
  res.end(html)
}

export const startOidcProvider = async (opts: OidcProviderOptions): Promise<RunningOidcProvider> => {
  const accounts = new Map<string, Required<OidcAccount>>() // by sub
  const subByEmail = new Map<string, string>()
  for (const a of opts.accounts) {
    const sub = a.sub ?? defaultSubFor(a.email)
    accounts.set(sub, { ...a, sub })
    subByEmail.set(a.email.toLowerCase(), sub)
  }
  const subFor = (email: string) => subByEmail.get(email.toLowerCase())

  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end()
  }
  const server = http.createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

  const signingKey = {
    ...generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' }),
    kid: 'test-' + randomBytes(4).toString('hex'),
    alg: 'RS256',
    use: 'sig',
  }

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients: [
      {
        client_id: opts.clientId,
        client_secret: opts.clientSecret,
        redirect_uris: opts.redirectUris,
        post_logout_redirect_uris: opts.postLogoutRedirectUris ?? [],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: opts.tokenEndpointAuthMethod ?? 'client_secret_basic',
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    pkce: { required: () => true }, // S256 is the only method oidc-provider 9 supports
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: false, // put the scope's claims into the ID token, not only into userinfo
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: { body: string }, form: string) => {
          ctx.body = page(
            'Sign out?',
            form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>'),
          )
        },
        postLogoutSuccessSource: async (ctx: { body: string }) => {
          ctx.body = page('Signed out', '')
        },
      },
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = accounts.get(sub)
      if (!account) return undefined
      return {
        accountId: sub,
        claims: async () => ({ sub, email: account.email, email_verified: true, name: account.name }),
      }
    },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html'
      ctx.body = page(
        'Error',
        Object.entries(out)
          .map(([k, v]) => `<pre class="error">${esc(k)}: ${esc(v)}</pre>`)
          .join(''),
      )
    },
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: 3600,
      Session: 86400,
      Grant: 86400,
    },
  })

  const interactions = async (req: http.IncomingMessage, res: http.ServerResponse, action: string) => {
    const details = await provider.interactionDetails(req, res)
    const { uid, prompt, params } = details
    const base = `/interaction/${uid}`

    if (req.method === 'GET' && action === '') {
      if (prompt.name === 'login') {
        const hint = typeof params.login_hint === 'string' ? params.login_hint : ''
        return sendHtml(res, 200, loginPage(base, hint))
      }
      if (prompt.name === 'consent') {
        const scopes = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? []
        return sendHtml(
          res,
          200,
          page(
            'Authorize',
            `<p>${esc(params.client_id)} asks for: ${esc(scopes.join(' '))}</p>` +
              `<form id="consent" method="post" action="${base}/confirm"><button type="submit">Allow</button></form>` +
              `<form id="deny" method="post" action="${base}/abort"><button type="submit">Deny</button></form>`,
          ),
        )
      }
      return sendHtml(
        res,
        501,
        page('Error', `<pre class="error">unsupported prompt ${esc(prompt.name)}</pre>`),
      )
    }

    if (req.method === 'POST' && action === '/login') {
      const email = ((await readForm(req)).get('login') ?? '').trim()
      const sub = subFor(email)
      if (!sub) {
        return sendHtml(res, 401, loginPage(base, email, `no account with login id ${email || '(empty)'}`))
      }
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: sub } },
        { mergeWithLastSubmission: false },
      )
    }

    if (req.method === 'POST' && action === '/confirm') {
      const missing = prompt.details as {
        missingOIDCScope?: string[]
        missingOIDCClaims?: string[]
        missingResourceScopes?: Record<string, string[]>
      }
      const grant =
        (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
        new provider.Grant({ accountId: details.session!.accountId!, clientId: String(params.client_id) })
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims)
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(indicator, scopes.join(' '))
      }
      const grantId = await grant.save()
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      )
    }

    if (req.method === 'POST' && action === '/abort') {
      return provider.interactionFinished(
        req,
        res,
        { error: 'access_denied', error_description: 'End-User denied the request' },
        { mergeWithLastSubmission: false },
      )
    }

    sendHtml(res, 404, page('Error', '<pre class="error">not found</pre>'))
  }

  const providerCallback = provider.callback()
  handler = (req, res) => {
    const m = /^\/interaction\/([^/?]+)(\/[a-z]+)?(?:\?|$)/.exec(req.url ?? '')
    if (!m) return providerCallback(req, res)
    interactions(req, res, m[2] ?? '').catch((err: Error) => {
      // e.g. SessionNotFound when the _interaction cookie is missing or the interaction expired
      if (!res.headersSent)
        sendHtml(res, 400, page('Error', `<pre class="error">${esc(err.name)}: ${esc(err.message)}</pre>`))
      else res.end()
    })
  }

  return {
    issuer,
    subFor,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()))
        server.closeAllConnections()
      }),
  }
}

const loginPage = (base: string, email: string, error?: string) =>
  page(
    'Sign in',
    (error ? `<p class="error">${esc(error)}</p>` : '') +
      `<form id="login" method="post" action="${base}/login" autocomplete="off">` +
      `<input type="email" name="login" required value="${esc(email)}"/>` +
      '<button type="submit">Sign in</button></form>' +
      `<form id="deny" method="post" action="${base}/abort"><button type="submit">Cancel</button></form>`,
  )

// --- cookie jar -------------------------------------------------------------------------------------------

interface StoredCookie {
  name: string
  value: string
  path: string
  expiresAt: number
  sameSite: 'strict' | 'lax' | 'none'
}

/**
 * A tiny cookie jar keyed by origin (scheme://host:port, host-only: the Domain attribute is ignored).
 * Honours Path, Max-Age/Expires (deletion) and SameSite=Strict (not sent on a cross-site navigation).
 * Secure cookies are kept and sent even over http (like browsers do for localhost).
 */
export interface CookieJar {
  /** Current value of a cookie set by `origin` (any URL of that origin is accepted), whatever its path. */
  get(origin: string | URL, name: string): string | undefined
  /**
   * `Cookie` request header value for `url` ('' when none). For a `crossSite` request, SameSite=Strict
   * cookies are left out, and for a cross-site POST (e.g. response_mode=form_post) SameSite=Lax ones too
   * (a cookie without SameSite counts as Lax, as in current browsers).
   */
  header(url: string | URL, opts?: { crossSite?: boolean; method?: string }): string
  /** Takes in the `Set-Cookie` headers of a response to a request for `url`. */
  store(url: string | URL, response: Response): void
  /** Sets a cookie by hand (path `/`). */
  set(origin: string | URL, name: string, value: string): void
  /** All live cookies of an origin, as name → value. */
  all(origin: string | URL): Record<string, string>
}

export const createCookieJar = (): CookieJar => {
  const byOrigin = new Map<string, StoredCookie[]>()
  const originOf = (u: string | URL) => new URL(u).origin
  const liveCookies = (origin: string) => {
    const now = Date.now()
    const list = (byOrigin.get(origin) ?? []).filter((c) => c.expiresAt > now)
    byOrigin.set(origin, list)
    return list
  }
  const put = (origin: string, cookie: StoredCookie) => {
    const list = liveCookies(origin).filter((c) => !(c.name === cookie.name && c.path === cookie.path))
    if (cookie.expiresAt > Date.now()) list.push(cookie)
    byOrigin.set(origin, list)
  }
  const pathMatches = (reqPath: string, cookiePath: string) =>
    reqPath === cookiePath ||
    (reqPath.startsWith(cookiePath) && (cookiePath.endsWith('/') || reqPath[cookiePath.length] === '/'))

  const parse = (url: URL, line: string): StoredCookie | undefined => {
    const [pair, ...attrs] = line.split(';')
    const eq = pair!.indexOf('=')
    if (eq <= 0) return undefined
    const dir = url.pathname.slice(0, url.pathname.lastIndexOf('/'))
    const cookie: StoredCookie = {
      name: pair!.slice(0, eq).trim(),
      value: pair!.slice(eq + 1).trim(),
      path: dir.startsWith('/') ? dir : '/',
      expiresAt: Infinity,
      sameSite: 'lax',
    }
    let maxAge: number | undefined
    for (const attr of attrs) {
      const i = attr.indexOf('=')
      const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase()
      const val = i < 0 ? '' : attr.slice(i + 1).trim()
      if (key === 'path' && val.startsWith('/')) cookie.path = val
      else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val)
      else if (key === 'expires' && !Number.isNaN(Date.parse(val))) cookie.expiresAt = Date.parse(val)
      else if (key === 'samesite') {
        const v = val.toLowerCase()
        if (v === 'strict' || v === 'none') cookie.sameSite = v
      }
    }
    if (maxAge !== undefined) cookie.expiresAt = maxAge <= 0 ? 0 : Date.now() + maxAge * 1000
    return cookie
  }

  return {
    get: (origin, name) => liveCookies(originOf(origin)).find((c) => c.name === name)?.value,
    header: (url, opts) => {
      const u = new URL(url)
      return liveCookies(u.origin)
        .filter((c) => {
          if (!pathMatches(u.pathname, c.path)) return false
          if (!opts?.crossSite) return true
          return opts.method?.toUpperCase() === 'POST' ? c.sameSite === 'none' : c.sameSite !== 'strict'
        })
        .sort((a, b) => b.path.length - a.path.length)
        .map((c) => `${c.name}=${c.value}`)
        .join('; ')
    },
    store: (url, response) => {
      const u = new URL(url)
      for (const line of response.headers.getSetCookie()) {
        const cookie = parse(u, line)
        if (cookie) put(u.origin, cookie)
      }
    },
    set: (origin, name, value) =>
      put(originOf(origin), { name, value, path: '/', expiresAt: Infinity, sameSite: 'lax' }),
    all: (origin) => Object.fromEntries(liveCookies(originOf(origin)).map((c) => [c.name, c.value])),
  }
}

// --- script browser ---------------------------------------------------------------------------------------

export interface BrowserLoginOptions {
  cookieJar?: CookieJar
  /** Press "Deny" on the consent page: the provider sends the browser back with error=access_denied. */
  denyConsent?: boolean
  /** Safety limit on requests. Default 20. */
  maxSteps?: number
}

export interface BrowserResult {
  /** The app's response to the first request back on the app's origin (e.g. the callback); not followed. */
  finalResponse: Response
  cookies: CookieJar
  /** Every request made, as "METHOD url -> status", for assertions and error messages. */
  trail: string[]
}

interface HtmlForm {
  id: string
  action: string
  fields: URLSearchParams
}

const decodeEntities = (s: string) =>
  s.replace(/&(amp|lt|gt|quot|#39|#x2F);/g, (_m, e: string) =>
    e === 'amp' ? '&' : e === 'lt' ? '<' : e === 'gt' ? '>' : e === 'quot' ? '"' : e === '#39' ? "'" : '/',
  )

/** The forms of the harness provider's own pages (simple markup; not a general HTML parser). */
const parseForms = (html: string): HtmlForm[] =>
  [...html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)].map((m) => {
    const attr = (tag: string, name: string) =>
      decodeEntities(new RegExp(`\\b${name}="([^"]*)"`).exec(tag)?.[1] ?? '')
    const fields = new URLSearchParams()
    for (const input of m[2]!.matchAll(/<input\b[^>]*>/g)) {
      const name = attr(input[0], 'name')
      if (name) fields.set(name, attr(input[0], 'value'))
    }
    return { id: attr(m[1]!, 'id'), action: attr(m[1]!, 'action'), fields }
  })

const pageText = (html: string) =>
  decodeEntities(
    (/<p class="error">([\s\S]*?)<\/p>/.exec(html)?.[1] ?? html.replace(/<(style|script)[\s\S]*?<\/\1>/g, ''))
      .replace(/<[^>]+>/g, ' ')
      .replace(/\s+/g, ' ')
      .trim(),
  ).slice(0, 400)

export class OidcBrowserError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly trail: string[],
  ) {
    super(`${message}\n  trail:\n    ${trail.join('\n    ')}`)
    this.name = 'OidcBrowserError'
  }
}

/** What to submit on a provider page, or an error message when the page is not the expected one. */
type Choose = (
  forms: HtmlForm[],
  url: URL,
  html: string,
) => { form: HtmlForm; fields?: Record<string, string> } | string

const formById = (forms: HtmlForm[], id: string) => forms.find((f) => f.id === id)

/**
 * Walks from `startUrl` through the provider and back to `appOrigin`, like a browser without JavaScript:
 * follows redirects by hand (cookies per origin), submits the provider's pages as `choose` says, and
 * returns the app's response to the first request that comes back to `appOrigin` from elsewhere, without
 * following it. A request reached from another origin counts as cross-site for SameSite=Strict cookies
 * (as it is in production, although loopback ports would share a site in a real browser).
 */
const browse = async (
  startUrl: string,
  choose: Choose,
  opts: { cookieJar?: CookieJar; maxSteps?: number; appOrigin?: string },
): Promise<BrowserResult> => {
  const jar = opts.cookieJar ?? createCookieJar()
  const maxSteps = opts.maxSteps ?? 20
  const appOrigin = new URL(opts.appOrigin ?? startUrl).origin
  const trail: string[] = []
  const fail = (message: string, status?: number): never => {
    throw new OidcBrowserError(message, status, trail)
  }
  let req: { url: URL; method: 'GET' | 'POST'; body?: URLSearchParams } = {
    url: new URL(startUrl),
    method: 'GET',
  }
  let prevOrigin = req.url.origin
  let leftApp = req.url.origin !== appOrigin

  for (let step = 0; step < maxSteps; step++) {
    const cookie = jar.header(req.url, { crossSite: req.url.origin !== prevOrigin, method: req.method })
    const headers: Record<string, string> = { accept: 'text/html' }
    if (cookie) headers.cookie = cookie
    if (req.body) headers['content-type'] = 'application/x-www-form-urlencoded'
    let res: Response
    try {
      res = await fetch(req.url, {
        method: req.method,
        headers,
        body: req.body?.toString(),
        redirect: 'manual',
      })
    } catch (err) {
      return fail(`request failed: ${req.method} ${req.url.href}: ${String(err)}`)
    }
    trail.push(`${req.method} ${req.url.href} -> ${res.status}`)
    jar.store(req.url, res)

    if (req.url.origin === appOrigin && leftApp) return { finalResponse: res, cookies: jar, trail }
    if (req.url.origin !== appOrigin) leftApp = true
    prevOrigin = req.url.origin

    const location = res.headers.get('location')
    if (res.status >= 300 && res.status < 400 && location) {
      await res.body?.cancel()
      req = { url: new URL(location, req.url), method: 'GET' }
      continue
    }
    const html = await res.text()
    if (req.url.origin === appOrigin) {
      return fail(
        `expected the app to redirect to the provider, got HTTP ${res.status} at ${req.url.href}: ${pageText(html)}`,
        res.status,
      )
    }
    if (res.status !== 200) return fail(`provider refused: HTTP ${res.status}: ${pageText(html)}`, res.status)
    const forms = parseForms(html)
    // a page that submits itself with JavaScript (response_mode=form_post, the provider's "switch account"
    // logout step): submit its first form, as a browser would
    const choice =
      /document\.forms\[0\]\.submit\(\)/.test(html) && forms[0]
        ? { form: forms[0], fields: undefined }
        : choose(forms, req.url, html)
    if (typeof choice === 'string') return fail(choice, res.status)
    const body = new URLSearchParams(choice.form.fields)
    for (const [k, v] of Object.entries(choice.fields ?? {})) body.set(k, v)
    req = { url: new URL(choice.form.action, req.url), method: 'POST', body }
  }
  return fail(`no way back to ${appOrigin} after ${maxSteps} requests`)
}

/**
 * Signs in as `email`: starts at the app's login URL (which must redirect to the provider), submits the
 * provider's login and consent pages, and returns the app's response to the callback request (its
 * Set-Cookie / Location are for the test to inspect; it is not followed). Throws OidcBrowserError
 * when the provider refuses (unknown e-mail: HTTP 401 "no account with login id ...", invalid
 * authorization request such as an unregistered redirect_uri, ...). Authorization errors the provider
 * can send back to the app (missing PKCE, denied consent) arrive at the callback like a success would.
 * With a `cookieJar` that already holds a provider session, no form is shown and `email` is not used.
 */
export const browserLogin = (startUrl: string, email: string, opts: BrowserLoginOptions = {}) =>
  browse(
    startUrl,
    (forms, url, html) => {
      const login = formById(forms, 'login')
      if (login) return { form: login, fields: { login: email } }
      const consent = formById(forms, opts.denyConsent ? 'deny' : 'consent')
      if (consent) return { form: consent }
      return `unexpected provider page ${url.href}: ${pageText(html)}`
    },
    opts,
  )

/**
 * Signs out: starts at an app URL that redirects to the provider's end_session endpoint (or, with
 * `appOrigin`, at that endpoint itself, e.g. a URL from openid-client's buildEndSessionUrl), confirms
 * "sign out", and returns the app's response to the post_logout_redirect_uri request (not followed).
 * Pass the jar used for browserLogin so the provider session is found.
 */
export const browserLogout = (
  startUrl: string,
  opts: { cookieJar: CookieJar; appOrigin?: string; maxSteps?: number },
) =>
  browse(
    startUrl,
    (forms, url, html) => {
      if (/<title>Signed out<\/title>/.test(html)) {
        return `signed out at the provider, but it did not send the browser back (no valid post_logout_redirect_uri?) at ${url.href}`
      }
      const form = formById(forms, 'op.logoutForm')
      return form ? { form } : `unexpected provider page ${url.href}: ${pageText(html)}`
    },
    opts,
  )
