import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { browserLogin, createCookieJar, type RunningOidcProvider, startOidcProvider } from '../support/oidc'
import { freePort, startTestServer, type TestServer } from '../support/server'

/** Sign-in end to end against a real OpenID Connect provider (oidc-provider) on loopback. */
let idp: RunningOidcProvider
let s: TestServer
let w: F.Seeded

beforeAll(async () => {
  const port = await freePort()
  const appUrl = `http://127.0.0.1:${port}`
  idp = await startOidcProvider({
    clientId: 'kotak-test',
    clientSecret: 'kotak-test-secret',
    redirectUris: [`${appUrl}/auth/callback`],
    accounts: [
      // The provider spells the address differently: users are matched case-insensitively.
      { email: 'Sari.Owner@Example.com', name: 'Sari' },
      { email: 'stranger@example.com', name: 'Stranger' },
    ],
  })
  s = await startTestServer({
    PORT: String(port),
    PUBLIC_URL: appUrl,
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: 'kotak-test',
    OIDC_CLIENT_SECRET: 'kotak-test-secret',
    OIDC_ALLOW_INSECURE: '1',
  })
  w = await F.workspace(s, { plan: 'free' })
  await s.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`UPDATE users SET email = 'sari.owner@example.com' WHERE id = ${w.ownerId}`,
    ),
  )
})
afterAll(async () => {
  await s?.stop()
  await idp?.close()
})

describe('OpenID Connect sign-in (authorization code + PKCE)', () => {
  it("tells the app's sign-in page that the provider applies", async () => {
    const config = (await (await s.fetch('/v1/public/config')).json()) as { data: { sign_in: unknown } }
    expect(config.data.sign_in).toEqual({ oidc: true, login_path: '/auth/login', email: false })
  })

  it('signs a known user in: HttpOnly session cookie, readable CSRF token, then the API works', async () => {
    const { finalResponse } = await browserLogin(
      `${s.url}/auth/login?return_to=/app/inbox`,
      'Sari.Owner@Example.com',
    )
    expect(finalResponse.status).toBe(302)
    expect(finalResponse.headers.get('location')).toBe('/app/inbox')
    const cookies = finalResponse.headers.getSetCookie()
    const session = cookies.find((c) => c.startsWith('kotak_session='))!
    const csrf = cookies.find((c) => c.startsWith('kotak_csrf='))!
    expect(session).toMatch(/HttpOnly/)
    expect(session).toMatch(/SameSite=Lax/)
    expect(csrf).not.toMatch(/HttpOnly/)
    const cookie = `${session.split(';')[0]}; ${csrf.split(';')[0]}`
    const csrfToken = csrf.split(';')[0]!.split('=')[1]!

    const me = await s.fetch('/v1/me', { headers: { cookie } })
    expect(me.status).toBe(200)
    const { data } = (await me.json()) as {
      data: { via: string; user: { id: number; last_login_at: string } }
    }
    expect(data.via).toBe('session')
    expect(data.user.id).toBe(w.ownerId)
    expect(data.user.last_login_at).toMatch(/Z$/)

    // Sign-out needs the CSRF token, then the session is over.
    expect((await s.fetch('/auth/logout', { method: 'POST', headers: { cookie } })).status).toBe(419)
    const out = await s.fetch('/auth/logout', {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken },
    })
    expect(out.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: { cookie } })).status).toBe(401)
  })

  it('refuses an account the provider knows but Kotak does not', async () => {
    const { finalResponse } = await browserLogin(`${s.url}/auth/login`, 'stranger@example.com')
    expect(finalResponse.status).toBe(403)
    const b = (await finalResponse.json()) as { error: { code: string; message: string } }
    expect(b.error.code).toBe('forbidden')
    expect(b.error.message).toMatch(/No Kotak account/)
    expect(finalResponse.headers.getSetCookie().some((c) => c.startsWith('kotak_session='))).toBe(false)
  })

  it('refuses a callback whose state it did not issue, and a replayed one', async () => {
    const jar = createCookieJar()
    const { finalResponse } = await browserLogin(`${s.url}/auth/login`, 'Sari.Owner@Example.com', {
      cookieJar: jar,
    })
    expect(finalResponse.status).toBe(302)
    const forged = await s.fetch('/auth/callback?code=abc&state=not-ours')
    expect(forged.status).toBe(401)
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('unauthorized')
  })

  it('only returns to the app’s own paths after sign-in', async () => {
    // A backslash is a slash to a browser: `/\\evil.example` is another site.
    for (const away of ['//evil.example/steal', '/\\evil.example', '/v1/me']) {
      const { finalResponse } = await browserLogin(
        `${s.url}/auth/login?return_to=${encodeURIComponent(away)}`,
        'Sari.Owner@Example.com',
      )
      expect(finalResponse.headers.get('location'), away).toBe('/app')
    }
  })
})

describe('without a provider configured', () => {
  it('answers /auth/login with a clear 404', async () => {
    const plain = await startTestServer()
    try {
      const res = await plain.fetch('/auth/login', { redirect: 'manual' })
      expect(res.status).toBe(404)
      expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/not configured/)
    } finally {
      await plain.stop()
    }
  })
})
