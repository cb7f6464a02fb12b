import * as path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings, wholePage } from './channelsSupport'
import { ARTIFACTS, launch, shots, signedIn } from './support'

/**
 * The settings every channel has, edited on its page (/app/channels/{id}) in headless Chromium
 * against a real server: rename, business hours (the workspace's, around the clock, or the
 * channel's own week, with the server's 422 under the day's field), automatic replies, and the
 * live chat's e-mail fallback; each checked through `GET /v1/channels/{id}`. A second person's
 * open page follows (`channel.updated`); a member without `channels.manage` gets the refusal in
 * words and nothing to edit; Indonesian; axe at 1440 and 390. The mailbox's own settings:
 * channelsSettings-email.e2e.test.ts.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser

beforeAll(async () => {
  s = await startTestServer({
    MSGAPP_TRANSPORT: 'test',
    MSGAPP_POLL_MS: '100',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const call = async (p: string, session: F.Session, init: { method?: string; body?: unknown } = {}) => {
  const res = await s.fetch(p, {
    method: init.method ?? 'GET',
    headers: session.headers(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  })
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}
const channel = async (id: number) => (await call(`/v1/channels/${id}`, owner)).body.data
const create = async (path: string, body: Record<string, unknown>) => {
  const r = await call(path, owner, { method: 'POST', body })
  expect(r.status).toBe(201)
  return r.body.data.id as number
}
const setLocale = async (session: F.Session, locale: 'en' | 'id') =>
  expect((await call('/v1/me', session, { method: 'PATCH', body: { locale } })).status).toBe(200)

/** No serious or critical axe-core finding, at 1440 and at 390 px. */
const accessibleBoth = async (page: Page) => {
  const size = page.viewportSize()!
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    // The pointer off every control: a hovered primary button is the kit's own matter (report).
    await page.mouse.move(1, 1)
    expect(await axeFindings(page)).toEqual([])
    // No sideways scrolling of the page on a phone.
    if (width === 390)
      expect(
        await page.evaluate(() => {
          const el = (globalThis as any).document.querySelector('.k-page')
          return el.scrollWidth <= el.clientWidth
        }),
      ).toBe(true)
  }
  await page.setViewportSize(size)
}

/** The text of the message a field points at (aria-describedby). */
const messageOf = async (page: Page, field: ReturnType<Page['getByLabel']>) => {
  const id = (await field.getAttribute('aria-describedby'))!.split(' ')[0]!
  return page.locator(`[id="${id}"]`).textContent()
}

const PAGE_ERRORS = (problems: readonly string[]) =>
  problems.filter((p) => !p.startsWith('Failed to load resource'))

describe.skipIf(lacks('chromium'))("a channel's common settings", () => {
  it("an owner renames a live chat, gives it its own week and automatic replies, turns the e-mail fallback off; a second person's page follows", async () => {
    const id = await create('/v1/channels/livechat', { name: 'Website chat' })
    const before = await channel(id)
    expect(before.hours).toBeNull()
    expect(before.livechat.email_fallback).toBe(true)

    // The second person: an admin with the page open.
    const adminUser = await F.member(s, w, 'Admin')
    const admin = await signedIn(browser, s, await F.signIn(s, adminUser.email))
    await admin.page.goto(`${s.url}/app/channels/${id}`)
    await admin.page.getByRole('heading', { level: 1, name: 'Website chat' }).waitFor()
    // And the list, in another tab of theirs.
    const adminList = await admin.context.newPage()
    await adminList.goto(`${s.url}/app/channels`)
    await adminList.locator(`tr[data-channel-id="${id}"]`).getByText('Website chat').waitFor()

    const {
      context: ctx,
      page,
      problems,
    } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/channels/${id}`)
    await page.getByRole('heading', { level: 1, name: 'Website chat' }).waitFor()

    // 1. Rename.
    const nameForm = page.getByTestId('channel-name')
    await nameForm.getByLabel('Channel name').fill('Shop chat')
    await page.getByRole('button', { name: 'Save name' }).click()
    await nameForm.getByText('Saved.', { exact: true }).waitFor()
    expect((await channel(id)).name).toBe('Shop chat')
    await page.getByRole('heading', { level: 1, name: 'Shop chat' }).waitFor()
    // Live on the other page: its header and its (unedited) name field; and in the list.
    await admin.page.getByRole('heading', { level: 1, name: 'Shop chat' }).waitFor()
    await adminList.locator(`tr[data-channel-id="${id}"]`).getByRole('link', { name: 'Shop chat' }).waitFor()
    expect(await admin.page.getByTestId('channel-name').getByLabel('Channel name').inputValue()).toBe(
      'Shop chat',
    )

    // 2. Business hours: the workspace's to start with; its own week with the server's refusals.
    const hoursForm = page.getByTestId('channel-hours')
    expect(await hoursForm.getByLabel("The workspace's business hours").isChecked()).toBe(true)
    expect(await page.getByTestId('week').count()).toBe(0)
    await hoursForm.getByLabel('Its own hours').check()
    const week = page.getByTestId('week')
    await week.waitFor()
    // A new week: Monday to Friday, nine to five.
    expect(await week.getByLabel('Monday: opens at').inputValue()).toBe('09:00')
    expect(await week.getByRole('checkbox', { name: 'Saturday' }).isChecked()).toBe(false)
    await week.getByLabel('Monday: opens at').fill('25:00')
    await week.getByLabel('Tuesday: opens at').fill('18:00')
    await week.getByLabel('Tuesday: closes at').fill('09:00')
    // What the server says about the same week, field by field.
    const refused = await call(`/v1/channels/${id}`, owner, {
      method: 'PATCH',
      body: {
        hours: {
          enabled: true,
          days: [
            { day: 1, open: true, from: '25:00', to: '17:00' },
            { day: 2, open: true, from: '18:00', to: '09:00' },
          ],
        },
      },
    })
    expect(refused.status).toBe(422)
    const fields = refused.body.error.fields as Record<string, string>
    expect(fields['hours.days.1']).toBe('must open before it closes')
    expect(fields['hours.days.0.from']).toBeTruthy()
    await page.getByRole('button', { name: 'Save business hours' }).click()
    await hoursForm.getByText('Check the marked fields.').waitFor()
    expect(await messageOf(page, week.getByLabel('Monday: opens at'))).toBe(fields['hours.days.0.from'])
    expect(await messageOf(page, week.getByLabel('Tuesday: closes at'))).toBe('must open before it closes')
    expect(await week.getByLabel('Monday: opens at').getAttribute('aria-invalid')).toBe('true')
    expect((await channel(id)).hours).toBeNull()
    await week.scrollIntoViewIfNeeded()
    await shots(page, 'channel-settings-hours-refused')

    await week.getByLabel('Monday: opens at').fill('08:00')
    await week.getByLabel('Monday: closes at').fill('16:30')
    await week.getByLabel('Tuesday: opens at').fill('09:00')
    await week.getByLabel('Tuesday: closes at').fill('24:00')
    await week.getByRole('checkbox', { name: 'Friday' }).uncheck()
    expect(await week.getByLabel('Friday: opens at').count()).toBe(0)
    await week.getByRole('checkbox', { name: 'Saturday' }).check()
    await week.getByLabel('Saturday: opens at').fill('10:00')
    await week.getByLabel('Saturday: closes at').fill('14:00')
    await page.getByRole('button', { name: 'Save business hours' }).click()
    await hoursForm.getByText('Saved.', { exact: true }).waitFor()
    expect((await channel(id)).hours).toEqual({
      enabled: true,
      days: [
        { day: 1, open: true, from: '08:00', to: '16:30' },
        { day: 2, open: true, from: '09:00', to: '24:00' },
        { day: 3, open: true, from: '09:00', to: '17:00' },
        { day: 4, open: true, from: '09:00', to: '17:00' },
        { day: 5, open: false, from: '09:00', to: '17:00' },
        { day: 6, open: true, from: '10:00', to: '14:00' },
        { day: 7, open: false, from: '09:00', to: '17:00' },
      ],
    })
    // The other page's hours form, unedited there, shows the new week.
    await admin.page.getByTestId('week').getByLabel('Saturday: closes at').waitFor()
    expect(await admin.page.getByTestId('week').getByLabel('Monday: closes at').inputValue()).toBe('16:30')

    // 3. Automatic replies: when each goes out is said beside it.
    const replies = page.getByTestId('channel-replies')
    await replies.getByLabel('Send a greeting').check()
    await replies.getByLabel('Greeting', { exact: true }).fill('Hi! Thanks for writing to Shop chat.')
    await replies.getByLabel('Send an away message').check()
    await replies.getByLabel('Away message', { exact: true }).fill('We are closed now and reply from 08:00.')
    await replies
      .getByText(
        "Sent when a customer writes outside this channel's own hours, at most once every 12 hours per conversation.",
      )
      .waitFor()
    await replies.getByText("Sent once, when a customer's message opens a new conversation.").waitFor()
    await page.getByRole('button', { name: 'Save automatic replies' }).click()
    await replies.getByText('Saved.', { exact: true }).waitFor()
    expect((await channel(id)).auto_reply).toEqual({
      greeting_on: true,
      greeting: 'Hi! Thanks for writing to Shop chat.',
      away_on: true,
      away: 'We are closed now and reply from 08:00.',
    })
    await expect
      .poll(() => admin.page.getByTestId('channel-replies').locator('textarea[name=away]').inputValue())
      .toBe('We are closed now and reply from 08:00.')

    // 4. The live chat's e-mail fallback, with what the pre-chat form asks.
    const fallback = page.getByRole('form', { name: 'E-mail fallback' })
    await fallback
      .getByText('The pre-chat form asks every visitor for an e-mail address.', { exact: true })
      .waitFor()
    await fallback.getByLabel(/Also send replies by e-mail/).uncheck()
    await page.getByRole('button', { name: 'Save e-mail fallback' }).click()
    await fallback.getByText('Saved.', { exact: true }).waitFor()
    expect((await channel(id)).livechat.email_fallback).toBe(false)
    await expect
      .poll(() => admin.page.getByRole('form', { name: 'E-mail fallback' }).getByRole('checkbox').isChecked())
      .toBe(false)

    // Around the clock: the away message is never due, and the page says so.
    await hoursForm.getByLabel('Open around the clock').check()
    expect(await page.getByTestId('week').count()).toBe(0)
    await page.getByRole('button', { name: 'Save business hours' }).click()
    await replies
      .getByText('This channel is open around the clock, so the away message is never sent.')
      .waitFor()
    expect((await channel(id)).hours).toMatchObject({ enabled: false })
    await wholePage(page, 'channel-settings-livechat')
    await replies.scrollIntoViewIfNeeded()
    await shots(page, 'channel-settings-livechat')
    await accessibleBoth(page)
    // And back to the workspace's hours.
    await hoursForm.getByLabel("The workspace's business hours").check()
    await page.getByRole('button', { name: 'Save business hours' }).click()
    await replies
      .getByText("Sent when a customer writes outside the workspace's business hours", { exact: false })
      .waitFor()
    expect((await channel(id)).hours).toBeNull()

    expect(PAGE_ERRORS(problems)).toEqual([])
    expect(PAGE_ERRORS(admin.problems)).toEqual([])
    await ctx.close()
    await admin.context.close()
  })

  it('a number and an API channel have the same settings on their pages, and a number its own', async () => {
    const number = await create('/v1/channels', { name: 'Shop number' })
    const apiId = await create('/v1/channels/api', { name: 'Shop system' })
    const { context: ctx, page, problems } = await signedIn(browser, s, owner)
    for (const [id, from, to] of [
      [number, 'Shop number', 'Warehouse number'],
      [apiId, 'Shop system', 'Order system'],
    ] as const) {
      await page.goto(`${s.url}/app/channels/${id}`)
      await page.getByRole('heading', { level: 1, name: from }).waitFor()
      await page.getByTestId('channel-name').getByLabel('Channel name').fill(to)
      await page.getByRole('button', { name: 'Save name' }).click()
      await page.getByRole('heading', { level: 1, name: to }).waitFor()
      await page.getByTestId('channel-replies').getByLabel('Send an away message').check()
      await page
        .getByTestId('channel-replies')
        .getByLabel('Away message', { exact: true })
        .fill(`${to} is closed.`)
      await page.getByRole('button', { name: 'Save automatic replies' }).click()
      await page.getByTestId('channel-replies').getByText('Saved.', { exact: true }).waitFor()
      const ch = await channel(id)
      expect(ch.name).toBe(to)
      expect(ch.auto_reply).toMatchObject({ away_on: true, away: `${to} is closed.`, greeting_on: false })
    }
    // A number's own settings, on its page only.
    expect(await page.getByTestId('channel-number').count()).toBe(0)
    await page.goto(`${s.url}/app/channels/${number}`)
    const own = page.getByTestId('channel-number')
    expect(await own.getByLabel('Bring group chats into the inbox').isChecked()).toBe(true)
    expect(await own.getByLabel('Message to a rejected caller').count()).toBe(0)
    await own.getByLabel('Bring group chats into the inbox').uncheck()
    await own.getByLabel('Reject incoming calls').check()
    await own.getByLabel('Message to a rejected caller').fill('We cannot take calls; please write.')
    await page.getByRole('button', { name: 'Save number settings' }).click()
    await own.getByText('Saved.', { exact: true }).waitFor()
    expect((await channel(number)).msgapp).toEqual({
      groups: false,
      reject_calls: true,
      call_reply: 'We cannot take calls; please write.',
      agent_initial: true,
    })
    await wholePage(page, 'channel-settings-msgapp')
    expect(await axeFindings(page)).toEqual([])
    await page.goto(`${s.url}/app/channels/${apiId}`)
    await page.getByTestId('channel-name').waitFor()
    await wholePage(page, 'channel-settings-api')
    expect(await axeFindings(page)).toEqual([])
    expect(PAGE_ERRORS(problems)).toEqual([])
    await ctx.close()
  })

  it('a member without channels.manage opening the page gets the refusal in words and nothing to edit (Indonesian)', async () => {
    const id = await create('/v1/channels/livechat', { name: 'Chat gudang' })
    const agentUser = await F.member(s, w)
    const agent = await F.signIn(s, agentUser.email)
    await setLocale(agent, 'id')
    const refusal = await s.fetch(`/v1/channels/${id}`, { headers: agent.headers({ 'x-locale': 'id' }) })
    expect(refusal.status).toBe(403)
    const message = ((await refusal.json()) as any).error.message as string
    expect(message).not.toMatch(/channels\.manage/)

    const { context: ctx, page, problems } = await signedIn(browser, s, agent)
    await page.goto(`${s.url}/app/channels/${id}`)
    await page.getByText(message).waitFor()
    // The server's words as they are, under the page's heading.
    expect(await page.locator('.k-page .k-notice').textContent()).toBe(message)
    await page.getByRole('heading', { level: 1, name: 'Kanal' }).waitFor()
    const main = page.locator('.k-page')
    expect(await main.locator('form, input, textarea, select').count()).toBe(0)
    expect(await main.getByRole('button').count()).toBe(0)
    expect(await page.getByRole('link', { name: 'Semua kanal' }).count()).toBe(1)
    await shots(page, 'channel-settings-refused-id')
    await accessibleBoth(page)
    expect(PAGE_ERRORS(problems)).toEqual([])
    await ctx.close()
  })

  it('speaks Indonesian: the week in Indonesian day names, saved from a phone', async () => {
    const id = await create('/v1/channels/livechat', { name: 'Chat toko' })
    const adminUser = await F.member(s, w, 'Admin')
    const admin = await F.signIn(s, adminUser.email)
    await setLocale(admin, 'id')
    const {
      context: ctx,
      page,
      problems,
    } = await signedIn(browser, s, admin, {
      viewport: { width: 390, height: 844 },
      touch: true,
    })
    await page.goto(`${s.url}/app/channels/${id}`)
    await page.getByRole('heading', { level: 2, name: 'Jam kerja' }).waitFor()
    await page.getByRole('heading', { level: 2, name: 'Balasan otomatis' }).waitFor()
    await page.getByRole('heading', { level: 2, name: 'Cadangan lewat email' }).waitFor()
    const hours = page.getByTestId('channel-hours')
    await hours.getByLabel('Jam kerjanya sendiri').check()
    const week = page.getByTestId('week')
    await week.getByRole('checkbox', { name: 'Minggu' }).check()
    await week.getByLabel('Minggu: buka pukul').fill('10:00')
    await week.getByLabel('Minggu: tutup pukul').fill('09:00')
    await page.getByRole('button', { name: 'Simpan jam kerja' }).click()
    await hours.getByText('Periksa kolom yang ditandai.').waitFor()
    // The server's message, in the member's language.
    expect(await messageOf(page, week.getByLabel('Minggu: tutup pukul'))).toBe('harus buka sebelum tutup')
    await week.getByLabel('Minggu: tutup pukul').fill('15:00')
    await page.getByRole('button', { name: 'Simpan jam kerja' }).click()
    await hours.getByText('Tersimpan.', { exact: true }).waitFor()
    const ch = await channel(id)
    expect(ch.hours.days[6]).toEqual({ day: 7, open: true, from: '10:00', to: '15:00' })
    await page
      .getByTestId('channel-replies')
      .getByText('Dikirim saat pelanggan menulis di luar jam kerja kanal ini', { exact: false })
      .waitFor()
    // Buttons a finger can hit.
    const heights = await page
      .locator('.chs-settings button')
      .evaluateAll((bs) => bs.map((b) => (b as unknown as { offsetHeight: number }).offsetHeight))
    expect(Math.min(...heights)).toBeGreaterThanOrEqual(44)
    await wholePage(page, 'channel-settings-id-phone')
    await hours.screenshot({ path: path.join(ARTIFACTS, 'channel-settings-hours-id-390.png') })
    await hours.scrollIntoViewIfNeeded()
    await shots(page, 'channel-settings-id')
    await accessibleBoth(page)
    expect(PAGE_ERRORS(problems)).toEqual([])
    await ctx.close()
  })
})
