import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/**
 * Spec 1 §3 and §4.2 invitations through HTTP, the e-mail going through a real SMTP server
 * (smtp-server) as `SMTP_URL` says; `GET /invite/{token}` (§4.5) reads the e-mailed link.
 */
let smtp: Smtp
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agentRoleId: number
let teamId: number
beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({
    SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
    MAIL_FROM: 'Kotak <no-reply@kotak.test>',
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const roles = await body(await s.fetch('/v1/roles', { headers: owner.headers() }))
  agentRoleId = roles.data.find((r: any) => r.name === 'Agent').id
  teamId = (
    await body(await s.fetch('/v1/teams', F.json({ name: 'Front', type: 'frontline' }, owner.headers())))
  ).data.id
})
afterAll(async () => {
  await s?.stop()
  await smtp?.stop()
})

const body = async (res: Response) => (await res.json()) as Record<string, any>
const del = (h: Record<string, string>): RequestInit => ({ method: 'DELETE', headers: h })
const patchBody = (b: unknown, h: Record<string, string>): RequestInit => ({
  ...F.json(b, h),
  method: 'PATCH',
})
let seq = 0
const address = () => `invitee-${Date.now().toString(36)}${seq++}@example.com`
const invite = (email: string, extra: Record<string, unknown> = {}) =>
  s.fetch(
    '/v1/invitations',
    F.json({ email, role_id: agentRoleId, team_ids: [teamId], ...extra }, owner.headers()),
  )
const tokenIn = (text: string) => /\/invite\/([A-Za-z0-9_-]{20,100})/.exec(text)?.[1]
const mailTo = (email: string, after = 0) =>
  smtp.waitFor((m) => m.to.includes(email) && smtp.received.indexOf(m) >= after)
const events = async (session: F.Session, channel: string) => {
  const token = await body(
    await s.fetch('/v1/realtime/token', F.json({ channels: [channel] }, session.headers())),
  )
  const c = await connect(token.data.url)
  await c.next((f) => f.op === 'subscribed')
  return c
}

describe('invitations', () => {
  it('invites by e-mail through SMTP; the link is summarised publicly; members.changed; duplicates are 409', async () => {
    const email = address()
    const c = await events(owner, `ws:${w.workspaceId}`)
    const res = await invite(email, { view_all: true })
    expect(res.status).toBe(201)
    const inv = (await body(res)).data
    expect(inv).toMatchObject({
      email,
      role: { id: agentRoleId, name: 'Agent' },
      team_ids: [teamId],
      view_all: true,
      channel_access: 'all',
      status: 'pending',
      mail: 'sent',
      invited_by: { id: w.ownerId },
    })
    expect(new Date(inv.expires_at).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      reason: 'invitation_created',
    })
    c.close()

    const mail = await mailTo(email)
    expect(mail.from).toBe('no-reply@kotak.test')
    expect(mail.user).toBe('mailer@kotak.test')
    expect(mail.parsed.subject).toContain('Olivia Owner')
    const text = String(mail.parsed.text)
    expect(text).toContain(`${s.cfg.publicUrl}/invite/`)
    const token = tokenIn(text)!
    expect(token).toBeTruthy()

    const summary = await s.fetch(`/v1/invite/${token}`)
    expect(summary.status).toBe(200)
    expect((await body(summary)).data).toMatchObject({
      id: inv.id,
      email,
      workspace: { id: w.workspaceId },
      role: { name: 'Agent' },
      invited_by: { name: 'Olivia Owner' },
      status: 'pending',
      account_exists: false,
    })
    expect((await s.fetch('/v1/invite/not-a-real-token-aaaaaaaaaaaa')).status).toBe(404)

    const listed = await body(await s.fetch('/v1/invitations', { headers: owner.headers() }))
    expect(listed.data.map((i: any) => i.id)).toContain(inv.id)
    // An open invitation, or a member's address, cannot be invited again.
    expect((await invite(email)).status).toBe(409)
    expect((await invite(w.ownerEmail)).status).toBe(409)
  })

  it('validates (422 with fields), asks for a team for non-admin roles, and guards permission and access class', async () => {
    const bad = await s.fetch(
      '/v1/invitations',
      F.json({ email: 'not-an-address', role_id: 'x' }, owner.headers()),
    )
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(expect.arrayContaining(['email', 'role_id']))
    const noTeam = await invite(address(), { team_ids: [] })
    expect(noTeam.status).toBe(422)

    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect((await s.fetch('/v1/invitations', { headers: agent.headers() })).status).toBe(403)
    expect(
      (await s.fetch('/v1/invitations', F.json({ email: address(), role_id: agentRoleId }, agent.headers())))
        .status,
    ).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/invitations', { headers: F.bearer(key) })).status).toBe(200)
    expect(
      (
        await s.fetch(
          '/v1/invitations',
          F.json({ email: address(), role_id: agentRoleId, team_ids: [teamId] }, F.bearer(key)),
        )
      ).status,
    ).toBe(403)
  })

  it('open invitations hold places in the user quota: past it, 402', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const boss = await F.signIn(s, free.ownerEmail)
    const roles = (await body(await s.fetch('/v1/roles', { headers: boss.headers() }))).data
    const admin = roles.find((r: any) => r.is_admin && !r.is_owner)
    const send = () =>
      s.fetch('/v1/invitations', F.json({ email: address(), role_id: admin.id }, boss.headers()))
    expect((await send()).status).toBe(201)
    expect((await send()).status).toBe(201)
    const full = await send()
    expect(full.status).toBe(402)
    expect((await body(full)).error.code).toBe('plan_required')
  })

  it('resend issues a new link and kills the old one; the invitee accepts with their own address only', async () => {
    const email = address()
    const inv = (await body(await invite(email))).data
    const oldToken = tokenIn(String((await mailTo(email)).parsed.text))!
    const before = smtp.received.length
    const again = await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, owner.headers()))
    expect(again.status).toBe(200)
    expect((await body(again)).data).toMatchObject({ id: inv.id, status: 'pending', mail: 'sent' })
    const newToken = tokenIn(String((await mailTo(email, before)).parsed.text))!
    expect(newToken).not.toBe(oldToken)
    expect((await s.fetch(`/v1/invite/${oldToken}`)).status).toBe(404)
    expect((await s.fetch(`/v1/invite/${newToken}`)).status).toBe(200)

    // Another workspace's owner neither resends nor cancels it.
    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    expect((await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, otherOwner.headers()))).status).toBe(
      404,
    )
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del(otherOwner.headers()))).status).toBe(404)
    // Someone else signed in cannot accept it.
    expect(
      (await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, otherOwner.headers()))).status,
    ).toBe(404)

    // The invitee (the invitation made their account) signs in, sees it, accepts.
    const invitee = await F.signIn(s, email)
    const mine = await body(await s.fetch('/v1/me/invitations', { headers: invitee.headers() }))
    expect(mine.data).toEqual([
      expect.objectContaining({ id: inv.id, workspace: expect.objectContaining({ id: w.workspaceId }) }),
    ])
    const c = await events(owner, `ws:${w.workspaceId}`)
    const ok = await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, invitee.headers()))
    expect(ok.status).toBe(200)
    expect((await body(ok)).data.workspace.id).toBe(w.workspaceId)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      reason: 'invitation_accepted',
    })
    c.close()
    const me = (await body(await s.fetch('/v1/me', { headers: invitee.headers() }))).data
    expect(me.workspace.id).toBe(w.workspaceId)
    expect(me.role.name).toBe('Agent')
    const members = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    expect(members.find((m: any) => m.user.email === email)).toMatchObject({ status: 'active' })
    // Accepted: gone from the list, and the inviter is told.
    const open = (await body(await s.fetch('/v1/invitations', { headers: owner.headers() }))).data
    expect(open.map((i: any) => i.id)).not.toContain(inv.id)
    const notes = (await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))).data
    expect(JSON.stringify(notes)).toContain('accepted')
    // Accepting twice does nothing more.
    expect((await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, invitee.headers()))).status).toBe(
      404,
    )
  })

  it('cancel kills the link; an expired invitation stays listed as expired and cannot be accepted', async () => {
    const email = address()
    const inv = (await body(await invite(email))).data
    const token = tokenIn(String((await mailTo(email)).parsed.text))!
    const gone = await s.fetch(`/v1/invitations/${inv.id}`, del(owner.headers()))
    expect(gone.status).toBe(200)
    const summary = await s.fetch(`/v1/invite/${token}`)
    expect(summary.status === 404 || (await body(summary)).data.status === 'cancelled').toBe(true)
    const invitee = await F.signIn(s, email)
    expect((await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, invitee.headers()))).status).toBe(
      404,
    )
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del(owner.headers()))).status).toBe(404)

    const late = address()
    const old = (await body(await invite(late))).data
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE invitations SET expires_at = now() - interval '1 hour' WHERE id = ${old.id}`,
      ),
    )
    const listed = (await body(await s.fetch('/v1/invitations', { headers: owner.headers() }))).data
    expect(listed.find((i: any) => i.id === old.id)).toMatchObject({ status: 'expired' })
    const lateUser = await F.signIn(s, late)
    expect((await body(await s.fetch('/v1/me/invitations', { headers: lateUser.headers() }))).data).toEqual(
      [],
    )
    expect(
      (await s.fetch(`/v1/me/invitations/${old.id}/accept`, F.json({}, lateUser.headers()))).status,
    ).toBe(409)
    // Resending an expired invitation makes it valid again.
    const renewed = await s.fetch(`/v1/invitations/${old.id}/resend`, F.json({}, owner.headers()))
    expect((await body(renewed)).data.status).toBe('pending')
  })
})

describe('invitations: boundaries', () => {
  it('422 for another workspace’s role, teams or channels and for the Owner role; Agents and keys 403 on resend and cancel; addresses compare without case', async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    const otherRoles = (await body(await s.fetch('/v1/roles', { headers: otherOwner.headers() }))).data
    const otherTeam = (
      await body(
        await s.fetch('/v1/teams', F.json({ name: 'Theirs', type: 'frontline' }, otherOwner.headers())),
      )
    ).data
    const foreignRole = await invite(address(), {
      role_id: otherRoles.find((r: any) => r.name === 'Agent').id,
    })
    expect(foreignRole.status).toBe(422)
    expect((await body(foreignRole)).error.fields).toHaveProperty('role_id')
    const foreignTeam = await invite(address(), { team_ids: [otherTeam.id] })
    expect(foreignTeam.status).toBe(422)
    expect((await body(foreignTeam)).error.fields).toHaveProperty('team_ids')
    const foreignChannel = await invite(address(), {
      channel_access: 'selected',
      channel_ids: [2_000_000_000],
    })
    expect(foreignChannel.status).toBe(422)
    expect((await body(foreignChannel)).error.fields).toHaveProperty('channel_ids')
    const ownerRole = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data.find(
      (r: any) => r.is_owner,
    )
    const asOwner = await invite(address(), { role_id: ownerRole.id })
    expect(asOwner.status).toBe(422)
    expect((await body(asOwner)).error.fields).toHaveProperty('role_id')

    const mixed = `Mixed.${Date.now().toString(36)}@Example.com`
    const inv = (await body(await invite(mixed))).data
    expect(inv.id).toEqual(expect.any(Number))
    expect((await invite(mixed.toLowerCase())).status).toBe(409)

    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect((await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, agent.headers()))).status).toBe(403)
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del(agent.headers()))).status).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, F.bearer(key)))).status).toBe(403)
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del(F.bearer(key)))).status).toBe(403)
    // A malformed id names no invitation.
    expect((await s.fetch('/v1/invitations/abc', del(owner.headers()))).status).toBe(404)

    // The invitee signs in with the address in another case and accepts.
    const invitee = await F.signIn(s, mixed.toLowerCase())
    const ok = await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, invitee.headers()))
    expect(ok.status).toBe(200)
    // Accepted: no resend, no cancel.
    expect([404, 409]).toContain(
      (await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, owner.headers()))).status,
    )
    expect([404, 409]).toContain((await s.fetch(`/v1/invitations/${inv.id}`, del(owner.headers()))).status)
  })

  it('an existing account is invited: account_exists, the mail follows their language, and accepting switches their active workspace', async () => {
    const elsewhere = await F.workspace(s, { plan: 'pro' })
    const them = await F.signIn(s, elsewhere.ownerEmail)
    expect((await s.fetch('/v1/me', patchBody({ locale: 'id' }, them.headers()))).status).toBe(200)
    const before = smtp.received.length
    const inv = (await body(await invite(elsewhere.ownerEmail))).data
    const mail = await mailTo(elsewhere.ownerEmail, before)
    const token = tokenIn(String(mail.parsed.text))!
    const summary = (await body(await s.fetch(`/v1/invite/${token}`))).data
    expect(summary).toMatchObject({ id: inv.id, account_exists: true, status: 'pending' })
    expect(String(mail.parsed.subject)).toContain('mengundang Anda')
    const mine = (await body(await s.fetch('/v1/me/invitations', { headers: them.headers() }))).data
    expect(mine.map((i: any) => i.id)).toContain(inv.id)
    expect((await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, them.headers()))).status).toBe(
      200,
    )
    const me = (await body(await s.fetch('/v1/me', { headers: them.headers() }))).data
    expect(me.workspace.id).toBe(w.workspaceId)
    // Still the owner of their own workspace, which they can switch back to.
    const list = (await body(await s.fetch('/v1/workspaces', { headers: them.headers() }))).data
    expect(list.map((x: any) => x.id)).toEqual(expect.arrayContaining([w.workspaceId, elsewhere.workspaceId]))
  })

  it('an expired link is summarised as expired', async () => {
    const email = address()
    const before = smtp.received.length
    const inv = (await body(await invite(email))).data
    const token = tokenIn(String((await mailTo(email, before)).parsed.text))!
    await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE invitations SET expires_at = now() - interval '1 hour' WHERE id = ${inv.id}`,
      ),
    )
    const res = await s.fetch(`/v1/invite/${token}`)
    expect(res.status === 404 || (await body(res)).data.status === 'expired').toBe(true)
  })

  it('a mail server that refuses leaves the invitation with mail failed; resend tries again', async () => {
    const broken = await startTestServer({
      SMTP_URL: `smtp://mailer%40kotak.test:wrong@${smtp.host}:${smtp.port}`,
      MAIL_FROM: 'Kotak <no-reply@kotak.test>',
    })
    try {
      const bw = await F.workspace(broken, { plan: 'pro' })
      const boss = await F.signIn(broken, bw.ownerEmail)
      const admin = (await body(await broken.fetch('/v1/roles', { headers: boss.headers() }))).data.find(
        (r: any) => r.is_admin && !r.is_owner,
      )
      const res = await broken.fetch(
        '/v1/invitations',
        F.json({ email: address(), role_id: admin.id }, boss.headers()),
      )
      expect(res.status).toBe(201)
      const inv = (await body(res)).data
      expect(inv.mail).toBe('failed')
      const listed = (await body(await broken.fetch('/v1/invitations', { headers: boss.headers() }))).data
      expect(listed.find((i: any) => i.id === inv.id)).toMatchObject({ status: 'pending', mail: 'failed' })
      const again = await broken.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, boss.headers()))
      expect(again.status).toBe(200)
      expect((await body(again)).data.mail).toBe('failed')
    } finally {
      await broken.stop()
    }
  }, 30_000)

  it('the same address invited several times at once: one 201, the others 409', async () => {
    const email = address()
    const all = await Promise.all([1, 2, 3].map(() => invite(email)))
    expect(all.map((r) => r.status).sort()).toEqual([201, 409, 409])
    const listed = (await body(await s.fetch('/v1/invitations', { headers: owner.headers() }))).data
    expect(listed.filter((i: any) => i.email === email)).toHaveLength(1)
  })

  it('resend and cancel announce members.changed', async () => {
    const inv = (await body(await invite(address()))).data
    const c = await events(owner, `ws:${w.workspaceId}`)
    expect((await s.fetch(`/v1/invitations/${inv.id}/resend`, F.json({}, owner.headers()))).status).toBe(200)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      invitation_id: inv.id,
    })
    expect((await s.fetch(`/v1/invitations/${inv.id}`, del(owner.headers()))).status).toBe(200)
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({
      invitation_id: inv.id,
    })
    c.close()
  })

  it('a team deleted after inviting does not break accepting; a role in use by an invitation cannot be deleted', async () => {
    const role = (
      await body(
        await s.fetch(
          '/v1/roles',
          F.json({ name: `Inv role ${seq++}`, permissions: ['dashboard.view'] }, owner.headers()),
        ),
      )
    ).data
    const gone = (
      await body(
        await s.fetch('/v1/teams', F.json({ name: `Gone ${seq++}`, type: 'frontline' }, owner.headers())),
      )
    ).data
    const email = address()
    const inv = (await body(await invite(email, { role_id: role.id, team_ids: [teamId, gone.id] }))).data
    expect(inv.team_ids).toEqual(expect.arrayContaining([teamId, gone.id]))
    expect((await s.fetch(`/v1/roles/${role.id}`, del(owner.headers()))).status).toBe(409)
    expect((await s.fetch(`/v1/teams/${gone.id}`, del(owner.headers()))).status).toBe(200)
    const invitee = await F.signIn(s, email)
    const ok = await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, invitee.headers()))
    expect(ok.status).toBe(200)
    const members = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    expect(members.find((m: any) => m.user.email === email)).toMatchObject({
      role: { id: role.id },
      team_ids: [teamId],
    })
  })
})
