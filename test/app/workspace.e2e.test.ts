import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch } from './support'
import * as W from './workspaceSupport'

/**
 * The workspace pages end to end in headless Chromium: /app/settings/workspace (name, time zone,
 * reply target, business hours with the server's per-field messages, a second person's page
 * following live, the Owner's ownership transfer) and /app/workspaces (answering a transfer,
 * creating, switching and leaving workspaces, the 409 refusal in words); a member without
 * `settings.workspace` sees the refusal in words; Indonesian; axe at 1440 and 390.
 */
let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startTestServer()
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const get = async (p: string, session: F.Session) => I.body(await s.fetch(p, { headers: session.headers() }))
const setLocale = (session: F.Session, locale: 'en' | 'id') =>
  s.fetch('/v1/me', { ...F.json({ locale }, session.headers()), method: 'PATCH' })

describe.skipIf(lacks('chromium'))('workspace settings', () => {
  it('the owner renames the workspace and changes its zone and reply target; a second page follows live', async () => {
    const w = await F.workspace(s, { plan: 'pro', name: 'Toko Maju' })
    const owner = await F.signIn(s, w.ownerEmail)
    const admin = await I.agent(s, w, 'Admin')
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    const other = await W.open(browser, s, admin.session)
    await other.page.goto(`${s.url}/app/settings/workspace`)
    await other.page.getByTestId('ws-general').waitFor({ timeout: 20_000 })
    await page.goto(`${s.url}/app/settings/workspace`)
    await page.getByRole('heading', { level: 1, name: 'Workspace' }).waitFor()
    const general = page.getByTestId('ws-general')
    expect(await general.getByLabel('Workspace name').inputValue()).toBe('Toko Maju')
    expect(await general.getByLabel('Time zone').inputValue()).toBe('Asia/Jakarta')
    await W.checked(page, 'ws-settings-en')

    // A name the server refuses: its message under the field, nothing saved.
    await general.getByLabel('Workspace name').fill('X')
    await general.getByRole('button', { name: 'Save' }).click()
    await general.locator('input[name=name][aria-invalid=true]').waitFor()
    const refused = await I.body(
      await s.fetch('/v1/workspace', { ...F.json({ name: 'X' }, owner.headers()), method: 'PATCH' }),
    )
    expect(refused.error.fields.name).toBeTruthy()
    const nameField = general.getByLabel('Workspace name')
    const errId = (await nameField.getAttribute('aria-describedby'))!.split(' ')[0]!
    expect(await page.locator(`#${errId}`).textContent()).toBe(refused.error.fields.name)
    await general.getByText('Check the marked fields.').waitFor()

    await nameField.fill('Toko Maju Jaya')
    await general.getByLabel('Time zone').selectOption('Asia/Makassar')
    await general.getByLabel('Reply target').selectOption({ label: '30 minutes' })
    await general.getByLabel('Warn at').selectOption({ label: '90% of the target' })
    await general.getByRole('button', { name: 'Save' }).click()
    await general.getByText('Saved.').waitFor()
    const after = (await get('/v1/settings', owner)).data
    expect(after).toMatchObject({
      name: 'Toko Maju Jaya',
      timezone: 'Asia/Makassar',
      response_target_minutes: 30,
      response_warn_percent: 90,
    })
    // The top bar's switcher follows the new name.
    await page
      .locator('select[aria-label="Workspace"] option', { hasText: 'Toko Maju Jaya' })
      .waitFor({ state: 'attached' })

    // The admin's open page shows the change without a reload, and says why.
    await other.page.getByText('Someone else changed these settings; the page shows their version.').waitFor()
    await expect
      .poll(() => other.page.getByTestId('ws-general').getByLabel('Workspace name').inputValue(), {
        timeout: 15_000,
      })
      .toBe('Toko Maju Jaya')
    expect(await other.page.getByTestId('ws-general').getByLabel('Time zone').inputValue()).toBe(
      'Asia/Makassar',
    )
    // Not the Owner: no ownership transfer.
    expect(await other.page.getByTestId('ws-ownership').count()).toBe(0)
    expect(problems).toEqual([])
    expect(other.problems).toEqual([])
    await other.context.close()
    await ctx.close()
  })

  it('sets business hours; a day closing before it opens is refused beside that day', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/settings/workspace`)
    const hours = page.getByTestId('ws-hours')
    await hours.waitFor({ timeout: 20_000 })
    await hours.getByLabel('Use business hours').check()
    await hours.getByLabel('Open on Saturday').check()
    await hours.getByLabel('Opens on Saturday').fill('18:00')
    await hours.getByLabel('Closes on Saturday').fill('10:00')
    await hours.getByLabel('Opens on Monday').fill('09:00')
    await hours.getByRole('button', { name: 'Save business hours' }).click()
    const saturday = hours.locator('tr[data-day="6"]')
    await saturday.locator('.k-error').waitFor()
    expect(await saturday.locator('.k-error').textContent()).toBe('must open before it closes')
    expect(await saturday.getByLabel('Closes on Saturday').getAttribute('aria-invalid')).toBe('true')
    // Only the day's own message: not the whole object's "is invalid" besides.
    expect(await hours.locator('.k-error').count()).toBe(1)
    expect((await get('/v1/settings', owner)).data.business_hours.enabled).toBe(false)
    await W.checked(page, 'ws-hours-refused-en')

    await hours.getByLabel('Closes on Saturday').fill('21:30')
    await hours.getByRole('button', { name: 'Save business hours' }).click()
    await hours.getByText('Saved.').waitFor()
    const bh = (await get('/v1/settings', owner)).data.business_hours
    expect(bh.enabled).toBe(true)
    expect(bh.days.find((d: any) => d.day === 6)).toEqual({ day: 6, open: true, from: '18:00', to: '21:30' })
    expect(bh.days.find((d: any) => d.day === 1)).toEqual({ day: 1, open: true, from: '09:00', to: '17:00' })
    expect(bh.days.find((d: any) => d.day === 7)).toMatchObject({ open: false })
    // After a reload the page shows what was saved.
    await page.reload()
    await hours.waitFor({ timeout: 20_000 })
    expect(await hours.getByLabel('Use business hours').isChecked()).toBe(true)
    expect(await hours.getByLabel('Closes on Saturday').inputValue()).toBe('21:30')
    expect(await hours.getByLabel('Opens on Sunday').isDisabled()).toBe(true)
    expect(problems).toEqual([])
    await ctx.close()
  })

  it('in Indonesian', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    await setLocale(owner, 'id')
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/settings/workspace`)
    await page.getByRole('heading', { level: 1, name: 'Ruang kerja' }).waitFor({ timeout: 20_000 })
    await page.getByLabel('Nama ruang kerja').waitFor()
    await page.getByRole('heading', { name: 'Jam kerja' }).waitFor()
    await page.getByRole('rowheader', { name: 'Senin' }).waitFor()
    await page.getByRole('heading', { name: 'Kepemilikan' }).waitFor()
    expect(await page.getByLabel('Target balasan').locator('option:checked').textContent()).toMatch(
      /menit|jam/,
    )
    await page.getByLabel('Gunakan jam kerja').check()
    await page.getByRole('button', { name: 'Simpan jam kerja' }).click()
    await page.getByText('Tersimpan.').waitFor()
    await W.checked(page, 'ws-settings-id')
    expect(problems).toEqual([])
    await ctx.close()
  })

  it('a member without settings.workspace gets the refusal in words', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const agent = await I.agent(s, w)
    const { context: ctx, page, problems } = await W.open(browser, s, agent.session)
    await page.goto(`${s.url}/app/settings/workspace`)
    const refusal = page.getByTestId('workspace-settings').locator('.k-notice-bad')
    await refusal.waitFor({ timeout: 20_000 })
    const server = await I.body(await s.fetch('/v1/settings', { headers: agent.session.headers() }))
    expect(server.error.code).toBe('forbidden')
    expect(await refusal.textContent()).toBe(server.error.message)
    expect(await refusal.textContent()).not.toContain('settings.workspace')
    expect(await page.getByLabel('Workspace name').count()).toBe(0)
    expect(await page.getByTestId('ws-hours').count()).toBe(0)
    await W.checked(page, 'ws-settings-refused-en')
    expect(problems).toEqual([])
    await ctx.close()
  })
})

describe.skipIf(lacks('chromium'))('ownership transfer', () => {
  it('the owner asks, cancels, asks again; the recipient sees it on the dashboard and accepts', async () => {
    const w = await F.workspace(s, { plan: 'pro', name: 'Warung Sari' })
    const owner = await F.signIn(s, w.ownerEmail)
    const admin = await I.agent(s, w, 'Admin')
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/settings/workspace`)
    const box = page.getByTestId('ws-ownership')
    await box.waitFor({ timeout: 20_000 })
    await box.getByLabel('New owner').selectOption(String(admin.user.id))
    await box.getByLabel('Type the workspace name to confirm').fill('Warung Salah')
    await box.getByRole('button', { name: 'Ask to take over' }).click()
    await box.locator('input[name=confirm_name][aria-invalid=true]').waitFor()
    expect(await box.getByText("must be the workspace's name").count()).toBe(1)
    expect((await get('/v1/workspace/transfer', owner)).data.pending).toBeNull()

    await box.getByLabel('Type the workspace name to confirm').fill('Warung Sari')
    await box.getByRole('button', { name: 'Ask to take over' }).click()
    await box.getByTestId('transfer-pending').waitFor()
    expect(await box.getByTestId('transfer-pending').textContent()).toContain('You leave once they accept.')
    expect((await get('/v1/workspace/transfer', owner)).data.pending).toMatchObject({
      to: { id: admin.user.id },
      stay: false,
      status: 'pending',
    })
    await W.checked(page, 'ws-transfer-pending-en')
    // Cancelled: nothing pending.
    await box.getByRole('button', { name: 'Cancel the request' }).click()
    await box.getByRole('button', { name: 'Yes, go ahead' }).click()
    await box.getByText('Request cancelled.').waitFor()
    expect((await get('/v1/workspace/transfer', owner)).data.pending).toBeNull()

    // The recipient's dashboard, open before the request, shows it when it comes.
    const them = await W.open(browser, s, admin.session)
    await them.page.goto(`${s.url}/app/dashboard`)
    await them.page.getByRole('heading', { name: 'Teams' }).waitFor({ timeout: 20_000 })
    expect(await them.page.getByTestId('transfer-notice').count()).toBe(0)

    // Asked again, staying on as an Admin.
    await box.getByLabel('New owner').selectOption(String(admin.user.id))
    await box.getByLabel('I stay in the workspace as a member').check()
    await box.getByLabel('My role after the transfer').selectOption({ label: 'Admin' })
    await box.getByLabel('Type the workspace name to confirm').fill('Warung Sari')
    await box.getByRole('button', { name: 'Ask to take over' }).click()
    await box.getByTestId('transfer-pending').waitFor()
    expect(await box.getByTestId('transfer-pending').textContent()).toContain('You stay as Admin.')

    // The recipient: a notice on the dashboard, answered on /workspaces.
    const notice = them.page.getByTestId('transfer-notice')
    await notice.waitFor({ timeout: 20_000 })
    expect(await notice.textContent()).toContain('Olivia Owner asks you to take over Warung Sari.')
    await notice.getByRole('link', { name: 'Review the request' }).click()
    await them.page.waitForURL(/\/app\/workspaces$/)
    const request = them.page.locator('[data-testid^=transfer-]').filter({ hasText: 'Olivia Owner asks you' })
    await request.waitFor()
    expect(await request.textContent()).toContain('Olivia Owner stays as a member after the transfer.')
    await W.checked(them.page, 'ws-transfer-incoming-en')
    await request.getByRole('button', { name: 'Accept and become Owner' }).click()
    await request.getByText('Become the Owner of Warung Sari?').waitFor()
    await request.getByRole('button', { name: 'Yes, go ahead' }).click()
    await them.page.waitForURL(/\/app\/(inbox|dashboard)$/, { timeout: 20_000 })
    const meNow = (await get('/v1/me', admin.session)).data
    expect(meNow.is_owner).toBe(true)
    expect(meNow.workspace.id).toBe(w.workspaceId)
    // The previous owner stays, as an Admin.
    const ownerMe = (await get('/v1/me', owner)).data
    expect(ownerMe.is_owner).toBe(false)
    expect(ownerMe.role.name).toBe('Admin')
    expect(problems).toEqual([])
    expect(them.problems).toEqual([])
    await them.context.close()
    await ctx.close()
  }, 90_000)

  it('the recipient declines (Indonesian)', async () => {
    const w = await F.workspace(s, { plan: 'pro', name: 'Kedai Kopi' })
    const owner = await F.signIn(s, w.ownerEmail)
    const admin = await I.agent(s, w, 'Admin')
    await setLocale(admin.session, 'id')
    const asked = await s.fetch(
      '/v1/workspace/transfer',
      F.json({ to_user_id: admin.user.id, confirm_name: 'Kedai Kopi' }, owner.headers()),
    )
    expect(asked.status).toBe(201)
    // The owner's page shows the request pending, then the form again once it is declined.
    const theirs = await W.open(browser, s, owner)
    await theirs.page.goto(`${s.url}/app/settings/workspace`)
    await theirs.page.getByTestId('transfer-pending').waitFor({ timeout: 20_000 })
    const { context: ctx, page, problems } = await W.open(browser, s, admin.session)
    await page.goto(`${s.url}/app/workspaces`)
    await page.getByRole('heading', { level: 1, name: 'Ruang kerja Anda' }).waitFor({ timeout: 20_000 })
    await page.getByRole('heading', { name: 'Permintaan kepemilikan untuk Anda' }).waitFor()
    await page.getByText('Olivia Owner meminta Anda menjadi Pemilik Kedai Kopi.').waitFor()
    await W.checked(page, 'ws-transfer-incoming-id')
    await page.getByRole('button', { name: 'Tolak' }).click()
    await page.getByText('Anda menolak permintaan itu.').waitFor()
    expect((await get('/v1/workspace/transfer', owner)).data.pending).toBeNull()
    expect((await get('/v1/me/transfers', admin.session)).data).toEqual([])
    await theirs.page.getByTestId('ws-ownership').getByLabel('New owner').waitFor({ timeout: 20_000 })
    expect(await theirs.page.getByTestId('transfer-pending').count()).toBe(0)
    expect(problems).toEqual([])
    expect(theirs.problems).toEqual([])
    await theirs.context.close()
    await ctx.close()
  }, 90_000)
})

describe.skipIf(lacks('chromium'))('your workspaces', () => {
  it('a member creates a workspace, is refused a second in words, switches back and leaves', async () => {
    const w = await F.workspace(s, { plan: 'pro', name: 'Toko Induk' })
    const agent = await I.agent(s, w)
    const { context: ctx, page, problems } = await W.open(browser, s, agent.session)
    // A second tab opened before the creation still offers the form: the server refuses it there.
    const late = await ctx.newPage()
    await late.goto(`${s.url}/app/workspaces`)
    await late.getByTestId('create-workspace').waitFor({ timeout: 20_000 })
    await page.goto(`${s.url}/app/workspaces`)
    const list = page.getByTestId('workspace-list')
    await list.waitFor({ timeout: 20_000 })
    const row = list.locator(`tr[data-workspace="${w.workspaceId}"]`)
    expect(await row.textContent()).toContain('Toko Induk')
    expect(await row.textContent()).toContain('Agent')
    expect(await row.textContent()).toContain('Current')
    await W.checked(page, 'ws-workspaces-en')

    const create = page.getByTestId('create-workspace')
    await create.getByLabel('Workspace name').fill('Cabang Dua')
    await create.getByLabel('Time zone').selectOption('Asia/Jayapura')
    await create.getByRole('button', { name: 'Create' }).click()
    await page.waitForURL(/\/app\/(inbox|dashboard)$/, { timeout: 20_000 })
    const mine = await get('/v1/workspaces', agent.session)
    const made = mine.data.find((x: any) => x.name === 'Cabang Dua')
    expect(made).toMatchObject({ is_owner: true, is_active: true, timezone: 'Asia/Jayapura', plan: 'free' })
    expect(mine.meta.create).toBe(false)

    const refusedTab = late.getByTestId('create-workspace')
    await refusedTab.getByLabel('Workspace name').fill('Cabang Tiga')
    await refusedTab.getByRole('button', { name: 'Create' }).click()
    const refusal = late.locator('.k-notice-bad')
    await refusal.waitFor()
    const server = await s.fetch(
      '/v1/workspaces',
      F.json({ name: 'Cabang Tiga', timezone: 'Asia/Jakarta' }, agent.session.headers()),
    )
    expect(server.status).toBe(409)
    expect(await refusal.textContent()).toBe(`Not created: ${(await I.body(server)).error.message}`)
    expect((await get('/v1/workspaces', agent.session)).data).toHaveLength(2)

    // The page now says why no other can be created, and the owner cannot leave.
    await page.goto(`${s.url}/app/workspaces`)
    await page.getByTestId('create-limit').waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('create-limit').textContent()).toMatch(
      /^You own 1 of the 1 workspaces your account may own|^Your account cannot own another workspace/,
    )
    expect(await page.getByTestId('owner-cannot-leave').textContent()).toContain(
      'As the Owner you cannot leave Cabang Dua',
    )
    // Back to the first workspace, then leave it.
    await page.getByRole('button', { name: 'Switch to Toko Induk' }).click()
    // The app starts afresh in the workspace switched to, on its home page.
    await page.waitForURL(/\/app\/(inbox|dashboard)$/, { timeout: 20_000 })
    await expect.poll(async () => (await get('/v1/me', agent.session)).data.workspace.id).toBe(w.workspaceId)
    await page.goto(`${s.url}/app/workspaces`)
    await page.getByRole('button', { name: 'Leave Toko Induk' }).click({ timeout: 20_000 })
    await page.getByText('Leave Toko Induk for good?').waitFor()
    await page.getByRole('button', { name: 'Yes, go ahead' }).click()
    await expect
      .poll(async () => (await get('/v1/workspaces', agent.session)).data.map((x: any) => x.name))
      .toEqual(['Cabang Dua'])
    expect(problems).toEqual([])
    await ctx.close()
  })
})
