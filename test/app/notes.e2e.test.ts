import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { body, createLivechat, patch, v } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch, screenshot, signedIn } from './support'

/**
 * The privacy fault of an internal note with a file, as a user meets it, in headless Chromium: a
 * visitor chats in the widget on a shop's page; in the app the agent picks a file in Reply mode,
 * switches to Internal note, types and presses the note button. The agent sees a note with the
 * file; the visitor's widget shows neither the file nor the text (the reply sent after it comes
 * through, so the widget was listening). Screenshots at 1440 and 390 px in test-artifacts/app/.
 */
let s: TestServer
let owner: F.Session
let browser: Browser
let host: http.Server
let hostUrl: string
let channel: { id: number; livechat: { key: string; embed_code: string } }

const NOTE = 'Refund approved by finance, tell her on Monday'
const FILE = 'finance-approval.pdf'
const REPLY = 'We are checking your refund now.'

beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '300' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  channel = await createLivechat(s, owner, { title: 'Acme Support' })
  await s.fetch(
    `/v1/channels/${channel.id}/livechat`,
    patch({ allowed_domains: ['127.0.0.1'] }, owner.headers()),
  )
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Acme Shop</title></head>
<body><h1>Acme Shop</h1>${channel.livechat.embed_code}</body></html>`
  host = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(page)
  })
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r))
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/shop`
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await new Promise((r) => host?.close(r))
  await s?.stop()
})

/** A visitor opens the widget on the shop's page, fills the form and writes; the chat's id. */
const visitorChats = async (page: Page): Promise<{ frame: FrameLocator; id: number; token: string }> => {
  await page.goto(hostUrl)
  await page.locator('[data-kotak-livechat] button.launcher').click()
  const frame = page.frameLocator('[data-kotak-livechat] iframe')
  const email = `vera-${Math.random().toString(36).slice(2, 8)}@example.com`
  await frame.locator('input[name=name]').fill('Vera Visitor')
  await frame.locator('input[name=email]').fill(email)
  await frame.locator('input[name=phone]').fill('+62 812 3456 7890')
  await frame.locator('button[type=submit]').click()
  await frame.locator('text=in the queue').waitFor({ timeout: 30_000 })
  const box = frame.locator('textarea')
  await box.fill('Where is my refund?')
  await box.press('Enter')
  await frame.locator('.msg.in', { hasText: 'Where is my refund?' }).waitFor()
  // The chat's id, and the visitor's token as the widget keeps it (its frame's storage).
  const [row] = await I.sql<{ id: number }>(
    s,
    (db) =>
      db`SELECT conversation_id AS id FROM livechat_visitors WHERE email = ${email} ORDER BY id DESC LIMIT 1`,
  )
  const inFrame = page.frames().find((f) => f.url().includes('/frame'))!
  const token = await inFrame.evaluate(() => {
    const store = (
      globalThis as unknown as {
        localStorage: { key: (i: number) => string | null; getItem: (k: string) => string | null }
      }
    ).localStorage
    const k = store.key(0)
    return k === null ? null : store.getItem(k)
  })
  expect(token).toBeTruthy()
  return { frame, id: row!.id, token: token! }
}

describe.skipIf(lacks('chromium'))('an internal note with a file', () => {
  it('a file picked in Reply, sent as an Internal note, never reaches the visitor', async () => {
    const shop = await browser.newPage({ viewport: { width: 1100, height: 760 } })
    const { frame, id, token } = await visitorChats(shop)

    const a = await signedIn(browser, s, owner)
    await a.page.setViewportSize({ width: 1440, height: 900 })
    await a.page.goto(`${s.url}/app/inbox/${id}`)
    await a.page.getByTestId('message').filter({ hasText: 'Where is my refund?' }).waitFor()
    await a.page.locator('section.conv[data-live="true"]').waitFor()

    // The steps of the report: a file picked in Reply mode, then Internal note, the text, and
    // the note button.
    const fileInput = a.page.locator('.composer input[type=file]')
    await fileInput.setInputFiles({
      name: FILE,
      mimeType: 'application/pdf',
      buffer: Buffer.from('%PDF-1.4 ok'),
    })
    await a.page.getByTestId('mode-note').click()
    await a.page.getByTestId('composer').fill(NOTE)
    await screenshot(a.page, 'note-with-file-1440')
    const [sent] = await Promise.all([
      a.page.waitForResponse(
        (r) => r.url().endsWith(`/v1/interactions/${id}/messages`) && r.request().method() === 'POST',
      ),
      a.page.getByTestId('send').click(),
    ])
    expect(sent.status()).toBe(201)

    // A reply after it reaches the widget: by then the note would have too.
    await a.page.getByRole('button', { name: 'Reply', exact: true }).click()
    await a.page.getByTestId('composer').fill(REPLY)
    await a.page.getByTestId('send').click()
    await frame.locator('.msg.out', { hasText: REPLY }).waitFor({ timeout: 30_000 })
    const shown = (await frame.locator('body').textContent()) ?? ''
    expect(shown).not.toContain('Refund approved')
    expect(shown).not.toContain(FILE)
    expect(await frame.locator('.msg.out').count()).toBe(1)
    await shop.setViewportSize({ width: 390, height: 844 })
    await screenshot(shop, 'note-widget-390')
    // Nor on the server's copy of the chat the widget loads again.
    const conv = await body(
      await s.fetch(`/v1/livechat/${channel.livechat.key}/conversation`, { headers: v(token) }),
    )
    expect(JSON.stringify(conv.data)).not.toMatch(/Refund approved|finance-approval/)

    // The agent sees a note carrying the file, stored as one; the composer is empty again.
    expect((await sent.json()).data).toMatchObject({ type: 'note', status: 'internal', body: NOTE })
    const note = a.page.locator('[data-testid=message][data-type=note]').filter({ hasText: NOTE })
    await note.getByText(FILE).waitFor()
    expect(await a.page.getByTestId('attached').count()).toBe(0)
    expect(await a.page.getByTestId('composer').inputValue()).toBe('')
    await screenshot(a.page, 'note-sent-1440')
    const page = await I.body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))
    expect(page.data.map((m: { type: string }) => m.type)).toEqual(['text', 'note', 'text'])

    // The attached file says where it goes, in either mode, and can be taken off.
    await fileInput.setInputFiles({ name: 'receipt.png', mimeType: 'image/png', buffer: Buffer.from('png') })
    const attached = a.page.getByTestId('attached')
    await attached.getByText('Sent to the customer').waitFor()
    await a.page.getByTestId('mode-note').click()
    await attached.getByText('With the note: only your team sees it').waitFor()
    expect(await attached.getByText('receipt.png').count()).toBe(1)
    await screenshot(a.page, 'note-file-chip-1440')
    // On a phone's width (the app has no narrow layout yet: the screenshot shows it as it is).
    await a.page.setViewportSize({ width: 390, height: 844 })
    await screenshot(a.page, 'note-file-chip-390')
    await a.page.setViewportSize({ width: 1440, height: 900 })
    await attached.getByRole('button', { name: 'Remove' }).click()
    await attached.waitFor({ state: 'detached' })
    expect(a.problems).toEqual([])
    await a.context.close()
    await shop.close()
  }, 120_000)
})
