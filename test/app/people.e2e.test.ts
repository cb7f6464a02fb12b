import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * Members, invitations, roles and teams in the app (/app/settings/members, /roles, /teams) end
 * to end in Chromium: the owner invites (a 422 beside its field first), resends and revokes; edits
 * a member and disables and enables them while a second person's page follows live; builds a role
 * from the permission catalogue, duplicates and deletes it, and is told in words why a role in use
 * cannot go; creates, edits and deletes teams (into a replacement of the same type). A member whose
 * role manages roles but not members, and a plain Agent, see only what their role allows and the
 * server's refusal in words; Indonesian texts; axe at 1440 and 390 px; screenshots in
 * test-artifacts/app/people-*.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser
let support = 0
let billing = 0

const api = async (p: string, init?: RequestInit) => {
  const res = await s.fetch(p, init)
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}
const get = async (p: string, who: F.Session = owner) => (await api(p, { headers: who.headers() })).body.data
const patch = (p: string, body: unknown, who: F.Session = owner) =>
  api(p, { ...F.json(body, who.headers()), method: 'PATCH' })
const setLocale = (who: F.Session, locale: 'en' | 'id') => patch('/v1/me', { locale }, who)

/** A member with `role`, signed in; their e-mail for finding their row. */
const person = async (role: string) => {
  const user = await F.member(s, w, role)
  return { session: await F.signIn(s, user.email), email: user.email, userId: user.id }
}

const accessible = async (page: Page) => expect(await axeFindings(page)).toEqual([])
/** The page scrolls inside itself at 390 px at most in its tables: nothing wider than the screen. */
const fitsPhone = async (page: Page) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const over = await page.evaluate(() => {
    const el = (globalThis as any).document.querySelector('.k-page')
    return el.scrollWidth - el.clientWidth
  })
  expect(over).toBeLessThanOrEqual(0)
  await accessible(page)
  await page.setViewportSize({ width: 1440, height: 900 })
  await accessible(page)
}
const live = (page: Page) => page.locator('[data-testid=connection][data-settled=true]').waitFor()
const settledProblems = (problems: string[]) =>
  problems.filter((p) => !p.startsWith('Failed to load resource'))

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const team = async (name: string, type: string) =>
    (await api('/v1/teams', F.json({ name, type }, owner.headers()))).body.data.id as number
  support = await team('Support', 'frontline')
  billing = await team('Billing desk', 'backoffice')
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

// Whole pages in several browser contexts: 20–45 s each under a full suite's load, past the 30 s default.
describe.skipIf(lacks('chromium'))(
  'members, invitations, roles and teams in the app',
  { timeout: 90_000 },
  () => {
    it('invites (422 beside the field first), resends and revokes; a second person sees it live', async () => {
      const admin = await person('Admin')
      const watcher = await signedIn(browser, s, admin.session, { viewport: { width: 1440, height: 900 } })
      await watcher.page.goto(`${s.url}/app/settings/members`)
      await watcher.page.getByTestId('members').waitFor()
      await live(watcher.page)

      const { context, page, problems } = await signedIn(browser, s, owner, {
        viewport: { width: 1440, height: 900 },
      })
      await page.goto(`${s.url}/app/settings`)
      await page.getByRole('link', { name: /Members/ }).click()
      await page.waitForURL(/\/app\/settings\/members$/)
      await page.getByRole('heading', { level: 1, name: 'Members' }).waitFor()
      const ownerRow = page.locator(`tr[data-email="${w.ownerEmail}"]`)
      await ownerRow.waitFor()
      expect(await ownerRow.textContent()).toContain('Owner')
      expect(await ownerRow.textContent()).toContain('You')
      expect(await page.getByTestId('users-quota').textContent()).toMatch(
        /^\d+ of \d+ active members$|^\d+ active members$/,
      )

      const email = `invitee-${Date.now()}@example.com`
      await page.getByRole('button', { name: 'Invite someone' }).click()
      const form = page.getByTestId('invite-form')
      // The browser takes this address; the server does not, and says so under the field.
      await form.getByLabel('E-mail address').fill('someone@localhost')
      await form.getByLabel('Role').selectOption({ label: 'Agent' })
      await form.getByLabel('Can view all data').check()
      await form.getByRole('button', { name: 'Send invitation' }).click()
      await form.locator('input[name=email][aria-invalid=true]').waitFor()
      const described = (await form.getByLabel('E-mail address').getAttribute('aria-describedby'))!
      expect(await page.locator(`#${described}`).textContent()).toBe('must be an e-mail address')
      await form.getByLabel('E-mail address').fill(email)
      await form.getByRole('button', { name: 'Send invitation' }).click()
      // An Agent needs a team: the server's message under the teams.
      await form
        .locator('fieldset[data-field=team_ids] .k-error')
        .filter({ hasText: 'must name at least one team' })
        .waitFor()
      await form.getByRole('group', { name: 'Teams' }).getByLabel('Support').check()
      await form.getByRole('button', { name: 'Send invitation' }).click()
      await page.getByText(`Invitation sent to ${email}. The link is valid for 7 days.`).waitFor()

      // The same address again: the server's refusal in words.
      await page.getByRole('button', { name: 'Invite someone' }).click()
      await form.getByLabel('E-mail address').fill(email)
      await form.getByRole('group', { name: 'Teams' }).getByLabel('Support').check()
      await form.getByRole('button', { name: 'Send invitation' }).click()
      await form.getByText('This address already has an open invitation; resend it instead.').waitFor()
      await form.getByRole('button', { name: 'Cancel' }).click()

      const listed = async () => ((await get('/v1/invitations')) as any[]).filter((i) => i.email === email)
      const [inv] = await listed()
      expect(inv).toMatchObject({
        status: 'pending',
        role: { name: 'Agent' },
        team_ids: [support],
        view_all: true,
        channel_access: 'all',
      })
      const row = page.locator(`tr[data-invitation-id="${inv.id}"]`)
      await row.filter({ hasText: 'Pending' }).waitFor()
      // The second person's page has it too, without reloading.
      await watcher.page.locator(`tr[data-invitation-id="${inv.id}"]`).waitFor()

      // Times are answered to the second: past the invitation's own second, a new expiry is later.
      await new Promise((r) => setTimeout(r, 1100))
      await row.getByRole('button', { name: `Resend the invitation to ${email}` }).click()
      await page.getByText(`A new link went to ${email}; the previous one no longer works.`).waitFor()
      const [again] = await listed()
      expect(Date.parse(again.expires_at)).toBeGreaterThan(Date.parse(inv.expires_at))

      await row.getByRole('button', { name: 'Revoke' }).click()
      await row.getByText(`Revoke the invitation to ${email}? Its link stops working.`).waitFor()
      await row.getByRole('button', { name: 'Yes, go ahead' }).click()
      await page.getByText(`The invitation to ${email} is revoked.`).waitFor()
      await row.waitFor({ state: 'detached' })
      expect(await listed()).toEqual([])
      await watcher.page.locator(`tr[data-invitation-id="${inv.id}"]`).waitFor({ state: 'detached' })

      expect(settledProblems(problems)).toEqual([])
      expect(settledProblems(watcher.problems)).toEqual([])
      await watcher.context.close()
      await context.close()
    })

    it('changes a member’s role, teams, access and reply initial, disables and enables them, live', async () => {
      const agent = await person('Agent')
      const roles = (await get('/v1/roles')) as any[]
      const admin = await person('Admin')
      const watcher = await signedIn(browser, s, admin.session)
      await watcher.page.goto(`${s.url}/app/settings/members`)
      await watcher.page.locator(`tr[data-email="${agent.email}"]`).waitFor()
      await live(watcher.page)

      const { context, page, problems } = await signedIn(browser, s, owner, {
        viewport: { width: 1440, height: 900 },
      })
      await page.goto(`${s.url}/app/settings/members`)
      const row = page.locator(`tr[data-email="${agent.email}"]`)
      await row.getByRole('button', { name: 'Edit Andi Agent' }).click()
      const editor = page.getByTestId('member-editor')
      await editor.getByRole('heading', { name: 'Change Andi Agent' }).waitFor()
      await editor.getByRole('group', { name: 'Teams' }).getByLabel('Billing desk').check()
      await editor.getByLabel('Only the channels chosen below').check()
      await editor.getByLabel('Reply initial').fill('AA')
      await editor.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Saved.').waitFor()
      const member = async () =>
        ((await get('/v1/members')) as any[]).find((m) => m.user.email === agent.email)
      expect(await member()).toMatchObject({
        team_ids: [billing],
        channel_access: 'selected',
        channel_ids: [],
        reply_initial: 'AA',
        view_all: false,
        status: 'active',
      })
      await watcher.page
        .locator(`tr[data-email="${agent.email}"] [data-col=teams]`)
        .filter({ hasText: 'Billing desk' })
        .waitFor()

      // The owner's own row: role fixed, no disabling.
      await page
        .locator(`tr[data-email="${w.ownerEmail}"]`)
        .getByRole('button', { name: 'Edit Olivia Owner' })
        .click()
      await editor.getByText('The Owner keeps their role, status and access').waitFor()
      expect(await editor.getByRole('button', { name: 'Disable member' }).count()).toBe(0)
      expect(await editor.getByLabel('Role').count()).toBe(0)

      await row.getByRole('button', { name: 'Edit Andi Agent' }).click()
      await editor
        .getByLabel('Role')
        .selectOption({ label: roles.find((r) => r.is_admin && !r.is_owner).name })
      await editor.getByRole('button', { name: 'Save changes' }).click()
      await row.locator('[data-col=role]').filter({ hasText: 'Admin' }).waitFor()
      expect((await member()).role.name).toBe('Admin')

      await editor.getByRole('button', { name: 'Disable member' }).click()
      await editor.getByText('Disable Andi Agent? They lose access at once.').waitFor()
      await editor.getByRole('button', { name: 'Yes, go ahead' }).click()
      await row.locator('[data-col=status]').filter({ hasText: 'Disabled' }).waitFor()
      expect(await row.locator('[data-col=status]').textContent()).toBe(
        'Disableddisabled by an administrator',
      )
      expect((await member()).status).toBe('disabled')
      expect((await api('/v1/me', { headers: agent.session.headers() })).status).not.toBe(200)
      await watcher.page
        .locator(`tr[data-email="${agent.email}"] [data-col=status]`)
        .filter({ hasText: 'Disabled' })
        .waitFor()
      await page.getByText('Members are not deleted: disabling removes someone’s access').waitFor()

      await editor.getByRole('button', { name: 'Enable member' }).click()
      await editor.getByRole('button', { name: 'Yes, go ahead' }).click()
      await row.locator('[data-col=status]').filter({ hasText: 'Active' }).waitFor()
      expect((await member()).status).toBe('active')
      await watcher.page
        .locator(`tr[data-email="${agent.email}"] [data-col=status]`)
        .filter({ hasText: 'Active' })
        .waitFor()

      await shots(page, 'people-member-edit')
      await editor.getByRole('button', { name: 'Close' }).click()
      await page.locator('.k-page').evaluate((el) => {
        el.scrollTop = 0
      })
      await shots(page, 'people-members')
      await fitsPhone(page)
      expect(settledProblems(problems)).toEqual([])
      await watcher.context.close()
      await context.close()
    })

    it('builds a role from the catalogue, duplicates and deletes it; a role in use says why it stays', async () => {
      const { context, page, problems } = await signedIn(browser, s, owner, {
        viewport: { width: 1440, height: 900 },
      })
      await page.goto(`${s.url}/app/settings/roles`)
      await page.getByRole('table', { name: 'Roles in this workspace' }).waitFor()
      await page.getByLabel('Role name').fill('Role keeper')
      await page.getByRole('button', { name: 'Create role' }).click()
      await page.waitForURL(/\/app\/settings\/roles\/\d+$/)
      const id = Number(new URL(page.url()).pathname.split('/').pop())
      await page.getByRole('heading', { level: 1, name: 'Role keeper' }).waitFor()
      // Grouped as the catalogue groups them, each with what it allows.
      const settings = page.getByRole('group', { name: 'Settings' })
      await settings.getByLabel('Manage roles').check()
      expect(
        await settings.getByText('Create and change roles, granting only what they hold themselves.').count(),
      ).toBe(1)
      await page.getByRole('group', { name: 'Conversations' }).getByLabel('View conversations').check()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Saved.').waitFor()
      expect((await get(`/v1/roles/${id}`)).permissions).toEqual(['interactions.view', 'settings.roles'])

      await page.getByRole('button', { name: 'Duplicate' }).click()
      await page.getByRole('heading', { level: 1, name: 'Role keeper (copy)' }).waitFor()
      const copyId = Number(new URL(page.url()).pathname.split('/').pop())
      expect(copyId).not.toBe(id)
      expect((await get(`/v1/roles/${copyId}`)).permissions).toEqual(['interactions.view', 'settings.roles'])
      await page.getByRole('button', { name: 'Delete role' }).click()
      await page.getByText('Delete the role Role keeper (copy)?').waitFor()
      await page.getByRole('button', { name: 'Yes, go ahead' }).click()
      await page.waitForURL(/\/app\/settings\/roles$/)
      expect((await api(`/v1/roles/${copyId}`, { headers: owner.headers() })).status).toBe(404)

      // In use: the refusal in words, with who uses it.
      await F.member(s, w, 'Role keeper')
      await page.goto(`${s.url}/app/settings/roles/${id}`)
      await page.getByRole('button', { name: 'Delete role' }).click()
      await page.getByRole('button', { name: 'Yes, go ahead' }).click()
      await page
        .getByText(
          'This role is still given to members or invitations; give them another role first. Members with this role: 1; open invitations with it: 0.',
        )
        .waitFor()
      expect((await api(`/v1/roles/${id}`, { headers: owner.headers() })).status).toBe(200)
      await shots(page, 'people-role')
      await fitsPhone(page)

      // The Owner's role: read-only.
      const ownerRole = ((await get('/v1/roles')) as any[]).find((r) => r.is_owner)
      await page.goto(`${s.url}/app/settings/roles/${ownerRole.id}`)
      await page.getByText('The Owner’s role holds every permission and cannot be changed.').waitFor()
      expect(await page.getByRole('button', { name: 'Save changes' }).count()).toBe(0)
      expect(await page.getByLabel('Manage roles').isDisabled()).toBe(true)
      expect(await page.getByLabel('Manage roles').isChecked()).toBe(true)

      await page.goto(`${s.url}/app/settings/roles`)
      await page
        .locator(`tr[data-role-id="${id}"] [data-col=usage]`)
        .filter({ hasText: 'Members: 1 · Invitations: 0' })
        .waitFor()
      await shots(page, 'people-roles')
      await fitsPhone(page)
      expect(settledProblems(problems)).toEqual([])
      await context.close()
    })

    it('creates, edits and deletes teams, into a replacement of the same type when it has members', async () => {
      const agent = await person('Agent')
      await patch(`/v1/teams/${billing}`, { member_ids: [agent.userId] })
      const { context, page, problems } = await signedIn(browser, s, owner, {
        viewport: { width: 1440, height: 900 },
      })
      await page.goto(`${s.url}/app/settings/teams`)
      await page.getByTestId('teams-frontline').getByRole('link', { name: 'Support' }).waitFor()
      await page.getByRole('button', { name: 'New team' }).click()
      const form = page.getByTestId('new-team')
      await form.getByLabel('Team name').fill('Escalations')
      await form.getByLabel('Type').selectOption('backoffice')
      await form.getByLabel('Description').fill('Hard cases')
      await form.getByRole('group', { name: 'Members' }).getByLabel('Olivia Owner').check()
      await form.getByRole('button', { name: 'Create team' }).click()
      await page.waitForURL(/\/app\/settings\/teams\/\d+$/)
      const id = Number(new URL(page.url()).pathname.split('/').pop())
      expect(await get(`/v1/teams/${id}`)).toMatchObject({
        name: 'Escalations',
        type: 'backoffice',
        description: 'Hard cases',
        member_ids: [w.ownerId],
      })
      expect(await page.getByTestId('team-type').textContent()).toBe('Back office')

      await page.getByLabel('Team name').fill('Escalations L2')
      await page.getByRole('group', { name: 'Members' }).getByLabel('Olivia Owner').uncheck()
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Saved.').waitFor()
      expect(await get(`/v1/teams/${id}`)).toMatchObject({ name: 'Escalations L2', member_ids: [] })

      // Billing desk has a member: the server asks where they go.
      await page.goto(`${s.url}/app/settings/teams/${billing}`)
      const del = page.getByTestId('team-delete')
      await del.getByRole('button', { name: 'Delete team' }).click()
      await del.getByRole('button', { name: 'Yes, go ahead' }).click()
      await del
        .getByText('This team still has members or data. Choose another Back office team to take them over.')
        .waitFor()
      await shots(page, 'people-team')
      await del.getByLabel('Move its members and data to').selectOption({ label: 'Escalations L2' })
      await del.getByRole('button', { name: 'Delete and move' }).click()
      await del.getByRole('button', { name: 'Yes, go ahead' }).click()
      await page.waitForURL(/\/app\/settings\/teams$/)
      expect((await api(`/v1/teams/${billing}`, { headers: owner.headers() })).status).toBe(404)
      expect((await get(`/v1/teams/${id}`)).member_ids).toEqual([agent.userId])
      await page.getByTestId('teams-backoffice').getByRole('link', { name: 'Escalations L2' }).waitFor()
      expect(
        await page.getByTestId('teams-backoffice').getByRole('link', { name: 'Billing desk' }).count(),
      ).toBe(0)
      await shots(page, 'people-teams')
      await fitsPhone(page)
      expect(settledProblems(problems)).toEqual([])
      await context.close()
    })

    it('a role that manages roles but not members, one that manages members without admin rights, and a plain Agent, see only what they may; refusals in words, en and id', async () => {
      const keeperRole = ((await get('/v1/roles')) as any[]).find((r) => r.name === 'Role keeper')
      expect(keeperRole).toBeTruthy()
      const keeper = await person('Role keeper')
      const { context, page, problems } = await signedIn(browser, s, keeper.session, {
        viewport: { width: 1440, height: 900 },
      })
      await page.goto(`${s.url}/app/settings`)
      await page.getByRole('link', { name: /Roles/ }).waitFor()
      expect(await page.getByRole('link', { name: /^Members/ }).count()).toBe(0)
      expect(await page.getByRole('link', { name: /^Teams/ }).count()).toBe(0)
      await page.getByRole('link', { name: /Roles/ }).click()
      await page.getByRole('table', { name: 'Roles in this workspace' }).waitFor()
      expect(await page.getByRole('button', { name: 'Create role' }).count()).toBe(1)
      // Admin roles are not theirs to change; the catalogue marks what they cannot grant.
      const adminRole = ((await get('/v1/roles')) as any[]).find((r) => r.is_admin && !r.is_owner)
      await page.goto(`${s.url}/app/settings/roles/${adminRole.id}`)
      await page.getByText('You can see this role but not change it.').waitFor()
      await page.goto(`${s.url}/app/settings/roles/${keeperRole.id}`)
      expect(await page.getByLabel('Admin role (every permission)').count()).toBe(0)
      expect(await page.getByLabel('Manage channels').isDisabled()).toBe(true)
      await page
        .getByText(
          'Add, link and configure numbers, mailboxes, live chat and API channels. (You can only grant what you hold yourself)',
        )
        .waitFor()

      await page.goto(`${s.url}/app/settings/members`)
      expect(await page.getByTestId('refusal').textContent()).toBe('You do not have permission to do this.')
      expect(await page.getByRole('button', { name: 'Invite someone' }).count()).toBe(0)
      await page.goto(`${s.url}/app/settings/teams`)
      await page.getByText('Only people who manage members can change teams.').waitFor()
      expect(await page.getByRole('button', { name: 'New team' }).count()).toBe(0)
      expect(await page.getByTestId('teams-frontline').getByRole('link').count()).toBe(0)
      await accessible(page)
      expect(settledProblems(problems)).toEqual([])
      await context.close()

      // Managing members without admin rights: admins are not theirs to change or to make.
      const made = await api(
        '/v1/roles',
        F.json({ name: 'Member manager', permissions: ['settings.members'] }, owner.headers()),
      )
      expect(made.status).toBe(201)
      const manager = await person('Member manager')
      const m = await signedIn(browser, s, manager.session, { viewport: { width: 1440, height: 900 } })
      await m.page.goto(`${s.url}/app/settings/members`)
      await m.page.locator(`tr[data-email="${manager.email}"]`).waitFor()
      expect(
        await m.page
          .locator(`tr[data-email="${w.ownerEmail}"]`)
          .getByRole('button', { name: /^Edit/ })
          .count(),
      ).toBe(0)
      await m.page.getByRole('button', { name: 'Invite someone' }).click()
      const options = await m.page
        .getByTestId('invite-form')
        .getByLabel('Role')
        .locator('option')
        .allTextContents()
      // Only roles within what they hold themselves (the server refuses the rest), and no
      // "Can view all data", which they do not have.
      expect(options).toEqual(['Member manager'])
      expect(
        await m.page
          .getByTestId('invite-form')
          .getByRole('checkbox', { name: 'Can view all data' })
          .isDisabled(),
      ).toBe(true)
      await accessible(m.page)
      await shots(m.page, 'people-invite-limited')
      // In Indonesian too: the same one role, the same checkbox off.
      await setLocale(manager.session, 'id')
      await m.page.goto(`${s.url}/app/settings/members`)
      await m.page.getByRole('button', { name: 'Undang seseorang' }).click()
      const form = m.page.getByTestId('invite-form')
      expect(await form.getByLabel('Peran').locator('option').allTextContents()).toEqual(['Member manager'])
      expect(await form.getByRole('checkbox', { name: 'Dapat melihat semua data' }).isDisabled()).toBe(true)
      await shots(m.page, 'people-invite-limited-id')
      expect(settledProblems(m.problems)).toEqual([])
      await m.context.close()

      const agent = await person('Agent')
      await setLocale(agent.session, 'id')
      const a = await signedIn(browser, s, agent.session, { viewport: { width: 390, height: 844 } })
      for (const path of ['members', 'roles', `roles/${keeperRole.id}`]) {
        await a.page.goto(`${s.url}/app/settings/${path}`)
        expect(await a.page.getByTestId('refusal').textContent()).toBe(
          'Anda tidak memiliki izin untuk melakukan ini.',
        )
      }
      await shots(a.page, 'people-refused-id')
      await accessible(a.page)
      await a.context.close()
    })

    it('speaks Indonesian, fits a phone and passes axe on every page', async () => {
      await setLocale(owner, 'id')
      const teams = (await get('/v1/teams')) as any[]
      const roles = (await get('/v1/roles')) as any[]
      await api(
        '/v1/invitations',
        F.json(
          {
            email: `pending-${Date.now()}@example.com`,
            role_id: roles.find((r) => r.name === 'Agent').id,
            team_ids: [support],
          },
          owner.headers(),
        ),
      )
      const { context, page, problems } = await signedIn(browser, s, owner, {
        viewport: { width: 1440, height: 900 },
      })
      try {
        await page.goto(`${s.url}/app/settings/members`)
        await page.getByRole('heading', { level: 1, name: 'Anggota' }).waitFor()
        await page.getByRole('button', { name: 'Undang seseorang' }).click()
        await page.getByText('Dapat melihat semua data').waitFor()
        await page.getByRole('heading', { name: 'Undangan' }).waitFor()
        await page.getByTestId('invitations').getByText('Menunggu').first().waitFor()
        await page.getByText('Anggota tidak dihapus: menonaktifkan mencabut akses seseorang').waitFor()
        await shots(page, 'people-members-id')
        await fitsPhone(page)

        const keeper = roles.find((r) => r.name === 'Role keeper')
        await page.goto(`${s.url}/app/settings/roles/${keeper.id}`)
        await page.getByRole('group', { name: 'Pengaturan' }).getByLabel('Mengelola peran').waitFor()
        await page
          .getByText('Membuat dan mengubah peran, hanya dengan izin yang dimilikinya sendiri.')
          .waitFor()
        await shots(page, 'people-role-id')
        await fitsPhone(page)

        await page.goto(`${s.url}/app/settings/roles`)
        await page.getByRole('heading', { level: 1, name: 'Peran' }).waitFor()
        await page.getByRole('button', { name: 'Buat peran' }).waitFor()
        await fitsPhone(page)

        await page.goto(`${s.url}/app/settings/teams`)
        await page.getByRole('heading', { level: 2, name: 'Tim frontline' }).waitFor()
        await page.getByRole('heading', { level: 2, name: 'Tim back office' }).waitFor()
        await shots(page, 'people-teams-id')
        await fitsPhone(page)

        await page.goto(`${s.url}/app/settings/teams/${teams.find((t) => t.name === 'Support').id}`)
        await page.getByText('Jenis tidak dapat diubah setelah tim dibuat.').waitFor()
        expect(await page.getByTestId('team-type').textContent()).toBe('Frontline')
        await shots(page, 'people-team-id')
        await fitsPhone(page)
        expect(settledProblems(problems)).toEqual([])
      } finally {
        await setLocale(owner, 'en')
        await context.close()
      }
    })
  },
)
