import { randomBytes } from 'node:crypto'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as client from 'openid-client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  browserLogin,
  browserLogout,
  createCookieJar,
  defaultSubFor,
  OidcBrowserError,
  type RunningOidcProvider,
  startOidcProvider,
} from './oidc'

/**
 * A tiny relying party (node:http + openid-client 6) proving the harness end to end:
 *   GET /login[?nopkce=1][&prompt=login]  -> 302 to the provider (PKCE S256 + state kept under an rp_sid cookie)
 *   GET /callback          -> authorizationCodeGrant; 302 to / with an app_session cookie, or 400
 *   GET /logout            -> 302 to the provider's end_session endpoint
 *   GET /bye               -> 200 (post-logout redirect target)
 */
const startRelyingParty = async () => {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const clientId = 'kotak-test'
  const clientSecret = randomBytes(16).toString('hex')
  const redirectUri = `${base}/callback`
  const pending = new Map<string, { codeVerifier: string; state: string }>()
  const logins: client.IDToken[] = []
  const failures: string[] = []
  let idToken = ''
  let config: client.Configuration | undefined
  let issuer = ''

  const cookie = (req: http.IncomingMessage, name: string) =>
    (req.headers.cookie ?? '')
      .split(/;\s*/)
      .map((kv) => kv.split('='))
      .find(([k]) => k === name)?.[1]

  const getConfig = async () => {
    config ??= await client.discovery(
      new URL(issuer),
      clientId,
      { client_secret: clientSecret },
      client.ClientSecretBasic(clientSecret),
      { execute: [client.allowInsecureRequests] },
    )
    return config
  }

  server.on('request', async (req, res) => {
    try {
      const url = new URL(req.url!, base)
      const cfg = await getConfig()
      if (url.pathname === '/login') {
        const codeVerifier = client.randomPKCECodeVerifier()
        const state = client.randomState()
        const sid = randomBytes(12).toString('hex')
        pending.set(sid, { codeVerifier, state })
        const params: Record<string, string> = {
          redirect_uri: redirectUri,
          scope: 'openid email profile',
          state,
        }
        const prompt = url.searchParams.get('prompt')
        if (prompt) params.prompt = prompt
        if (!url.searchParams.has('nopkce')) {
          params.code_challenge = await client.calculatePKCECodeChallenge(codeVerifier)
          params.code_challenge_method = 'S256'
        }
        res.writeHead(302, {
          location: client.buildAuthorizationUrl(cfg, params).href,
          'set-cookie': `rp_sid=${sid}; Path=/; HttpOnly; SameSite=Lax`,
        })
        return res.end()
      }
      if (url.pathname === '/callback') {
        const sid = cookie(req, 'rp_sid')
        const flow = sid ? pending.get(sid) : undefined
        if (!flow) {
          res.writeHead(400)
          return res.end('no login in progress')
        }
        pending.delete(sid!)
        try {
          const tokens = await client.authorizationCodeGrant(cfg, url, {
            pkceCodeVerifier: flow.codeVerifier,
            expectedState: flow.state,
            idTokenExpected: true,
          })
          const claims = tokens.claims()!
          logins.push(claims)
          idToken = tokens.id_token!
          res.writeHead(302, { location: '/', 'set-cookie': `app_session=s_${claims.sub}; Path=/; HttpOnly` })
          return res.end()
        } catch (err) {
          const reason =
            err instanceof client.AuthorizationResponseError
              ? `${err.error}: ${err.error_description ?? ''}`
              : String(err)
          failures.push(reason)
          res.writeHead(400)
          return res.end(`login failed: ${reason}`)
        }
      }
      if (url.pathname === '/logout') {
        const endSession = client.buildEndSessionUrl(cfg, {
          id_token_hint: idToken,
          post_logout_redirect_uri: `${base}/bye`,
        })
        res.writeHead(302, { location: endSession.href })
        return res.end()
      }
      if (url.pathname === '/bye') {
        res.writeHead(200)
        return res.end('bye')
      }
      res.writeHead(404)
      res.end()
    } catch (err) {
      res.writeHead(500)
      res.end(String(err))
    }
  })

  return {
    base,
    clientId,
    clientSecret,
    redirectUri,
    logins,
    failures,
    setIssuer: (iss: string) => {
      issuer = iss
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

describe('CookieJar', () => {
  it('keys cookies by origin and honours Path, Max-Age and SameSite=Strict', () => {
    const jar = createCookieJar()
    const res = (...cookies: string[]) => {
      const headers = new Headers()
      for (const c of cookies) headers.append('set-cookie', c)
      return new Response(null, { headers })
    }
    jar.store(
      'http://127.0.0.1:1000/auth/start',
      res('a=1; Path=/; HttpOnly', 'b=2', 'c=3; Path=/x; SameSite=Strict', 'd=4; Path=/; Max-Age=60'),
    )
    expect(jar.all('http://127.0.0.1:1000')).toEqual({ a: '1', b: '2', c: '3', d: '4' })
    expect(jar.get('http://127.0.0.1:2000', 'a')).toBeUndefined()
    expect(jar.header('http://127.0.0.1:1000/')).toBe('a=1; d=4')
    expect(jar.header('http://127.0.0.1:1000/auth/next')).toBe('b=2; a=1; d=4')
    expect(jar.header('http://127.0.0.1:1000/x/y')).toBe('c=3; a=1; d=4')
    expect(jar.header('http://127.0.0.1:1000/x/y', { crossSite: true })).toBe('a=1; d=4')
    expect(jar.header('http://127.0.0.1:1000/xy')).toBe('a=1; d=4')
    jar.store('http://127.0.0.1:1000/', res('n=5; Path=/; SameSite=None; Secure'))
    expect(jar.header('http://127.0.0.1:1000/', { crossSite: true, method: 'POST' })).toBe('n=5')
    jar.store('http://127.0.0.1:1000/', res('n=; Path=/; Max-Age=0'))
    jar.store(
      'http://127.0.0.1:1000/',
      res('a=; Path=/; Max-Age=0', 'd=; Expires=Thu, 01 Jan 1970 00:00:00 GMT'),
    )
    expect(jar.header('http://127.0.0.1:1000/')).toBe('')
  })
})

describe('oidc test harness', () => {
  let rp: Awaited<ReturnType<typeof startRelyingParty>>
  let op: RunningOidcProvider

  beforeAll(async () => {
    rp = await startRelyingParty()
    op = await startOidcProvider({
      clientId: rp.clientId,
      clientSecret: rp.clientSecret,
      redirectUris: [rp.redirectUri],
      postLogoutRedirectUris: [`${rp.base}/bye`],
      accounts: [
        { email: 'alice@example.com', name: 'Alice Liddell' },
        { email: 'bob@example.com', name: 'Bob Builder' },
      ],
    })
    rp.setIssuer(op.issuer)
  })

  afterAll(async () => {
    await op?.close()
    await rp?.close()
  })

  it('serves discovery on a loopback http issuer with PKCE S256 and the three scopes', async () => {
    expect(op.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const meta = (await (await fetch(`${op.issuer}/.well-known/openid-configuration`)).json()) as {
      issuer: string
      code_challenge_methods_supported: string[]
      scopes_supported: string[]
    }
    expect(meta.issuer).toBe(op.issuer)
    expect(meta.code_challenge_methods_supported).toEqual(['S256'])
    expect(meta.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']))
  })

  it('signs in through the provider: the relying party gets ID token claims with the e-mail', async () => {
    const before = rp.logins.length
    const { finalResponse, cookies, trail } = await browserLogin(`${rp.base}/login`, 'alice@example.com')

    expect(rp.failures).toEqual([])
    expect(finalResponse.url === '' || finalResponse.url.startsWith(rp.redirectUri)).toBe(true)
    expect(trail.at(-1)).toMatch(new RegExp(`^GET ${rp.redirectUri}\\?code=.* -> 302$`))
    expect(finalResponse.status).toBe(302)
    expect(finalResponse.headers.get('location')).toBe('/')
    expect(finalResponse.headers.getSetCookie().join()).toContain('app_session=s_')
    expect(cookies.get(rp.base, 'app_session')).toBe(`s_${op.subFor('alice@example.com')}`)

    expect(rp.logins.length).toBe(before + 1)
    const claims = rp.logins.at(-1)!
    expect(claims).toMatchObject({
      iss: op.issuer,
      aud: rp.clientId,
      sub: defaultSubFor('alice@example.com'),
      email: 'alice@example.com',
      email_verified: true,
      name: 'Alice Liddell',
    })
    // went through the login form and the consent page
    expect(trail.some((t) => /^POST .*\/interaction\/[^/]+\/login -> 303$/.test(t))).toBe(true)
    expect(trail.some((t) => /^POST .*\/interaction\/[^/]+\/confirm -> 303$/.test(t))).toBe(true)
  })

  it('reuses the provider session (SSO) when given the same cookie jar, then signs out', async () => {
    const jar = createCookieJar()
    await browserLogin(`${rp.base}/login`, 'bob@example.com', { cookieJar: jar })
    expect(jar.get(op.issuer, '_session')).toBeTruthy()

    const again = await browserLogin(`${rp.base}/login`, 'ignored@example.com', { cookieJar: jar })
    expect(again.finalResponse.status).toBe(302)
    expect(again.trail.some((t) => t.startsWith('POST '))).toBe(false)
    expect(rp.logins.at(-1)).toMatchObject({ email: 'bob@example.com', name: 'Bob Builder' })

    const out = await browserLogout(`${rp.base}/logout`, { cookieJar: jar })
    expect(out.finalResponse.status).toBe(200)
    expect(await out.finalResponse.text()).toBe('bye')
    expect(jar.get(op.issuer, '_session')).toBeUndefined()

    // signed out: the next login shows the form again
    const fresh = await browserLogin(`${rp.base}/login`, 'alice@example.com', { cookieJar: jar })
    expect(fresh.trail.some((t) => /\/login -> 303$/.test(t))).toBe(true)
    expect(rp.logins.at(-1)).toMatchObject({ email: 'alice@example.com' })
  })

  it('shows the login form again when the app sends prompt=login, so another account can sign in', async () => {
    const jar = createCookieJar()
    await browserLogin(`${rp.base}/login`, 'alice@example.com', { cookieJar: jar })
    const { trail } = await browserLogin(`${rp.base}/login?prompt=login`, 'bob@example.com', {
      cookieJar: jar,
    })
    expect(trail.some((t) => /\/login -> 303$/.test(t))).toBe(true)
    expect(rp.logins.at(-1)).toMatchObject({ email: 'bob@example.com', sub: op.subFor('bob@example.com') })
  })

  it('refuses an e-mail it does not know, with a clear error', async () => {
    const before = rp.logins.length
    const err = await browserLogin(`${rp.base}/login`, 'mallory@example.com').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(OidcBrowserError)
    expect((err as OidcBrowserError).status).toBe(401)
    expect((err as Error).message).toContain('no account with login id mallory@example.com')
    expect(rp.logins.length).toBe(before)
  })

  it('sends denied consent back to the app as error=access_denied', async () => {
    const { finalResponse, trail } = await browserLogin(`${rp.base}/login`, 'alice@example.com', {
      denyConsent: true,
    })
    expect(trail.at(-1)).toMatch(/\/callback\?error=access_denied/)
    expect(finalResponse.status).toBe(400)
    expect(await finalResponse.text()).toBe('login failed: access_denied: End-User denied the request')
  })

  it('requires PKCE: an authorization request without code_challenge comes back as invalid_request', async () => {
    const { finalResponse, trail } = await browserLogin(`${rp.base}/login?nopkce=1`, 'alice@example.com')
    expect(trail.at(-1)).toMatch(/\/callback\?error=invalid_request/)
    expect(finalResponse.status).toBe(400)
    expect(await finalResponse.text()).toMatch(/^login failed: invalid_request: .*requires PKCE/)
  })
})
