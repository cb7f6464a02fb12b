import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch } from './support'
import * as W from './workspaceSupport'

/**
 * The dashboard (/app/dashboard, `dashboard.view`) end to end in headless Chromium: the owner sees
 * getting started (each step linking to its page), plan usage, the last 14 days as bars and as a
 * table, recent activity and the teams, a new team appearing live; an agent sees the teams only;
 * a role without `dashboard.view` has no nav entry and reads the refusal in words; Indonesian;
 * the inbox's checklist links to the same pages; axe at 1440 and 390.
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
const step = (page: Page, key: string) => page.locator(`[data-testid=getting-started] [data-step=${key}]`)
const nav = (page: Page) => page.locator('#sidenav')

describe.skipIf(lacks('chromium'))('the dashboard', () => {
  it('the owner sees every part; each step links to its page; a new team appears live', async () => {
    const w = await F.workspace(s, { plan: 'pro', name: 'Toko Dasbor' })
    const owner = await F.signIn(s, w.ownerEmail)
    const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
    expect(made.status).toBe(201)
    const conv = await I.conversation(s, w, { channelId: (await I.body(made)).data.id })
    await I.inbound(s, conv.id, 'Halo, apakah toko buka?')
    // Something the audit log records, for recent activity.
    const changed = await s.fetch('/v1/settings', {
      ...F.json({ response_target_minutes: 15 }, owner.headers()),
      method: 'PATCH',
    })
    expect(changed.status).toBe(200)
    const server = (await get('/v1/dashboard', owner)).data

    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/dashboard`)
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor({ timeout: 20_000 })
    expect(await nav(page).getByRole('link', { name: 'Dashboard' }).getAttribute('href')).toBe(
      '/app/dashboard',
    )

    // Getting started: 1 of 5 (the channel); the others link to where they are done.
    await page.getByTestId('getting-started').waitFor()
    expect(await page.getByTestId('gs-progress').textContent()).toBe('1 of 5 done')
    const links: Record<string, [string, string]> = {
      team: ['Open Teams', '/app/settings/teams'],
      invite: ['Open Members', '/app/settings/members'],
      business_hours: ['Open business hours', '/app/settings/workspace'],
      first_reply: ['Open the inbox', '/app/inbox'],
    }
    for (const [key, [name, href]] of Object.entries(links))
      expect(await step(page, key).getByRole('link', { name }).getAttribute('href')).toBe(href)
    expect(await step(page, 'channel').getByRole('link').count()).toBe(0)

    // Plan usage as the server counts it.
    const quota = page.getByTestId('quota')
    const channels = server.quota.channels
    expect(await quota.locator('[data-counter=channels]').textContent()).toContain(
      channels.limit > 0 ? `${channels.used} of ${channels.limit}` : `${channels.used} (no limit)`,
    )
    expect(await quota.locator('[data-counter=users]').textContent()).toContain('Members')

    // 14 days: bars with a summary, and the numbers per day.
    const activity = page.getByTestId('activity')
    expect(await activity.locator('[role=img]').count()).toBe(1)
    expect(await activity.locator('figcaption').textContent()).toBe(
      'In the last 14 days, received: 1, sent: 0, new conversations: 1.',
    )
    // A bar per day and direction; today's received bar is the tallest.
    expect(await activity.locator('.wsx-cols span').count()).toBe(28)
    expect(await activity.locator('.wsx-day').last().locator('.wsx-in').getAttribute('style')).toContain(
      'height: 100%',
    )
    await page.getByText('The numbers per day').click()
    const rows = page.getByTestId('activity-table').locator('tbody tr')
    expect(await rows.count()).toBe(14)
    const today = server.activity.days[13]
    expect(await rows.nth(13).getAttribute('data-date')).toBe(today.date)
    expect(await rows.nth(13).locator('td').allTextContents()).toEqual(['1', '0', '1'])

    // Recent activity: the server's newest entry first.
    const recent = page.getByTestId('recent')
    expect(await recent.locator('li').first().textContent()).toContain(server.recent[0].label)
    expect(await page.getByRole('link', { name: 'Full audit log' }).getAttribute('href')).toBe(
      '/app/settings/audit',
    )
    await page.getByText('No teams yet.').waitFor()
    await W.checked(page, 'dashboard-owner-en')

    // A team made elsewhere: listed and ticked without a reload.
    const team = await s.fetch(
      '/v1/teams',
      F.json({ name: 'Tim Penjualan', type: 'frontline' }, owner.headers()),
    )
    expect(team.status).toBe(201)
    await page
      .getByTestId('teams')
      .getByRole('rowheader', { name: 'Tim Penjualan' })
      .waitFor({ timeout: 20_000 })
    await step(page, 'team').and(page.locator('[data-done=true]')).waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('gs-progress').textContent()).toBe('2 of 5 done')

    // The link goes to its page.
    await step(page, 'business_hours').getByRole('link').click()
    await page.waitForURL(/\/app\/settings\/workspace$/)
    await page.getByTestId('ws-hours').waitFor({ timeout: 20_000 })
    expect(problems).toEqual([])
    await ctx.close()
  })

  it('in Indonesian', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, owner.headers()), method: 'PATCH' })
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/dashboard`)
    await page.getByRole('heading', { level: 1, name: 'Dasbor' }).waitFor({ timeout: 20_000 })
    await nav(page).getByRole('link', { name: 'Dasbor' }).waitFor()
    await page.getByRole('heading', { name: 'Memulai' }).waitFor()
    expect(await page.getByTestId('gs-progress').textContent()).toBe('0 dari 5 selesai')
    await page.getByRole('heading', { name: 'Pemakaian paket' }).waitFor()
    await page.getByRole('heading', { name: '14 hari terakhir' }).waitFor()
    await page.getByRole('heading', { name: 'Aktivitas terbaru' }).waitFor()
    await page.getByText('Belum ada tim.').waitFor()
    expect(await step(page, 'team').getByRole('link').textContent()).toBe('Buka Tim')
    await W.checked(page, 'dashboard-owner-id')
    expect(problems).toEqual([])
    await ctx.close()
  })

  it('an agent sees the teams only; the parts needing other permissions are absent', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const agent = await I.agent(s, w)
    await I.team(s, w, [agent.user.id])
    const server = await get('/v1/dashboard', agent.session)
    expect(server.meta.hidden).toEqual(['getting_started', 'quota', 'activity', 'recent'])
    const { context: ctx, page, problems } = await W.open(browser, s, agent.session)
    await page.goto(`${s.url}/app/dashboard`)
    await page.getByTestId('teams').waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('teams').locator('tbody tr td').first().textContent()).toBe('1')
    for (const id of ['getting-started', 'quota', 'activity', 'recent'])
      expect(await page.getByTestId(id).count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Manage teams' }).count()).toBe(0)
    await W.checked(page, 'dashboard-agent-en')
    expect(problems).toEqual([])
    await ctx.close()
  })

  it('a role without dashboard.view has no Dashboard entry and reads the refusal in words', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const roleId = await I.role(s, w, ['interactions.view', 'interactions.reply'])
    const member = await I.agent(s, w, roleId)
    const { context: ctx, page, problems } = await W.open(browser, s, member.session)
    await page.goto(`${s.url}/app/inbox`)
    await nav(page).getByRole('link', { name: 'Inbox' }).waitFor({ timeout: 20_000 })
    expect(await nav(page).getByRole('link', { name: 'Dashboard' }).count()).toBe(0)
    await page.goto(`${s.url}/app/dashboard`)
    const refusal = page.getByTestId('dashboard').locator('.k-notice-bad')
    await refusal.waitFor({ timeout: 20_000 })
    const server = await I.body(await s.fetch('/v1/dashboard', { headers: member.session.headers() }))
    expect(server.error.code).toBe('forbidden')
    expect(await refusal.textContent()).toBe(server.error.message)
    expect(await refusal.textContent()).not.toContain('dashboard.view')
    await W.checked(page, 'dashboard-refused-en')
    expect(problems).toEqual([])
    await ctx.close()
  })
})

describe.skipIf(lacks('chromium'))("the empty inbox's checklist", () => {
  it('links each step to its page', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/inbox`)
    await page.getByTestId('getting-started').waitFor({ timeout: 20_000 })
    const expected: Record<string, string> = {
      channel: '/app/channels',
      team: '/app/settings/teams',
      invite: '/app/settings/members',
      business_hours: '/app/settings/workspace',
    }
    for (const [key, href] of Object.entries(expected))
      expect(await step(page, key).getByRole('link').getAttribute('href')).toBe(href)
    // In the inbox already: no link to it.
    expect(await step(page, 'first_reply').getByRole('link').count()).toBe(0)
    // No step talks about the API any more.
    expect(await page.getByTestId('getting-started').textContent()).not.toMatch(/API \(|POST|PATCH/)
    await step(page, 'team').getByRole('link').click()
    await page.waitForURL(/\/app\/settings\/teams$/)
    expect(problems).toEqual([])
    await ctx.close()
  })
})
