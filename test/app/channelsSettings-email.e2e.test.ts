import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectMailbox, type MailWorld, mailbox, startMailWorld } from '../email/support'
import * as F from '../support/fixtures'
import { lacks } from '../support/systemPackages'
import { axeFindings, wholePage } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * A connected mailbox's settings edited on its page (/app/channels/{id}), in headless Chromium
 * against the private Dovecot and smtp-server of the e-mail suites: passwords never shown back (a
 * blank one keeps the saved one), a refused server or password under its field with nothing
 * saved, then the folders (listed by signing in again), sending options and ignore rules saved,
 * each checked through `GET /v1/channels/{id}`.
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

const detail = async (id: number) =>
  ((await (await world.s.fetch(`/v1/channels/${id}`, { headers: owner.headers() })).json()) as any).data

describe.skipIf(lacks('chromium') || lacks('dovecot-imapd'))("a mailbox's settings in a browser", () => {
  it('changes the servers, folders and sending options; refusals under their fields; passwords never shown', async () => {
    const box = mailbox(world)
    const ch = await connectMailbox(world, owner, box, { name: 'Support mail', sent_folder: 'Sent' })
    const id = ch.id as number
    const {
      context: ctx,
      page,
      problems,
    } = await signedIn(browser, world.s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${world.s.url}/app/channels/${id}`)
    const form = page.getByRole('form', { name: 'Mailbox settings' })
    await form.waitFor()
    expect(await form.getByLabel('E-mail address').inputValue()).toBe(box.address)
    expect(await form.getByLabel('IMAP port').inputValue()).toBe(String(world.dovecot.port))
    // The password is never shown back, nor anywhere in the page.
    expect(await form.getByLabel('Password', { exact: true }).inputValue()).toBe('')
    await form
      .getByText(
        'Never shown. Leave blank to keep the saved password; a new server or port needs it typed again.',
      )
      .waitFor()
    expect(await page.content()).not.toContain(box.password)

    // Another server is never sent the saved password: without one typed, the password is asked for.
    await form.getByLabel('IMAP port').fill('1')
    await page.getByRole('button', { name: 'Save mailbox settings' }).click()
    await form.locator('input[name=password][aria-invalid=true]').waitFor({ timeout: 30_000 })
    // A server nobody answers on: refused under the field, nothing saved.
    await form.getByLabel('Password', { exact: true }).fill(box.password)
    await page.getByRole('button', { name: 'Save mailbox settings' }).click()
    await form.locator('input[name=imap_host][aria-invalid=true]').waitFor({ timeout: 30_000 })
    const imapHost = form.getByLabel('IMAP server')
    const errorId = (await imapHost.getAttribute('aria-describedby'))!.split(' ')[0]!
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/\S/)
    await form.getByText('Check the marked fields.').waitFor()
    expect((await detail(id)).email.imap_port).toBe(world.dovecot.port)

    // A wrong password: refused under it.
    await form.getByLabel('IMAP port').fill(String(world.dovecot.port))
    await form.getByLabel('Password', { exact: true }).fill('not-the-password')
    await page.getByRole('button', { name: 'Save mailbox settings' }).click()
    await form.locator('input[name=password][aria-invalid=true]').waitFor({ timeout: 30_000 })
    expect((await detail(id)).email.sync.last_error).toBeNull()

    // Blank again keeps the saved one; the folders come from the server, and what goes out.
    await form.getByLabel('Password', { exact: true }).fill('')
    await page.getByRole('button', { name: 'Show all folders' }).click()
    await form.getByRole('checkbox', { name: 'Projects' }).check({ timeout: 30_000 })
    await form.getByLabel('Sender name', { exact: true }).fill('Acme Support')
    await form.getByLabel(/Put the agent's name in front/).check()
    await form.getByLabel('Signature (HTML)').fill('<b>Ana</b> — Acme')
    await form.getByLabel('Do not import mail from').fill('noreply@shop.example\n@ads.example')
    await form.getByLabel(/Keep a copy of every reply/).uncheck()
    await page.getByRole('button', { name: 'Save mailbox settings' }).click()
    await form.getByText('Saved.', { exact: true }).waitFor({ timeout: 30_000 })
    const saved = (await detail(id)).email
    expect(saved).toMatchObject({
      address: box.address,
      imap_port: world.dovecot.port,
      folders: ['Projects'],
      sent_folder: 'Sent',
      sender_name: 'Acme Support',
      sender_with_agent: true,
      save_sent: false,
      ignore: ['noreply@shop.example', '@ads.example'],
    })
    expect(saved.signature_html).toContain('Ana')
    // The summary above follows.
    await page.getByRole('region', { name: 'Mailbox' }).getByText('INBOX, Projects').waitFor()
    expect(await form.getByLabel('Password', { exact: true }).inputValue()).toBe('')

    // The settings every channel has are here too.
    await page.getByTestId('channel-name').getByLabel('Channel name').fill('Support inbox')
    await page.getByRole('button', { name: 'Save name' }).click()
    await page.getByRole('heading', { level: 1, name: 'Support inbox' }).waitFor()
    expect((await detail(id)).name).toBe('Support inbox')

    await wholePage(page, 'channel-settings-email')
    await shots(page, 'channel-settings-email')
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 })
      expect(await axeFindings(page)).toEqual([])
    }
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })
})
