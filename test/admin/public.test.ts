import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
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
