import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Billing from '../../actors/admin/billing'
import * as PaymentProviderLocal from '../../connectors/payments/PaymentProviderLocal'
import { sign } from '../../engine/net/signature'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as Members from '../../store/members'
import * as Workspaces from '../../store/workspaces'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Spec 1 §4.3 billing through HTTP: upgrade through the local payment provider, grace and 423. */
const SECRET = 'test-callback-secret'
let s: TestServer
beforeAll(async () => {
  s = await startTestServer({ PAYMENT_CALLBACK_SECRET: SECRET })
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
const DAY = 86_400_000
const callback = (id: string, status: string, secret = SECRET) => {
  const ts = Math.floor(Date.now() / 1000)
  return s.fetch(
    '/v1/payments/local/callback',
    F.json(
      { id, status },
      { 'x-kotak-timestamp': String(ts), 'x-kotak-signature': sign(secret, ts, `${id}.${status}`) },
    ),
  )
}
const externalId = (checkoutUrl: string) => checkoutUrl.split('/').pop()!

describe('billing', () => {
  it('shows plan, usage, invoices, profile and prices; only to settings.billing, never to keys', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const res = await s.fetch('/v1/billing', { headers: owner.headers() })
    expect(res.status).toBe(200)
    const b = (await body(res)).data
    expect(b.plan).toMatchObject({ key: 'pro', in_grace: false, frozen: false, limits: { users: 25 } })
    expect(b.usage.users).toMatchObject({ used: 1, limit: 25 })
    expect(b.invoices).toEqual([])
    expect(b.prices.upgrade.map((p: any) => p.months)).toEqual([1, 3, 6, 12])
    expect(b.downgrade.limits).toMatchObject({ channels: 1, users: 3 })

    const agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
    expect((await s.fetch('/v1/billing', { headers: agent.headers() })).status).toBe(403)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/billing', { headers: F.bearer(key) })).status).toBe(403)

    // The profile: 422 with fields; an empty string clears.
    const bad = await s.fetch('/v1/billing/profile', patch({ email: 'nope' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect((await body(bad)).error.fields).toHaveProperty('email')
    const prof = await s.fetch(
      '/v1/billing/profile',
      patch({ name: 'PT Maju', email: 'finance@maju.example', tax_id: '01.234' }, owner.headers()),
    )
    expect(prof.status).toBe(200)
    expect((await body(prof)).data).toEqual({
      name: 'PT Maju',
      email: 'finance@maju.example',
      tax_id: '01.234',
    })
    const cleared = await body(await s.fetch('/v1/billing/profile', patch({ tax_id: '' }, owner.headers())))
    expect(cleared.data).not.toHaveProperty('tax_id')
  })

  it('upgrades a Free workspace: one invoice and one checkout, reused; a signed callback pays it; billing.updated', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const up = await s.fetch('/v1/billing/upgrade', F.json({ months: 3 }, owner.headers()))
    expect(up.status).toBe(200)
    const first = (await body(up)).data
    expect(first.reused_invoice).toBe(false)
    expect(first.invoice).toMatchObject({ status: 'open', months: 3, plan: 'pro', tax_percent: 11 })
    expect(first.invoice.total).toBe(first.invoice.subtotal + first.invoice.tax)
    expect(first.checkout_url).toMatch(/\/v1\/payments\/local\/loc_/)
    const number = first.invoice.number as string

    // Asking again reuses the invoice and its still-valid checkout.
    const again = (await body(await s.fetch('/v1/billing/upgrade', F.json({ months: 3 }, owner.headers()))))
      .data
    expect(again).toMatchObject({ reused_invoice: true, checkout_url: first.checkout_url })
    expect(again.invoice.number).toBe(number)
    const pay = (await body(await s.fetch(`/v1/billing/invoices/${number}/pay`, F.json({}, owner.headers()))))
      .data
    expect(pay).toMatchObject({ reused: true, checkout_url: first.checkout_url })
    const detail = (await body(await s.fetch(`/v1/billing/invoices/${number}`, { headers: owner.headers() })))
      .data
    expect(detail.attempts).toHaveLength(1)
    expect(detail.attempts[0]).toMatchObject({ provider: 'local', status: 'pending' })
    expect((await s.fetch(`/v1/billing/upgrade`, F.json({ months: 2 }, owner.headers()))).status).toBe(422)

    // The local checkout page exists; the return page still says pending.
    expect((await s.fetch(new URL(first.checkout_url).pathname)).status).toBe(200)
    const pending = (
      await body(await s.fetch(`/v1/billing/return?invoice=${number}`, { headers: owner.headers() }))
    ).data
    expect(pending.status).toBe('pending')

    // Another workspace does not see the invoice.
    const other = await F.workspace(s, { plan: 'free' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    expect((await s.fetch(`/v1/billing/invoices/${number}`, { headers: otherOwner.headers() })).status).toBe(
      404,
    )

    // A forged callback is refused; a signed one pays once.
    const id = externalId(first.checkout_url)
    expect((await callback(id, 'paid', 'wrong-secret')).status).toBe(401)
    const c = await events(owner, `ws:${w.workspaceId}`)
    const paid = await callback(id, 'paid')
    expect(paid.status).toBe(200)
    expect((await body(paid)).data).toMatchObject({ invoice: number, result: 'paid' })
    const e = await c.next((f) => f.event === 'billing.updated')
    expect(e.data).toMatchObject({ key: 'pro', reason: 'paid' })
    c.close()
    expect((await body(await callback(id, 'paid'))).data.result).toBe('unchanged')

    const back = (
      await body(await s.fetch(`/v1/billing/return?invoice=${number}`, { headers: owner.headers() }))
    ).data
    expect(back.status).toBe('paid')
    expect(back.plan.key).toBe('pro')
    const until = new Date(back.plan.pro_until).getTime()
    expect(until).toBeGreaterThan(Date.now() + 85 * DAY)
    const ws = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    expect(ws).toMatchObject({ plan: 'pro', in_grace: false })
    const after = (await body(await s.fetch(`/v1/billing/invoices/${number}`, { headers: owner.headers() })))
      .data
    expect(after).toMatchObject({ status: 'paid' })
    expect(after.attempts[0].status).toBe('paid')
    // The Owner hears of it.
    const notes = (await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))).data
    expect(JSON.stringify(notes)).toContain('Pro')
    // Paid: API keys (a Pro feature) now work.
    expect(
      (await s.fetch('/v1/api-keys', F.json({ name: 'k', scope: 'read' }, owner.headers()))).status,
    ).toBe(201)
  })

  it('the operator confirms a payment of the local provider', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const up = (await body(await s.fetch('/v1/billing/upgrade', F.json({}, owner.headers())))).data
    const outcome = await s.run(PaymentProviderLocal.confirmInvoice(up.invoice.number, 'paid'))
    expect(outcome?._tag).toBe('Paid')
    const ws = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    expect(ws.plan).toBe('pro')
  })

  it('a lapsed Pro plan keeps working in grace, then moves to Free with the chosen members and channels', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const keep = await F.member(s, w, 'Agent')
    const others = [
      await F.member(s, w, 'Agent'),
      await F.member(s, w, 'Agent'),
      await F.member(s, w, 'Agent'),
    ]
    const list = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    const keepMember = list.find((m: any) => m.user.id === keep.id)
    // Too many members for Free: 422 with fields.
    const tooMany = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json(
        { channel_ids: [], member_ids: list.filter((m: any) => !m.is_owner).map((m: any) => m.id) },
        owner.headers(),
      ),
    )
    expect(tooMany.status).toBe(422)
    expect((await body(tooMany)).error.fields).toHaveProperty('member_ids')
    // Two numbers; Free has room for one: the chosen one stays.
    const [stay, away] = [
      await s.run(Channels.create(w.workspaceId, 'msgapp', 'Sales')),
      await s.run(Channels.create(w.workspaceId, 'msgapp', 'Support')),
    ]
    const chosen = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [stay!.id], member_ids: [keepMember.id] }, owner.headers()),
    )
    expect(chosen.status).toBe(200)
    expect((await body(chosen)).data).toMatchObject({ applied: false, plan: 'pro' })

    await s.run(Workspaces.setPlan(w.workspaceId, 'pro', new Date(Date.now() - 2 * DAY)))
    const grace = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    expect(grace).toMatchObject({ plan: 'pro', in_grace: true })
    expect((await s.fetch('/v1/workspace', patch({ name: 'Still works' }, owner.headers()))).status).toBe(200)

    await s.run(Workspaces.setPlan(w.workspaceId, 'pro', new Date(Date.now() - 8 * DAY)))
    const c = await events(owner, `ws:${w.workspaceId}`)
    const settled = await s.run(Billing.settleNow())
    expect(settled.map((x) => x.workspaceId)).toContain(w.workspaceId)
    expect((await c.next((f) => f.event === 'billing.updated')).data).toMatchObject({ key: 'free' })
    c.close()
    const after = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    const status = (userId: number) => after.find((m: any) => m.user.id === userId).status
    expect(status(keep.id)).toBe('active')
    for (const o of others) expect(status(o.id)).toBe('disabled')
    const channel = async (id: number) =>
      (await body(await s.fetch(`/v1/channels/${id}`, { headers: owner.headers() }))).data
    expect((await channel(stay!.id)).status).not.toBe('suspended')
    expect((await channel(away!.id)).status).toBe('suspended')
    const usage = (await body(await s.fetch('/v1/billing', { headers: owner.headers() }))).data
    expect(usage.usage.channels).toMatchObject({ used: 1, suspended: 1 })
    // Nothing goes out through the suspended number.
    const contact = await s.run(Contacts.create(w.workspaceId, { name: 'Budi', phone: '+62811000' }))
    const conv = await s.run(Conversations.create(w.workspaceId, away!.id, { contactId: contact.id }))
    const sent = await s.fetch(
      `/v1/interactions/${conv.id}/messages`,
      F.json({ text: 'Halo' }, owner.headers()),
    )
    expect(sent.status).toBe(402)
    // Settling again changes nothing.
    expect((await s.run(Billing.settleNow())).map((x) => x.workspaceId)).not.toContain(w.workspaceId)
  })

  it('an ended Custom contract freezes the workspace (423) except billing, transfer, notifications and reads; paying for Pro unfreezes it', async () => {
    const w = await F.workspace(s, { plan: 'custom' })
    const owner = await F.signIn(s, w.ownerEmail)
    // A running Custom contract is not upgraded from the API.
    expect((await s.fetch('/v1/billing/upgrade', F.json({}, owner.headers()))).status).toBe(409)
    await s.run(Workspaces.setPlan(w.workspaceId, 'custom', new Date(Date.now() - 3 * DAY)))
    expect((await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data.in_grace).toBe(
      true,
    )
    await s.run(Workspaces.setPlan(w.workspaceId, 'custom', new Date(Date.now() - 10 * DAY)))
    await s.run(Billing.settleNow())

    const rename = await s.fetch('/v1/workspace', patch({ name: 'Frozen' }, owner.headers()))
    expect(rename.status).toBe(423)
    expect((await body(rename)).error.code).toBe('workspace_frozen')
    expect(
      (await s.fetch('/v1/teams', F.json({ name: 'T', type: 'frontline' }, owner.headers()))).status,
    ).toBe(423)
    expect((await s.fetch('/v1/workspace', { headers: owner.headers() })).status).toBe(200)
    expect((await s.fetch('/v1/notifications/read', F.json({}, owner.headers()))).status).toBe(200)
    expect((await s.fetch('/v1/workspace/transfer', { headers: owner.headers() })).status).toBe(200)
    expect(
      (await s.fetch('/v1/billing/profile', patch({ name: 'Frozen Ltd' }, owner.headers()))).status,
    ).toBe(200)
    const b = (await body(await s.fetch('/v1/billing', { headers: owner.headers() }))).data
    expect(b.plan).toMatchObject({ key: 'custom', frozen: true })
    // A member is never stuck in it: their own account, and switching to another workspace of
    // theirs, keep working (leaving it is a change to it, and waits like the others).
    const other = await F.workspace(s, { plan: 'pro' })
    const agent = await F.member(s, w, 'Admin')
    await s.run(Members.addWithRole(other.workspaceId, agent.id, 'Agent'))
    const a = await F.signIn(s, agent.email)
    expect((await s.fetch('/v1/me', patch({ locale: 'id' }, a.headers()))).status).toBe(200)
    expect((await s.fetch('/v1/me/preferences', F.json({ livechat_alert: 1 }, a.headers()))).status).toBe(200)
    expect((await s.fetch('/v1/workspace/leave', F.json({}, a.headers()))).status).toBe(423)
    const sw = await s.fetch('/v1/me/workspace', F.json({ workspace_id: other.workspaceId }, a.headers()))
    expect(sw.status).toBe(200)
    expect((await body(await s.fetch('/v1/me', { headers: a.headers() }))).data.workspace.id).toBe(
      other.workspaceId,
    )

    const up = await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers()))
    expect(up.status).toBe(200)
    const inv = (await body(up)).data
    expect((await callback(externalId(inv.checkout_url), 'paid')).status).toBe(200)
    const ws = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    expect(ws.plan).toBe('pro')
    expect((await s.fetch('/v1/workspace', patch({ name: 'Thawed' }, owner.headers()))).status).toBe(200)
  })
})

describe('billing: failures, renewals and boundaries', () => {
  it('a failed payment leaves the invoice open and the next pay makes a new checkout; stale, unknown and other-provider callbacks are refused; a paid invoice is 409', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const up = (await body(await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers())))).data
    const number = up.invoice.number as string
    const id = externalId(up.checkout_url)

    const failed = await callback(id, 'failed')
    expect(failed.status).toBe(200)
    expect((await body(failed)).data).toMatchObject({ invoice: number, result: 'failed' })
    const open = (await body(await s.fetch(`/v1/billing/invoices/${number}`, { headers: owner.headers() })))
      .data
    expect(open.status).toBe('open')
    expect(open.attempts[0].status).toBe('failed')
    expect((await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data.plan).toBe('free')

    const pay = (await body(await s.fetch(`/v1/billing/invoices/${number}/pay`, F.json({}, owner.headers()))))
      .data
    expect(pay.reused).toBe(false)
    expect(pay.checkout_url).not.toBe(up.checkout_url)
    // Upgrading again reuses the same open invoice and now the new checkout.
    const again = (await body(await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers()))))
      .data
    expect(again).toMatchObject({ reused_invoice: true, checkout_url: pay.checkout_url })
    // The new payment attempt is in the audit log, once (reusing it writes nothing).
    const log = (await body(await s.fetch('/v1/audit-logs?category=billing', { headers: owner.headers() })))
      .data as Array<{ action: string; target: string; label: string }>
    const started = log.filter((e) => e.action === 'billing.checkout_started')
    expect(started).toHaveLength(1)
    expect(started[0]).toMatchObject({ target: number, label: 'Payment started' })

    // A callback signed too long ago, for an unknown checkout, or for another provider.
    const old = Math.floor(Date.now() / 1000) - 3600
    const newId = externalId(pay.checkout_url)
    const stale = await s.fetch(
      '/v1/payments/local/callback',
      F.json(
        { id: newId, status: 'paid' },
        { 'x-kotak-timestamp': String(old), 'x-kotak-signature': sign(SECRET, old, `${newId}.paid`) },
      ),
    )
    expect(stale.status).toBe(401)
    expect([401, 404]).toContain((await callback('loc_doesnotexist1234', 'paid')).status)
    expect(
      (await s.fetch('/v1/payments/stripe/callback', F.json({ id: newId, status: 'paid' }))).status,
    ).toBe(404)
    expect((await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data.plan).toBe('free')

    expect((await callback(newId, 'paid')).status).toBe(200)
    // A late failure report of the paid checkout changes nothing.
    expect((await body(await callback(newId, 'failed'))).data.result).toBe('unchanged')
    expect((await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data.plan).toBe('pro')
    const paidPay = await s.fetch(`/v1/billing/invoices/${number}/pay`, F.json({}, owner.headers()))
    expect(paidPay.status).toBe(409)
    expect((await body(paidPay)).error.code).toBe('conflict')
  })

  it('renewing a paid Pro plan adds the months after the current paid-until date', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const until = new Date(Date.now() + 10 * DAY)
    await s.run(Workspaces.setPlan(w.workspaceId, 'pro', until))
    const up = await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers()))
    expect(up.status).toBe(200)
    const inv = (await body(up)).data
    expect(inv.reused_invoice).toBe(false)
    expect((await callback(externalId(inv.checkout_url), 'paid')).status).toBe(200)
    const ws = (await body(await s.fetch('/v1/workspace', { headers: owner.headers() }))).data
    const end = new Date(ws.pro_until).getTime()
    expect(end).toBeGreaterThan(until.getTime() + 27 * DAY)
    expect(end).toBeLessThan(until.getTime() + 32 * DAY)
  })

  it('writes: 403 for an Agent and for API keys; another workspace’s invoice is 404 on pay and return; 422 for bad input; the choice applies at once on Free', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const agentUser = await F.member(s, w, 'Agent')
    const agent = await F.signIn(s, agentUser.email)
    const inv = (await body(await s.fetch('/v1/billing/upgrade', F.json({}, owner.headers())))).data.invoice
    const writes: [string, string, unknown][] = [
      ['POST', '/v1/billing/upgrade', { months: 1 }],
      ['POST', `/v1/billing/invoices/${inv.number}/pay`, {}],
      ['PATCH', '/v1/billing/profile', { name: 'X' }],
      ['POST', '/v1/billing/downgrade-choice', { channel_ids: [], member_ids: [] }],
    ]
    const reads = [`/v1/billing/invoices/${inv.number}`, `/v1/billing/return?invoice=${inv.number}`]
    for (const [method, path, b] of writes) {
      expect((await s.fetch(path, { ...F.json(b, agent.headers()), method })).status, path).toBe(403)
    }
    for (const path of reads)
      expect((await s.fetch(path, { headers: agent.headers() })).status, path).toBe(403)

    const pro = await F.workspace(s, { plan: 'pro' })
    const key = await F.apiKey(s, pro)
    const proOwner = await F.signIn(s, pro.ownerEmail)
    expect((await s.fetch('/v1/billing/upgrade', F.json({}, F.bearer(key)))).status).toBe(403)
    expect((await s.fetch('/v1/billing/profile', patch({ name: 'X' }, F.bearer(key)))).status).toBe(403)
    // Another workspace's invoice.
    expect(
      (await s.fetch(`/v1/billing/invoices/${inv.number}/pay`, F.json({}, proOwner.headers()))).status,
    ).toBe(404)
    expect(
      (await s.fetch(`/v1/billing/return?invoice=${inv.number}`, { headers: proOwner.headers() })).status,
    ).toBe(404)
    // Bad input.
    const badReturn = await s.fetch('/v1/billing/return?invoice=nope', { headers: owner.headers() })
    expect(badReturn.status).toBe(422)
    expect((await body(badReturn)).error.fields).toHaveProperty('invoice')
    const badMonths = await s.fetch('/v1/billing/upgrade', F.json({ months: 'x' }, owner.headers()))
    expect(badMonths.status).toBe(422)
    expect((await body(badMonths)).error.fields).toHaveProperty('months')
    const longName = await s.fetch('/v1/billing/profile', patch({ name: 'x'.repeat(121) }, owner.headers()))
    expect(longName.status).toBe(422)
    expect((await body(longName)).error.fields).toHaveProperty('name')

    // Members of another workspace are not this workspace's to choose.
    const proMembers = (await body(await s.fetch('/v1/members', { headers: proOwner.headers() }))).data
    const foreign = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [], member_ids: [proMembers[0].id] }, owner.headers()),
    )
    expect(foreign.status).toBe(422)
    expect((await body(foreign)).error.fields).toHaveProperty('member_ids')
    const bad = await s.fetch('/v1/billing/downgrade-choice', F.json({ channel_ids: 'x' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect(Object.keys((await body(bad)).error.fields)).toEqual(
      expect.arrayContaining(['channel_ids', 'member_ids']),
    )
    // On Free the choice applies now: the unchosen member is disabled; members.changed.
    const c = await events(owner, `ws:${w.workspaceId}`)
    const applied = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [], member_ids: [] }, owner.headers()),
    )
    expect(applied.status).toBe(200)
    expect((await body(applied)).data).toMatchObject({ applied: true, plan: 'free' })
    expect((await c.next((f) => f.event === 'members.changed')).data).toMatchObject({ reason: 'plan_limit' })
    c.close()
    const members = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    expect(members.find((m: any) => m.user.id === agentUser.id).status).toBe('disabled')
  })

  it('only the Owner or an admin may leave an admin out of the members who stay on Free', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const role = await s.fetch(
      '/v1/roles',
      F.json({ name: 'Billing clerk', permissions: ['settings.billing'] }, owner.headers()),
    )
    expect(role.status).toBe(201)
    const clerk = await F.member(s, w, 'Billing clerk')
    const admin = await F.member(s, w, 'Admin')
    const clerkSession = await F.signIn(s, clerk.email)
    const list = (await body(await s.fetch('/v1/members', { headers: owner.headers() }))).data
    const idOf = (userId: number) => list.find((m: any) => m.user.id === userId).id
    // Keeping themselves and leaving the admin out would disable the admin: theirs is not to change.
    const refused = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [], member_ids: [idOf(clerk.id)] }, clerkSession.headers()),
    )
    expect(refused.status).toBe(403)
    expect((await body(refused)).error).toMatchObject({
      code: 'forbidden',
      message: 'Only the Owner or an admin may leave an admin out of the members who stay active.',
    })
    // Keeping the admin is theirs to choose; leaving one out is the Owner's.
    const kept = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [], member_ids: [idOf(admin.id)] }, clerkSession.headers()),
    )
    expect(kept.status).toBe(200)
    const byOwner = await s.fetch(
      '/v1/billing/downgrade-choice',
      F.json({ channel_ids: [], member_ids: [idOf(clerk.id)] }, owner.headers()),
    )
    expect(byOwner.status).toBe(200)
  })

  it('upgrades asked at the same moment share one invoice and one checkout', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const all = await Promise.all(
      [1, 2, 3, 4].map(() => s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers()))),
    )
    const data = await Promise.all(all.map(async (r) => ({ status: r.status, ...(await body(r)).data })))
    expect(data.map((d) => d.status)).toEqual([200, 200, 200, 200])
    expect(new Set(data.map((d) => d.invoice.number)).size).toBe(1)
    expect(new Set(data.map((d) => d.checkout_url)).size).toBe(1)
    const detail = (
      await body(
        await s.fetch(`/v1/billing/invoices/${data[0]!.invoice.number}`, { headers: owner.headers() }),
      )
    ).data
    expect(detail.attempts).toHaveLength(1)
    expect(
      (await body(await s.fetch('/v1/billing', { headers: owner.headers() }))).data.invoices,
    ).toHaveLength(1)
  })
})
