import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, Page } from 'playwright-core'
import QRCode from 'qrcode'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nthSocket, socketsOf } from '../../connectors/msgapp/TransportTest'
import { waitFor } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings, wholePage } from './channelsSupport'
import { launch, signedIn } from './support'

/**
 * The channel pages of the agent app (/app/channels…) end to end in headless Chromium (Debian's
 * `/usr/bin/chromium`), against a real server with the messaging-app test transport: a number's QR
 * appears in the page and its status turns connected, live, when the phone links; the pairing
 * code; a live chat widget's snippet and a preview that follows the colour; an API channel's key
 * and secret shown once, and its delivery log. Screenshots go to test-artifacts/app/.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser
let hook: http.Server
let hookUrl: string
const hookHits: string[] = []

beforeAll(async () => {
  s = await startTestServer({
    MSGAPP_TRANSPORT: 'test',
    MSGAPP_POLL_MS: '100',
    MSGAPP_BACKOFF_BASE_MS: '200',
    MSGAPP_PACE_MS: '0',
    SECRETS_KEY: Buffer.alloc(32, 7).toString('base64'),
    // The test's webhook receiver is on loopback.
    WEBHOOK_ALLOW_PRIVATE: '1',
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  hook = http.createServer((req, res) => {
    let b = ''
    req.on('data', (c: Buffer) => {
      b += c.toString('utf8')
    })
    req.on('end', () => {
      hookHits.push(b)
      res.writeHead(200).end('ok')
    })
  })
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r))
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await new Promise((r) => hook?.close(r))
  await s?.stop()
})

const api = async (p: string, init?: RequestInit) => {
  const res = await s.fetch(p, init)
  return { status: res.status, body: (await res.json()) as Record<string, any> }
}

/** No serious or critical axe-core finding on the page as it is now. */
const accessible = async (page: Page) => expect(await axeFindings(page)).toEqual([])

// Whole pages in several browser contexts: 20–45 s each under a full suite's load, past the 30 s default.
describe.skipIf(lacks('chromium'))('channel pages in a browser', { timeout: 90_000 }, () => {
  it('adds a number, shows its QR and a pairing code, and turns connected live when the phone links', async () => {
    const { context: ctx, page, problems } = await signedIn(browser, s, owner)
    // The list in a second tab follows everything live: the new number appears, its status changes.
    const listPage = await ctx.newPage()
    await listPage.goto(`${s.url}/app/channels`)
    await listPage.getByTestId('connection').filter({ hasText: 'Live' }).waitFor()
    await page.goto(`${s.url}/app/channels`)
    await page.getByRole('link', { name: /Messaging-app number/ }).click()
    await page.getByLabel('Channel name').fill('Shop number')
    await page.getByRole('button', { name: 'Add number' }).click()
    await page.waitForURL(/\/app\/channels\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    const list = (await api('/v1/channels', { headers: owner.headers() })).body.data
    expect(list.find((c: any) => c.id === id)).toMatchObject({ type: 'msgapp', name: 'Shop number' })

    const sock = await nthSocket(id, 1)
    sock.qr('2@abcdefghijklmnop,xyz,123')
    const qr = page.getByRole('img', { name: 'QR code to link the number' })
    await qr.waitFor()
    expect(await qr.getAttribute('src')).toMatch(/^data:image\/png;base64,/)
    // The same image the API gives.
    const apiQr = (await api(`/v1/channels/${id}/qr`, { headers: owner.headers() })).body.data.qr
    expect(await qr.getAttribute('src')).toBe(apiQr)
    await page.getByTestId('number-status').filter({ hasText: 'Waiting to be linked' }).waitFor()

    // The phone's service sends the next code (no event tells the page): the page shows it once the
    // shown one's lifetime has run out. Another tab with a clock of its own runs that minute out.
    const timed = await signedIn(browser, s, owner)
    await timed.context.clock.install()
    await timed.page.goto(`${s.url}/app/channels/${id}`)
    await timed.page.locator(`img[data-testid=qr][src="${apiQr}"]`).waitFor()
    sock.qr('2@second-code,xyz,456')
    const nextQr = await waitFor(async () => {
      const q = (await api(`/v1/channels/${id}/qr`, { headers: owner.headers() })).body.data.qr
      return q !== apiQr ? q : null
    })
    expect(await timed.page.getByTestId('qr').getAttribute('src')).toBe(apiQr)
    await timed.page.clock.fastForward('01:01')
    await timed.page.locator(`img[data-testid=qr][src="${nextQr}"]`).waitFor()
    await timed.context.close()

    // A bad phone shows the field's error beside it; a good one the code to type.
    await page.getByLabel('Phone number (with country code)').fill('abc')
    await page.getByRole('button', { name: 'Get pairing code' }).click()
    const phoneField = page.getByLabel('Phone number (with country code)')
    await page.locator('input[name=phone][aria-invalid=true]').waitFor()
    const described = (await phoneField.getAttribute('aria-describedby'))!.split(' ')[0]!
    expect(await page.locator(`#${described}`).textContent()).toBeTruthy()
    await phoneField.fill('+62 812-0000-0009')
    await page.getByRole('button', { name: 'Get pairing code' }).click()
    await page.getByTestId('pair-code').filter({ hasText: 'KTK4-PAIR' }).waitFor()
    await wholePage(page, 'channel-msgapp-link')
    await accessible(page)

    await listPage.locator(`tr[data-channel-id="${id}"] [data-status=qr]`).waitFor()

    sock.open('6281200000009')
    await page.getByTestId('number-status').filter({ hasText: 'Connected' }).waitFor()
    expect(await page.getByTestId('number-status').textContent()).toContain('+6281200000009')
    expect(await page.getByRole('img', { name: 'QR code to link the number' }).count()).toBe(0)
    await listPage.locator(`tr[data-channel-id="${id}"] [data-status=active]`).waitFor()
    // History import: requested from the page, its progress follows channel.updated (with no chats
    // on the phone it may be done at once).
    await page.getByLabel('Import chat history').selectOption('30')
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByTestId('history').waitFor()
    sock.emit('messaging-history.set', { chats: [], contacts: [], messages: [], progress: 100 })
    await page.getByTestId('history').filter({ hasText: 'History of the last 30 days imported' }).waitFor()
    await wholePage(page, 'channel-msgapp-connected')
    await accessible(page)
    await wholePage(listPage, 'channels-list')
    await accessible(listPage)
    // The refusals the pages show (422, 409) are logged by the browser too; nothing else may be.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })

  it('a number whose first QR times out (408) before any phone links it shows the link form and why, en and id', async () => {
    const made = await api('/v1/channels', {
      method: 'POST',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ name: 'Never linked' }),
    })
    expect(made.status).toBe(201)
    const id = made.body.data.id as number
    const sock = await nthSocket(id, 1)
    sock.qr('2@first-code,xyz,123')
    sock.close(408)
    await waitFor(async () => {
      const st = (await api(`/v1/channels/${id}/status`, { headers: owner.headers() })).body.data
      return st.last_close_code === 408 && st.status === 'reconnecting' ? st : null
    })
    for (const lang of ['en', 'id'] as const) {
      await s.fetch('/v1/me', {
        method: 'PATCH',
        headers: owner.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ locale: lang }),
      })
      const { context: ctx, page, problems } = await signedIn(browser, s, owner)
      for (const width of [1440, 390]) {
        await page.setViewportSize({ width, height: 900 })
        await page.goto(`${s.url}/app/channels/${id}`)
        const reason = page.getByTestId('close-reason')
        await reason.waitFor()
        expect(await reason.textContent()).toContain(
          lang === 'en'
            ? 'The last QR code timed out before a phone scanned it'
            : 'Kode QR terakhir kedaluwarsa',
        )
        expect(await page.getByTestId('never-linked').textContent()).toContain(
          lang === 'en' ? 'not linked to a phone yet' : 'belum ditautkan ke ponsel',
        )
        // The link flow, not a bare "Reconnecting": the QR panel and the pairing-code form.
        await page
          .getByLabel(
            lang === 'en' ? 'Phone number (with country code)' : 'Nomor telepon (dengan kode negara)',
          )
          .waitFor()
        await page
          .getByRole('button', { name: lang === 'en' ? 'Get pairing code' : 'Minta kode penautan' })
          .waitFor()
        await page
          .getByRole('button', {
            name: lang === 'en' ? 'Get a new QR code now' : 'Minta kode QR baru sekarang',
          })
          .waitFor()
        await wholePage(page, `channel-msgapp-408-${lang}-${width}`)
        await accessible(page)
      }
      // "Get a new QR code now" reconnects at once; the next code shows in the page, the reason stays.
      await page
        .getByRole('button', {
          name: lang === 'en' ? 'Get a new QR code now' : 'Minta kode QR baru sekarang',
        })
        .click()
      await waitFor(async () => {
        socketsOf(id).at(-1)?.qr(`2@next-code-${lang},xyz,456`)
        return (await page.getByTestId('qr').count()) > 0
      })
      expect(await page.getByTestId('close-reason').count()).toBe(1)
      // Times out again: reconnecting, never linked, the same form.
      socketsOf(id).at(-1)?.close(408)
      await page
        .getByTestId('number-status')
        .filter({ hasText: lang === 'en' ? 'Reconnecting' : 'Menghubungkan ulang' })
        .waitFor()
      await page
        .getByRole('button', { name: lang === 'en' ? 'Get pairing code' : 'Minta kode penautan' })
        .waitFor()
      expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
      await ctx.close()
    }
    await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ locale: 'en' }),
    })
  })

  it('creates a live chat widget: the snippet to copy, a preview that follows the colour, saved', async () => {
    const { context: ctx, page, problems } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/channels/new/livechat`)
    await page.getByLabel('Channel name').fill('Website chat')
    await page.getByLabel('Widget title').fill('Acme Support')
    await page.getByRole('button', { name: 'Create' }).click()
    await page.waitForURL(/\/app\/channels\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    const ch = (await api(`/v1/channels/${id}`, { headers: owner.headers() })).body.data
    expect(ch.livechat.title).toBe('Acme Support')

    const snippet = page.getByRole('textbox', { name: 'Embed code' })
    expect(await snippet.inputValue()).toBe(ch.livechat.embed_code)
    await page.getByRole('button', { name: /^Cop(y|ied) ?Embed code$/ }).click()
    await page
      .getByRole('button', { name: /^Cop(y|ied) ?Embed code$/ })
      .filter({ hasText: 'Copied' })
      .waitFor()

    const head = page.getByTestId('preview-head')
    await page.getByLabel('Colour (hex)').fill('#d9480f')
    // The preview is drawn from the unsaved form: its header takes the colour at once.
    expect(
      await head.evaluate((el) => (el as unknown as { style: { background: string } }).style.background),
    ).toBe('rgb(217, 72, 15)')
    await page.getByLabel('Subtitle').fill('We answer within the hour')
    expect(await head.textContent()).toContain('We answer within the hour')
    // The logo: a file that is no image is refused beside the field; a square PNG shows in the preview.
    const logoInput = page.getByLabel('Logo', { exact: true })
    await logoInput.setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('hello') })
    await page.locator('input[name=icon][aria-invalid=true]').waitFor()
    const png = await QRCode.toBuffer('logo', { type: 'png', width: 64, margin: 1 })
    await logoInput.setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: png })
    await page.locator('.chs-pv-head img').waitFor()
    expect(await page.locator('input[name=icon][aria-invalid=true]').count()).toBe(0)
    const withIcon = (await api(`/v1/channels/${id}`, { headers: owner.headers() })).body.data
    expect(withIcon.icon_url).toMatch(/^\/v1\/channels\/\d+\/icon\?v=/)
    expect(await page.locator('.chs-pv-head img').getAttribute('src')).toBe(withIcon.icon_url)
    await wholePage(page, 'channel-livechat')
    await accessible(page)
    // Nothing is saved until Save.
    expect((await api(`/v1/channels/${id}`, { headers: owner.headers() })).body.data.livechat.color).toBe(
      ch.livechat.color,
    )
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Saved.').waitFor()
    const saved = (await api(`/v1/channels/${id}`, { headers: owner.headers() })).body.data.livechat
    expect(saved).toMatchObject({ color: '#d9480f', subtitle: 'We answer within the hour' })
    // The refusals the pages show (422, 409) are logged by the browser too; nothing else may be.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })

  it('creates an API channel: key and secret shown once, then only the prefix; the delivery log', async () => {
    const { context: ctx, page, problems } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/channels/new/api`)
    await page.getByLabel('Channel name').fill('Shop backend')
    await page.getByLabel('Webhook URL (https)').fill(hookUrl)
    await page.getByRole('button', { name: 'Create' }).click()
    const once = page.getByTestId('once-credentials')
    await once.waitFor()
    const key = await page.getByLabel('Channel key', { exact: true }).inputValue()
    const secret = await page.getByLabel('Webhook signing secret', { exact: true }).inputValue()
    expect(key).toMatch(/^svca_ch_/)
    expect(secret.length).toBeGreaterThanOrEqual(16)
    await wholePage(page, 'channel-api-created')
    await accessible(page)
    // The key shown works: the customer's system posts a message with it.
    const inbound = await s.fetch(
      '/v1/channel-api/messages',
      F.json(
        {
          conversation_id: 'c-1',
          contact: { id: 'u-1', name: 'Budi' },
          message: { id: 'm-1', text: 'Halo' },
        },
        F.bearer(key),
      ),
    )
    expect(inbound.status).toBe(201)

    await page.getByRole('button', { name: 'I have stored them' }).click()
    await page.waitForURL(/\/app\/channels\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    await page.getByTestId('key-prefix').waitFor()
    const prefix = (await api(`/v1/channels/${id}/api`, { headers: owner.headers() })).body.data.api.key
      .prefix
    expect(key.startsWith(prefix)).toBe(true)
    expect(await page.getByTestId('key-prefix').textContent()).toContain(prefix)
    // Never again: not in the page, not after a reload.
    await page.reload()
    await page.getByTestId('key-prefix').waitFor()
    const html = await page.content()
    expect(html).not.toContain(key)
    expect(html).not.toContain(secret)

    await page.getByRole('button', { name: 'Send test ping' }).click()
    await page.getByTestId('deliveries').waitFor()
    const firstRow = page.getByTestId('deliveries').locator('tbody tr').first()
    expect(await firstRow.textContent()).toContain('ping')
    expect(await firstRow.textContent()).toContain('Delivered (200)')
    expect(hookHits.some((b) => b.includes('ping'))).toBe(true)
    await wholePage(page, 'channel-api')
    await accessible(page)

    // Replacing the key shows the new one once; the old one is refused at once.
    page.on('dialog', (d) => void d.accept())
    await page.getByRole('button', { name: 'Replace key' }).click()
    await page.getByTestId('once-credentials').waitFor()
    const newKey = await page.getByLabel('Channel key', { exact: true }).inputValue()
    expect(newKey).toMatch(/^svca_ch_/)
    expect(newKey).not.toBe(key)
    expect(await page.getByLabel('Webhook signing secret', { exact: true }).count()).toBe(0)
    const send = (k: string, mid: string) =>
      s.fetch(
        '/v1/channel-api/messages',
        F.json(
          {
            conversation_id: 'c-1',
            contact: { id: 'u-1', name: 'Budi' },
            message: { id: mid, text: 'Lagi' },
          },
          F.bearer(k),
        ),
      )
    expect((await send(key, 'm-2')).status).toBe(401)
    expect((await send(newKey, 'm-3')).status).toBe(201)
    await page.getByRole('button', { name: 'I have stored them' }).click()
    await page
      .getByTestId('key-prefix')
      .filter({ hasText: newKey.slice(0, 12) })
      .waitFor()

    // Deleting: the channel has a conversation, so it is archived and leaves the list.
    await page.getByRole('button', { name: 'Delete channel' }).click()
    await page.waitForURL(/\/app\/channels$/)
    await page.getByRole('heading', { name: 'Channels', exact: true }).waitFor()
    expect(await page.locator(`tr[data-channel-id="${id}"]`).count()).toBe(0)
    // The refusals the pages show (422, 409) are logged by the browser too; nothing else may be.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })

  it('shows an agent without channels.manage the list only: no links, no adding, no menu entry', async () => {
    const agentUser = await F.member(s, w)
    const agent = await F.signIn(s, agentUser.email)
    const { context: ctx, page, problems } = await signedIn(browser, s, agent)
    await page.goto(`${s.url}/app/channels`)
    await page.locator('tr[data-channel-id]').first().waitFor()
    expect(await page.locator('tr[data-channel-id] a').count()).toBe(0)
    expect(await page.getByRole('heading', { name: 'Add a channel' }).count()).toBe(0)
    expect(
      await page
        .getByRole('navigation')
        .getByRole('link', { name: /Channels/ })
        .count(),
    ).toBe(0)
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })

  it('speaks Indonesian when the user does', async () => {
    const res = await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ locale: 'id' }),
    })
    expect(res.status).toBe(200)
    const { context: ctx, page, problems } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/channels`)
    await page.getByRole('heading', { name: 'Kanal', exact: true }).waitFor()
    expect(await page.getByRole('link', { name: /Nomor aplikasi pesan/ }).count()).toBe(1)
    await wholePage(page, 'channels-list-id')

    // Keyboard only: Tab reaches the "add a number" card, Enter opens it, the form submits with Enter.
    let focused = ''
    for (let i = 0; i < 40 && !focused.includes('Nomor aplikasi pesan'); i++) {
      await page.keyboard.press('Tab')
      focused = await page.evaluate(() => (globalThis as any).document.activeElement?.textContent ?? '')
    }
    expect(focused).toContain('Nomor aplikasi pesan')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/app\/channels\/new\/msgapp$/)
    await page.getByLabel('Nama kanal').focus()
    await page.keyboard.type('Nomor gudang')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/app\/channels\/\d+$/)
    await page.getByText('Nomor gudang').first().waitFor()
    await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: owner.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify({ locale: 'en' }),
    })
    // The refusals the pages show (422, 409) are logged by the browser too; nothing else may be.
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await ctx.close()
  })
})
