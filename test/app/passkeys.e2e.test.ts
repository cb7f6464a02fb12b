import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { body } from '../inbox/support'
import * as F from '../support/fixtures'
import { freePort, startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { authenticator, credentialsOf, launch, screenshot, signedIn } from './support'

/**
 * Passkeys in the real browser: Chromium's virtual authenticator (DevTools protocol, CTAP2,
 * internal transport, resident keys, user verification) makes and uses the credentials. A person
 * adds a passkey on the account page (reached from the account menu, and from the drawer on a
 * phone), renames it, signs out, and signs in with the passkey button; another browser holding
 * the same credential signs in too, until the passkey is deleted. Another person cannot reach it.
 * WebAuthn needs a host name for the relying party (an IP address cannot be one), so this server's
 * public address is `localhost`. Screenshots: test-artifacts/app/passkeys-*.png.
 */
let s: TestServer
let base: string
let w: F.Seeded
let owner: F.Session
let agent: F.Session
let browser: Browser

const DESK = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }

beforeAll(async () => {
  const port = await freePort()
  base = `http://localhost:${port}`
  s = await startTestServer({ PORT: String(port), PUBLIC_URL: base })
  w = await F.workspace(s)
  owner = await F.signIn(s, w.ownerEmail)
  agent = await F.signIn(s, (await F.member(s, w)).email)
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

/** The server as the browser knows it: at `localhost`, the cookies set for that host. */
const atLocalhost = () => ({ ...s, url: base }) as TestServer

type Credential = Awaited<ReturnType<typeof credentialsOf>>[number]

/** A fresh browser (no cookies) whose authenticator holds copies of these credentials. */
const otherBrowser = async (credentials: readonly Credential[], viewport = DESK) => {
  const context: BrowserContext = await browser.newContext({
    viewport,
    ...(viewport === PHONE ? { hasTouch: true, isMobile: true } : {}),
  })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const a = await authenticator(page)
  for (const credential of credentials)
    await a.cdp.send('WebAuthn.addCredential', { authenticatorId: a.id, credential })
  return { context, page, a }
}

const problemsOf = (page: Page) => {
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(String(e)))
  return problems
}

describe.skipIf(lacks('chromium'))('passkeys in the app', () => {
  // The first browser's credential, as its virtual authenticator keeps it (private key included).
  let made: readonly Credential[] = []

  it('adds a named passkey from the account menu, renames it, and signs in with it after signing out', async () => {
    // A session of its own: signing out here must leave the test's API session alone.
    const browserSession = await F.signIn(s, w.ownerEmail)
    const { context, page, problems } = await signedIn(browser, atLocalhost(), browserSession, {
      viewport: DESK,
    })
    const desk = await authenticator(page)
    await page.goto(`${base}/app`)
    await page.getByTestId('inbox-list').waitFor()

    // The account menu leads to the page.
    await page.getByTestId('account-button').click()
    await page.getByTestId('passkeys-link').waitFor()
    await screenshot(page, 'passkeys-account-menu-1440')
    await page.getByTestId('passkeys-link').click()
    await page.getByRole('heading', { name: 'Passkeys', level: 1 }).waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/passkeys')
    await page.getByText('You have no passkeys yet.').waitFor()

    await page.getByLabel('Name', { exact: true }).fill('Work laptop')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    const item = page.getByTestId('passkey')
    await item.filter({ hasText: 'Work laptop' }).waitFor()
    await expect.poll(async () => (await credentialsOf(desk)).length).toBe(1)
    const stored = (await credentialsOf(desk))[0]!
    expect(stored.isResidentCredential).toBe(true)
    await expect.poll(() => item.filter({ hasText: 'not used yet' }).count()).toBe(1)
    await screenshot(page, 'passkeys-page-en-1440')

    // Rename.
    await page.getByRole('button', { name: 'Rename: Work laptop' }).click()
    const field = item.getByRole('textbox')
    await field.fill('Office laptop')
    await item.getByRole('button', { name: 'Save' }).click()
    await item.filter({ hasText: 'Office laptop' }).waitFor()
    const listed = await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))
    expect(listed.data.map((p: { name: string }) => p.name)).toEqual(['Office laptop'])

    // The same device again: the browser refuses a second passkey for the account, and says so.
    await page.getByLabel('Name', { exact: true }).fill('Twice')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.getByRole('alert').filter({ hasText: 'already holds a passkey' }).waitFor()

    // Signed out, the sign-in page offers the passkey; it signs in and lands in the inbox.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click()
    const button = page.getByTestId('passkey-signin')
    await button.waitFor()
    await screenshot(page, 'passkeys-signin-en-1440')
    await button.click()
    await page.getByTestId('inbox-list').waitFor()
    expect(new URL(page.url()).pathname).toMatch(/^\/app(\/inbox)?$/)
    const me = await page.evaluate(
      async () =>
        ((await (await fetch('/v1/me')).json()) as { data: { user: { email: string } } }).data.user.email,
    )
    expect(me).toBe(w.ownerEmail)
    const used = await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))
    expect(used.data[0].last_used_at).not.toBeNull()
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    // Copied after its use: its signature counter is where the server last saw it (an older copy
    // would count again from below, and the server refuses that as a cloned authenticator).
    made = await credentialsOf(desk)
    await context.close()
  }, 60_000)

  it('signs in another browser holding the credential, on a phone, and shows the page there in Indonesian', async () => {
    const other = await otherBrowser(made, PHONE)
    const problems = problemsOf(other.page)
    await other.page.goto(`${base}/app`)
    await other.page.getByTestId('passkey-signin').click()
    await other.page.getByTestId('inbox-list').waitFor()
    await screenshot(other.page, 'passkeys-signed-in-390')

    // The drawer leads to the page on a phone.
    await other.page.getByRole('button', { name: 'Menu' }).click()
    await other.page.getByTestId('passkeys-link').waitFor()
    await screenshot(other.page, 'passkeys-drawer-390')
    await other.page.getByTestId('passkeys-link').click()
    await other.page.getByTestId('passkey').filter({ hasText: 'Office laptop' }).waitFor()
    await screenshot(other.page, 'passkeys-page-en-390')

    // Indonesian: the page, then (signed out) the sign-in page.
    await other.page.getByRole('button', { name: 'Menu' }).click()
    await other.page.getByRole('combobox', { name: 'Language' }).selectOption('id')
    await other.page.keyboard.press('Escape')
    await other.page.getByRole('heading', { name: 'Passkey', level: 1 }).waitFor()
    await other.page.getByText('terakhir dipakai').first().waitFor()
    await screenshot(other.page, 'passkeys-page-id-390')
    await other.page.setViewportSize(DESK)
    await screenshot(other.page, 'passkeys-page-id-1440')
    await other.page.setViewportSize(PHONE)
    await other.page.getByRole('button', { name: 'Menu' }).click()
    await other.page.getByRole('button', { name: 'Keluar', exact: true }).click()
    await other.page.getByRole('button', { name: 'Masuk dengan passkey' }).waitFor()
    await screenshot(other.page, 'passkeys-signin-id-390')
    await other.page.setViewportSize(DESK)
    await screenshot(other.page, 'passkeys-signin-id-1440')
    await other.page.setViewportSize(PHONE)
    await other.page.getByRole('combobox', { name: 'Bahasa' }).selectOption('en')
    await other.page.getByTestId('passkey-signin').waitFor()
    await screenshot(other.page, 'passkeys-signin-en-390')
    expect(problems).toEqual([])
    await other.context.close()
  }, 60_000)

  it('keeps a passkey its owner’s: another person neither sees nor deletes it (404)', async () => {
    const mine = (await body(await s.fetch('/v1/me/passkeys', { headers: owner.headers() }))).data
    expect(mine).toHaveLength(1)
    const theirs = await body(await s.fetch('/v1/me/passkeys', { headers: agent.headers() }))
    expect(theirs.data).toEqual([])
    const del = await s.fetch(`/v1/me/passkeys/${mine[0].id}`, { method: 'DELETE', headers: agent.headers() })
    expect(del.status).toBe(404)

    // The other person's own page shows none of it.
    const { context, page } = await signedIn(browser, atLocalhost(), agent, { viewport: DESK })
    await page.goto(`${base}/app/passkeys`)
    await page.getByText('You have no passkeys yet.').waitFor()
    expect(await page.getByTestId('passkey').count()).toBe(0)
    await context.close()
  }, 60_000)

  it('deletes the passkey on the page; it then signs nobody in', async () => {
    // The person chose Indonesian on the phone above; back to English.
    const patched = await s.fetch('/v1/me', { ...F.json({ locale: 'en' }, owner.headers()), method: 'PATCH' })
    expect(patched.status).toBe(200)
    const { context, page } = await signedIn(browser, atLocalhost(), owner, { viewport: DESK })
    await page.goto(`${base}/app/passkeys`)
    page.once('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Delete: Office laptop' }).click()
    await page.getByText('You have no passkeys yet.').waitFor()
    await context.close()

    const other = await otherBrowser(made)
    await other.page.goto(`${base}/app`)
    await other.page.getByTestId('passkey-signin').click()
    await other.page.getByRole('alert').filter({ hasText: 'not registered here' }).waitFor()
    await screenshot(other.page, 'passkeys-signin-deleted-1440')
    // Still signed out.
    const status = await other.page.evaluate(async () => (await fetch('/v1/me')).status)
    expect(status).toBe(401)
    await other.context.close()
  }, 60_000)
})
