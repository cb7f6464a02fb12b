import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MailWorld, mailbox, startMailWorld } from '../email/support'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { axeFindings, wholePage } from './channelsSupport'
import { launch, signedIn } from './support'

/**
 * Connecting a mailbox in the agent app (/app/channels/new/email) in headless Chromium, against
 * the private Dovecot and smtp-server the e-mail suites use: the address step, a refused server and
 * a refused password shown under their fields, then a sign-in that works, the folders, and the
 * connected channel.
 */
let world: MailWorld
let owner: F.Session
let browser: Browser

beforeAll(async () => {
  world = await startMailWorld()
  const w = await F.workspace(world.s, { plan: 'pro' })
  owner = await F.signIn(world.s, w.ownerEmail)
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await world?.stop()
})

/** No serious or critical axe-core finding on the page as it is now. */
const accessible = async (page: Page) => expect(await axeFindings(page)).toEqual([])

describe.skipIf(lacks('chromium') || lacks('dovecot-imapd'))('connecting a mailbox in a browser', () => {
  it('shows the server and password refusals beside their fields, then connects', async () => {
    const box = mailbox(world)
    const { context: ctx, page, problems } = await signedIn(browser, world.s, owner)
    await page.goto(`${world.s.url}/app/channels/new/email`)
    // A known provider: its servers are filled in and its hint shown.
    await page.getByLabel('E-mail address').fill('someone@gmail.com')
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByTestId('provider').filter({ hasText: 'Provider: Gmail' }).waitFor()
    await page.getByText(/app password/).waitFor()
    expect(await page.getByLabel('IMAP server').inputValue()).toBe('imap.gmail.com')
    expect(await page.getByLabel('IMAP port').inputValue()).toBe('993')
    expect(await page.getByLabel('SMTP server').inputValue()).toBe('smtp.gmail.com')
    await wholePage(page, 'channel-email-detect')
    // A changed address goes back to the first step.
    await page.getByLabel('E-mail address').fill(box.address)
    await page.getByRole('button', { name: 'Continue' }).click()
    await page.getByTestId('provider').filter({ hasText: 'Unknown provider' }).waitFor()

    await page.getByLabel('Password', { exact: true }).fill(box.password)
    await page.getByLabel('IMAP server').fill(world.dovecot.host)
    // Port 1: nothing listens there.
    await page.getByLabel('IMAP port').fill('1')
    await page.getByLabel('IMAP security').selectOption('starttls')
    await page.getByLabel('SMTP server').fill(world.smtp.host)
    await page.getByLabel('SMTP port').fill(String(world.smtp.port))
    await page.getByLabel('SMTP security').selectOption('starttls')
    await page.getByRole('button', { name: 'Test sign-in' }).click()

    const imapHost = page.locator('input[name=imap_host][aria-invalid=true]')
    await imapHost.waitFor()
    const errorId = (await imapHost.getAttribute('aria-describedby'))!
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toBe('The server could not be reached.')
    expect(await page.locator('[aria-invalid=true]').count()).toBe(1)
    await wholePage(page, 'channel-email-error')
    await accessible(page)

    await page.getByLabel('IMAP port').fill(String(world.dovecot.port))
    await page.getByLabel('Password', { exact: true }).fill('wrong')
    await page.getByRole('button', { name: 'Test sign-in' }).click()
    const password = page.locator('input[name=password][aria-invalid=true]')
    await password.waitFor()
    expect(
      await page.locator(`[id="${await password.getAttribute('aria-describedby')}"]`).textContent(),
    ).toBe('The server refused this username or password.')
    expect(await page.locator('input[name=imap_host][aria-invalid=true]').count()).toBe(0)

    await page.getByLabel('Password', { exact: true }).fill(box.password)
    await page.getByRole('button', { name: 'Test sign-in' }).click()
    await page.getByText('Both servers accepted the sign-in. Nothing was sent.').waitFor()
    expect(world.smtp.received).toHaveLength(0)
    await page.getByRole('checkbox', { name: 'Projects' }).check()
    expect(await page.getByLabel('Sent folder').inputValue()).toBe('Sent')
    await wholePage(page, 'channel-email-tested')
    await accessible(page)
    await page.getByRole('button', { name: 'Connect mailbox' }).click()

    await page.waitForURL(/\/app\/channels\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    const res = await world.s.fetch(`/v1/channels/${id}`, { headers: owner.headers() })
    const ch = ((await res.json()) as Record<string, any>).data
    expect(ch).toMatchObject({ type: 'email', name: box.address })
    expect(ch.email).toMatchObject({ address: box.address, folders: ['Projects'], sent_folder: 'Sent' })
    await page.getByText(box.address).first().waitFor()
    await wholePage(page, 'channel-email')
    // The refusals the pages show (422, 409) are logged by the browser too; nothing else may be.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })
})
