import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/**
 * One-time sign-in links through HTTP: opening a link (a link preview) uses nothing, its page's
 * button (a same-site JSON POST) does, once; used, expired and unknown links are told apart
 * without using them; links e-mailed on request (through a real SMTP server) with one answer for
 * every address and limits per address, per caller and per person; signing out of every device.
 */
let smtp: Smtp
let s: TestServer
let off: TestServer
beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({ SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}` })
  off = await startTestServer()
}, 60_000)
afterAll(async () => {
  await Promise.all([s?.stop(), off?.stop()])
  await smtp?.stop()
})

const body = async (res: Response) => (await res.json()) as Record<string, any>
const linkOf = (server: TestServer, email: string, minutes = 5) =>
  server.run(
    Effect.gen(function* () {
      const user = yield* Users.byEmail(email)
      return yield* Sessions.createLoginLink(user!.id, minutes)
    }),
  )
const press = (server: TestServer, token: string, b: unknown = {}, headers: Record<string, string> = {}) =>
  server.fetch(`/auth/link/${token}`, F.json(b, headers))
const statusOf = async (server: TestServer, token: string) =>
  (await body(await server.fetch(`/auth/link/${token}/status`))).data
const cookieOf = (res: Response) =>
  res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .join('; ')
const mask = (email: string) => `${email[0]}***${email.slice(email.indexOf('@'))}`

describe('a one-time link is used by its page’s button, not by opening it', () => {
  it('several opens (a link preview) use nothing; the button signs in once; then it is used', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    for (let i = 0; i < 3; i++) {
      const opened = await s.fetch(`/auth/link/${token}`, { redirect: 'manual' })
      expect(opened.status).toBe(302)
      expect(opened.headers.get('location')).toBe(`/app/link/${token}`)
      expect(opened.headers.getSetCookie()).toEqual([])
      expect((await s.fetch(`/auth/link/${token}`, { method: 'HEAD', redirect: 'manual' })).status).toBe(302)
      expect((await s.fetch(`/app/link/${token}`)).status).toBe(200)
    }
    expect(await statusOf(s, token)).toEqual({ status: 'valid', email: mask(w.ownerEmail) })

    const used = await press(s, token)
    expect(used.status).toBe(200)
    expect((await body(used)).data).toEqual({ return_to: '/app' })
    const me = await s.fetch('/v1/me', { headers: { cookie: cookieOf(used) } })
    expect(me.status).toBe(200)
    expect((await body(me)).data.user.id).toBe(w.ownerId)

    const again = await press(s, token)
    expect(again.status).toBe(401)
    expect((await body(again)).error.code).toBe('unauthorized')
    expect(again.headers.getSetCookie()).toEqual([])
    // The status says used, and no longer whose it was.
    expect(await statusOf(s, token)).toEqual({ status: 'used', email: null })
  })

  it('two presses at once: exactly one signs in', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    const answers = await Promise.all([press(s, token), press(s, token), press(s, token)])
    expect(answers.map((r) => r.status).sort()).toEqual([200, 401, 401])
  })

  it('only same-site paths are followed afterwards', async () => {
    const w = await F.workspace(s)
    const open = async (q: string) =>
      (await s.fetch(`/auth/link/abc${q}`, { redirect: 'manual' })).headers.get('location')
    expect(await open('?return_to=%2Fapp%2Finvite%2Fxyz')).toBe(
      '/app/link/abc?return_to=%2Fapp%2Finvite%2Fxyz',
    )
    expect(await open('?return_to=https%3A%2F%2Fevil.example%2F')).toBe('/app/link/abc')
    expect(await open('?return_to=%2F%2Fevil.example')).toBe('/app/link/abc')
    const kept = await press(s, await linkOf(s, w.ownerEmail), { return_to: '/app/invite/xyz' })
    expect((await body(kept)).data.return_to).toBe('/app/invite/xyz')
    const dropped = await press(s, await linkOf(s, w.ownerEmail), { return_to: '//evil.example/x' })
    expect((await body(dropped)).data.return_to).toBe('/app')
  })

  it('login CSRF: a form or another site’s page cannot use a link', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    // A form without fields posts an empty body; with fields, a form's content type.
    const empty = await s.fetch(`/auth/link/${token}`, { method: 'POST' })
    expect(empty.status).toBe(403)
    expect((await body(empty)).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/own page/),
    })
    const form = await s.fetch(`/auth/link/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'return_to=%2Fapp',
    })
    expect([403, 422]).toContain(form.status)
    const plain = await s.fetch(`/auth/link/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    })
    expect([403, 422]).toContain(plain.status)
    // A browser says where a request comes from; a cross-site one is refused even as JSON.
    expect((await press(s, token, {}, { 'sec-fetch-site': 'cross-site' })).status).toBe(403)
    expect(await statusOf(s, token)).toMatchObject({ status: 'valid' })
    expect((await press(s, token, {}, { 'sec-fetch-site': 'same-origin' })).status).toBe(200)
  })

  it('expired and unknown links are told apart, in words, and cannot be used', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql`UPDATE login_links SET expires_at = now() - interval '1 minute' WHERE user_id = ${w.ownerId}`,
      ),
    )
    expect(await statusOf(s, token)).toEqual({ status: 'expired', email: null })
    const late = await press(s, token, {}, { 'x-locale': 'id' })
    expect(late.status).toBe(401)
    expect((await body(late)).error.message).toBe(
      'Tautan masuk ini tidak valid, sudah dipakai, atau kedaluwarsa.',
    )
    expect(await statusOf(s, 'no-such-link')).toEqual({ status: 'invalid', email: null })
    expect((await press(s, 'no-such-link')).status).toBe(401)
    expect([404, 422]).toContain((await s.fetch(`/auth/link/${'x'.repeat(600)}/status`)).status)
  })
})

describe('a link by e-mail', () => {
  const ask = (server: TestServer, email: string, extra: Record<string, unknown> = {}, headers = {}) =>
    server.fetch('/auth/link', F.json({ email, ...extra }, headers))
  const mailTo = (email: string, after: number) =>
    smtp.waitFor((m) => m.to.includes(email.toLowerCase()) && smtp.received.indexOf(m) >= after)
  const linkIn = (text: string) => /(http:\/\/\S+\/auth\/link\/[A-Za-z0-9_-]+(?:\?\S+)?)/.exec(text)?.[1]

  it('the server says whether it can e-mail links; without SMTP the request is a clear 404', async () => {
    expect((await body(await s.fetch('/v1/public/config'))).data.sign_in).toMatchObject({ email: true })
    expect((await body(await off.fetch('/v1/public/config'))).data.sign_in).toMatchObject({ email: false })
    const w = await F.workspace(off)
    const res = await ask(off, w.ownerEmail)
    expect(res.status).toBe(404)
    expect((await body(res)).error).toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/cannot send e-mail/),
    })
  })

  it('sends a known person a link in their language; it leads to the page and signs in', async () => {
    const w = await F.workspace(s)
    const owner = await F.signIn(s, w.ownerEmail)
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, owner.headers()), method: 'PATCH' })
    const after = smtp.received.length
    const res = await ask(s, w.ownerEmail.toUpperCase(), { return_to: '/app/inbox' })
    expect(res.status).toBe(202)
    expect((await body(res)).data).toEqual({ requested: true })
    const mail = await mailTo(w.ownerEmail, after)
    expect(mail.parsed.subject).toBe('Tautan masuk Kotak Anda')
    expect(String(mail.parsed.text)).toContain('selama 30 menit')
    const link = linkIn(String(mail.parsed.text))!
    expect(link.startsWith(`${s.url}/auth/link/`)).toBe(true)
    const opened = await fetch(link, { redirect: 'manual' })
    expect(opened.headers.get('location')).toMatch(/^\/app\/link\/[A-Za-z0-9_-]+\?return_to=%2Fapp%2Finbox$/)
    const token = /\/auth\/link\/([A-Za-z0-9_-]+)/.exec(link)![1]!
    // 30 minutes, from the mail's own link.
    const expires = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ minutes: number }>`
            SELECT round(extract(epoch FROM expires_at - created_at) / 60)::int AS minutes
            FROM login_links WHERE user_id = ${w.ownerId} ORDER BY id DESC LIMIT 1`,
      ),
    )
    expect(expires[0]!.minutes).toBe(30)
    const used = await press(s, token, { return_to: '/app/inbox' })
    expect(used.status).toBe(200)
    expect((await body(used)).data.return_to).toBe('/app/inbox')
  })

  it('answers an unknown address exactly as a known one, and sends nothing to it or to a disabled account', async () => {
    const w = await F.workspace(s)
    const gone = await F.member(s, w)
    await s.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.zipRight(
          sql`UPDATE members SET status = 'disabled' WHERE user_id = ${gone.id}`,
          Members.endAccess(gone.id, w.workspaceId),
        ),
      ),
    )
    const after = smtp.received.length
    const known = await ask(s, w.ownerEmail)
    const unknown = await ask(s, 'nobody-here@example.com')
    const disabled = await ask(s, gone.email)
    for (const r of [known, unknown, disabled]) {
      expect(r.status).toBe(202)
      expect(await body(r)).toEqual({ data: { requested: true } })
    }
    await mailTo(w.ownerEmail, after)
    // The known one arrived; give the others the same time and more.
    await new Promise((r) => setTimeout(r, 500))
    const sent = smtp.received.slice(after).flatMap((m) => m.to)
    expect(sent).toContain(w.ownerEmail.toLowerCase())
    expect(sent).not.toContain('nobody-here@example.com')
    expect(sent).not.toContain(gone.email.toLowerCase())
  })

  it('a bad address is a 422 naming the field', async () => {
    const res = await ask(s, 'not an address', {}, { 'x-locale': 'id' })
    expect(res.status).toBe(422)
    expect((await body(res)).error.fields).toEqual({ email: 'harus alamat e-mail' })
    expect((await s.fetch('/auth/link', F.json({}))).status).toBe(422)
  })

  it('a mailbox cannot be flooded: past twenty links an hour for one person, nothing more is sent', async () => {
    const w = await F.workspace(s)
    await s.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) yield* Sessions.createLoginLink(w.ownerId, 30, `192.0.2.${i}`)
      }),
    )
    const after = smtp.received.length
    expect((await ask(s, w.ownerEmail)).status).toBe(202)
    await new Promise((r) => setTimeout(r, 700))
    expect(smtp.received.slice(after).flatMap((m) => m.to)).not.toContain(w.ownerEmail.toLowerCase())
  })

  it('too many requests for one address, or from one caller, answer 429 with Retry-After', async () => {
    const limited = await startTestServer({
      SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
    })
    try {
      // A fixed one-minute window: seven requests cross at most one boundary, so at least one is refused.
      const same: Response[] = []
      for (let i = 0; i < 7; i++) same.push(await ask(limited, 'someone@example.com'))
      const refused = same.filter((r) => r.status === 429)
      expect(refused.length).toBeGreaterThan(0)
      expect(same.every((r) => r.status === 202 || r.status === 429)).toBe(true)
      expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await body(refused[0]!)).error.code).toBe('rate_limited')
      // Every address different: only the caller's own limit can refuse.
      const many: number[] = []
      for (let i = 0; i < 21; i++) many.push((await ask(limited, `other-${i}@example.com`)).status)
      expect(many).toContain(429)
    } finally {
      await limited.stop()
    }
  }, 60_000)
})

describe('signing out of every device', () => {
  it('ends every session of the person and closes their sockets; others stay signed in', async () => {
    const w = await F.workspace(s)
    const here = await F.signIn(s, w.ownerEmail)
    const there = await F.signIn(s, w.ownerEmail)
    const colleague = await F.signIn(s, (await F.member(s, w)).email)
    const token = await s.fetch('/v1/realtime/token', F.json({}, there.headers()))
    const socket = await connect((await body(token)).data.url)

    // It is a change: the CSRF token is needed, as for any sign-out.
    expect((await s.fetch('/auth/logout', F.json({ all: true }, { cookie: here.cookie }))).status).toBe(419)
    const out = await s.fetch('/auth/logout', F.json({ all: true }, here.headers()))
    expect(out.status).toBe(200)
    expect((await body(out)).data).toEqual({ signed_out: true, sessions_ended: 2 })
    expect(out.headers.getSetCookie().some((c) => /^kotak_session=;.*Max-Age=0/.test(c))).toBe(true)
    expect((await socket.closed).code).toBe(4503)
    expect((await s.fetch('/v1/me', { headers: here.headers() })).status).toBe(401)
    expect((await s.fetch('/v1/me', { headers: there.headers() })).status).toBe(401)
    expect((await s.fetch('/v1/me', { headers: colleague.headers() })).status).toBe(200)

    // A plain sign-out ends only its own session.
    const a = await F.signIn(s, w.ownerEmail)
    const b = await F.signIn(s, w.ownerEmail)
    const one = await s.fetch('/auth/logout', { method: 'POST', headers: a.headers() })
    expect((await body(one)).data).toEqual({ signed_out: true, sessions_ended: 1 })
    expect((await s.fetch('/v1/me', { headers: a.headers() })).status).toBe(401)
    expect((await s.fetch('/v1/me', { headers: b.headers() })).status).toBe(200)
    // An API key cannot sign anyone out.
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/auth/logout', F.json({ all: true }, F.bearer(key)))).status).toBe(403)
    expect((await s.fetch('/v1/me', { headers: b.headers() })).status).toBe(200)
  })
})

describe('sessions that outlive what ended them', () => {
  it('signing out of every device also ends the sign-in links not yet used', async () => {
    const w = await F.workspace(s)
    const here = await F.signIn(s, w.ownerEmail)
    const pending = await linkOf(s, w.ownerEmail, 30)
    expect(await statusOf(s, pending)).toMatchObject({ status: 'valid' })
    expect((await s.fetch('/auth/logout', F.json({ all: true }, here.headers()))).status).toBe(200)
    const after = await press(s, pending)
    expect(after.status).toBe(401)
    expect(after.headers.getSetCookie()).toEqual([])
    // Its page says it no longer works, not that someone used it.
    expect(await statusOf(s, pending)).toEqual({ status: 'expired', email: null })
    // A link made afterwards works as before.
    expect((await press(s, await linkOf(s, w.ownerEmail))).status).toBe(200)
  })

  it('signing in again in the same browser ends the session its cookie held', async () => {
    const w = await F.workspace(s)
    const other = await F.member(s, w)
    const first = await F.signIn(s, w.ownerEmail)
    const elsewhere = await F.signIn(s, w.ownerEmail)
    // The browser still holds the first session's cookie when it signs in again.
    const again = await press(s, await linkOf(s, w.ownerEmail), {}, { cookie: first.cookie })
    expect(again.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: first.headers() })).status).toBe(401)
    expect((await s.fetch('/v1/me', { headers: { cookie: cookieOf(again) } })).status).toBe(200)
    // Another browser's session is not this browser's to end.
    expect((await s.fetch('/v1/me', { headers: elsewhere.headers() })).status).toBe(200)
    // Signing in as someone else in that browser ends the previous person's session too.
    const switched = await press(s, await linkOf(s, other.email), {}, { cookie: cookieOf(again) })
    expect(switched.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: { cookie: cookieOf(again) } })).status).toBe(401)
    const me = await s.fetch('/v1/me', { headers: { cookie: cookieOf(switched) } })
    expect((await body(me)).data.user.id).toBe(other.id)
    // A cookie of no session (or an ended one) is no obstacle.
    expect(
      (await press(s, await linkOf(s, w.ownerEmail), {}, { cookie: 'kotak_session=nonsense' })).status,
    ).toBe(200)
  })

  it('a stranger asking for links cannot use up a person’s own: the hourly cap is per person and address', async () => {
    const proxied = await startTestServer({
      SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
      TRUST_PROXY: '1',
    })
    try {
      const w = await F.workspace(proxied)
      const ask = (ip: string) =>
        proxied.fetch('/auth/link', F.json({ email: w.ownerEmail }, { 'x-forwarded-for': ip }))
      const sentTo = (after: number) => smtp.received.slice(after).flatMap((m) => m.to)
      const owner = w.ownerEmail.toLowerCase()
      // An hour's worth from the stranger's address.
      await proxied.run(
        Effect.gen(function* () {
          for (let i = 0; i < 5; i++) yield* Sessions.createLoginLink(w.ownerId, 30, '203.0.113.66')
        }),
      )
      let after = smtp.received.length
      expect((await ask('203.0.113.66')).status).toBe(202)
      await new Promise((r) => setTimeout(r, 700))
      expect(sentTo(after)).not.toContain(owner)

      // The person, from their own address, still gets one.
      after = smtp.received.length
      expect((await ask('198.51.100.7')).status).toBe(202)
      await smtp.waitFor((m) => m.to.includes(owner) && smtp.received.indexOf(m) >= after)
      const from = await proxied.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ requested_from: string | null }>`
              SELECT requested_from FROM login_links WHERE user_id = ${w.ownerId} ORDER BY id DESC LIMIT 1`,
        ),
      )
      expect(from[0]!.requested_from).toBe('198.51.100.7')

      // Many addresses together still stop at the person's ceiling.
      await proxied.run(
        Effect.gen(function* () {
          for (let i = 0; i < 14; i++) yield* Sessions.createLoginLink(w.ownerId, 30, `192.0.2.${i}`)
        }),
      )
      after = smtp.received.length
      expect((await ask('198.51.100.8')).status).toBe(202)
      await new Promise((r) => setTimeout(r, 700))
      expect(sentTo(after)).not.toContain(owner)
    } finally {
      await proxied.stop()
    }
  }, 60_000)
})

describe('after a sign-in, only the app’s own paths (security review)', () => {
  const open = async (returnTo: string) =>
    (
      await s.fetch(`/auth/link/abc?return_to=${encodeURIComponent(returnTo)}`, { redirect: 'manual' })
    ).headers.get('location')
  const pressed = async (returnTo: string) => {
    const w = await F.workspace(s)
    const res = await press(s, await linkOf(s, w.ownerEmail), { return_to: returnTo })
    expect(res.status).toBe(200)
    return (await body(res)).data.return_to as string
  }
  // What a browser makes of each: another site, or a path of this one outside the app.
  const refused = [
    '/\\evil.example',
    '/\\/evil.example',
    '/%5Cevil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    '//evil.example',
    'https://evil.example/app',
    'https:/app',
    'javascript:alert(1)',
    '/app/../../evil',
    '/app/%2e%2e/v1/me',
    '/v1/me',
    '/application',
    '',
  ]

  it('a link’s page is reached without a return path that leaves the app', async () => {
    for (const v of refused) expect(await open(v), v).toBe('/app/link/abc')
    // `%5C` arriving encoded in the query is a backslash once the query is read.
    expect(
      (await s.fetch('/auth/link/abc?return_to=%2F%5Cevil.example', { redirect: 'manual' })).headers.get(
        'location',
      ),
    ).toBe('/app/link/abc')
    expect(await open('/app/x')).toBe('/app/link/abc?return_to=%2Fapp%2Fx')
    expect(await open('/app/invite/t0k?x=1')).toBe('/app/link/abc?return_to=%2Fapp%2Finvite%2Ft0k%3Fx%3D1')
  })

  it('the button’s answer names only an app path, whatever the page sent', async () => {
    for (const v of [
      '/\\evil.example',
      '/%5Cevil.example',
      '/\t/evil.example',
      '//evil.example',
      'https://evil.example',
    ])
      expect(await pressed(v), v).toBe('/app')
    expect(await pressed('/app/x')).toBe('/app/x')
    expect(await pressed('/invite/t0k')).toBe('/invite/t0k')
  })

  it('an e-mailed link carries no return path that leaves the app', async () => {
    const w = await F.workspace(s)
    const after = smtp.received.length
    const res = await s.fetch('/auth/link', F.json({ email: w.ownerEmail, return_to: '/\\evil.example' }))
    expect(res.status).toBe(202)
    const mail = await smtp.waitFor(
      (m) => m.to.includes(w.ownerEmail.toLowerCase()) && smtp.received.indexOf(m) >= after,
    )
    const link = /(http:\/\/\S+\/auth\/link\/[A-Za-z0-9_-]+\S*)/.exec(String(mail.parsed.text))![1]!
    expect(link).not.toContain('return_to')
  })
})

describe('login CSRF: the content type is read whole (security review)', () => {
  it('a form’s type that merely mentions JSON is not JSON: 422, the link unused', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    for (const type of [
      'text/plain; x=application/json',
      'text/plain;application/json',
      'application/jsonx',
    ]) {
      const res = await s.fetch(`/auth/link/${token}`, {
        method: 'POST',
        headers: { 'content-type': type },
        body: '{}',
      })
      expect(res.status, type).toBe(422)
      expect((await body(res)).error.fields.body).toMatch(/application\/json/)
      expect(res.headers.getSetCookie()).toEqual([])
      // Without a body the type is still checked, by the route itself.
      const empty = await s.fetch(`/auth/link/${token}`, {
        method: 'POST',
        headers: { 'content-type': type },
      })
      expect(empty.status, type).toBe(403)
    }
    expect(await statusOf(s, token)).toMatchObject({ status: 'valid' })
    // JSON with its parameters, or in capitals, is JSON.
    const ok = await press(s, token, {}, { 'content-type': 'Application/JSON; charset=utf-8' })
    expect(ok.status).toBe(200)
  })

  it('the rest of the API reads the type the same way', async () => {
    const w = await F.workspace(s)
    const owner = await F.signIn(s, w.ownerEmail)
    const loose = await s.fetch('/v1/api-keys', {
      method: 'POST',
      headers: owner.headers({ 'content-type': 'text/plain; x=application/json' }),
      body: JSON.stringify({ name: 'k', scope: 'read' }),
    })
    expect(loose.status).toBe(422)
    expect((await body(loose)).error.code).toBe('validation_error')
  })
})

describe('a mangled cookie (security review)', () => {
  it('is taken as it is, never a server error: the session beside it still counts', async () => {
    const w = await F.workspace(s)
    const owner = await F.signIn(s, w.ownerEmail)
    const res = await s.fetch('/v1/me', { headers: { cookie: `other=%E0%A4%A; ${owner.cookie}` } })
    expect(res.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: { cookie: 'kotak_session=%' } })).status).toBe(401)
  })
})
