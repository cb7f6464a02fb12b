import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, guest, launch, shots } from './support'

/**
 * The first run in Chromium: a fresh install's server logs its one-time setup link; opened, the
 * page's form creates the first workspace and its owner and lands them signed in in the inbox with
 * its getting-started steps; the same link in a second browser says the server is set up already,
 * a wrong one that it does not work and what to do; English and Indonesian, 1440 and 390 px.
 */
let s: TestServer
let browser: Browser
const lines: string[] = []

const LINE = /^First run: open (\S+) to create the first workspace and its owner$/

/** The setup link as the server logged it. */
const loggedLink = () => {
  const links = lines.map((l) => LINE.exec((JSON.parse(l) as { msg: string }).msg)?.[1]).filter(Boolean)
  expect(links).toHaveLength(1)
  return links[0]!
}

/** The setup page is looked at on a wide screen first. */
const WIDE = { width: 1440, height: 900 }

beforeAll(async () => {
  s = await startTestServer({}, { onLog: (l) => lines.push(l) })
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('first run in the browser', () => {
  it('a wrong link (before any claim) says it does not work, and how to get a working one', async () => {
    const link = loggedLink()
    const { context, page, problems } = await guest(browser, 'id-ID', WIDE)
    // Its last character changed.
    await page.goto(`${link.slice(0, -1)}${link.endsWith('A') ? 'B' : 'A'}`)
    const help = page.getByTestId('setup-help')
    await help.waitFor()
    // The browser's language first.
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Tautan penyiapan ini tidak berlaku',
    )
    expect(await help.getAttribute('data-state')).toBe('invalid')
    expect(await page.locator('pre code').textContent()).toContain('npm run kotak -- workspace create')
    await shots(page, 'setup-invalid-id')
    await page.getByRole('combobox', { name: 'Bahasa' }).selectOption('en')
    await page.getByRole('heading', { name: 'This setup link does not work' }).waitFor()
    expect(await help.textContent()).toContain('Restart the server (npm start)')
    await shots(page, 'setup-invalid-en')
    expect(await axe(page)).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it('the logged link: the form, its field errors, then signed in in the inbox with getting started', async () => {
    const link = loggedLink()
    expect(link.startsWith(`${s.url}/app/setup/`)).toBe(true)
    const { context, page, problems } = await guest(browser, 'en-GB', WIDE)
    await page.goto(link)
    const form = page.getByTestId('setup-form')
    await form.waitFor()
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Set up Kotak')
    expect(await page.getByTestId('setup-next-time').textContent()).toContain('passkey')
    await shots(page, 'setup-form-en')
    expect(await axe(page)).toEqual([])

    // Sent as it is: every field's own message from the server, the form keeps what was typed.
    await page.getByLabel('Workspace name').fill('T')
    await page.getByLabel('Your e-mail address').fill('not an address')
    await page.getByRole('button', { name: 'Create the workspace' }).click()
    await page.getByTestId('setup-error-email').waitFor()
    expect(await page.getByTestId('setup-error-email').textContent()).toBe('must be an e-mail address')
    expect(await page.getByTestId('setup-error-workspace_name').textContent()).toBe(
      'must be at least 2 characters',
    )
    expect(await page.getByTestId('setup-error-name').textContent()).toBe('must be at least 2 characters')
    expect(await page.getByTestId('setup-error').textContent()).toBe('Please correct the marked fields.')
    expect(await page.getByLabel('Workspace name').getAttribute('aria-invalid')).toBe('true')
    expect(await page.getByLabel('Workspace name').inputValue()).toBe('T')
    // The first field to fix has the focus.
    expect(
      await page.evaluate(
        () =>
          (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
            .activeElement?.id,
      ),
    ).toBe('setup-workspace_name')
    await shots(page, 'setup-form-errors-en')

    // The language field is the page's and the new account's.
    await page.getByLabel('Language').selectOption('id')
    await page.getByRole('heading', { name: 'Siapkan Kotak' }).waitFor()
    // The English messages go with the English page.
    expect(await page.getByTestId('setup-error-email').count()).toBe(0)
    await page.getByLabel('Nama workspace').fill('Toko Maju Jaya')
    await page.getByLabel('Nama Anda').fill('Sari Pemilik')
    await page.getByLabel('Alamat e-mail Anda').fill('sari@example.com')
    await shots(page, 'setup-form-id')
    await page.getByRole('button', { name: 'Buat workspace' }).click()

    await page.waitForURL(/\/app\/inbox$/)
    const started = page.getByTestId('getting-started')
    await started.waitFor()
    expect(await started.textContent()).toContain('Memulai')
    expect(await page.locator('.topbar').textContent()).toContain('Sari Pemilik')
    await shots(page, 'setup-done-inbox-id')
    expect(problems).toEqual([])
    await context.close()
  })

  it('the same link in another browser: the server is set up already, and what to do', async () => {
    const link = loggedLink()
    const { context, page, problems } = await guest(browser, 'en-GB', WIDE)
    await page.goto(link)
    const help = page.getByTestId('setup-help')
    await help.waitFor()
    expect(await help.getAttribute('data-state')).toBe('done')
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This server is already set up')
    expect(await help.textContent()).toContain('Sign in instead')
    expect(await page.getByTestId('setup-form').count()).toBe(0)
    await shots(page, 'setup-used-en')
    await page.getByRole('combobox', { name: 'Language' }).selectOption('id')
    await page.getByRole('heading', { name: 'Server ini sudah disiapkan' }).waitFor()
    await shots(page, 'setup-used-id')
    // Its button goes to the sign-in page.
    await page.getByRole('link', { name: 'Ke halaman masuk' }).click()
    await page.waitForURL(/\/app$/)
    await page.locator('main.signin').waitFor()
    expect(problems).toEqual([])
    await context.close()
  })
})
