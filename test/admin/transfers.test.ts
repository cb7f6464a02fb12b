import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Members from '../../store/members'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Spec 1 §3 and §4.1: the whole life cycle of an ownership transfer, through HTTP. */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const del = (h: Record<string, string>): RequestInit => ({ method: 'DELETE', headers: h })
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })
const events = async (session: F.Session, channel: string) => {
  const token = await body(
    await s.fetch('/v1/realtime/token', F.json({ channels: [channel] }, session.headers())),
  )
  const c = await connect(token.data.url)
  await c.next((f) => f.op === 'subscribed')
  return c
}
const nameOf = async (session: F.Session) =>
  (await body(await s.fetch('/v1/workspace', { headers: session.headers() }))).data.name as string

describe('ownership transfer', () => {
  it('request (Owner only, confirmed by name, 422 with fields, one at a time), cancel, decline', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const agent = await F.member(s, w, 'Agent')
    const admin = await F.member(s, w, 'Admin')
    const adminSession = await F.signIn(s, admin.email)
    const agentSession = await F.signIn(s, agent.email)

    const view = (await body(await s.fetch('/v1/workspace/transfer', { headers: owner.headers() }))).data
    expect(view.pending).toBeNull()
    expect(view.becomes_free).toBe(false)
    expect(view.recipients.find((r: any) => r.user.id === agent.id)).toMatchObject({
      eligible: true,
      reason: null,
    })
    // Only the Owner; keys never (A).
    expect((await s.fetch('/v1/workspace/transfer', { headers: adminSession.headers() })).status).toBe(403)
    expect(
      (
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: agent.id, confirm_name: name }, adminSession.headers()),
        )
      ).status,
    ).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/workspace/transfer', { headers: F.bearer(key) })).status).toBe(403)

    const bad = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: w.ownerId, confirm_name: 'wrong', stay: true }, owner.headers()),
    )
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(
      expect.arrayContaining(['to_user_id', 'confirm_name', 'stay_role_id']),
    )
    const outsider = await F.workspace(s, { plan: 'pro' })
    expect(
      (
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: outsider.ownerId, confirm_name: name }, owner.headers()),
        )
      ).status,
    ).toBe(422)

    const made = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: agent.id, confirm_name: name }, owner.headers()),
    )
    expect(made.status).toBe(201)
    const t = (await body(made)).data
    expect(t).toMatchObject({ status: 'pending', to: { id: agent.id }, from: { id: w.ownerId }, stay: false })
    expect(
      (
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: admin.id, confirm_name: name }, owner.headers()),
        )
      ).status,
    ).toBe(409)
    expect(
      (await body(await s.fetch('/v1/workspace/transfer', { headers: owner.headers() }))).data.pending.id,
    ).toBe(t.id)

    // The recipient sees it (and is notified); nobody else does.
    const mine = (await body(await s.fetch('/v1/me/transfers', { headers: agentSession.headers() }))).data
    expect(mine).toEqual([expect.objectContaining({ id: t.id, can_accept: true, becomes_free: false })])
    const notes = (await body(await s.fetch('/v1/notifications', { headers: agentSession.headers() }))).data
    expect(JSON.stringify(notes)).toContain('take over')
    expect((await s.fetch(`/v1/me/transfers/${t.id}`, { headers: adminSession.headers() })).status).toBe(404)
    expect(
      (await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, adminSession.headers()))).status,
    ).toBe(404)

    // Cancel: gone for the recipient; accepting it now is 409; cancelling again 404.
    const cancelled = await s.fetch('/v1/workspace/transfer', del(owner.headers()))
    expect(cancelled.status).toBe(200)
    expect((await body(cancelled)).data).toMatchObject({ id: t.id, status: 'cancelled' })
    expect((await body(await s.fetch('/v1/me/transfers', { headers: agentSession.headers() }))).data).toEqual(
      [],
    )
    expect(
      (await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, agentSession.headers()))).status,
    ).toBe(409)
    expect((await s.fetch('/v1/workspace/transfer', del(owner.headers()))).status).toBe(404)

    // Decline.
    const second = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: admin.id, confirm_name: name.toUpperCase() }, owner.headers()),
        ),
      )
    ).data
    const declined = await s.fetch(
      `/v1/me/transfers/${second.id}/decline`,
      F.json({}, adminSession.headers()),
    )
    expect(declined.status).toBe(200)
    expect((await body(declined)).data.status).toBe('declined')
    expect(
      (await s.fetch(`/v1/me/transfers/${second.id}/decline`, F.json({}, adminSession.headers()))).status,
    ).toBe(409)
    const ownerNotes = (await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))).data
    expect(JSON.stringify(ownerNotes)).toContain('declined')
    const audit = (await body(await s.fetch('/v1/audit-logs', { headers: owner.headers() }))).data
    expect(audit.map((e: any) => e.action)).toEqual(
      expect.arrayContaining(['transfer.requested', 'transfer.cancelled', 'transfer.declined']),
    )
  })

  it('accept with the previous Owner staying: roles swap at once, the workspace becomes the recipient’s active one; events', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const agent = await F.member(s, w, 'Agent')
    const roles = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const team = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Stay', type: 'frontline' }, owner.headers())))
    ).data
    const noTeam = await s.fetch(
      '/v1/workspace/transfer',
      F.json(
        { to_user_id: agent.id, confirm_name: name, stay: true, stay_role_id: agentRole.id },
        owner.headers(),
      ),
    )
    expect(noTeam.status).toBe(422)
    expect((await body(noTeam)).error.fields).toHaveProperty('stay_team_ids')
    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json(
            {
              to_user_id: agent.id,
              confirm_name: name,
              stay: true,
              stay_role_id: agentRole.id,
              stay_team_ids: [team.id],
            },
            owner.headers(),
          ),
        ),
      )
    ).data
    expect(t).toMatchObject({ stay: true, stay_role: { id: agentRole.id }, stay_team_ids: [team.id] })

    const recipient = await F.signIn(s, agent.email)
    const c = await events(owner, `ws:${w.workspaceId}`)
    const ok = await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, recipient.headers()))
    expect(ok.status).toBe(200)
    expect((await body(ok)).data).toMatchObject({
      status: 'accepted',
      workspace_id: w.workspaceId,
      plan: 'pro',
    })
    expect(await c.next((f) => f.event === 'workspace.updated')).toBeTruthy()
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      reason: 'owner_changed',
    })
    c.close()

    const me = (await body(await s.fetch('/v1/me', { headers: recipient.headers() }))).data
    expect(me).toMatchObject({ is_owner: true, workspace: { id: w.workspaceId } })
    const before = (await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data
    expect(before).toMatchObject({ is_owner: false, role: { id: agentRole.id } })
    // The previous Owner has lost the Owner's powers at once.
    expect((await s.fetch('/v1/workspace/transfer', { headers: owner.headers() })).status).toBe(403)
    expect((await s.fetch('/v1/billing', { headers: owner.headers() })).status).toBe(403)
    const members = (await body(await s.fetch('/v1/members', { headers: recipient.headers() }))).data
    expect(members.find((m: any) => m.user.id === w.ownerId)).toMatchObject({ team_ids: [team.id] })
    expect(members.find((m: any) => m.is_owner).user.id).toBe(agent.id)
  })

  it('accept without staying: the previous Owner leaves; a Custom workspace becomes Free (becomes_free); billing.updated', async () => {
    const w = await F.workspace(s, { plan: 'custom' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const agent = await F.member(s, w, 'Agent')
    expect(
      (await body(await s.fetch('/v1/workspace/transfer', { headers: owner.headers() }))).data.becomes_free,
    ).toBe(true)
    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: agent.id, confirm_name: name }, owner.headers()),
        ),
      )
    ).data
    const recipient = await F.signIn(s, agent.email)
    const d = (await body(await s.fetch(`/v1/me/transfers/${t.id}`, { headers: recipient.headers() }))).data
    expect(d).toMatchObject({ can_accept: true, becomes_free: true, workspace: { plan: 'custom' } })
    const c = await events(recipient, `ws:${w.workspaceId}`)
    expect((await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, recipient.headers()))).status).toBe(
      200,
    )
    expect((await c.next((f) => f.event === 'billing.updated')).data).toMatchObject({
      key: 'free',
      reason: 'transfer',
    })
    c.close()
    const ws = (await body(await s.fetch('/v1/workspace', { headers: recipient.headers() }))).data
    expect(ws.plan).toBe('free')
    const after = await s.fetch('/v1/workspace', { headers: owner.headers() })
    expect(after.status === 200 ? (await body(after)).data.id : null).not.toBe(w.workspaceId)
  })

  it('a recipient who already owns a workspace cannot accept (can_accept false, 409)', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const other = await F.workspace(s, { plan: 'pro' })
    await s.run(Members.addWithRole(w.workspaceId, other.ownerId, 'Agent'))
    const view = (await body(await s.fetch('/v1/workspace/transfer', { headers: owner.headers() }))).data
    expect(view.recipients.find((r: any) => r.user.id === other.ownerId)).toMatchObject({
      eligible: false,
      reason: 'owns_workspace',
    })
    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: other.ownerId, confirm_name: name }, owner.headers()),
        ),
      )
    ).data
    const them = await F.signIn(s, other.ownerEmail)
    const d = (await body(await s.fetch(`/v1/me/transfers/${t.id}`, { headers: them.headers() }))).data
    expect(d).toMatchObject({ can_accept: false, reason: 'owns_workspace' })
    const refused = await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, them.headers()))
    expect(refused.status).toBe(409)
    expect((await body(refused)).error.code).toBe('conflict')
  })
})

describe('ownership transfer: boundaries', () => {
  it('422 for another workspace’s role and teams or a disabled recipient; keys 403 on writes; a disabled recipient cannot accept (not_member, 409)', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    const otherRole = (await body(await s.fetch('/v1/roles', { headers: otherOwner.headers() }))).data.find(
      (r: any) => r.name === 'Agent',
    )
    const otherTeam = (
      await body(
        await s.fetch('/v1/teams', F.json({ name: 'Theirs', type: 'frontline' }, otherOwner.headers())),
      )
    ).data
    const agent = await F.member(s, w, 'Agent')
    const foreign = await s.fetch(
      '/v1/workspace/transfer',
      F.json(
        {
          to_user_id: agent.id,
          confirm_name: name,
          stay: true,
          stay_role_id: otherRole.id,
          stay_team_ids: [otherTeam.id],
        },
        owner.headers(),
      ),
    )
    expect(foreign.status).toBe(422)
    expect(Object.keys((await body(foreign)).error.fields)).toEqual(
      expect.arrayContaining(['stay_role_id', 'stay_team_ids']),
    )
    const badTypes = await s.fetch('/v1/workspace/transfer', F.json({ to_user_id: 'x' }, owner.headers()))
    expect(badTypes.status).toBe(422)
    expect(Object.keys((await body(badTypes)).error.fields)).toEqual(
      expect.arrayContaining(['to_user_id', 'confirm_name']),
    )

    const key = await F.apiKey(s, w)
    expect(
      (
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: agent.id, confirm_name: name }, F.bearer(key)),
        )
      ).status,
    ).toBe(403)
    expect((await s.fetch('/v1/workspace/transfer', del(F.bearer(key)))).status).toBe(403)

    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json({ to_user_id: agent.id, confirm_name: name }, owner.headers()),
        ),
      )
    ).data
    // The recipient also belongs to another workspace, so they can still sign in once disabled here.
    await s.run(Members.addWithRole(other.workspaceId, agent.id, 'Agent'))
    const members = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    const membership = members.find((m: any) => m.user.id === agent.id)
    const disabled = await s.fetch(
      `/v1/members/${membership.id}`,
      patch({ status: 'disabled' }, owner.headers()),
    )
    expect(disabled.status).toBe(200)
    const recipient = await F.signIn(s, agent.email)
    const d = await s.fetch(`/v1/me/transfers/${t.id}`, { headers: recipient.headers() })
    expect(d.status).toBe(200)
    expect((await body(d)).data).toMatchObject({ can_accept: false, reason: 'not_member' })
    const refused = await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, recipient.headers()))
    expect(refused.status).toBe(409)
    expect((await body(await s.fetch('/v1/me', { headers: owner.headers() }))).data.is_owner).toBe(true)
    // A disabled member cannot be asked.
    await s.fetch('/v1/workspace/transfer', del(owner.headers()))
    const toDisabled = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: agent.id, confirm_name: name }, owner.headers()),
    )
    expect(toDisabled.status).toBe(422)
    expect((await body(toDisabled)).error.fields).toHaveProperty('to_user_id')
  })

  it('a frozen workspace can still be transferred; a team chosen for staying that was deleted meanwhile does not break accepting', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const agent = await F.member(s, w, 'Agent')
    const roles = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const keep = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Keep', type: 'frontline' }, owner.headers())))
    ).data
    const doomed = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Doomed', type: 'frontline' }, owner.headers())))
    ).data
    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json(
            {
              to_user_id: agent.id,
              confirm_name: name,
              stay: true,
              stay_role_id: agentRole.id,
              stay_team_ids: [keep.id, doomed.id],
            },
            owner.headers(),
          ),
        ),
      )
    ).data
    expect((await s.fetch(`/v1/teams/${doomed.id}`, del(owner.headers()))).status).toBe(200)
    const recipient = await F.signIn(s, agent.email)
    const ok = await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, recipient.headers()))
    expect(ok.status).toBe(200)
    const members = (await body(await s.fetch('/v1/members', { headers: recipient.headers() }))).data
    expect(members.find((m: any) => m.user.id === w.ownerId)).toMatchObject({ team_ids: [keep.id] })

    // Frozen (an ended Custom contract): requesting still works.
    const c = await F.workspace(s, { plan: 'custom', proUntil: new Date(Date.now() - 30 * 86_400_000) })
    const cOwner = await F.signIn(s, c.ownerEmail)
    const { settleNow } = await import('../../actors/admin/billing')
    await s.run(settleNow())
    expect((await s.fetch('/v1/workspace', patch({ name: 'x' }, cOwner.headers()))).status).toBe(423)
    const cAgent = await F.member(s, c, 'Agent')
    const made = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: cAgent.id, confirm_name: await nameOf(cOwner) }, cOwner.headers()),
    )
    expect(made.status).toBe(201)
    const them = await F.signIn(s, cAgent.email)
    const accepted = await s.fetch(
      `/v1/me/transfers/${(await body(made)).data.id}/accept`,
      F.json({}, them.headers()),
    )
    expect(accepted.status).toBe(200)
    // A Custom workspace moves to Free on transfer, and is no longer frozen.
    expect((await body(accepted)).data.plan).toBe('free')
    expect((await s.fetch('/v1/workspace', patch({ name: 'Thawed' }, them.headers()))).status).toBe(200)
  })

  it('two requests at the same moment: one 201, one 409; the role chosen for staying cannot be deleted while pending', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const name = await nameOf(owner)
    const a = await F.member(s, w, 'Agent')
    const b = await F.member(s, w, 'Agent')
    const both = await Promise.all(
      [a, b].map((m) =>
        s.fetch('/v1/workspace/transfer', F.json({ to_user_id: m.id, confirm_name: name }, owner.headers())),
      ),
    )
    expect(both.map((r) => r.status).sort()).toEqual([201, 409])
    await s.fetch('/v1/workspace/transfer', del(owner.headers()))

    const role = (
      await body(
        await s.fetch(
          '/v1/roles',
          F.json({ name: 'Former owner', permissions: ['dashboard.view'] }, owner.headers()),
        ),
      )
    ).data
    const team = (
      await body(await s.fetch('/v1/teams', F.json({ name: 'Former', type: 'frontline' }, owner.headers())))
    ).data
    const t = (
      await body(
        await s.fetch(
          '/v1/workspace/transfer',
          F.json(
            {
              to_user_id: a.id,
              confirm_name: name,
              stay: true,
              stay_role_id: role.id,
              stay_team_ids: [team.id],
            },
            owner.headers(),
          ),
        ),
      )
    ).data
    expect((await s.fetch(`/v1/roles/${role.id}`, del(owner.headers()))).status).toBe(409)
    const recipient = await F.signIn(s, a.email)
    expect((await s.fetch(`/v1/me/transfers/${t.id}/accept`, F.json({}, recipient.headers()))).status).toBe(
      200,
    )
    const members = (await body(await s.fetch('/v1/members', { headers: recipient.headers() }))).data
    expect(members.find((m: any) => m.user.id === w.ownerId)).toMatchObject({
      status: 'active',
      role: { id: role.id },
      team_ids: [team.id],
    })
  })
})
