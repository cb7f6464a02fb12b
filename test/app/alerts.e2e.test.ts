import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Notifications from '../../actors/notifications'
import * as I from '../inbox/support'
import { createLivechat, startVisitor } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, launch, screenshot, signedIn } from './support'

/**
 * Alerts (docs/decisions.md, "Alerts"), in Chromium with two contexts: the owner assigns a
 * conversation to the agent, whose bell and tab title count it live and whose bell item opens it;
 * a new conversation through the channel API counts in the title; the sound switch (off by
 * default) is kept by the server; with notifications permitted, a hidden tab shows browser
 * notifications. The browser's own `Notification`, `Audio.play` and `document.hidden` are
 * recorded/steered through an init script; the app's code runs as it is.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agent: { user: { id: number; name: string }; session: F.Session }
let browser: Browser
let key: string

const customerSays = async (conversation: string, text: string, name: string) => {
  const r = await s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: conversation,
        contact: { id: `c-${conversation}`, name, email: null, phone: null },
        message: { id: `m-${conversation}`, text },
      },
      F.bearer(key),
    ),
  )
  expect(r.status, await r.clone().text()).toBe(201)
}
const interactionOf = async (text: string) => {
  const list = await I.body(await s.fetch('/v1/interactions?per_page=100', { headers: owner.headers() }))
  const found = list.data.find((x: { preview: string | null }) => x.preview?.includes(text))
  expect(found, text).toBeDefined()
  return found.id as number
}
const settled = (page: Page) => page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
/** The page's globals (the tests' types have no DOM). */
type Win = {
  document: { title: string }
  __notes: { title: string; body: string }[]
  __played: number
  __hidden: boolean
}
const title = (page: Page, want: string) =>
  page.waitForFunction((t) => (globalThis as unknown as Win).document.title === t, want)

/**
 * Records what the page asks of the browser's notification and audio APIs; `__hidden` hides the
 * tab. A script of its own (the browser's APIs, not the app's code).
 */
const hooks = `
  window.__notes = []
  window.__played = 0
  window.__hidden = false
  const Real = window.Notification
  class Recorded {
    constructor(title, o) { this.onclick = null; window.__notes.push({ title, body: (o && o.body) || '' }) }
    close() {}
    static get permission() { return Real.permission }
    static requestPermission() { return Real.requestPermission() }
  }
  window.Notification = Recorded
  HTMLMediaElement.prototype.play = function () { window.__played++; return Promise.resolve() }
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => window.__hidden === true })
`
const notes = (page: Page) => page.evaluate(() => (globalThis as unknown as Win).__notes)
const played = (page: Page) => page.evaluate(() => (globalThis as unknown as Win).__played)
const hide = (page: Page, hidden: boolean) =>
  page.evaluate((h) => {
    ;(globalThis as unknown as Win).__hidden = h
  }, hidden)

beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  agent = await I.agent(s, w)
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
  expect(made.status, await made.clone().text()).toBe(201)
  key = (await I.body(made)).data.credentials.key
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('alerts', () => {
  it('counts assignments and new conversations in the bell and the title, with sound and notifications', async () => {
    await customerSays('al-1', 'Alert one: my parcel is late', 'Sari Wulandari')
    const first = await interactionOf('Alert one')
    const b = await signedIn(browser, s, agent.session)
    await b.context.grantPermissions(['notifications'], { origin: s.url })
    await b.context.addInitScript({ content: hooks })
    const page = b.page
    await page.goto(`${s.url}/app/inbox`)
    await settled(page)
    await title(page, 'Kotak')

    // The sound is off by default; switched on, the server keeps it (it survives a reload).
    await page.getByRole('button', { name: 'Notifications' }).click()
    const sound = page.getByTestId('alert-sound')
    expect(await sound.isChecked()).toBe(false)
    await page.getByText('Desktop notifications are on').waitFor()
    await sound.check()
    await expect.poll(() => played(page)).toBe(1)
    await expect
      .poll(async () => {
        const me = await I.body(await s.fetch('/v1/me', { headers: agent.session.headers() }))
        return me.data.preferences.find((p: { key: string }) => p.key === 'livechat_alert')?.value
      })
      .toBe(1)
    await page.reload()
    await settled(page)
    await page.getByRole('button', { name: 'Notifications' }).click()
    expect(await page.getByTestId('alert-sound').isChecked()).toBe(true)
    await page.keyboard.press('Escape')
    await page.mouse.click(700, 500)

    // The owner assigns the conversation to the agent, whose tab is hidden.
    await hide(page, true)
    const a = await signedIn(browser, s, owner)
    await a.page.goto(`${s.url}/app/inbox/${first}`)
    await a.page.getByLabel('Assignee').selectOption(String(agent.user.id))
    await page.getByTestId('bell-count').filter({ hasText: '1' }).waitFor()
    await title(page, '(1) Kotak')
    await expect
      .poll(async () => (await notes(page)).map((n) => n.title))
      .toEqual([expect.stringContaining('assigned you a conversation')])
    // (The reload started the recording afresh.)
    expect(await played(page)).toBe(1)

    // A new conversation through the API channel: counted too, with a notification.
    await customerSays('al-2', 'Alert two: where is my invoice', 'Budi Santoso')
    await title(page, '(2) Kotak')
    await page.getByTestId('bell-count').filter({ hasText: '2' }).waitFor()
    await expect.poll(async () => (await notes(page)).map((n) => n.title)).toContain('New conversation')
    expect(await played(page)).toBe(2)

    // A visitor starts a live chat: counted as well.
    const lc = await createLivechat(s, owner, { title: 'Acme Support' })
    const visitor = await startVisitor(s, lc.livechat.key)
    await title(page, '(3) Kotak')
    await expect.poll(async () => (await notes(page)).length).toBe(3)

    // Back on the tab: the bell item opens the conversation and is read.
    await hide(page, false)
    await page.getByRole('button', { name: /Notifications/ }).click()
    await page.getByTestId('bell-fresh').getByText('2 new conversations').waitFor()
    await page.setViewportSize({ width: 1440, height: 900 })
    await screenshot(page, 'alerts-bell-1440-en')
    const item = page.getByRole('link', { name: /assigned you a conversation/ })
    expect(await item.getAttribute('href')).toBe(`/app/inbox/${first}`)
    await item.click()
    await page.waitForURL(`${s.url}/app/inbox/${first}`)
    await title(page, '(2) Kotak')
    // Opening a new one from the list (no reload): it no longer counts.
    await page.getByRole('option').filter({ hasText: 'Vera Visitor' }).click()
    await page.waitForURL(`${s.url}/app/inbox/${visitor.interaction_id}`)
    await title(page, '(1) Kotak')
    await customerSays('al-3', 'Alert three: refund please', 'Dewi Lestari')
    await title(page, '(2) Kotak')
    const list = await I.body(await s.fetch('/v1/notifications', { headers: agent.session.headers() }))
    expect(list.meta.unread).toBe(0)

    // A ticket mention opens the ticket's page.
    await s.run(
      Notifications.notify({
        workspaceId: w.workspaceId,
        userId: agent.user.id,
        kind: 'ticket.mention',
        title: 'You were mentioned on ticket #4',
        link: '/tickets/4',
      }),
    )
    await title(page, '(3) Kotak')
    await page.getByRole('button', { name: /Notifications/ }).click()
    expect(await page.getByRole('link', { name: /mentioned on ticket #4/ }).getAttribute('href')).toBe(
      '/app/tickets/4',
    )
    await page.keyboard.press('Escape')

    // A notification whose target the app has no page for: a button that marks it read.
    await s.run(
      Notifications.notify({
        workspaceId: w.workspaceId,
        userId: agent.user.id,
        kind: 'lead.reminder',
        title: 'Call back PT Sinar about the quote',
        link: '/nowhere/4',
      }),
    )
    await title(page, '(4) Kotak')
    await page.getByRole('button', { name: /Notifications/ }).click()
    expect(await page.getByRole('link', { name: /Call back PT Sinar/ }).count()).toBe(0)
    await page.getByRole('button', { name: /Call back PT Sinar about the quote \(unread\)/ }).click()
    await title(page, '(3) Kotak')
    await page.getByText('Call back PT Sinar about the quote').waitFor()
    expect(await page.getByRole('button', { name: /Call back PT Sinar/ }).count()).toBe(0)

    // Mark all read clears the new conversations as well.
    await page.getByRole('button', { name: 'Mark all read' }).click()
    await title(page, 'Kotak')
    expect(await page.getByTestId('bell-count').count()).toBe(0)
    expect(b.problems).toEqual([])
    expect(a.problems).toEqual([])
    await a.context.close()
    await b.context.close()
  })

  it('shows the bell in Indonesian and on a phone', async () => {
    const b = await signedIn(browser, s, agent.session)
    await b.context.addInitScript({ content: hooks })
    const page = b.page
    for (const [lang, width] of [
      ['en', 390],
      ['id', 1440],
      ['id', 390],
    ] as const) {
      const set = await s.fetch('/v1/me', I.patch({ locale: lang }, agent.session.headers()))
      expect(set.status).toBe(200)
      await page.setViewportSize({ width, height: 800 })
      await page.goto(`${s.url}/app/inbox`)
      await settled(page)
      await page.getByRole('button', { name: lang === 'en' ? /Notifications/ : /Notifikasi/ }).click()
      await page.getByTestId('alert-sound').waitFor()
      if (lang === 'id') {
        await page.getByText('Bunyi untuk obrolan dan notifikasi baru').waitFor()
        await page.getByRole('button', { name: 'Aktifkan notifikasi desktop' }).waitFor()
        await page.getByText(/menugaskan percakapan kepada Anda$/).waitFor()
      }
      await screenshot(page, `alerts-bell-${width}-${lang}`)
      expect(await axe(page)).toEqual([])
    }
    await s.fetch('/v1/me', I.patch({ locale: '' }, agent.session.headers()))
    expect(b.problems).toEqual([])
    await b.context.close()
  })
})
