import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/**
 * Administration changes that take access away act at once, on the next request and on open
 * sockets: disabling, role changes, keys of a member who is disabled; and what an invitation
 * grants is what the member gets.
 */
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
const memberOf = async (userId: number) => {
  const list = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
  return list.data.find((m: any) => m.user.id === userId)
}
const team = async (name: string, memberIds: number[] = []) =>
  (
    await body(
      await s.fetch('/v1/teams', F.json({ name, type: 'frontline', member_ids: memberIds }, owner.headers())),
    )
  ).data

describe('access follows administration at once', () => {
  it('a role change applies on the next request', async () => {
    const agent = await F.member(s, w, 'Agent')
    const t = await team('Role change', [agent.id])
    const session = await F.signIn(s, agent.email)
    expect((await s.fetch('/v1/dashboard', { headers: session.headers() })).status).toBe(200)
    const bare = (
      await body(
        await s.fetch(
          '/v1/roles',
          F.json({ name: 'Bare', permissions: ['interactions.view'] }, owner.headers()),
        ),
      )
    ).data
    const m = await memberOf(agent.id)
    expect(
      (await s.fetch(`/v1/members/${m.id}`, patch({ role_id: bare.id, team_ids: [t.id] }, owner.headers())))
        .status,
    ).toBe(200)
    expect((await s.fetch('/v1/dashboard', { headers: session.headers() })).status).toBe(403)
    const me = (await body(await s.fetch('/v1/me', { headers: session.headers() }))).data
    expect(me.permissions).toEqual(['interactions.view'])
    expect(me.role).toMatchObject({ id: bare.id, name: 'Bare' })
  })

  it('disabling closes the member’s sockets and stops the keys they made', async () => {
    const admin = await F.member(s, w, 'Admin')
    const session = await F.signIn(s, admin.email)
    const key = (
      await body(await s.fetch('/v1/api-keys', F.json({ name: 'Mine', scope: 'read' }, session.headers())))
    ).data.key as string
    expect((await s.fetch('/v1/me', { headers: F.bearer(key) })).status).toBe(200)
    const token = await body(
      await s.fetch('/v1/realtime/token', F.json({ channels: [`ws:${w.workspaceId}`] }, session.headers())),
    )
    const c = await connect(token.data.url)
    await c.next((f) => f.op === 'subscribed')
    const m = await memberOf(admin.id)
    expect(
      (await s.fetch(`/v1/members/${m.id}`, patch({ status: 'disabled' }, owner.headers()))).status,
    ).toBe(200)
    const closed = await Promise.race([c.closed, new Promise((r) => setTimeout(() => r(null), 5_000))])
    expect(closed).not.toBeNull()
    expect([401, 403]).toContain((await s.fetch('/v1/me', { headers: F.bearer(key) })).status)
    expect([401, 403]).toContain((await s.fetch('/v1/me', { headers: session.headers() })).status)
    // Enabled again: the member is back (a new sign-in), and members.changed said both.
    expect((await s.fetch(`/v1/members/${m.id}`, patch({ status: 'active' }, owner.headers()))).status).toBe(
      200,
    )
    const again = await F.signIn(s, admin.email)
    expect((await s.fetch('/v1/me', { headers: again.headers() })).status).toBe(200)
    expect((await s.fetch('/v1/me', { headers: F.bearer(key) })).status).toBe(200)
  })

  it('an accepted invitation grants exactly its role, teams, view_all and channel access', async () => {
    const t = await team('Invited team')
    const roles = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const email = `grant-${Date.now()}@example.com`
    const inv = await s.fetch(
      '/v1/invitations',
      F.json(
        {
          email,
          role_id: agentRole.id,
          team_ids: [t.id],
          view_all: true,
          channel_access: 'selected',
          channel_ids: [],
        },
        owner.headers(),
      ),
    )
    expect(inv.status).toBe(201)
    const id = (await body(inv)).data.id
    const invitee = await F.signIn(s, email)
    expect((await s.fetch(`/v1/me/invitations/${id}/accept`, F.json({}, invitee.headers()))).status).toBe(200)
    const u = (await body(await s.fetch('/v1/me', { headers: invitee.headers() }))).data
    expect(u.role.id).toBe(agentRole.id)
    expect(u.channel_ids).toEqual([])
    const m = await memberOf(u.user.id)
    expect(m).toMatchObject({
      team_ids: [t.id],
      view_all: true,
      channel_access: 'selected',
      status: 'active',
    })
  })

  it('refuses another workspace’s role, teams and channels in invitations and member edits (422)', async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    const theirRole = (await body(await s.fetch('/v1/roles', { headers: otherOwner.headers() }))).data.find(
      (r: any) => r.name === 'Agent',
    )
    const theirTeam = (
      await body(
        await s.fetch('/v1/teams', F.json({ name: 'Theirs', type: 'frontline' }, otherOwner.headers())),
      )
    ).data
    const mine = await team('Mine')
    const roles = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const inv = await s.fetch(
      '/v1/invitations',
      F.json(
        { email: `x-${Date.now()}@example.com`, role_id: theirRole.id, team_ids: [theirTeam.id] },
        owner.headers(),
      ),
    )
    expect(inv.status).toBe(422)
    expect(Object.keys((await body(inv)).error.fields)).toEqual(
      expect.arrayContaining(['role_id', 'team_ids']),
    )
    const agent = await F.member(s, w, 'Agent')
    const m = await memberOf(agent.id)
    const edit = await s.fetch(
      `/v1/members/${m.id}`,
      patch(
        {
          role_id: agentRole.id,
          team_ids: [mine.id, theirTeam.id],
          channel_access: 'selected',
          channel_ids: [2_000_000_000],
        },
        owner.headers(),
      ),
    )
    expect(edit.status).toBe(422)
    expect(Object.keys((await body(edit)).error.fields)).toEqual(
      expect.arrayContaining(['team_ids', 'channel_ids']),
    )
    const teamEdit = await s.fetch(
      '/v1/teams',
      F.json({ name: 'Mixed', type: 'frontline', member_ids: [other.ownerId] }, owner.headers()),
    )
    expect(teamEdit.status).toBe(422)
  })

  it('a role held only by an open invitation cannot be deleted (409); once the invitation is cancelled it can', async () => {
    const t = await team('Role in use')
    const role = (
      await body(
        await s.fetch(
          '/v1/roles',
          F.json({ name: 'Invited only', permissions: ['interactions.view'] }, owner.headers()),
        ),
      )
    ).data
    const inv = (
      await body(
        await s.fetch(
          '/v1/invitations',
          F.json(
            { email: `role-${Date.now()}@example.com`, role_id: role.id, team_ids: [t.id] },
            owner.headers(),
          ),
        ),
      )
    ).data
    const listed = (await body(await s.fetch(`/v1/roles/${role.id}`, { headers: owner.headers() }))).data
    expect(listed.usage).toEqual({ members: 0, invitations: 1 })
    const del = (): RequestInit => ({ method: 'DELETE', headers: owner.headers() })
    const refused = await s.fetch(`/v1/roles/${role.id}`, del())
    expect(refused.status).toBe(409)
    expect((await body(refused)).error.code).toBe('conflict')
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del())).status).toBe(200)
    expect((await s.fetch(`/v1/roles/${role.id}`, del())).status).toBe(200)
  })
})
