import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Spec 1 §4.2: members, teams and roles, through HTTP, with their permissions, 404s and events. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let other: F.Seeded
let otherOwner: F.Session
beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  other = await F.workspace(s, { plan: 'pro' })
  otherOwner = await F.signIn(s, other.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })
const del = (h: Record<string, string>, b?: unknown): RequestInit => ({
  ...(b === undefined ? { headers: h } : F.json(b, h)),
  method: 'DELETE',
})
const events = async (session: F.Session, channel: string) => {
  const token = await body(
    await s.fetch('/v1/realtime/token', F.json({ channels: [channel] }, session.headers())),
  )
  const c = await connect(token.data.url)
  await c.next((f) => f.op === 'subscribed')
  return c
}
const memberOf = async (userId: number) => {
  const list = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
  return list.data.find((m: any) => m.user.id === userId)
}

describe('teams', () => {
  it('creates frontline and backoffice teams; the type never changes; members are replaced as a whole; teams.changed', async () => {
    const c = await events(owner, `ws:${w.workspaceId}`)
    const agent = await F.member(s, w, 'Agent')
    const front = await s.fetch(
      '/v1/teams',
      F.json({ name: 'Support', type: 'frontline', member_ids: [agent.id] }, owner.headers()),
    )
    expect(front.status).toBe(201)
    const t = (await body(front)).data
    expect(t).toMatchObject({ type: 'frontline', name: 'Support', member_ids: [agent.id] })
    expect(await c.next((f) => f.event === 'teams.changed')).toBeTruthy()
    c.close()

    const changed = await body(
      await s.fetch(`/v1/teams/${t.id}`, patch({ type: 'backoffice', member_ids: [] }, owner.headers())),
    )
    expect(changed.error?.code ?? changed.data.type).not.toBe('backoffice')
    // Taking an agent's last team away is refused; with another team it is a plain replacement.
    const last = await s.fetch(`/v1/teams/${t.id}`, patch({ member_ids: [] }, owner.headers()))
    expect(last.status).toBe(422)
    expect((await body(last)).error.fields).toEqual({
      member_ids: 'would leave a member without a team; non-admin roles need at least one',
    })
    const other = await F.member(s, w, 'Agent')
    const back = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json(
            { name: 'Escalations', type: 'backoffice', member_ids: [agent.id, other.id] },
            owner.headers(),
          ),
        ),
      )
    ).data
    const replaced = await s.fetch(`/v1/teams/${t.id}`, patch({ member_ids: [other.id] }, owner.headers()))
    expect(replaced.status).toBe(200)
    expect((await body(replaced)).data.member_ids).toEqual([other.id])
    expect((await memberOf(agent.id)).team_ids).toEqual([back.id])
    expect((await memberOf(other.id)).team_ids.sort()).toEqual([t.id, back.id].sort())
    const bad = await s.fetch('/v1/teams', F.json({ name: '', type: 'sideways' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(expect.arrayContaining(['name', 'type']))
    // Another workspace's team does not exist for them; an agent may not manage teams; keys may not write.
    expect((await s.fetch(`/v1/teams/${t.id}`, patch({ name: 'x' }, otherOwner.headers()))).status).toBe(404)
    const agentSession = await F.signIn(s, agent.email)
    expect(
      (await s.fetch('/v1/teams', F.json({ name: 'X', type: 'frontline' }, agentSession.headers()))).status,
    ).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/teams', F.json({ name: 'X', type: 'frontline' }, F.bearer(key)))).status).toBe(
      403,
    )
  })

  it('deletes a team that still has members only with a replacement of the same type', async () => {
    const agent = await F.member(s, w, 'Agent')
    const a = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json({ name: 'A', type: 'frontline', member_ids: [agent.id] }, owner.headers()),
        ),
      )
    ).data
    const b = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'B', type: 'frontline' }, owner.headers())))
    ).data
    const back = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'C', type: 'backoffice' }, owner.headers())))
    ).data
    const refused = await s.fetch(`/v1/teams/${a.id}`, del(owner.headers()))
    expect([409, 422]).toContain(refused.status)
    const wrongType = await s.fetch(`/v1/teams/${a.id}?replacement_id=${back.id}`, del(owner.headers()))
    expect(wrongType.status).toBe(422)
    const ok = await s.fetch(`/v1/teams/${a.id}?replacement_id=${b.id}`, del(owner.headers()))
    expect(ok.status).toBe(200)
    expect((await memberOf(agent.id)).team_ids).toContain(b.id)
  })
})

describe('members', () => {
  it('lists everyone with the user quota; edits teams, view_all, channel access and reply_initial; members.changed', async () => {
    const agent = await F.member(s, w, 'Agent')
    const team = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Desk', type: 'frontline' }, owner.headers())))
    ).data
    const list = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
    expect(list.meta.users).toMatchObject({ used: list.data.length, limit: 25 })
    expect(list.meta.quota_error).toBeNull()
    const me = list.data.find((m: any) => m.is_me)
    expect(me).toMatchObject({ is_owner: true, role: { name: 'Owner', is_admin: true } })

    const c = await events(owner, `ws:${w.workspaceId}`)
    const m = await memberOf(agent.id)
    const res = await s.fetch(
      `/v1/members/${m.id}`,
      patch(
        {
          team_ids: [team.id],
          view_all: true,
          reply_initial: 'AA',
          channel_access: 'selected',
          channel_ids: [],
        },
        owner.headers(),
      ),
    )
    expect(res.status).toBe(200)
    expect((await body(res)).data).toMatchObject({
      team_ids: [team.id],
      view_all: true,
      reply_initial: 'AA',
      channel_access: 'selected',
    })
    expect(await c.next((f) => f.event === 'members.changed')).toBeTruthy()
    c.close()

    const long = await s.fetch(
      `/v1/members/${m.id}`,
      patch({ reply_initial: 'x'.repeat(21) }, owner.headers()),
    )
    expect(long.status).toBe(422)
    expect((await body(long)).error.fields).toHaveProperty('reply_initial')
    // A non-admin role needs at least one team.
    const noTeam = await s.fetch(`/v1/members/${m.id}`, patch({ team_ids: [] }, owner.headers()))
    expect(noTeam.status).toBe(422)
    // Nobody changes their own role or status; the Owner's role is fixed.
    const mine = await s.fetch(`/v1/members/${me.id}`, patch({ status: 'disabled' }, owner.headers()))
    expect(mine.status).toBe(409)
    // The Owner's reply initials and teams are theirs to edit like anyone's; what would narrow
    // what the Owner sees (view_all, channel access) is fixed.
    const ownerEdit = await s.fetch(`/v1/members/${me.id}`, patch({ reply_initial: 'OW' }, owner.headers()))
    expect(ownerEdit.status).toBe(200)
    expect((await body(ownerEdit)).data.reply_initial).toBe('OW')
    expect(
      (
        await s.fetch(
          `/v1/members/${me.id}`,
          patch({ channel_access: 'selected', channel_ids: [] }, owner.headers()),
        )
      ).status,
    ).toBe(409)
    // Another workspace's member is not found; an agent cannot edit members; keys cannot either.
    expect(
      (await s.fetch(`/v1/members/${m.id}`, patch({ view_all: false }, otherOwner.headers()))).status,
    ).toBe(404)
    const agentSession = await F.signIn(s, agent.email)
    expect(
      (await s.fetch(`/v1/members/${m.id}`, patch({ view_all: false }, agentSession.headers()))).status,
    ).toBe(403)
    expect((await s.fetch('/v1/members', { headers: agentSession.headers() })).status).toBe(403)
  })

  it('a disabled member loses access at once, session included', async () => {
    const agent = await F.member(s, w, 'Agent')
    const team = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json({ name: 'Night', type: 'frontline', member_ids: [agent.id] }, owner.headers()),
        ),
      )
    ).data
    expect(team.member_ids).toContain(agent.id)
    const session = await F.signIn(s, agent.email)
    expect((await s.fetch('/v1/me', { headers: session.headers() })).status).toBe(200)
    const m = await memberOf(agent.id)
    const c = await events(owner, `ws:${w.workspaceId}`)
    const off = await s.fetch(`/v1/members/${m.id}`, patch({ status: 'disabled' }, owner.headers()))
    expect(off.status).toBe(200)
    expect((await body(off)).data.status).toBe('disabled')
    const after = await s.fetch('/v1/me', { headers: session.headers() })
    expect([401, 403]).toContain(after.status)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      reason: 'disabled',
      member_id: m.id,
    })
    // Enabled again: told as well; a change of teams is a teams.changed too.
    const on = await s.fetch(`/v1/members/${m.id}`, patch({ status: 'active' }, owner.headers()))
    expect(on.status).toBe(200)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      reason: 'enabled',
      member_id: m.id,
    })
    const day = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Day', type: 'frontline' }, owner.headers())))
    ).data
    await s.fetch(`/v1/members/${m.id}`, patch({ team_ids: [day.id] }, owner.headers()))
    expect(
      (
        await c.next(
          (f) => f.event === 'teams.changed' && (f.data as { reason?: string }).reason === 'members',
        )
      ).data,
    ).toMatchObject({
      user_id: agent.id,
    })
    c.close()
  })
})

describe('roles and permissions', () => {
  it('groups the catalogue by menu; creates, duplicates, and counts usage; the Owner role never changes; a role in use is not deleted', async () => {
    const cat = await body(await s.fetch('/v1/permissions', { headers: owner.headers() }))
    expect(cat.data[0]).toMatchObject({
      menu: expect.any(String),
      label: expect.any(String),
      permissions: expect.any(Array),
    })
    const keys = cat.data.flatMap((g: any) => g.permissions.map((p: any) => p.key))
    expect(keys).toEqual(expect.arrayContaining(['interactions.view', 'settings.members', 'channels.manage']))

    const made = await s.fetch(
      '/v1/roles',
      F.json(
        { name: 'Supervisor', permissions: ['interactions.view', 'interactions.assign'] },
        owner.headers(),
      ),
    )
    expect(made.status).toBe(201)
    const role = (await body(made)).data
    expect(role).toMatchObject({ name: 'Supervisor', is_admin: false, usage: { members: 0 } })
    const bad = await s.fetch('/v1/roles', F.json({ name: 'X', permissions: ['no.such'] }, owner.headers()))
    expect(bad.status).toBe(422)
    const dup = await s.fetch(`/v1/roles/${role.id}/duplicate`, F.json({}, owner.headers()))
    expect(dup.status).toBe(201)
    expect((await body(dup)).data.permissions).toEqual(role.permissions)

    const roles = await body(await s.fetch('/v1/roles', { headers: owner.headers() }))
    const ownerRole = roles.data.find((r: any) => r.is_owner)
    expect(ownerRole.editable).toBe(false)
    const touch = await s.fetch(`/v1/roles/${ownerRole.id}`, patch({ name: 'Boss' }, owner.headers()))
    expect([403, 409]).toContain(touch.status)

    // In use: a member holds it.
    const agent = await F.member(s, w, 'Agent')
    const team = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json({ name: 'R', type: 'frontline', member_ids: [agent.id] }, owner.headers()),
        ),
      )
    ).data
    const m = await memberOf(agent.id)
    const given = await s.fetch(
      `/v1/members/${m.id}`,
      patch({ role_id: role.id, team_ids: [team.id] }, owner.headers()),
    )
    expect(given.status).toBe(200)
    expect((await s.fetch(`/v1/roles/${role.id}`, del(owner.headers()))).status).toBe(409)
    expect((await s.fetch(`/v1/roles/${role.id}`, del(otherOwner.headers()))).status).toBe(404)
  })
})

describe('granting', () => {
  it('a non-admin role manager grants only what they hold and never is_admin; meta.grantable says so', async () => {
    const manager = await F.member(s, w, 'Agent')
    const team = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json({ name: 'Managers', type: 'backoffice', member_ids: [manager.id] }, owner.headers()),
        ),
      )
    ).data
    const perms = ['settings.roles', 'settings.members', 'interactions.view']
    const role = (
      await body(
        await s.fetch('/v1/roles', F.json({ name: 'Role manager', permissions: perms }, owner.headers())),
      )
    ).data
    const m = await memberOf(manager.id)
    expect(
      (
        await s.fetch(
          `/v1/members/${m.id}`,
          patch({ role_id: role.id, team_ids: [team.id] }, owner.headers()),
        )
      ).status,
    ).toBe(200)
    const session = await F.signIn(s, manager.email)
    const cat = await body(await s.fetch('/v1/permissions', { headers: session.headers() }))
    expect([...cat.meta.grantable].sort()).toEqual([...perms].sort())
    const ownerCat = await body(await s.fetch('/v1/permissions', { headers: owner.headers() }))
    expect(ownerCat.meta.grantable.length).toBeGreaterThan(perms.length)

    const admin = await s.fetch(
      '/v1/roles',
      F.json({ name: 'Sneaky', permissions: [], is_admin: true }, session.headers()),
    )
    expect(admin.status).toBe(403)
    const beyond = await s.fetch(
      '/v1/roles',
      F.json({ name: 'Beyond', permissions: ['settings.billing'] }, session.headers()),
    )
    expect(beyond.status).toBe(403)
    const within = await s.fetch(
      '/v1/roles',
      F.json({ name: 'Within', permissions: ['interactions.view'] }, session.headers()),
    )
    expect(within.status).toBe(201)
    // Admin roles are not theirs to edit; the Owner sets is_admin.
    const roles = (await body(await s.fetch('/v1/roles', { headers: session.headers() }))).data
    const adminRole = roles.find((r: any) => r.is_admin && !r.is_owner)
    expect(adminRole.editable).toBe(false)
    expect((await s.fetch(`/v1/roles/${adminRole.id}`, patch({ name: 'X' }, session.headers()))).status).toBe(
      403,
    )
    const made = (await body(within)).data
    const promoted = await s.fetch(`/v1/roles/${made.id}`, patch({ is_admin: true }, owner.headers()))
    expect(promoted.status).toBe(200)
    expect((await body(promoted)).data.is_admin).toBe(true)
    // Admins need no team; taking admin away while a holder has none is refused.
    await F.member(s, w, made.name)
    const demoted = await s.fetch(`/v1/roles/${made.id}`, patch({ is_admin: false }, owner.headers()))
    expect(demoted.status).toBe(422)
    expect((await body(demoted)).error.fields).toHaveProperty('is_admin')
    // Another workspace's Owner finds nothing to change or copy.
    expect(
      (await s.fetch(`/v1/roles/${made.id}`, patch({ name: 'Mine' }, otherOwner.headers()))).status,
    ).toBe(404)
    expect((await s.fetch(`/v1/roles/${made.id}/duplicate`, F.json({}, otherOwner.headers()))).status).toBe(
      404,
    )
    // One role by id; another workspace's is 404.
    expect((await s.fetch(`/v1/roles/${made.id}`, { headers: session.headers() })).status).toBe(200)
    expect((await s.fetch(`/v1/roles/${made.id}`, { headers: otherOwner.headers() })).status).toBe(404)
  })

  it('lists teams by type; a team update publishes teams.changed', async () => {
    const t = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Back', type: 'backoffice' }, owner.headers())))
    ).data
    const back = (await body(await s.fetch('/v1/teams?type=backoffice', { headers: owner.headers() }))).data
    expect(back.length).toBeGreaterThan(0)
    expect(back.every((x: any) => x.type === 'backoffice')).toBe(true)
    expect((await s.fetch('/v1/teams?type=sideways', { headers: owner.headers() })).status).toBe(422)
    const c = await events(owner, `ws:${w.workspaceId}`)
    const renamed = await s.fetch(`/v1/teams/${t.id}`, patch({ name: 'Back office' }, owner.headers()))
    expect(renamed.status).toBe(200)
    expect(await c.next((f) => f.event === 'teams.changed')).toBeTruthy()
    c.close()
    expect((await body(await s.fetch(`/v1/teams/${t.id}`, { headers: owner.headers() }))).data.name).toBe(
      'Back office',
    )
    expect((await s.fetch(`/v1/teams/${t.id}`, { headers: otherOwner.headers() })).status).toBe(404)
  })

  it('a non-admin member manager gives only roles and view_all within what they hold (members and invitations)', async () => {
    const manager = await F.member(s, w, 'Agent')
    const target = await F.member(s, w, 'Agent')
    const team = (
      await body(
        await s.fetch(
          '/v1/teams',
          F.json(
            { name: 'People desk', type: 'backoffice', member_ids: [manager.id, target.id] },
            owner.headers(),
          ),
        ),
      )
    ).data
    const create = async (name: string, permissions: string[]) =>
      (await body(await s.fetch('/v1/roles', F.json({ name, permissions }, owner.headers())))).data
    const peopleRole = await create('People desk', ['settings.members', 'interactions.view'])
    const billingRole = await create('Billing desk', [
      'settings.billing',
      'settings.api',
      'interactions.view',
    ])
    const smallRole = await create('Viewer desk', ['interactions.view'])
    const m = await memberOf(manager.id)
    expect(
      (await s.fetch(`/v1/members/${m.id}`, patch({ role_id: peopleRole.id }, owner.headers()))).status,
    ).toBe(200)
    const session = await F.signIn(s, manager.email)
    const t = await memberOf(target.id)
    // A role holding permissions the manager lacks (billing, API keys) is not theirs to give.
    const beyond = await s.fetch(`/v1/members/${t.id}`, patch({ role_id: billingRole.id }, session.headers()))
    expect(beyond.status).toBe(403)
    expect((await memberOf(target.id)).role.id).not.toBe(billingRole.id)
    const viewAll = await s.fetch(`/v1/members/${t.id}`, patch({ view_all: true }, session.headers()))
    expect(viewAll.status).toBe(403)
    expect((await memberOf(target.id)).view_all).toBe(false)
    const invited = await s.fetch(
      '/v1/invitations',
      F.json(
        { email: `alt-${Date.now()}@example.com`, role_id: billingRole.id, team_ids: [team.id] },
        session.headers(),
      ),
    )
    expect(invited.status).toBe(403)
    const invitedAll = await s.fetch(
      '/v1/invitations',
      F.json(
        {
          email: `alt2-${Date.now()}@example.com`,
          role_id: smallRole.id,
          team_ids: [team.id],
          view_all: true,
        },
        session.headers(),
      ),
    )
    expect(invitedAll.status).toBe(403)
    // Within what they hold it works, and the Owner gives anything.
    const within = await s.fetch(`/v1/members/${t.id}`, patch({ role_id: smallRole.id }, session.headers()))
    expect(within.status).toBe(200)
    const ok = await s.fetch(
      '/v1/invitations',
      F.json(
        { email: `alt3-${Date.now()}@example.com`, role_id: smallRole.id, team_ids: [team.id] },
        session.headers(),
      ),
    )
    expect(ok.status).toBe(201)
    const byOwner = await s.fetch(
      `/v1/members/${t.id}`,
      patch({ role_id: billingRole.id, view_all: true }, owner.headers()),
    )
    expect(byOwner.status).toBe(200)
  })
})
