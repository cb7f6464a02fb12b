import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch } from './support'
import * as W from './workspaceSupport'

/**
 * The reports screens end to end in headless Chromium, through real HTTP (/app/reports,
 * /app/reports/agents, /app/reports/agents/:id): customers write through the API channel and the
 * owner replies; the summary cards, the days, the hours and the breakdown by channel show the
 * API's figures for the range the page states; a new customer message raises today's figures
 * without a reload; the CSV links download the API's files; the agents' table and one person's
 * KPIs equal theirs; Indonesian; a range over 366 days reads the API's message; a role without
 * reports.view has no entry and reads the refusal; the Free plan reads the KPIs' refusal. axe at
 * 1440 and 390 px, screenshots in test-artifacts/app/reports-*.
 */
let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startTestServer()
  browser = await launch()
}, 90_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const get = async (p: string, session: F.Session) => I.body(await s.fetch(p, { headers: session.headers() }))
const nav = (page: Page) => page.locator('#sidenav')
const settled = (page: Page) => page.locator('[data-testid=connection][data-settled=true]').waitFor()
const card = async (page: Page, id: string) =>
  ((await page.getByTestId(`card-${id}`).textContent()) ?? '').trim()

/** A workspace with an API channel whose customers write in, and its owner signed in. */
const workspace = async (plan: 'pro' | 'free') => {
  const w = await F.workspace(s, { plan, name: 'Toko Laporan' })
  return { w, owner: await F.signIn(s, w.ownerEmail) }
}

const seeded = async () => {
  const { w, owner } = await workspace('pro')
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
  expect(made.status).toBe(201)
  const channel = (await I.body(made)).data
  const key = channel.credentials.key as string
  let n = 0
  const says = async (conversation: string, text: string) => {
    const r = await s.fetch(
      '/v1/channel-api/messages',
      F.json(
        {
          conversation_id: conversation,
          contact: { id: `c-${conversation}`, name: `Pelanggan ${conversation}`, email: null, phone: null },
          message: { id: `m-${conversation}-${++n}`, text },
        },
        F.bearer(key),
      ),
    )
    expect(r.status, await r.clone().text()).toBe(201)
  }
  return { w, owner, channelId: channel.id as number, says }
}

const reply = async (owner: F.Session, text: string) => {
  const list = await get('/v1/interactions?per_page=100', owner)
  const id = list.data.find((x: { preview: string | null }) => x.preview?.includes(text))?.id
  expect(id, text).toBeDefined()
  const r = await s.fetch(
    `/v1/interactions/${id}/messages`,
    F.json({ text: 'Baik, kami cek.' }, owner.headers()),
  )
  expect(r.status, await r.clone().text()).toBe(201)
}

describe.skipIf(lacks('chromium'))('the reports', () => {
  it("shows the API's figures, refreshes live, downloads the CSV files; agents and one person's KPIs", async () => {
    const { w, owner, channelId, says } = await seeded()
    await says('r-1', 'Halo, pesanan saya belum sampai')
    await says('r-1', 'Nomor pesanan 8812')
    await says('r-2', 'Apakah toko buka besok?')
    await reply(owner, 'Nomor pesanan 8812')

    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/reports`)
    await page.getByRole('heading', { level: 1, name: 'Reports' }).waitFor({ timeout: 30_000 })
    expect(await nav(page).getByRole('link', { name: 'Reports' }).getAttribute('href')).toBe('/app/reports')
    const report = page.getByTestId('report')
    await report.waitFor({ timeout: 30_000 })
    const from = (await report.getAttribute('data-from'))!
    const to = (await report.getAttribute('data-to'))!
    const range = `from=${from}&to=${to}`
    const summary = (await get(`/v1/reports/summary?${range}`, owner)).data
    expect(summary.messages_in).toBe(3)

    // The range, its zone and the comparison are stated; the cards are the API's.
    expect(await page.getByTestId('range').textContent()).toMatch(/\(30 days\)$/)
    expect(await page.getByTestId('zone').textContent()).toBe('Dates and hours in Asia/Jakarta.')
    expect(await page.getByTestId('range-note').textContent()).toContain('Compared with')
    expect(await card(page, 'conversations')).toBe(String(summary.conversations))
    expect(await card(page, 'messages_in')).toBe(String(summary.messages_in))
    expect(await card(page, 'messages_out')).toBe(String(summary.messages_out))
    expect(await card(page, 'unreplied')).toBe(String(summary.unreplied_now))
    expect(await card(page, 'tickets')).toBe(`${summary.tickets.created} / ${summary.tickets.resolved}`)
    expect(summary.first_response.count).toBe(1)
    expect(await card(page, 'first_response')).toMatch(/min|h/)

    // Per day and per hour: the charts, and the tables under them equal the API's rows.
    const daily = (await get(`/v1/reports/daily?${range}`, owner)).data
    expect(await page.getByTestId('daily-chart').locator('svg[role=img]').count()).toBe(1)
    await page.getByTestId('daily-chart').locator('..').getByText('The numbers as a table').click()
    const rows = page.getByTestId('daily-table').locator('tbody tr')
    expect(await rows.count()).toBe(daily.length)
    const last = daily[daily.length - 1]
    expect(await rows.last().getAttribute('data-date')).toBe(last.date)
    expect(await rows.last().locator('td').allTextContents()).toEqual([
      String(last.messages_in),
      String(last.messages_out),
      String(last.conversations),
    ])
    const hourly = (await get(`/v1/reports/hourly?${range}`, owner)).data
    await page.getByTestId('hourly-chart').locator('..').getByText('The numbers as a table').click()
    const hours = await page.getByTestId('hourly-table').locator('tbody td').allTextContents()
    expect(hours).toEqual(hourly.map((h: { messages_in: number }) => String(h.messages_in)))
    expect(await page.getByTestId('hourly-chart').locator('rect').count()).toBe(24)

    // The breakdown by channel, then by team (none yet).
    const byChannel = (await get(`/v1/reports/breakdown?${range}&type=channel`, owner)).data
    const row = page.getByTestId('breakdown-table').locator(`tr[data-row="${channelId}"]`)
    await row.waitFor()
    expect(await row.locator('td.rp-num').allTextContents()).toEqual(
      expect.arrayContaining([String(byChannel[0].conversations), String(byChannel[0].messages_in)]),
    )
    await page.getByRole('button', { name: 'Label' }).click()
    await page.locator('[data-testid=breakdown][data-kind=label]').waitFor()
    await page.getByText('Nothing to break down yet.').waitFor()
    await page.getByRole('button', { name: 'Channel' }).click()
    await row.waitFor()

    // The CSV files: the API's, with the page's range and filters.
    const link = page.getByTestId('exports').locator('a[data-type=daily]')
    const href = (await link.getAttribute('href'))!
    expect(href).toBe(`/v1/reports/export?${range}&type=daily`)
    const csv = await page.request.get(`${s.url}${href}`)
    expect(csv.status()).toBe(200)
    expect(csv.headers()['content-type']).toContain('text/csv')
    expect(await csv.text()).toContain('date,conversations,messages_in,messages_out')
    await W.checked(page, 'reports-overview-en')

    // A customer writes: today's figures rise without a reload.
    await settled(page)
    await says('r-3', 'Saya mau tanya ongkir')
    await page
      .getByTestId('card-messages_in')
      .getByText(String(summary.messages_in + 1), { exact: true })
      .waitFor({ timeout: 30_000 })
    expect(await card(page, 'conversations')).toBe(String(summary.conversations + 1))

    // A filter is kept in the address: one channel.
    await page.getByLabel('Channel', { exact: true }).selectOption(String(channelId))
    await page.waitForURL(new RegExp(`channel=${channelId}`))
    await report.waitFor()
    expect(await card(page, 'messages_in')).toBe(String(summary.messages_in + 1))

    // The agents: the API's table; a name opens that person's KPIs.
    await page.getByRole('navigation', { name: 'Report pages' }).getByRole('link', { name: 'Agents' }).click()
    await page.waitForURL(/\/app\/reports\/agents\?/)
    const agents = (await get(`/v1/reports/agents?${range}&channel_id=${channelId}`, owner)).data
    const mine = agents.find((a: { user: { id: number } }) => a.user.id === w.ownerId)
    const ownerRow = page.getByTestId('agents-table').locator(`tr[data-user="${w.ownerId}"]`)
    await ownerRow.waitFor({ timeout: 30_000 })
    expect(await ownerRow.locator('td[data-col=replies]').textContent()).toBe(String(mine.replies))
    expect(mine.replies).toBe(1)
    expect(await ownerRow.locator('td[data-col=first_responses]').textContent()).toBe(
      String(mine.first_responses),
    )
    await W.checked(page, 'reports-agents-en')

    await ownerRow.getByRole('link').click()
    await page.waitForURL(new RegExp(`/app/reports/agents/${w.ownerId}\\?`))
    await page.getByTestId('kpi').waitFor({ timeout: 30_000 })
    const kpi = (await get(`/v1/kpi/users/${w.ownerId}?${range}`, owner)).data
    expect(await page.getByTestId('kpi-replies').textContent()).toBe(String(kpi.frontline.replies))
    expect(await page.getByTestId('kpi-conversations').textContent()).toBe(
      String(kpi.frontline.conversations),
    )
    expect(await page.getByTestId('targets').locator('tbody tr').count()).toBe(kpi.targets.length)
    await page.getByRole('heading', { level: 1, name: `KPIs of ${kpi.user.name}` }).waitFor()
    const kpiCsv = await page.request.get(
      `${s.url}${await page.getByTestId('exports').locator('a[data-type=replies]').getAttribute('href')}`,
    )
    expect(kpiCsv.status()).toBe(200)
    expect(await kpiCsv.text()).toContain('conversation_id')
    await W.checked(page, 'reports-person-en')
    expect(problems).toEqual([])
    await ctx.close()
  }, 180_000)

  it('in Indonesian, over a custom range, with the API’s message for a range too long', async () => {
    const { owner, says } = await seeded()
    await says('r-id', 'Halo')
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, owner.headers()), method: 'PATCH' })
    const { context: ctx, page, problems } = await W.open(browser, s, owner)
    await page.goto(`${s.url}/app/reports`)
    await page.getByRole('heading', { level: 1, name: 'Laporan' }).waitFor({ timeout: 30_000 })
    await nav(page).getByRole('link', { name: 'Laporan' }).waitFor()
    await page.getByTestId('report').waitFor({ timeout: 30_000 })
    await page.getByRole('heading', { name: 'Pesan diterima', exact: true }).waitFor()
    expect(await card(page, 'messages_in')).toBe('1')
    await page.getByRole('heading', { name: 'Rincian' }).waitFor()
    await W.checked(page, 'reports-overview-id')

    // Custom dates: the range is in the address and the page says it.
    await page.getByLabel('Periode').selectOption('custom')
    await page.getByLabel('Dari', { exact: true }).fill('2026-01-01')
    await page.getByLabel('Sampai', { exact: true }).fill('2026-01-31')
    await page.getByRole('button', { name: 'Tampilkan' }).click()
    await page.waitForURL(/from=2026-01-01&to=2026-01-31/)
    await page.locator('[data-testid=report][data-from="2026-01-01"]').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('range').textContent()).toMatch(/\(31 hari\)$/)
    expect(await card(page, 'messages_in')).toBe('0')

    // Over 366 days: the API's own words, naming the field.
    await page.goto(`${s.url}/app/reports?from=2024-01-01&to=2025-12-31`)
    const refusal = page.getByTestId('reports').locator('.k-notice-bad')
    await refusal.waitFor({ timeout: 30_000 })
    const server = await get('/v1/reports/summary?from=2024-01-01&to=2025-12-31', owner)
    expect(await refusal.textContent()).toBe(`Sampai: ${server.error.fields.to}`)

    await page.goto(`${s.url}/app/reports/agents`)
    await page.getByTestId('agents-table').waitFor({ timeout: 30_000 })
    await page.getByRole('columnheader', { name: 'Balasan' }).waitFor()
    await W.checked(page, 'reports-agents-id')
    expect(problems).toEqual([])
    await ctx.close()
  }, 180_000)

  it('a role without reports.view has no entry and reads the refusal; the Free plan reads the KPIs’ refusal', async () => {
    const { w, owner } = await workspace('free')
    const roleId = await I.role(s, w, ['interactions.view', 'interactions.reply'])
    const member = await I.agent(s, w, roleId)
    const a = await W.open(browser, s, member.session)
    await a.page.goto(`${s.url}/app/inbox`)
    await nav(a.page).getByRole('link', { name: 'Inbox' }).waitFor({ timeout: 30_000 })
    expect(await nav(a.page).getByRole('link', { name: 'Reports' }).count()).toBe(0)
    await a.page.goto(`${s.url}/app/reports`)
    const refusal = a.page.getByTestId('reports').locator('.k-notice-bad')
    await refusal.waitFor({ timeout: 30_000 })
    const server = await get('/v1/reports/summary', member.session)
    expect(server.error.code).toBe('forbidden')
    expect(await refusal.textContent()).toBe(server.error.message)
    expect(a.problems).toEqual([])
    await a.context.close()

    // A reader without settings.workspace still reads the hours the times count in (the summary's
    // meta states them): here the new workspace's, off.
    const readerRole = await I.role(s, w, ['interactions.view', 'reports.view'])
    const reader = await I.agent(s, w, readerRole)
    expect((await get('/v1/settings', reader.session)).error.code).toBe('forbidden')
    const r = await W.open(browser, s, reader.session)
    await r.page.goto(`${s.url}/app/reports`)
    await r.page.getByTestId('report').waitFor({ timeout: 30_000 })
    expect(await r.page.getByTestId('hours').textContent()).toContain(
      'Business hours are off: times count around the clock.',
    )
    expect(r.problems).toEqual([])
    await r.context.close()

    // Free: the reports work, a person's KPIs are Pro's and say so in the API's words.
    const o = await W.open(browser, s, owner)
    await o.page.goto(`${s.url}/app/reports/agents/${w.ownerId}`)
    const plan = o.page.getByTestId('person-report').locator('.k-notice-bad')
    await plan.waitFor({ timeout: 30_000 })
    const refused = await get(`/v1/kpi/users/${w.ownerId}`, owner)
    expect(refused.error.code).toBe('plan_required')
    expect(await plan.textContent()).toBe(refused.error.message)
    expect(await o.page.getByRole('link', { name: 'See the plans' }).getAttribute('href')).toBe(
      '/app/settings/billing',
    )
    await W.checked(o.page, 'reports-person-free-en')
    await o.page.goto(`${s.url}/app/reports`)
    await o.page.getByTestId('report').waitFor({ timeout: 30_000 })
    expect(o.problems).toEqual([])
    await o.context.close()
  }, 180_000)
})
