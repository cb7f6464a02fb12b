import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, launch, screenshot, signedIn } from './support'

/**
 * Getting started: the empty inbox of a new workspace shows its owner the dashboard's checklist
 * (`GET /v1/dashboard?parts=getting_started`), 0 of 5 at first, the channel step linking to the
 * channel pages and ticked live once a channel exists (and after a reload), in English and
 * Indonesian; an agent without `settings.workspace` sees the plain empty state.
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

const words = {
  en: { title: 'Getting started', zero: '0 of 5 done', one: '1 of 5 done', go: 'Open Channels' },
  id: { title: 'Memulai', zero: '0 dari 5 selesai', one: '1 dari 5 selesai', go: 'Buka Kanal' },
} as const

const step = (page: Page, key: string) => page.locator(`[data-testid=getting-started] [data-step=${key}]`)

describe('the dashboard part alone', () => {
  it('GET /v1/dashboard?parts=getting_started computes that part only; an unknown part is refused', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const r = await s.fetch('/v1/dashboard?parts=getting_started', { headers: owner.headers() })
    expect(r.status).toBe(200)
    const b = await I.body(r)
    expect(b.data.getting_started).toMatchObject({ done: 0, total: 5 })
    expect(b.data).toMatchObject({ quota: null, activity: null, recent: null, teams: null })
    expect(b.meta.hidden).toEqual([])
    const all = await I.body(await s.fetch('/v1/dashboard', { headers: owner.headers() }))
    expect(all.data.teams).not.toBeNull()
    expect(
      (await s.fetch('/v1/dashboard?parts=getting_started,nope', { headers: owner.headers() })).status,
    ).toBe(422)
    const agent = await I.agent(s, w)
    const a = await I.body(
      await s.fetch('/v1/dashboard?parts=getting_started', { headers: agent.session.headers() }),
    )
    expect(a.data.getting_started).toBeNull()
  })
})

describe.skipIf(lacks('chromium'))('getting started in the empty inbox', () => {
  for (const lang of ['en', 'id'] as const) {
    it(`a new workspace's owner sees 0 of 5, the channel step ticks when a channel is made (${lang})`, async () => {
      const w = await F.workspace(s, { plan: 'pro' })
      const owner = await F.signIn(s, w.ownerEmail)
      await s.fetch('/v1/me', { ...F.json({ locale: lang }, owner.headers()), method: 'PATCH' })
      const { context: ctx, page, problems } = await signedIn(browser, s, owner)
      const say = words[lang]
      await page.goto(`${s.url}/app/inbox`)
      const box = page.getByTestId('getting-started')
      await box.getByRole('heading', { name: say.title }).waitFor()
      expect(await page.getByTestId('gs-progress').textContent()).toBe(say.zero)
      expect(await box.locator('[data-done=true]').count()).toBe(0)
      expect(await box.locator('li').count()).toBe(5)
      // Every step says how it is done; the channel step links to the channel pages.
      for (const key of ['channel', 'team', 'invite', 'business_hours', 'first_reply']) {
        expect((await step(page, key).locator('.gs-how').textContent())?.length).toBeGreaterThan(20)
      }
      const link = step(page, 'channel').getByRole('link', { name: say.go })
      expect(await link.getAttribute('href')).toBe('/app/channels')
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 })
        await screenshot(page, `getting-started-${lang}-${width}`)
      }
      await page.setViewportSize({ width: 1280, height: 800 })
      expect((await axe(page)).map((v) => v.id)).toEqual([])

      // A channel made elsewhere (another tab, the API) ticks the step live.
      const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
      expect(made.status).toBe(201)
      await step(page, 'channel').and(page.locator('[data-done=true]')).waitFor()
      expect(await page.getByTestId('gs-progress').textContent()).toBe(say.one)
      expect(await step(page, 'channel').getByRole('link').count()).toBe(0)
      // After a reload too; the link goes to the channels page.
      await page.reload()
      await step(page, 'channel').and(page.locator('[data-done=true]')).waitFor()
      await screenshot(page, `getting-started-${lang}-ticked`)
      await step(page, 'team').waitFor()
      expect(problems).toEqual([])
      await ctx.close()
    })
  }

  it('follows the link to the channels page', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const owner = await F.signIn(s, w.ownerEmail)
    const { context: ctx, page } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/inbox`)
    await page.getByRole('link', { name: 'Open Channels' }).click()
    await page.waitForURL(/\/app\/channels$/)
    await ctx.close()
  })

  it('an agent without settings.workspace sees the plain empty state', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const agent = await I.agent(s, w)
    const { context: ctx, page, problems } = await signedIn(browser, s, agent.session)
    await page.goto(`${s.url}/app/inbox`)
    await page.getByText('No conversations here.').waitFor()
    expect(await page.getByTestId('getting-started').count()).toBe(0)
    await screenshot(page, 'getting-started-agent-en-1280')
    expect(problems).toEqual([])
    await ctx.close()
  })
})
