import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch, screenshot, signedIn } from './support'

let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser
beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the agent app', () => {
  it('shows the sign-in page without a session, the inbox with one', async () => {
    const anon = await browser.newPage()
    await anon.goto(`${s.url}/app`)
    await anon.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    expect(await anon.locator('code').textContent()).toContain('login-link')
    await anon.close()
    const a = await signedIn(browser, s, owner)
    await a.page.goto(`${s.url}/app`)
    await a.page.getByTestId('connection').getByText('Live').waitFor()
    expect(new URL(a.page.url()).pathname).toBe('/app/inbox')
    await screenshot(a.page, 'shell')
    expect(a.problems).toEqual([])
    await a.context.close()
  })
})
