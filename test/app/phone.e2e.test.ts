import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { createLivechat } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { wholePage } from './channelsSupport'
import { axe, launch, screenshot, signedIn } from './support'

/**
 * The agent app on a phone (390 × 844, touch) and on a desk (1440 × 900): at phone width the
 * navigation is a menu, the inbox shows the list or the open conversation (back returns to the
 * list where it was, with its filters), the contact opens as a sheet, the composer's controls are
 * thumb-sized, and no page is wider than the screen; at 1440 the three columns stay.
 * Screenshots go to test-artifacts/app/phone-*.png and desk-*.png.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agent: { user: { id: number; name: string }; session: F.Session }
let browser: Browser
let apiChannel: { id: number; credentials: { key: string } }
let livechatId: number
let msgappId: number
const ids = new Map<number, number>()

const PHONE = { width: 390, height: 844 }
const DESK = { width: 1440, height: 900 }

const customerSays = async (n: number) => {
  const name = `Customer ${String(n).padStart(2, '0')}`
  const r = await s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: `p-${n}`,
        contact: { id: `c-p-${n}`, name, email: `c${n}@example.com`, phone: `+62812000${1000 + n}` },
        message: { id: `m-p-${n}`, text: `Hello, this is ${name}: where is my order?` },
      },
      F.bearer(apiChannel.credentials.key),
    ),
  )
  expect(r.status, await r.clone().text()).toBe(201)
}

const open = (session: F.Session, size: { width: number; height: number }, touch: boolean) =>
  signedIn(browser, s, session, {
    viewport: size,
    touch,
    ignore: (text) => text.startsWith('Failed to load resource'),
  })

/**
 * What sticks out of the screen: the document wider than the viewport, or any element shown
 * past its left or right edge (clipped by the page or not), unless it sits in a box that scrolls
 * sideways on its own.
 */
const overflow = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as any
    const doc = g.document
    const width = g.innerWidth as number
    const out: string[] = []
    const root = doc.scrollingElement
    if (root.scrollWidth > width) out.push(`document ${root.scrollWidth} > ${width}`)
    // Boxes that scroll sideways may, but not the page's own scrolling areas.
    for (const el of doc.querySelectorAll('.main, .k-page, .list-pane, .rows, .conv, .messages, .panel'))
      if (el.scrollWidth > el.clientWidth + 1)
        out.push(`${el.className} scrolls ${el.scrollWidth} > ${el.clientWidth}`)
    const scrolls = (el: any) => {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const x = g.getComputedStyle(p).overflowX
        if (x === 'auto' || x === 'scroll') return true
      }
      return false
    }
    for (const el of doc.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect()
      if (r.width <= 1 || r.height <= 1) continue
      if (r.right <= width + 1 && r.left >= -1) continue
      if (g.getComputedStyle(el).visibility === 'hidden' || scrolls(el)) continue
      out.push(`${el.tagName.toLowerCase()}.${el.className} ${Math.round(r.left)}–${Math.round(r.right)}`)
    }
    return out.slice(0, 8)
  })

const box = async (page: Page, selector: string) => {
  const b = await page.locator(selector).first().boundingBox()
  expect(b, selector).not.toBeNull()
  return b!
}
const settled = (page: Page) => page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
const setLocale = async (locale: 'en' | 'id') => {
  const res = await s.fetch('/v1/me', {
    method: 'PATCH',
    headers: owner.headers({ 'content-type': 'application/json' }),
    body: JSON.stringify({ locale }),
  })
  expect(res.status).toBe(200)
}

beforeAll(async () => {
  // The messaging-app test transport: a number's page shows its QR as it would for a real phone.
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0', MSGAPP_TRANSPORT: 'test', MSGAPP_POLL_MS: '100' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  agent = await I.agent(s, w)
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
  expect(made.status, await made.clone().text()).toBe(201)
  apiChannel = (await I.body(made)).data
  livechatId = (await createLivechat(s, owner, { title: 'Acme Support' })).id
  const number = await s.fetch('/v1/channels', F.json({ name: 'Shop number' }, owner.headers()))
  expect(number.status, await number.clone().text()).toBe(201)
  msgappId = (await I.body(number)).data.id
  for (let n = 1; n <= 30; n++) await customerSays(n)
  const list = await I.body(await s.fetch('/v1/interactions?per_page=100', { headers: owner.headers() }))
  for (const x of list.data as { id: number; contact: { name: string } }[])
    ids.set(Number(x.contact.name.slice(-2)), x.id)
  expect(ids.size).toBe(30)
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the app on a phone and on a desk', () => {
  it('keeps the three columns and the side navigation at 1440 px (en and id)', async () => {
    for (const locale of ['en', 'id'] as const) {
      await setLocale(locale)
      const { page, problems, context } = await open(owner, DESK, false)
      await page.goto(`${s.url}/app/inbox/${ids.get(20)}`)
      await settled(page)
      await page.getByTestId('message').first().waitFor()
      await page.locator('aside.panel').waitFor()
      const nav = await box(page, 'nav.sidenav')
      const list = await box(page, '.list-pane')
      const conv = await box(page, 'section.conv')
      const panel = await box(page, 'aside.panel')
      expect(nav.x).toBe(0)
      expect(nav.width).toBe(180)
      expect(list.x).toBe(180)
      expect(list.width).toBe(340)
      expect(conv.x).toBe(520)
      expect(panel.x + panel.width).toBe(1440)
      expect(panel.width).toBe(240)
      expect(conv.height).toBeGreaterThan(800)
      // The phone's controls stay out of the way.
      for (const name of locale === 'en'
        ? ['Menu', 'Back to the list', 'Contact']
        : ['Menu', 'Kembali ke daftar', 'Kontak'])
        expect(await page.getByRole('button', { name, exact: true }).count()).toBe(0)
      expect(await overflow(page)).toEqual([])
      await screenshot(page, `desk-conversation-${locale}`)
      await page.goto(`${s.url}/app/channels`)
      await page.locator('.k-page h1').waitFor()
      await screenshot(page, `desk-channels-${locale}`)
      expect(problems).toEqual([])
      await context.close()
    }
    await setLocale('en')
  }, 60_000)

  it('opens the contact as a side sheet where its column does not fit (900 px)', async () => {
    const { page, problems, context } = await open(owner, { width: 900, height: 800 }, false)
    await page.goto(`${s.url}/app/inbox/${ids.get(7)}`)
    await page.getByTestId('composer').waitFor()
    expect(await page.locator('aside.panel').isVisible()).toBe(false)
    expect(await page.locator('nav.sidenav').isVisible()).toBe(true)
    await page.getByRole('button', { name: 'Contact', exact: true }).click()
    const sheet = page.getByRole('dialog', { name: 'Contact' })
    await sheet.getByText('c7@example.com').waitFor()
    const b = (await sheet.boundingBox())!
    expect(b.x + b.width).toBe(900)
    expect(await overflow(page)).toEqual([])
    await screenshot(page, 'tablet-contact-en')
    await page.keyboard.press('Escape')
    await sheet.waitFor({ state: 'hidden' })
    expect(
      await page.getByRole('button', { name: 'Contact', exact: true }).getAttribute('aria-expanded'),
    ).toBe('false')
    // The focus goes back to the button that opened it.
    expect(await page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Contact')
    expect(problems).toEqual([])
    await context.close()
  })

  it('works with a thumb at 390 × 844: menu, list → conversation → back, reply, contact sheet, live', async () => {
    const { page, problems, context } = await open(owner, PHONE, true)
    await page.goto(`${s.url}/app/inbox`)
    await settled(page)
    const list = page.getByTestId('inbox-list')
    await list.getByRole('option').first().waitFor()
    expect(await overflow(page)).toEqual([])
    // One column: the list fills the width, the navigation waits behind the menu button.
    expect((await box(page, '.list-pane')).width).toBe(390)
    expect(await page.locator('nav.sidenav').isVisible()).toBe(false)
    await screenshot(page, 'phone-inbox-en')

    const menu = page.getByRole('button', { name: 'Menu', exact: true })
    expect((await menu.boundingBox())!.height).toBeGreaterThanOrEqual(44)
    await menu.tap()
    const nav = page.getByRole('navigation', { name: 'Main' })
    await nav.getByRole('link', { name: /Channels/ }).waitFor()
    expect(await nav.getByRole('link', { name: /Inbox/ }).getAttribute('aria-current')).toBe('page')
    // The account's controls live in the menu at this width.
    await page.getByRole('combobox', { name: 'Language' }).waitFor()
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor()
    expect(await overflow(page)).toEqual([])
    expect(await axe(page)).toEqual([])
    await screenshot(page, 'phone-menu-en')
    await page.keyboard.press('Escape')
    await nav.waitFor({ state: 'hidden' })

    // The notifications open across the screen, not past its edge.
    await page.locator('.bell > button').tap()
    const bell = await box(page, '.popover')
    expect(bell.x).toBeGreaterThanOrEqual(0)
    expect(bell.x + bell.width).toBeLessThanOrEqual(390)
    expect(await overflow(page)).toEqual([])
    await page.locator('.bell > button').tap()
    await page.locator('.popover').waitFor({ state: 'hidden' })

    // Filters and scroll the back control must keep.
    await page.getByRole('searchbox').fill('Customer')
    await page.getByTestId('tab-unreplied').tap()
    // The search applies a moment after the last key; the list starts over with each filter.
    await page.waitForTimeout(800)
    await expect.poll(() => list.getAttribute('data-total')).toBe('30')
    await list.getByRole('option').first().waitFor()
    await list.evaluate((el) => {
      el.scrollTop = 12 * 68
    })
    const row = list.locator(`[data-id="${ids.get(15)}"]`)
    await row.waitFor()
    const scrolled = await list.evaluate((el) => el.scrollTop)
    expect(scrolled).toBe(12 * 68)
    // Customer 18 is the first row in view (newest first: 30 … 19 above it).
    const first = list.locator(`[data-id="${ids.get(18)}"]`)
    const firstAt = (await first.boundingBox())!.y

    // Tap a conversation: it fills the screen.
    await row.tap()
    await page.waitForURL(new RegExp(`/app/inbox/${ids.get(15)}$`))
    const conv = page.locator('section.conv[data-live="true"]')
    await conv.waitFor()
    await page.getByTestId('message').first().waitFor()
    const c = await box(page, 'section.conv')
    expect(c.x).toBe(0)
    expect(c.width).toBe(390)
    expect(c.y + c.height).toBe(844)
    expect(await list.isVisible()).toBe(false)
    expect(await overflow(page)).toEqual([])

    // Thumb-sized controls; the composer at the bottom; a file can be picked.
    const composer = await box(page, '.composer')
    expect(composer.y + composer.height).toBe(844)
    const targets = {
      back: page.getByRole('button', { name: 'Back to the list' }),
      contact: page.getByRole('button', { name: 'Contact', exact: true }),
      reply: page.getByRole('button', { name: 'Reply', exact: true }),
      note: page.getByTestId('mode-note'),
      attach: page.locator('.composer-bar label.button'),
      send: page.getByTestId('send'),
    }
    for (const [name, target] of Object.entries(targets)) {
      const b = await target.boundingBox()
      expect(b, name).not.toBeNull()
      expect(b!.height, name).toBeGreaterThanOrEqual(44)
      expect(b!.width, name).toBeGreaterThanOrEqual(44)
    }
    await page.locator('.composer input[type="file"]').setInputFiles({
      name: 'receipt.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Order 15 receipt'),
    })
    await page.getByTestId('attached').getByText('receipt.txt').waitFor()
    expect(await overflow(page)).toEqual([])
    expect(await axe(page)).toEqual([])
    await screenshot(page, 'phone-conversation-en')

    // A reply from the phone, with the file.
    await page.getByTestId('composer').tap()
    await page.getByTestId('composer').fill('Your order ships today.')
    await page.getByTestId('send').tap()
    await page.getByTestId('message').filter({ hasText: 'Your order ships today.' }).waitFor()
    await page.getByTestId('attached').waitFor({ state: 'hidden' })

    // Another agent's reply arrives live on the phone.
    const other = await open(agent.session, DESK, false)
    await other.page.goto(`${s.url}/app/inbox/${ids.get(15)}`)
    await other.page.locator('section.conv[data-live="true"]').waitFor()
    await other.page.getByTestId('composer').fill('Tracking number follows by e-mail.')
    await other.page.getByTestId('send').click()
    // Owner replied last: the second agent is asked before answering over them.
    const anyway = other.page.getByTestId('send-anyway')
    if (await anyway.isVisible().catch(() => false)) await anyway.click()
    await page.getByTestId('message').filter({ hasText: 'Tracking number follows by e-mail.' }).waitFor()
    expect(other.problems).toEqual([])
    await other.context.close()

    // The contact opens as a sheet over the conversation, and closes.
    await page.getByRole('button', { name: 'Contact', exact: true }).tap()
    const sheet = page.getByRole('dialog', { name: 'Contact' })
    await sheet.getByText('c15@example.com').waitFor()
    const p = (await sheet.boundingBox())!
    expect(p.x).toBe(0)
    expect(p.width).toBe(390)
    expect(await overflow(page)).toEqual([])
    expect(await axe(page)).toEqual([])
    await screenshot(page, 'phone-contact-en')
    await sheet.getByRole('button', { name: 'Close' }).tap()
    await sheet.waitFor({ state: 'hidden' })

    // Back: the list as it was, the same rows in the same place, the filters kept (the
    // conversation just answered has left Unreplied now that the agent moved on).
    await page.getByRole('button', { name: 'Back to the list' }).tap()
    await page.waitForURL(/\/app\/inbox$/)
    await list.waitFor()
    expect(await list.evaluate((el) => el.scrollTop)).toBe(scrolled)
    expect((await first.boundingBox())!.y).toBe(firstAt)
    await row.waitFor({ state: 'detached' })
    expect(await page.getByRole('searchbox').inputValue()).toBe('Customer')
    expect(await page.getByTestId('tab-unreplied').getAttribute('aria-selected')).toBe('true')

    // The browser's back does the same.
    await list.locator(`[data-id="${ids.get(14)}"]`).tap()
    await page.waitForURL(new RegExp(`/app/inbox/${ids.get(14)}$`))
    await page.getByTestId('composer').waitFor()
    await page.goBack()
    await page.waitForURL(/\/app\/inbox$/)
    await list.waitFor()
    expect(await list.evaluate((el) => el.scrollTop)).toBe(scrolled)
    expect((await first.boundingBox())!.y).toBe(firstAt)
    await screenshot(page, 'phone-inbox-back-en')
    expect(await overflow(page)).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  it('fits every channel page in 390 px, and speaks Indonesian there too', async () => {
    const pages = [
      '/channels',
      '/channels/new/msgapp',
      '/channels/new/email',
      '/channels/new/livechat',
      '/channels/new/api',
      `/channels/${apiChannel.id}`,
      `/channels/${livechatId}`,
      `/channels/${msgappId}`,
    ]
    for (const locale of ['en', 'id'] as const) {
      await setLocale(locale)
      const { page, problems, context } = await open(owner, PHONE, true)
      for (const path of pages) {
        await page.goto(`${s.url}/app${path}`)
        await page.locator('.k-page h1').first().waitFor()
        await page.waitForLoadState('networkidle')
        expect(await overflow(page), `${path} (${locale})`).toEqual([])
        const name = path
          .replace(/\//g, '-')
          .replace(/-\d+$/, (m) =>
            m === `-${apiChannel.id}` ? '-api' : m === `-${livechatId}` ? '-livechat' : '-msgapp',
          )
        await wholePage(page, `phone${name}-${locale}`)
      }
      // The inbox, a conversation and the menu in this language too.
      await page.goto(`${s.url}/app/inbox/${ids.get(3)}`)
      await page.getByTestId('composer').waitFor()
      expect(await overflow(page)).toEqual([])
      await screenshot(page, `phone-conversation-${locale}-b`)
      await page.getByRole('button', { name: 'Menu', exact: true }).tap()
      await page.getByRole('navigation').getByRole('link').first().waitFor()
      expect(await overflow(page)).toEqual([])
      await screenshot(page, `phone-menu-${locale}-b`)
      expect(problems).toEqual([])
      await context.close()
    }
    await setLocale('en')
    // Signed out: the sign-in page fits too.
    const out = await browser.newContext({ viewport: PHONE, hasTouch: true, isMobile: true })
    const page = await out.newPage()
    await page.goto(`${s.url}/app/inbox`)
    await page.locator('.signin').waitFor()
    expect(await overflow(page)).toEqual([])
    await screenshot(page, 'phone-signin-en')
    await out.close()
  }, 120_000)
})
