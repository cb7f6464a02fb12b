import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Workspaces from '../../store/workspaces'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Spec 1 §4.1 and §4.2: workspaces, settings, dashboard and the audit log, through HTTP. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })
const events = async (session: F.Session, channel: string) => {
  const token = await body(
    await s.fetch('/v1/realtime/token', F.json({ channels: [channel] }, session.headers())),
  )
  const c = await connect(token.data.url)
  await c.next((f) => f.op === 'subscribed')
  return c
}

describe('workspaces', () => {
  it('renames (2 to 120 characters) with workspace.updated; keys may not', async () => {
    const c = await events(owner, `ws:${w.workspaceId}`)
    const res = await s.fetch('/v1/workspace', patch({ name: 'Toko Maju' }, owner.headers()))
    expect(res.status).toBe(200)
    const e = await c.next((f) => f.event === 'workspace.updated')
    expect(e.data).toMatchObject({ id: w.workspaceId, name: 'Toko Maju' })
    c.close()
    for (const name of ['x', 'y'.repeat(121)]) {
      const bad = await s.fetch('/v1/workspace', patch({ name }, owner.headers()))
      expect(bad.status).toBe(422)
      expect((await body(bad)).error.fields).toHaveProperty('name')
    }
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/workspace', patch({ name: 'By key' }, F.bearer(key)))).status).toBe(403)
  })

  it('lists the caller’s workspaces; Free and Pro accounts own one, so creating another is 409; the Owner cannot leave', async () => {
    const list = await body(await s.fetch('/v1/workspaces', { headers: owner.headers() }))
    expect(list.data).toEqual([
      expect.objectContaining({ id: w.workspaceId, is_owner: true, is_active: true }),
    ])
    expect(list.meta.create).toBe(false)
    expect(list.meta.create_limit).toEqual({ owned: 1, limit: 1, reason: 'limit' })
    const again = await s.fetch(
      '/v1/workspaces',
      F.json({ name: 'Second', timezone: 'Asia/Jakarta' }, owner.headers()),
    )
    expect(again.status).toBe(409)
    const leave = await s.fetch('/v1/workspace/leave', F.json({}, owner.headers()))
    expect(leave.status).toBe(409)
  })

  it('a member leaves, then has no access to the workspace; another member switches between workspaces', async () => {
    const agent = await F.member(s, w, 'Agent')
    const session = await F.signIn(s, agent.email)
    const left = await s.fetch('/v1/workspace/leave', F.json({}, session.headers()))
    expect(left.status).toBe(200)
    const after = await s.fetch('/v1/workspace', { headers: session.headers() })
    expect([401, 403, 409]).toContain(after.status)
  })

  it('keeps personal preferences (livechat_alert)', async () => {
    const res = await s.fetch('/v1/me/preferences', F.json({ livechat_alert: 1 }, owner.headers()))
    expect(res.status).toBe(200)
    expect((await body(res)).data).toEqual(expect.arrayContaining([{ key: 'livechat_alert', value: 1 }]))
    const bad = await s.fetch('/v1/me/preferences', F.json({ livechat_alert: 7 }, owner.headers()))
    expect(bad.status).toBe(422)
  })
})

describe('settings', () => {
  it('answers business hours, the response target, open_now and the choices; changes publish settings.updated; 422 for values outside the choices', async () => {
    const got = await body(await s.fetch('/v1/settings', { headers: owner.headers() }))
    expect(got.data).toMatchObject({
      response_target_minutes: 30,
      business_hours: { enabled: false },
      open_now: true,
    })
    expect(got.meta.choices.timezone).toContain('Asia/Jakarta')
    const c = await events(owner, `ws:${w.workspaceId}`)
    const closedAllWeek = {
      enabled: true,
      days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: false, from: '08:00', to: '17:00' })),
    }
    const res = await s.fetch(
      '/v1/settings',
      patch({ business_hours: closedAllWeek, response_target_minutes: 60 }, owner.headers()),
    )
    expect(res.status).toBe(200)
    expect((await body(res)).data).toMatchObject({ response_target_minutes: 60, open_now: false })
    expect(await c.next((f) => f.event === 'settings.updated')).toBeTruthy()
    c.close()
    const bad = await s.fetch(
      '/v1/settings',
      patch({ response_target_minutes: 7, timezone: 'Mars/Olympus' }, owner.headers()),
    )
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(
      expect.arrayContaining(['response_target_minutes']),
    )
    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect(
      (await s.fetch('/v1/settings', patch({ response_target_minutes: 60 }, agent.headers()))).status,
    ).toBe(403)
  })
})

describe('dashboard', () => {
  it('shows getting-started steps, quota use and activity to those with dashboard.view', async () => {
    const d = await body(await s.fetch('/v1/dashboard', { headers: owner.headers() }))
    expect(d.data.getting_started.steps.map((x: any) => x.key)).toEqual(
      expect.arrayContaining(['channel', 'team', 'invite', 'business_hours', 'first_reply']),
    )
    expect(d.data.quota.users).toMatchObject({ used: expect.any(Number), limit: 25 })
    expect(d.data.activity).toBeTruthy()
  })
})

describe('audit log', () => {
  it('records administration changes with label, category, target, ip and user; filters by category and text; 50 a page by default', async () => {
    await s.fetch('/v1/teams', F.json({ name: 'Audit team', type: 'frontline' }, owner.headers()))
    await s.fetch('/v1/workspace', patch({ name: 'Audited' }, owner.headers()))
    const all = await body(await s.fetch('/v1/audit-logs', { headers: owner.headers() }))
    expect(all.meta.per_page).toBe(50)
    const team = all.data.find((e: any) => e.action === 'team.created' && e.target === 'Audit team')
    expect(team).toMatchObject({
      category: 'teams',
      label: expect.any(String),
      ip: '127.0.0.1',
      user: { id: w.ownerId },
    })
    const onlyTeams = await body(await s.fetch('/v1/audit-logs?category=teams', { headers: owner.headers() }))
    expect(onlyTeams.data.length).toBeGreaterThan(0)
    expect(onlyTeams.data.every((e: any) => e.category === 'teams')).toBe(true)
    const q = await body(await s.fetch('/v1/audit-logs?q=Audit%20team', { headers: owner.headers() }))
    expect(q.data.map((e: any) => e.target)).toContain('Audit team')
    // Localised labels follow X-Locale.
    const id = await body(
      await s.fetch('/v1/audit-logs?category=teams', { headers: owner.headers({ 'x-locale': 'id' }) }),
    )
    expect(id.data[0].label).not.toBe(onlyTeams.data[0].label)
    const bad = await s.fetch('/v1/audit-logs?category=nope', { headers: owner.headers() })
    expect(bad.status).toBe(422)
    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect((await s.fetch('/v1/audit-logs', { headers: agent.headers() })).status).toBe(403)
  })
})

describe('more of workspaces, dashboard and audit', () => {
  it('a Custom contract may own as many workspaces as it allows; a new workspace becomes the active one', async () => {
    const c = await F.workspace(s, { plan: 'custom' })
    const boss = await F.signIn(s, c.ownerEmail)
    expect(
      (await s.fetch('/v1/workspaces', F.json({ name: 'Branch', timezone: 'Asia/Jakarta' }, boss.headers())))
        .status,
    ).toBe(409)
    await s.run(Workspaces.setContractWorkspaces(c.workspaceId, 3))
    const list = await body(await s.fetch('/v1/workspaces', { headers: boss.headers() }))
    expect(list.meta.create).toBe(true)
    expect(list.meta.create_limit).toEqual({ owned: 1, limit: 3, reason: null })
    const made = await s.fetch(
      '/v1/workspaces',
      F.json({ name: 'Branch', timezone: 'Asia/Makassar' }, boss.headers()),
    )
    expect(made.status).toBe(201)
    const ws = (await body(made)).data
    expect(ws).toMatchObject({ name: 'Branch', timezone: 'Asia/Makassar' })
    const me = (await body(await s.fetch('/v1/me', { headers: boss.headers() }))).data
    expect(me).toMatchObject({ workspace: { id: ws.id }, is_owner: true })
    const bad = await s.fetch(
      '/v1/workspaces',
      F.json({ name: 'x', timezone: 'Nowhere/City' }, boss.headers()),
    )
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(expect.arrayContaining(['name', 'timezone']))
  })

  it('hides dashboard parts the caller has no permission for', async () => {
    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    const res = await s.fetch('/v1/dashboard', { headers: agent.headers() })
    expect(res.status).toBe(200)
    const d = await body(res)
    expect(d.data.getting_started).toBeNull()
    expect(d.data.recent).toBeNull()
    expect(d.meta.hidden).toEqual(expect.arrayContaining(['getting_started', 'quota', 'activity', 'recent']))
    expect(d.data.teams).toBeTruthy()
    const full = await body(await s.fetch('/v1/dashboard', { headers: owner.headers() }))
    expect(full.meta.hidden).toEqual([])
    expect(full.data.activity.days).toHaveLength(14)
  })

  it('filters the audit log by user and by dates in the reader’s zone; meta names categories and users', async () => {
    const admin = await F.member(s, w, 'Admin')
    const adminSession = await F.signIn(s, admin.email)
    await s.fetch('/v1/teams', F.json({ name: 'By admin', type: 'frontline' }, adminSession.headers()))
    const byAdmin = await body(await s.fetch(`/v1/audit-logs?user=${admin.id}`, { headers: owner.headers() }))
    expect(byAdmin.data.length).toBeGreaterThan(0)
    expect(byAdmin.data.every((e: any) => e.user.id === admin.id)).toBe(true)
    expect(byAdmin.meta.categories).toEqual(
      expect.arrayContaining([{ key: 'teams', label: expect.any(String) }]),
    )
    expect(byAdmin.meta.users).toEqual(expect.arrayContaining([{ id: admin.id, name: expect.any(String) }]))
    const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Jakarta' }).format(new Date())
    const fromToday = await body(
      await s.fetch(`/v1/audit-logs?from=${today}&to=${today}`, { headers: owner.headers() }),
    )
    expect(fromToday.data.length).toBeGreaterThan(0)
    const past = await body(await s.fetch('/v1/audit-logs?to=2020-01-01', { headers: owner.headers() }))
    expect(past.data).toEqual([])
    const wrong = await s.fetch('/v1/audit-logs?from=2030-01-02&to=2030-01-01', { headers: owner.headers() })
    expect(wrong.status).toBe(422)
    const paged = await body(await s.fetch('/v1/audit-logs?per_page=1&page=2', { headers: owner.headers() }))
    expect(paged.meta).toMatchObject({ page: 2, per_page: 1, has_more: expect.any(Boolean) })
    expect(paged.data).toHaveLength(1)
    const key = await F.apiKey(s, w, 'read')
    expect((await s.fetch('/v1/audit-logs', { headers: F.bearer(key) })).status).toBe(200)
  })
})

describe('without a workspace', () => {
  it('an account with no membership gets 409 workspace_required on workspace endpoints, but sees its invitations and workspaces; leaving cancels a transfer to the leaver', async () => {
    const agent = await F.member(s, w, 'Agent')
    const session = await F.signIn(s, agent.email)
    // A pending transfer to the leaver is cancelled when they leave.
    const name = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data.name
    const t = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: agent.id, confirm_name: name }, owner.headers()),
    )
    expect(t.status).toBe(201)
    expect((await s.fetch('/v1/workspace/leave', F.json({}, session.headers()))).status).toBe(200)
    const pending = (await body(await s.fetch('/v1/workspace/transfer', { headers: owner.headers() }))).data
    expect(pending.pending).toBeNull()

    const again = await F.signIn(s, agent.email)
    const ws = await s.fetch('/v1/workspace', { headers: again.headers() })
    expect(ws.status).toBe(409)
    expect((await body(ws)).error.code).toBe('workspace_required')
    expect((await s.fetch('/v1/members', { headers: again.headers() })).status).toBe(409)
    // The Me object has a workspace, so /me answers the same (docs/decisions.md, order of checks).
    expect((await s.fetch('/v1/me', { headers: again.headers() })).status).toBe(409)
    expect((await s.fetch('/v1/me/invitations', { headers: again.headers() })).status).toBe(200)
    expect((await s.fetch('/v1/workspaces', { headers: again.headers() })).status).toBe(200)
  })
})
