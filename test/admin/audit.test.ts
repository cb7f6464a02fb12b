import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Every mutating administration call writes its audit entry (issue 5): one workspace goes through
 * each kind of change over HTTP, then the log must hold every action, with the caller and the
 * address, in the right category.
 */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })
const del = (h: Record<string, string>): RequestInit => ({ method: 'DELETE', headers: h })
const must = async (res: Promise<Response>, status = 200) => {
  const r = await res
  if (r.status !== status) throw new Error(`${r.url}: ${r.status} ${await r.text()}`)
  return (await body(r)).data
}

describe('audit coverage', () => {
  it('logs every administration change with action, category, user and ip', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const h = owner.headers()
    const name = (await must(s.fetch('/v1/workspace', { headers: h }))).name as string

    await must(s.fetch('/v1/workspace', patch({ name: `${name} 2` }, h)))
    await must(s.fetch('/v1/settings', patch({ response_target_minutes: 60 }, h)))
    const team = await must(s.fetch('/v1/teams', F.json({ name: 'T1', type: 'frontline' }, h)), 201)
    const team2 = await must(s.fetch('/v1/teams', F.json({ name: 'T2', type: 'frontline' }, h)), 201)
    await must(s.fetch(`/v1/teams/${team.id}`, patch({ name: 'T1b' }, h)))
    const role = await must(
      s.fetch('/v1/roles', F.json({ name: 'R', permissions: ['interactions.view'] }, h)),
      201,
    )
    await must(s.fetch(`/v1/roles/${role.id}`, patch({ name: 'R2' }, h)))
    const copy = await must(s.fetch(`/v1/roles/${role.id}/duplicate`, F.json({}, h)), 201)
    await must(s.fetch(`/v1/roles/${copy.id}`, del(h)))
    const agent = await F.member(s, w, 'Agent')
    const members = await must(s.fetch('/v1/members', { headers: h }))
    const m = members.find((x: any) => x.user.id === agent.id)
    await must(s.fetch(`/v1/members/${m.id}`, patch({ team_ids: [team.id] }, h)))
    await must(s.fetch(`/v1/members/${m.id}`, patch({ status: 'disabled' }, h)))
    await must(s.fetch(`/v1/members/${m.id}`, patch({ status: 'active' }, h)))
    await must(s.fetch(`/v1/teams/${team.id}?replacement_id=${team2.id}`, del(h)))
    const roles = await must(s.fetch('/v1/roles', { headers: h }))
    const agentRole = roles.find((r: any) => r.name === 'Agent')
    const inv = await must(
      s.fetch(
        '/v1/invitations',
        F.json({ email: 'new@x.example', role_id: agentRole.id, team_ids: [team2.id] }, h),
      ),
      201,
    )
    await must(s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, h)))
    await must(s.fetch(`/v1/invitations/${inv.id}`, del(h)))
    const inv2 = await must(
      s.fetch(
        '/v1/invitations',
        F.json({ email: 'two@x.example', role_id: agentRole.id, team_ids: [team2.id] }, h),
      ),
      201,
    )
    const invitee = await F.signIn(s, 'two@x.example')
    await must(s.fetch(`/v1/me/invitations/${inv2.id}/accept`, F.json({}, invitee.headers())))
    const leaver = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    await must(s.fetch('/v1/workspace/leave', F.json({}, leaver.headers())))
    const key = await must(s.fetch('/v1/api-keys', F.json({ name: 'K', scope: 'read' }, h)), 201)
    await must(s.fetch(`/v1/api-keys/${key.id}`, del(h)))
    await must(s.fetch('/v1/billing/profile', patch({ name: 'PT X' }, h)))
    await must(s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, h)))
    await must(s.fetch('/v1/billing/downgrade-choice', F.json({ channel_ids: [], member_ids: [] }, h)))
    await must(
      s.fetch('/v1/workspace/transfer', F.json({ to_user_id: agent.id, confirm_name: `${name} 2` }, h)),
      201,
    )
    await must(s.fetch('/v1/workspace/transfer', del(h)))

    const log = await must(s.fetch('/v1/audit-logs?per_page=100', { headers: h }))
    const actions = new Set(log.map((e: any) => e.action))
    const expected = [
      'workspace.renamed',
      'settings.updated',
      'team.created',
      'team.updated',
      'team.deleted',
      'role.created',
      'role.updated',
      'role.duplicated',
      'role.deleted',
      'member.updated',
      'member.disabled',
      'member.enabled',
      'invitation.created',
      'invitation.resent',
      'invitation.cancelled',
      'invitation.accepted',
      'workspace.left',
      'api_key.created',
      'api_key.revoked',
      'billing.profile_updated',
      'billing.upgrade_started',
      'billing.downgrade_chosen',
      'transfer.requested',
      'transfer.cancelled',
    ]
    expect(expected.filter((a) => !actions.has(a))).toEqual([])
    for (const e of log) {
      expect(e.label).not.toBe(`audit.${e.action}`)
      expect(e.icon).toBeTruthy()
      if (e.user) expect([e.action, e.ip]).toEqual([e.action, '127.0.0.1'])
    }
    const byOwner = log.filter((e: any) => e.user?.id === w.ownerId)
    expect(byOwner.length).toBeGreaterThan(15)
    // Newest first.
    const times = log.map((e: any) => Date.parse(e.created_at))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
  })
})
