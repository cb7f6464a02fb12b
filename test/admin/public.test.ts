import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
import * as PlanRequests from '../../store/planRequests'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Spec 1 §4.5 public endpoints, §4.2 API keys and the personal parts of §4.1 (`/me`, switching
 * workspaces), through HTTP.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ DEMO_LIVECHAT_KEY: 'lc_demo_key_123' })
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })
const del = (h: Record<string, string>): RequestInit => ({ method: 'DELETE', headers: h })

describe('public endpoints', () => {
  it('config: prices, quotas, tax and retention, following X-Locale', async () => {
    const en = (await body(await s.fetch('/v1/public/config'))).data
    expect(en.plans.map((p: any) => p.key)).toEqual(['free', 'pro', 'custom'])
    expect(en.plans[1]).toMatchObject({
      name: 'Pro',
      price_monthly: expect.any(Number),
      limits: { users: 25 },
    })
    expect(en.tax.rate_percent).toBe(11)
    expect(en.retention.messages_days).toMatchObject({ free: expect.any(Number) })
    const id = (await body(await s.fetch('/v1/public/config', { headers: { 'x-locale': 'id' } }))).data
    expect(id.locale).toBe('id')
    expect(id.plans[0].name).toBe('Gratis')
    expect(id.retention.description).not.toBe(en.retention.description)
    // No OIDC_ISSUER nor SMTP_URL here: the app's sign-in page offers the CLI's one-time links only.
    expect(en.sign_in).toEqual({ oidc: false, login_path: null, email: false })
  })

  it('demo live chat key', async () => {
    expect((await body(await s.fetch('/v1/public/demo-livechat'))).data).toEqual({ key: 'lc_demo_key_123' })
  })

  it('plan requests: validated (422 with fields), stored, rate-limited (429 with Retry-After)', async () => {
    const bad = await s.fetch(
      '/v1/plan-requests',
      F.json({ name: 'A', email: 'nope', message: 'short', phone: 'call me', agents: -1 }),
    )
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(
      expect.arrayContaining(['name', 'email', 'message', 'phone', 'agents']),
    )
    const good = {
      name: 'Budi Santoso',
      email: 'budi@toko.example',
      message: 'We need 40 agents and 12 channels for our stores.',
      company: 'Toko Budi',
      phone: '+62 812 3456 7890',
      channels: 12,
      agents: 40,
    }
    for (let i = 0; i < 3; i++) {
      const res = await s.fetch('/v1/plan-requests', F.json(good))
      expect(res.status).toBe(201)
      expect((await body(res)).data).toMatchObject({
        id: expect.any(Number),
        received_at: expect.any(String),
      })
    }
    const limited = await s.fetch('/v1/plan-requests', F.json(good))
    expect(limited.status).toBe(429)
    expect((await body(limited)).error.code).toBe('rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    const stored = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ n: number; company: string; agents: number }>`
            SELECT count(*)::int AS n, max(company) AS company, max(agents) AS agents
            FROM plan_requests WHERE email = ${good.email}`,
      ),
    )
    expect(stored[0]).toMatchObject({ n: 3, company: 'Toko Budi', agents: 40 })
  })

  it('an unknown invitation token is 404', async () => {
    expect((await s.fetch('/v1/invite/abcdefghijklmnopqrstuvwxyz')).status).toBe(404)
  })
})

describe('API keys', () => {
  it('create (secret once, 201), list without secrets, revoke (401 next), audit entries; Pro only; settings.api; never by key', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const made = await s.fetch('/v1/api-keys', F.json({ name: 'Zapier', scope: 'read' }, owner.headers()))
    expect(made.status).toBe(201)
    const k = (await body(made)).data
    expect(k).toMatchObject({
      name: 'Zapier',
      scope: 'read',
      key: expect.any(String),
      prefix: expect.any(String),
    })
    expect(k.key.startsWith(k.prefix)).toBe(true)

    const me = await s.fetch('/v1/me', { headers: F.bearer(k.key) })
    expect(me.status).toBe(200)
    expect((await body(me)).data.via).toBe('key')
    const list = await body(await s.fetch('/v1/api-keys', { headers: owner.headers() }))
    const listed = list.data.find((x: any) => x.id === k.id)
    expect(listed).toMatchObject({ name: 'Zapier', prefix: k.prefix, created_by: { id: w.ownerId } })
    expect(listed).not.toHaveProperty('key')
    expect(JSON.stringify(list)).not.toContain(k.key)
    expect(list.meta).toMatchObject({ limit: 10 })

    // A read key cannot change data; no key may reach A endpoints.
    expect((await s.fetch('/v1/api-keys', { headers: F.bearer(k.key) })).status).toBe(403)
    expect(
      (await s.fetch('/v1/api-keys', F.json({ name: 'x', scope: 'write' }, F.bearer(k.key)))).status,
    ).toBe(403)
    const bad = await s.fetch('/v1/api-keys', F.json({ name: '', scope: 'admin' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(expect.arrayContaining(['name', 'scope']))
    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect((await s.fetch('/v1/api-keys', { headers: agent.headers() })).status).toBe(403)

    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    expect((await s.fetch(`/v1/api-keys/${k.id}`, del(otherOwner.headers()))).status).toBe(404)
    const revoked = await s.fetch(`/v1/api-keys/${k.id}`, del(owner.headers()))
    expect(revoked.status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: F.bearer(k.key) })).status).toBe(401)
    expect((await s.fetch(`/v1/api-keys/${k.id}`, del(owner.headers()))).status).toBe(404)

    const audit = (await body(await s.fetch('/v1/audit-logs?category=api', { headers: owner.headers() })))
      .data
    expect(audit.map((e: any) => [e.action, e.target])).toEqual([
      ['api_key.revoked', 'Zapier'],
      ['api_key.created', 'Zapier'],
    ])
    expect(JSON.stringify(audit)).not.toContain(k.key)

    const free = await F.workspace(s, { plan: 'free' })
    const freeOwner = await F.signIn(s, free.ownerEmail)
    const refused = await s.fetch('/v1/api-keys', F.json({ name: 'x', scope: 'read' }, freeOwner.headers()))
    expect(refused.status).toBe(402)
    expect((await body(refused)).error.code).toBe('plan_required')
  })
})

describe('me', () => {
  it('changes locale and personal zone (empty string follows the workspace); keys may not', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const set = await s.fetch('/v1/me', patch({ locale: 'id', timezone: 'Europe/Berlin' }, owner.headers()))
    expect(set.status).toBe(200)
    const me = (await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data
    expect(me).toMatchObject({ user: { locale: 'id', timezone: 'Europe/Berlin' }, timezone: 'Europe/Berlin' })
    expect(me.permissions).toContain('settings.workspace')
    expect(me.channel_ids).toBeNull()
    expect(typeof me.realtime).toBe('boolean')
    await s.fetch('/v1/me', patch({ timezone: '' }, owner.headers()))
    const back = (await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data
    expect(back).toMatchObject({ user: { timezone: null }, timezone: 'Asia/Jakarta' })
    const bad = await s.fetch('/v1/me', patch({ locale: 'fr', timezone: 'Mars/Base' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(
      expect.arrayContaining(['locale', 'timezone']),
    )
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/me', patch({ locale: 'en' }, F.bearer(key)))).status).toBe(403)
  })

  it('switches the active workspace among those where the user is a member; not to others', async () => {
    const a = await F.workspace(s, { plan: 'pro' })
    const b = await F.workspace(s, { plan: 'pro' })
    const c = await F.workspace(s, { plan: 'pro' })
    const user = await F.member(s, a, 'Agent')
    await s.run(Members.addWithRole(b.workspaceId, user.id, 'Agent'))
    const session = await F.signIn(s, user.email)
    const list = (await body(await s.fetch('/v1/workspaces', { headers: session.headers() }))).data
    expect(list.map((x: any) => x.id).sort()).toEqual([a.workspaceId, b.workspaceId].sort())
    const sw = await s.fetch('/v1/me/workspace', F.json({ workspace_id: b.workspaceId }, session.headers()))
    expect(sw.status).toBe(200)
    expect((await body(await s.fetch('/v1/me', { headers: session.headers() }))).data.workspace.id).toBe(
      b.workspaceId,
    )
    const no = await s.fetch('/v1/me/workspace', F.json({ workspace_id: c.workspaceId }, session.headers()))
    expect([403, 404]).toContain(no.status)
    const bad = await s.fetch('/v1/me/workspace', F.json({ workspace_id: 'b' }, session.headers()))
    expect(bad.status).toBe(422)
  })
})

describe('plan requests behind a proxy (per-address and per-e-mail daily limits)', () => {
  let p: TestServer
  beforeAll(async () => {
    p = await startTestServer({ TRUST_PROXY: '1' })
  })
  afterAll(() => p?.stop())
  const from = (ip: string, b: unknown) => p.fetch('/v1/plan-requests', F.json(b, { 'x-forwarded-for': ip }))
  const ask = (email: string) => ({
    name: 'Sari Dewi',
    email,
    message: 'We would like a Custom plan for our call centre.',
  })

  it('the same e-mail from different addresses: 3 a day, then 429 with a Retry-After of hours; case does not matter', async () => {
    const email = `sari-${Date.now().toString(36)}@example.com`
    for (const ip of ['198.51.100.1', '198.51.100.2', '198.51.100.3'])
      expect((await from(ip, ask(email))).status).toBe(201)
    const limited = await from('198.51.100.4', ask(email.toUpperCase()))
    expect(limited.status).toBe(429)
    expect((await body(limited)).error.code).toBe('rate_limited')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(23 * 3600)
    // Another e-mail from a fresh address still gets through.
    expect((await from('198.51.100.5', ask(`other-${email}`))).status).toBe(201)
  })

  it('one address: 10 a day, then 429', async () => {
    const ip = '203.0.113.77'
    for (let i = 0; i < 10; i++)
      await p.run(
        PlanRequests.create({
          name: 'Old',
          email: `old${i}@example.com`,
          company: '',
          phone: '',
          message: 'An earlier request today.',
          channels: null,
          agents: null,
          locale: 'en',
          ip,
        }),
      )
    const res = await from(ip, ask(`new-${Date.now().toString(36)}@example.com`))
    expect(res.status).toBe(429)
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('blank name and message are 422 after trimming; null counts are accepted; a body that is not JSON is refused', async () => {
    const blank = await from('192.0.2.10', { name: '   ', email: ' x@example.com ', message: '          ' })
    expect(blank.status).toBe(422)
    expect(Object.keys((await body(blank)).error.fields)).toEqual(expect.arrayContaining(['name', 'message']))
    const nulls = await from('192.0.2.11', {
      ...ask(`nulls-${Date.now().toString(36)}@example.com`),
      channels: null,
      agents: null,
      phone: '',
    })
    expect(nulls.status).toBe(201)
    const notJson = await p.fetch('/v1/plan-requests', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.12' },
      body: '{not json',
    })
    expect([400, 422]).toContain(notJson.status)
  })

  it('demo live chat key is null when none is set up; the invitation summary needs no credentials but a real token', async () => {
    expect((await body(await p.fetch('/v1/public/demo-livechat'))).data).toEqual({ key: null })
    const cfg = await p.fetch('/v1/public/config', { headers: { 'x-locale': 'fr' } })
    expect(cfg.status).toBe(200)
    expect((await body(cfg)).data.locale).toBe('en')
    expect((await p.fetch('/v1/invite/x')).status).toBe(404)
  })
})
