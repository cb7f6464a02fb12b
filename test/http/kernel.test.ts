import { Validator } from '@seriousme/openapi-schema-validator'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import YAML from 'yaml'
import * as Sessions from '../../store/sessions'
import * as Workspaces from '../../store/workspaces'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

let s: TestServer
let pro: F.Seeded
let owner: F.Session

beforeAll(async () => {
  s = await startTestServer({ MAX_BODY_BYTES: '4096' })
  pro = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, pro.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>

describe('routing and envelope', () => {
  it('answers an unknown path with 404 not_found in the error envelope', async () => {
    const res = await s.fetch('/v1/does-not-exist')
    expect(res.status).toBe(404)
    expect(await body(res)).toEqual({ error: { code: 'not_found', message: 'Not found.' } })
    expect(res.headers.get('x-request-id')).toMatch(/^[\w.-]+$/)
  })

  it('answers a known path with another method with 405 and Allow', async () => {
    const res = await s.fetch('/v1/me', { method: 'DELETE' })
    expect(res.status).toBe(405)
    expect(res.headers.get('allow')).toBe('GET, HEAD, PATCH')
    expect((await body(res)).error.code).toBe('method_not_allowed')
  })

  it('localizes the message with X-Locale but keeps the code', async () => {
    const en = await body(await s.fetch('/v1/me'))
    const id = await body(await s.fetch('/v1/me', { headers: { 'x-locale': 'id' } }))
    expect(en.error.code).toBe('unauthorized')
    expect(id.error.code).toBe('unauthorized')
    expect(id.error.message).not.toBe(en.error.message)
    expect(id.error.message).toMatch(/Autentikasi/)
  })
})

describe('API-key authentication (401, 402, 403)', () => {
  it('refuses a missing credential', async () => {
    const res = await s.fetch('/v1/workspace')
    expect(res.status).toBe(401)
    expect((await body(res)).error.code).toBe('unauthorized')
  })

  it.each([
    ['a malformed key', 'Bearer svca_live_short'],
    ['another scheme', 'Basic dXNlcjpwYXNz'],
    ['a well-formed unknown key', `Bearer svca_live_${'A'.repeat(43)}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401', async (_, authorization) => {
    const res = await s.fetch('/v1/workspace', { headers: { authorization } })
    expect(res.status).toBe(401)
    expect((await body(res)).error.code).toBe('unauthorized')
  })

  it('refuses a revoked key at once', async () => {
    const created = await body(
      await s.fetch('/v1/api-keys', F.json({ name: 'to revoke', scope: 'read' }, owner.headers())),
    )
    const key: string = created.data.key
    expect((await s.fetch('/v1/workspace', { headers: F.bearer(key) })).status).toBe(200)
    const del = await s.fetch(`/v1/api-keys/${created.data.id}`, {
      method: 'DELETE',
      headers: owner.headers(),
    })
    expect(del.status).toBe(200)
    const res = await s.fetch('/v1/workspace', { headers: F.bearer(key) })
    expect(res.status).toBe(401)
  })

  it('answers 402 plan_required for a key of a Free workspace', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const key = await F.apiKey(s, free)
    const res = await s.fetch('/v1/workspace', { headers: F.bearer(key) })
    expect(res.status).toBe(402)
    expect((await body(res)).error.code).toBe('plan_required')
  })

  it('keeps a lapsed Pro plan working during the grace period, then answers 402', async () => {
    const inGrace = await F.workspace(s, { plan: 'pro', proUntil: new Date(Date.now() - 2 * 86_400_000) })
    const res = await s.fetch('/v1/workspace', { headers: F.bearer(await F.apiKey(s, inGrace)) })
    expect(res.status).toBe(200)
    expect((await body(res)).data.in_grace).toBe(true)
    const lapsed = await F.workspace(s, { plan: 'pro', proUntil: new Date(Date.now() - 30 * 86_400_000) })
    expect((await s.fetch('/v1/workspace', { headers: F.bearer(await F.apiKey(s, lapsed)) })).status).toBe(
      402,
    )
  })

  it('refuses an app-only endpoint called with a key with 403', async () => {
    const key = await F.apiKey(s, pro)
    const res = await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: F.bearer(key, { 'content-type': 'application/json' }),
      body: '{"locale":"id"}',
    })
    expect(res.status).toBe(403)
    const b = await body(res)
    expect(b.error.code).toBe('forbidden')
    expect(b.error.message).toMatch(/app only/)
  })
})

describe('app sessions (CSRF, permissions, frozen)', () => {
  it('refuses a mutation without a valid X-CSRF-Token with 419', async () => {
    const patch = (headers: Record<string, string>) =>
      s.fetch('/v1/me', {
        method: 'PATCH',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{}',
      })
    const none = await patch({ cookie: owner.cookie })
    expect(none.status).toBe(419)
    expect((await body(none)).error.code).toBe('csrf_mismatch')
    expect((await patch({ cookie: owner.cookie, 'x-csrf-token': 'wrong' })).status).toBe(419)
    expect((await patch(owner.headers())).status).toBe(200)
  })

  it('refuses a member without the permission with 403', async () => {
    const agent = await F.member(s, pro, 'Agent')
    const session = await F.signIn(s, agent.email)
    const res = await s.fetch('/v1/api-keys', { headers: session.headers() })
    expect(res.status).toBe(403)
    expect((await body(res)).error.code).toBe('forbidden')
    // The same member may read what needs no permission.
    expect((await s.fetch('/v1/workspace', { headers: session.headers() })).status).toBe(200)
  })

  it('answers 423 to mutations in a frozen workspace but keeps reads working', async () => {
    const frozen = await F.workspace(s, { plan: 'custom' })
    const session = await F.signIn(s, frozen.ownerEmail)
    await s.run(Workspaces.setFrozen(frozen.workspaceId, true))
    const res = await s.fetch('/v1/api-keys', F.json({ name: 'x', scope: 'read' }, session.headers()))
    expect(res.status).toBe(423)
    expect((await body(res)).error.code).toBe('workspace_frozen')
    expect((await s.fetch('/v1/workspace', { headers: session.headers() })).status).toBe(200)
  })

  it('signs out: the session cookie stops working', async () => {
    const session = await F.signIn(s, pro.ownerEmail)
    const out = await s.fetch('/auth/logout', { method: 'POST', headers: session.headers() })
    expect(out.status).toBe(200)
    expect(out.headers.getSetCookie().some((c) => c.startsWith('kotak_session=;'))).toBe(true)
    expect((await s.fetch('/v1/me', { headers: session.headers() })).status).toBe(401)
  })
})

describe('validation (422 with fields) and body limits', () => {
  it('reports malformed JSON', async () => {
    const res = await s.fetch('/v1/api-keys', {
      method: 'POST',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: '{"name": ',
    })
    expect(res.status).toBe(422)
    const b = await body(res)
    expect(b.error.code).toBe('validation_error')
    expect(Object.keys(b.error.fields)).toEqual(['body'])
  })

  it('reports every wrong field, in the caller language', async () => {
    const res = await s.fetch(
      '/v1/api-keys',
      F.json({ name: '', scope: 'admin' }, owner.headers({ 'x-locale': 'id' })),
    )
    expect(res.status).toBe(422)
    const b = await body(res)
    expect(b.error.code).toBe('validation_error')
    expect(b.error.fields).toEqual({
      name: 'minimal 1 karakter',
      scope: 'harus salah satu dari: read, write',
    })
  })

  it('reports a missing field and a wrong type', async () => {
    const res = await s.fetch('/v1/api-keys', F.json({ name: 42 }, owner.headers()))
    const b = await body(res)
    expect(b.error.fields).toEqual({ name: 'must be a string', scope: 'is required' })
  })

  it('refuses a body that is not JSON', async () => {
    const res = await s.fetch('/v1/api-keys', {
      method: 'POST',
      headers: owner.headers({ 'content-type': 'text/plain' }),
      body: 'name=x',
    })
    expect(res.status).toBe(422)
    expect((await body(res)).error.fields.body).toMatch(/application\/json/)
  })

  it('validates time zones', async () => {
    const res = await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ timezone: 'Mars/Olympus' }),
    })
    expect(res.status).toBe(422)
    expect((await body(res)).error.fields).toEqual({
      timezone: 'must be an IANA time zone such as Asia/Jakarta',
    })
  })

  it('refuses an oversized body with 413 and keeps serving', async () => {
    const res = await s.fetch(
      '/v1/api-keys',
      F.json({ name: 'x'.repeat(10_000), scope: 'read' }, owner.headers()),
    )
    expect(res.status).toBe(413)
    expect((await body(res)).error.code).toBe('payload_too_large')
    expect((await s.fetch('/healthz')).status).toBe(200)
  })
})

describe('GET /v1/me, GET /v1/workspace, GET /v1/public/config', () => {
  const workspaceKeys = [
    'created_at',
    'id',
    'in_grace',
    'limits',
    'name',
    'plan',
    'pro_until',
    'slug',
    'timezone',
  ]

  it('describes a key caller as its creator', async () => {
    const key = await F.apiKey(s, pro, 'read')
    const res = await s.fetch('/v1/me', { headers: F.bearer(key) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-limit')).toBe('120')
    const { data } = await body(res)
    expect(Object.keys(data).sort()).toEqual(
      [
        'channel_ids',
        'is_owner',
        'is_platform_admin',
        'permissions',
        'preferences',
        'realtime',
        'role',
        'timezone',
        'user',
        'via',
        'workspace',
      ].sort(),
    )
    expect(data.via).toBe('key')
    expect(data.user.id).toBe(pro.ownerId)
    expect(Object.keys(data.user).sort()).toEqual(
      ['avatar_url', 'email', 'id', 'last_login_at', 'locale', 'name', 'timezone'].sort(),
    )
    expect(data.is_owner).toBe(true)
    expect(data.channel_ids).toBeNull()
    expect(data.permissions).toContain('settings.api')
    expect(data.permissions).toHaveLength(27)
    expect(data.timezone).toBe('Asia/Jakarta')
    expect(Object.keys(data.workspace).sort()).toEqual(workspaceKeys)
  })

  it('tells the grace period from the clock, not from the view kept for a cached key', async () => {
    // GET /v1/me's view is made once per cached caller (http/routes/identity.ts): `in_grace` is
    // the one field that changes with time alone, with the caller and its workspace unchanged.
    const w = await F.workspace(s, { plan: 'pro' })
    await s.run(Workspaces.setPlan(w.workspaceId, 'pro', new Date(Date.now() + 1500)))
    const key = await F.apiKey(s, w, 'read')
    const before = await body(await s.fetch('/v1/me', { headers: F.bearer(key) }))
    expect(before.data.workspace.in_grace).toBe(false)
    expect(await body(await s.fetch('/v1/me', { headers: F.bearer(key) }))).toEqual(before)
    await new Promise((r) => setTimeout(r, 1600))
    const after = await body(await s.fetch('/v1/me', { headers: F.bearer(key) }))
    expect(after.data.workspace.in_grace).toBe(true)
    expect(after.data.workspace.pro_until).toBe(before.data.workspace.pro_until)
  })

  it('describes a session caller with role, zone and UTC timestamps', async () => {
    const patched = await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ timezone: 'Europe/Amsterdam', locale: 'en' }),
    })
    expect((await body(patched)).data.timezone).toBe('Europe/Amsterdam')
    const { data } = await body(await s.fetch('/v1/me', { headers: owner.headers() }))
    expect(data.via).toBe('session')
    expect(data.role).toEqual({ id: expect.any(Number), name: 'Owner' })
    expect(data.user.timezone).toBe('Europe/Amsterdam')
    expect(data.timezone).toBe('Europe/Amsterdam')
    expect(data.user.last_login_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
    // Empty string = follow the workspace zone again.
    await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ timezone: '' }),
    })
    expect((await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data.timezone).toBe(
      'Asia/Jakarta',
    )
  })

  it('gives an agent only its role permissions', async () => {
    const agent = await F.member(s, pro, 'Agent')
    const { data } = await body(
      await s.fetch('/v1/me', { headers: (await F.signIn(s, agent.email)).headers() }),
    )
    expect(data.is_owner).toBe(false)
    expect(data.role.name).toBe('Agent')
    expect(data.permissions).not.toContain('settings.api')
    expect(data.permissions).toContain('interactions.reply')
  })

  it('answers the workspace object', async () => {
    const { data } = await body(await s.fetch('/v1/workspace', { headers: F.bearer(await F.apiKey(s, pro)) }))
    expect(Object.keys(data).sort()).toEqual(workspaceKeys)
    expect(data.plan).toBe('pro')
    expect(data.limits).toEqual({
      channels: 10,
      users: 25,
      tickets_per_month: 5000,
      leads_per_month: 5000,
      replies_per_day: 0,
      ai_per_month: 2000,
      ai: true,
      api: true,
    })
    expect(data.created_at).toMatch(/Z$/)
  })

  it('serves the public config without credentials, following X-Locale', async () => {
    const en = await body(await s.fetch('/v1/public/config'))
    const id = await body(await s.fetch('/v1/public/config', { headers: { 'x-locale': 'id' } }))
    expect(en.data.plans.map((p: { key: string }) => p.key)).toEqual(['free', 'pro', 'custom'])
    expect(en.data.plans[0].name).toBe('Free')
    expect(id.data.plans[0].name).toBe('Gratis')
    expect(id.data.locale).toBe('id')
    expect(en.data.tax).toEqual({ name: 'PPN', rate_percent: 11, included_in_price: false })
  })
})

describe('operations', () => {
  it('serves health and Prometheus metrics', async () => {
    const health = await body(await s.fetch('/healthz'))
    expect(health.data).toMatchObject({ status: 'ok', database: 'ok' })
    expect(['off', 'ok']).toContain(health.data.cluster)
    const metrics = await s.fetch('/metrics')
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain/)
    const text = await metrics.text()
    expect(text).toMatch(
      /kotak_http_requests_total\{method="GET",route="\/healthz",class="system",status="200"\} \d+/,
    )
  })

  it('serves an OpenAPI 3.1 document generated from the request schemas', async () => {
    const res = await s.fetch('/docs/openapi.yaml')
    expect(res.status).toBe(200)
    const text = await res.text()
    // Valid against the OpenAPI 3.1 schema, not just plausible.
    const validation = await new Validator().validate(text)
    expect(validation).toEqual({ valid: true })
    const doc = YAML.parse(text)
    expect(doc.openapi).toBe('3.1.0')
    expect(doc.paths['/v1/me'].get['x-access']).toBe('K')
    expect(doc.paths['/v1/me'].patch['x-access']).toBe('A')
    const create = doc.paths['/v1/api-keys'].post
    expect(create['x-permission']).toBe('settings.api')
    const schema = create.requestBody.content['application/json'].schema
    expect(schema.required).toEqual(['name', 'scope'])
    expect(schema.properties.scope.enum).toEqual(['read', 'write'])
    expect(schema.properties.name.maxLength).toBe(100)
  })

  it('gives every API-key creation the 10-key limit', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const session = await F.signIn(s, w.ownerEmail)
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.fetch('/v1/api-keys', F.json({ name: `k${i}`, scope: 'read' }, session.headers())),
      ),
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((x) => x === 201)).toHaveLength(10)
    expect(statuses.filter((x) => x === 409)).toHaveLength(2)
    const list = await body(await s.fetch('/v1/api-keys', { headers: session.headers() }))
    expect(list.meta).toEqual({ active: 10, limit: 10 })
    expect(JSON.stringify(list)).not.toMatch(/svca_live_[A-Za-z0-9_-]{20}/)
    await s.run(Effect.void)
  })
})

describe('cached credentials never outlive a change', () => {
  it('applies a plan change and ended sessions on the very next request', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const key = await F.apiKey(s, w)
    const session = await F.signIn(s, w.ownerEmail)
    expect((await s.fetch('/v1/workspace', { headers: F.bearer(key) })).status).toBe(200)
    expect((await s.fetch('/v1/workspace', { headers: session.headers() })).status).toBe(200)
    await s.run(Workspaces.setPlan(w.workspaceId, 'free', null))
    expect((await s.fetch('/v1/workspace', { headers: F.bearer(key) })).status).toBe(402)
    const seen = await body(await s.fetch('/v1/workspace', { headers: session.headers() }))
    expect(seen.data.plan).toBe('free')
    await s.run(Sessions.endAllOf(w.ownerId))
    expect((await s.fetch('/v1/workspace', { headers: session.headers() })).status).toBe(401)
  })
})
