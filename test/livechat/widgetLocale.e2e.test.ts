import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser, FrameLocator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { axeFindings, wholePage } from '../app/channelsSupport'
import { axeSource, launch, screenshot, signedIn } from '../app/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { body, createLivechat, patch } from './support'

/**
 * The widget in Indonesian and its pre-chat form, in headless Chromium (Debian's chromium): a
 * visitor whose browser says `id-ID` gets the widget's own texts in Indonesian (the owner's stay as
 * typed, defaults follow the visitor), an `en-US` one in English, and `data-kotak-locale` on the
 * embed code overrides the browser. The form follows the owner's `prechat` (name only, e-mail
 * optional, phone hidden); outside business hours a hidden e-mail is offered for the e-mail
 * fallback. The owner changes the setting on the app's live chat page and the next visitor sees
 * the new form. Screenshots (test-artifacts/app/widget-*.png) at 1440 and 390 px, en and id.
 */
let s: TestServer
let owner: F.Session
let browser: Browser
let host: http.Server
let hostBase: string
let ch: { id: number; livechat: { key: string; embed_code: string } }
let closed: { id: number; livechat: { key: string; embed_code: string } }

beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '200', LIVECHAT_STARTS_PER_MINUTE: '1000' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  ch = await createLivechat(s, owner, { color: '#0f766e' })
  const r = await s.fetch(
    `/v1/channels/${ch.id}/livechat`,
    patch({ prechat: { email: 'optional', phone: 'hidden' } }, owner.headers()),
  )
  expect(r.status).toBe(200)
  closed = await createLivechat(s, owner, { color: '#7c2d12' })
  await s.fetch(
    `/v1/channels/${closed.id}/livechat`,
    patch(
      {
        prechat: { email: 'hidden', phone: 'hidden' },
        hours: {
          enabled: true,
          days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: false, from: '09:00', to: '17:00' })),
        },
      },
      owner.headers(),
    ),
  )
  // The customer's site: another origin; `?c=closed` embeds the other channel, `?lang=id` adds
  // data-kotak-locale to the embed code.
  host = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x')
    let embed = (u.searchParams.get('c') === 'closed' ? closed : ch).livechat.embed_code
    const lang = u.searchParams.get('lang')
    if (lang) embed = embed.replace('<script ', `<script data-kotak-locale="${lang}" `)
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Toko</title></head><body style="background:#f5f5f4;font-family:sans-serif"><h1>Toko Kopi</h1><p>Kopi terbaik.</p>${embed}</body></html>`,
    )
  })
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r))
  hostBase = `http://127.0.0.1:${(host.address() as AddressInfo).port}/shop`
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await new Promise((r) => host?.close(r))
  await s?.stop()
})

const SIZES = { 1440: { width: 1440, height: 900 }, 390: { width: 390, height: 844 } } as const

/** A visitor's browser on the shop's page with the widget open. */
const visit = async (locale: string, width: 1440 | 390, query = '') => {
  const context = await browser.newContext({
    locale,
    viewport: SIZES[width],
    ...(width === 390 ? { hasTouch: true, isMobile: true } : {}),
  })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text())
  })
  await page.goto(hostBase + query)
  await page.locator('[data-kotak-livechat] button.launcher').click()
  const frame = page.frameLocator('[data-kotak-livechat] iframe')
  await frame.locator('form.start').waitFor()
  return { context, page, frame, problems }
}

/** axe-core's serious and critical findings inside the widget's frame (the page's own are the shop's). */
const frameAxe = async (page: Page) => {
  const frame = page.frames().find((f) => f.url().includes('/frame?'))
  if (!frame) throw new Error('no widget frame')
  await frame.evaluate(axeSource())
  return frame.evaluate(async () => {
    const g = globalThis as unknown as {
      axe: {
        run: (
          ctx: unknown,
          opts: unknown,
        ) => Promise<{
          passes: unknown[]
          violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[]
        }>
      }
      document: unknown
    }
    const r = await g.axe.run(g.document, {})
    if (r.passes.length === 0) throw new Error('axe-core checked nothing')
    return r.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)
  })
}

/** The label texts of the start form, as a visitor reads them. */
const labels = (frame: FrameLocator) =>
  frame.locator('form.start label:not(.consent)').evaluateAll((ls) => ls.map((l) => l.textContent ?? ''))

const sent = async (page: Page, frame: FrameLocator, text: string, sentLabel: string) => {
  const box = frame.locator('textarea')
  await box.fill(text)
  await box.press('Enter')
  await frame.locator('.msg.in', { hasText: text }).locator('.meta', { hasText: sentLabel }).waitFor()
  return page
}

describe.skipIf(lacks('chromium'))(
  'the widget in the visitor’s language, with the owner’s pre-chat form',
  () => {
    for (const width of [1440, 390] as const) {
      it(`an Indonesian browser gets Indonesian texts and the form the owner chose; starts without e-mail or phone (${width} px)`, async () => {
        const { context, page, frame, problems } = await visit('id-ID', width)
        // Defaults the owner never changed follow the visitor; the widget's own texts are Indonesian.
        await frame.locator('h1', { hasText: 'Chat dengan kami' }).waitFor()
        expect(await frame.locator('html').getAttribute('lang')).toBe('id')
        expect(await frame.locator('.intro').textContent()).toBe(
          'Halo! Isi data Anda dan kami akan segera melayani.',
        )
        expect(await labels(frame)).toEqual(['Nama', 'Email (opsional)'])
        expect(await frame.locator('input[name=phone]').count()).toBe(0)
        expect(await frame.locator('input[name=name]').getAttribute('required')).toBe('')
        expect(await frame.locator('input[name=email]').getAttribute('required')).toBeNull()
        expect(await frame.locator('.head button').getAttribute('aria-label')).toBe('Tutup')
        await frame.locator('button', { hasText: 'Mulai chat' }).click()
        await frame.locator('.error', { hasText: 'Mohon isi: Nama.' }).waitFor()
        expect(await frame.locator('input[name=name]').getAttribute('aria-invalid')).toBe('true')
        // A bad address is refused by the server, in Indonesian (X-Locale), beside its label.
        await frame.locator('input[name=name]').fill('Sari')
        await frame.locator('input[name=email]').fill('sari@')
        await frame.locator('button', { hasText: 'Mulai chat' }).click()
        await frame.locator('.error', { hasText: 'Email formatnya tidak valid' }).waitFor()
        await screenshot(page, `widget-form-id-${width}`)
        expect(await frameAxe(page)).toEqual([])
        await frame.locator('input[name=email]').fill('')
        await frame.locator('button', { hasText: 'Mulai chat' }).click()
        // Earlier visitors wait too: the place is theirs to count.
        await frame
          .locator('.notice', {
            hasText: /^Anda nomor \d+ dalam antrean\. Agen akan segera melayani Anda\.$/,
          })
          .waitFor()
        expect(await frame.locator('textarea').getAttribute('placeholder')).toBe('Tulis pesan…')
        expect(await frame.locator('.composer .btn').textContent()).toBe('Kirim')
        expect(await frame.locator('.composer .attach').getAttribute('aria-label')).toBe('Lampirkan berkas')
        await sent(page, frame, 'Halo, apakah kopi Gayo tersedia?', 'Terkirim')
        await screenshot(page, `widget-chat-id-${width}`)
        expect(await frameAxe(page)).toEqual([])
        expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
        await context.close()
      }, 60_000)

      it(`an English browser gets English texts and the same form (${width} px)`, async () => {
        const { context, page, frame, problems } = await visit('en-US', width)
        await frame.locator('h1', { hasText: 'Chat with us' }).waitFor()
        expect(await labels(frame)).toEqual(['Name', 'E-mail (optional)'])
        await frame.locator('button', { hasText: 'Start chat' }).click()
        await frame.locator('.error', { hasText: 'Please fill in: Name.' }).waitFor()
        await screenshot(page, `widget-form-en-${width}`)
        await frame.locator('input[name=name]').fill('Sam')
        await frame.locator('button', { hasText: 'Start chat' }).click()
        await frame.locator('.notice', { hasText: 'You are number' }).waitFor()
        expect(await frame.locator('textarea').getAttribute('placeholder')).toBe('Write a message…')
        await sent(page, frame, 'Is the Gayo coffee in stock?', 'Sent')
        await screenshot(page, `widget-chat-en-${width}`)
        expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
        await context.close()
      }, 60_000)
    }

    it('data-kotak-locale on the embed code wins over the browser', async () => {
      const { context, frame } = await visit('en-US', 1440, '?lang=id')
      await frame.locator('h1', { hasText: 'Chat dengan kami' }).waitFor()
      expect(await labels(frame)).toEqual(['Nama', 'Email (opsional)'])
      await context.close()
    })

    it('outside business hours with the e-mail fallback on, a hidden e-mail is offered as optional', async () => {
      const { context, page, frame } = await visit('id-ID', 390, '?c=closed')
      await frame
        .locator('.away', {
          hasText:
            'Kami sedang tidak di tempat. Tinggalkan email dan pesan Anda, kami akan membalas ke sana, atau kembali ke halaman ini nanti.',
        })
        .waitFor()
      expect(await labels(frame)).toEqual(['Nama', 'Email (opsional)'])
      await frame.locator('input[name=name]').fill('Dewi')
      await frame.locator('button', { hasText: 'Mulai chat' }).click()
      // No address given: the widget says the reply waits here, not in a mailbox.
      await frame
        .locator('.notice', {
          hasText:
            'Kami sedang tidak di tempat; tinggalkan pesan dan kembali ke halaman ini untuk membaca balasan kami.',
        })
        .waitFor()
      await screenshot(page, 'widget-away-id-390')
      await context.close()
    }, 60_000)

    it('the owner makes the phone required on the live chat page; the next visitor is asked for it', async () => {
      for (const [lang, width] of [
        ['id', 390],
        ['en', 1440],
      ] as const) {
        await s.fetch('/v1/me', {
          method: 'PATCH',
          headers: owner.headers({ 'content-type': 'application/json' }),
          body: JSON.stringify({ locale: lang }),
        })
        const { context, page, problems } = await signedIn(browser, s, owner, { viewport: SIZES[width] })
        await page.goto(`${s.url}/app/channels/${ch.id}`)
        const prechat = page.getByTestId('prechat')
        await prechat.waitFor()
        if (lang === 'id') {
          await prechat.getByText('Formulir awal').waitFor()
          expect(await prechat.getByLabel('Email').inputValue()).toBe('optional')
          expect(await prechat.getByLabel('Telepon').inputValue()).toBe('hidden')
          expect(
            await prechat
              .getByLabel('Telepon')
              .locator('option')
              .evaluateAll((os) => os.map((o) => o.textContent)),
          ).toEqual(['Wajib', 'Opsional', 'Tidak ditanyakan'])
          await wholePage(page, 'widget-settings-id-390')
        } else {
          await prechat.getByText('Start form').waitFor()
          await prechat.getByLabel('Phone').selectOption('required')
          // The preview follows the unsaved form.
          await page.locator('.chs-pv-phone').waitFor()
          expect(await page.locator('.chs-pv-email').textContent()).toBe('E-mail (optional)')
          await wholePage(page, 'widget-settings-en-1440')
          expect(await axeFindings(page)).toEqual([])
          await page.getByRole('button', { name: 'Save', exact: true }).click()
          await page.getByText('Saved.').waitFor()
        }
        expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
        await context.close()
      }
      await s.fetch('/v1/me', {
        method: 'PATCH',
        headers: owner.headers({ 'content-type': 'application/json' }),
        body: JSON.stringify({ locale: 'en' }),
      })
      const saved = (await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))).data
        .livechat
      expect(saved.prechat).toEqual({ name: 'required', email: 'optional', phone: 'required' })

      const { context, frame } = await visit('en-US', 1440)
      expect(await labels(frame)).toEqual(['Name', 'E-mail (optional)', 'Phone'])
      await frame.locator('input[name=name]').fill('Sam')
      await frame.locator('button', { hasText: 'Start chat' }).click()
      await frame.locator('.error', { hasText: 'Please fill in: Phone.' }).waitFor()
      await frame.locator('input[name=phone]').fill('+62 812 3456 7890')
      await frame.locator('button', { hasText: 'Start chat' }).click()
      await frame.locator('textarea').waitFor()
      await context.close()
    }, 120_000)
  },
)
