import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { exportJWK, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { freePort, startTestServer, type TestServer } from '../support/server'
import { connect, refusedStatus } from '../support/ws'

/**
 * Signing in with OpenID Connect, against a minimal provider of the test's own (discovery,
 * authorize, token, JWKS) whose ID token carries the claims a test sets: the sign-in is finished
 * only by the browser that started it (login CSRF), only an address the provider says it verified
 * names an account, and a real-time token taken before signing out opens nothing.
 */
let s: TestServer
let trusting: TestServer
let victim: F.Seeded
let issuer: string
let idp: http.Server
let nextClaims: Record<string, unknown> = {}

const startIdp = async () => {
  const { publicKey, privateKey } = await generateKeyPair('RS256')
  const jwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }
  const codes = new Map<string, { nonce: string; claims: Record<string, unknown> }>()
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, issuer)
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(JSON.stringify(body))
    }
    if (url.pathname === '/.well-known/openid-configuration')
      return send(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
      })
    if (url.pathname === '/jwks') return send(200, { keys: [jwk] })
    if (url.pathname === '/authorize') {
      const code = `c${Math.random().toString(36).slice(2)}`
      codes.set(code, { nonce: url.searchParams.get('nonce')!, claims: nextClaims })
      const back = new URL(url.searchParams.get('redirect_uri')!)
      back.searchParams.set('code', code)
      back.searchParams.set('state', url.searchParams.get('state')!)
      res.writeHead(302, { location: back.href })
      return res.end()
    }
    if (url.pathname === '/token') {
      let body = ''
      for await (const chunk of req) body += chunk
      const code = new URLSearchParams(body).get('code')!
      const grant = codes.get(code)
      if (!grant) return send(400, { error: 'invalid_grant' })
      codes.delete(code)
      const idToken = await new SignJWT({ ...grant.claims, nonce: grant.nonce })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(issuer)
        .setAudience('kotak-test')
        .setSubject(String(grant.claims.sub ?? 'someone'))
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(privateKey)
      return send(200, { access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken })
    }
    send(404, { error: 'not_found' })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return server
}

const cookiesOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .filter((c) => !c.endsWith('='))
    .join('; ')

/**
 * Starts a sign-in as a browser would on `server` and walks the provider: the callback URL, and
 * the cookie the start set (the browser that started it holds it).
 */
const startLogin = async (server: TestServer, claims: Record<string, unknown>) => {
  nextClaims = claims
  const start = await server.fetch('/auth/login', { redirect: 'manual' })
  expect(start.status).toBe(302)
  const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' })
  return { callback: authorize.headers.get('location')!, started: cookiesOf(start) }
}

const loginWith = async (claims: Record<string, unknown>, server = s) => {
  const { callback, started } = await startLogin(server, claims)
  return fetch(callback, { redirect: 'manual', headers: { cookie: started } })
}

const signedInAs = async (res: Response, server = s) => {
  const cookie = cookiesOf(res)
  if (!cookie.includes('kotak_session=')) return null
  const me = await server.fetch('/v1/me', { headers: { cookie } })
  return ((await me.json()) as { data: { user: { id: number } } }).data.user.id
}

const oidcEnv = async () => {
  const port = await freePort()
  return {
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    OIDC_ISSUER: issuer,
    OIDC_CLIENT_ID: 'kotak-test',
    OIDC_CLIENT_SECRET: 'kotak-test-secret',
    OIDC_ALLOW_INSECURE: '1',
  }
}

beforeAll(async () => {
  idp = await startIdp()
  s = await startTestServer(await oidcEnv())
  victim = await F.workspace(s, { plan: 'pro' })
  await s.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`UPDATE users SET email = 'victim@example.com' WHERE id = ${victim.ownerId}`,
    ),
  )
}, 60_000)
afterAll(async () => {
  await s?.stop()
  await trusting?.stop()
  await new Promise((r) => idp?.close(r))
})

describe('the provider’s e-mail claims', () => {
  it('a verified address signs its account in, as a boolean or the string "true"', async () => {
    const ok = await loginWith({ sub: 'v1', email: 'victim@example.com', email_verified: true })
    expect(ok.status).toBe(302)
    expect(await signedInAs(ok)).toBe(victim.ownerId)
    const text = await loginWith({ sub: 'v1', email: 'victim@example.com', email_verified: 'true' })
    expect(await signedInAs(text)).toBe(victim.ownerId)
  })

  it('refuses an address the provider does not say it verified: false, "false" or no claim', async () => {
    for (const claims of [
      { sub: 'x1', email: 'victim@example.com', email_verified: false },
      { sub: 'x2', email: 'victim@example.com', email_verified: 'false' },
      { sub: 'x3', email: 'Victim@Example.com' },
    ]) {
      const res = await loginWith(claims)
      expect(res.status, JSON.stringify(claims)).toBe(401)
      expect(cookiesOf(res)).not.toContain('kotak_session=')
    }
  })

  it('with OIDC_TRUST_EMAIL a provider that omits the claim signs its address in', async () => {
    trusting = await startTestServer({ ...(await oidcEnv()), OIDC_TRUST_EMAIL: '1' })
    const w = await F.workspace(trusting, { plan: 'pro' })
    await trusting.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE users SET email = 'staff@example.com' WHERE id = ${w.ownerId}`,
      ),
    )
    const res = await loginWith({ sub: 's1', email: 'staff@example.com' }, trusting)
    expect(res.status).toBe(302)
    expect(await signedInAs(res, trusting)).toBe(w.ownerId)
  })
})

describe('login CSRF', () => {
  it('a callback URL started by another browser signs nobody in and leaves the session as it was', async () => {
    // The attacker starts a sign-in of their own account and keeps the callback URL.
    const { callback } = await startLogin(s, {
      sub: 'attacker',
      email: 'victim@example.com',
      email_verified: true,
    })
    // The victim, signed in, is made to open it (a GET: the Lax session cookie goes along).
    const v = await F.signIn(s, 'victim@example.com')
    const hit = await fetch(callback, { redirect: 'manual', headers: { cookie: v.cookie } })
    expect(hit.status).toBe(401)
    expect(cookiesOf(hit)).not.toContain('kotak_session=')
    expect((await s.fetch('/v1/me', { headers: { cookie: v.cookie } })).status).toBe(200)
  })
})

describe('a real-time token and the session that asked for it', () => {
  it('taken just before signing out, it opens no socket (401)', async () => {
    const a = await F.signIn(s, 'victim@example.com')
    const res = await s.fetch(
      '/v1/realtime/token',
      F.json({ channels: [`ws:${victim.workspaceId}`] }, a.headers()),
    )
    expect(res.status).toBe(200)
    const { url } = ((await res.json()) as { data: { url: string } }).data
    expect((await s.fetch('/auth/logout', F.json({}, a.headers()))).status).toBe(200)
    expect(await refusedStatus(url)).toBe(401)
    // A token of a session still going connects.
    const b = await F.signIn(s, 'victim@example.com')
    const ok = await s.fetch(
      '/v1/realtime/token',
      F.json({ channels: [`ws:${victim.workspaceId}`] }, b.headers()),
    )
    const c = await connect(((await ok.json()) as { data: { url: string } }).data.url)
    expect(await c.next((f) => f.op !== undefined)).toMatchObject({ op: 'subscribed' })
    c.close()
  })
})
