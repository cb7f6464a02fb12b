import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { freePort, startTestServer, type TestServer } from '../support/server'

/**
 * The invitation e-mail when things go wrong or differ: a refused recipient, an SMTP server that
 * is down, no SMTP at all, and the inviter's language. The invitation exists in every case; the
 * outcome is in `mail`.
 */
let smtp: Smtp
let s: TestServer
let off: TestServer
let down: TestServer
beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({ SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}` })
  off = await startTestServer()
  down = await startTestServer({ SMTP_URL: `smtp://u:p@127.0.0.1:${await freePort()}` })
})
afterAll(async () => {
  await Promise.all([s?.stop(), off?.stop(), down?.stop()])
  await smtp?.stop()
})

const body = async (res: Response) => (await res.json()) as Record<string, any>
const setup = async (server: TestServer, locale?: 'id') => {
  const w = await F.workspace(server, { plan: 'pro' })
  const owner = await F.signIn(server, w.ownerEmail)
  if (locale) await server.fetch('/v1/me', { ...F.json({ locale }, owner.headers()), method: 'PATCH' })
  const roles = (await body(await server.fetch('/v1/roles', { headers: owner.headers() }))).data
  const admin = roles.find((r: any) => r.is_admin && !r.is_owner)
  const invite = (email: string) =>
    server.fetch('/v1/invitations', F.json({ email, role_id: admin.id }, owner.headers()))
  return { owner, invite }
}

describe('invitation mail', () => {
  it('a refused recipient: the invitation is made with mail failed; resend tries again', async () => {
    const { owner, invite } = await setup(s)
    const res = await invite('reject-me@example.com')
    expect(res.status).toBe(201)
    const inv = (await body(res)).data
    expect(inv).toMatchObject({ mail: 'failed', sent_at: null, status: 'pending' })
    const again = await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, owner.headers()))
    expect(again.status).toBe(200)
    expect((await body(again)).data.mail).toBe('failed')
  })

  it('in the inviter’s language when the invitee has no account yet', async () => {
    const { invite } = await setup(s, 'id')
    expect((await invite('baru@example.com')).status).toBe(201)
    const mail = await smtp.waitFor((m) => m.to.includes('baru@example.com'))
    expect(mail.parsed.subject).toContain('mengundang Anda')
    expect(String(mail.parsed.text)).toContain('Buka tautan ini')
  })

  it('without SMTP_URL nothing is sent (mail off); with the server down the request still succeeds (mail failed)', async () => {
    const a = await setup(off)
    const r1 = await a.invite('nobody@example.com')
    expect(r1.status).toBe(201)
    expect((await body(r1)).data.mail).toBe('off')
    const b = await setup(down)
    const started = Date.now()
    const r2 = await b.invite('nobody@example.com')
    expect(r2.status).toBe(201)
    expect((await body(r2)).data.mail).toBe('failed')
    expect(Date.now() - started).toBeLessThan(5_000)
  })
})
