import { crc32, deflateSync } from 'node:zlib'
import type { Browser, Page, WebSocket } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { body } from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings, wholePage } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The profile page in the real browser: a person reaches it from the account menu (the drawer on
 * a phone), changes their name, photo (previewed before it is used, then removed), language,
 * time zone and sound alert, each checked through `GET /v1/me`; ends another browser's session
 * from the list, and that browser is signed out at once (its socket closes, its next request is a
 * 401) while this one goes on. A member with the Agent role has the same page, in Indonesian.
 * Screenshots: test-artifacts/app/profile-*.png.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser

const DESK = { width: 1440, height: 900 }
const PHONE = { width: 390, height: 844 }

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s)
  owner = await F.signIn(s, w.ownerEmail)
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

/** A real PNG of `size`×`size` pixels in one colour, which the browser can draw. */
const png = (size: number, rgb: readonly [number, number, number]) => {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4)
    len.writeUInt32BE(data.length)
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])))
    return Buffer.concat([len, Buffer.from(type), data, crc])
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(size, 0)
  header.writeUInt32BE(size, 4)
  header[8] = 8 // bit depth
  header[9] = 2 // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(size * 3).fill(Buffer.from(rgb))])
  const pixels = Buffer.concat(Array.from({ length: size }, () => row))
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

const meOf = async (session: F.Session) =>
  (await body(await s.fetch('/v1/me', { headers: session.headers() }))).data as Record<string, any>

/** The first real-time socket the page opens, caught before it opens. */
const socketOf = (page: Page): Promise<WebSocket> =>
  page.waitForEvent('websocket', { predicate: (ws) => ws.url().includes('/v1/realtime'), timeout: 30_000 })

/** The owner as the workspace made them (a retried test starts from there too). */
const resetOwner = async () => {
  const patch = F.json({ name: 'Olivia Owner', locale: 'en', timezone: '' }, owner.headers())
  expect((await s.fetch('/v1/me', { ...patch, method: 'PATCH' })).status).toBe(200)
  expect((await s.fetch('/v1/me/avatar', { method: 'DELETE', headers: owner.headers() })).status).toBe(200)
  expect((await s.fetch('/v1/me/preferences', F.json({ livechat_alert: 0 }, owner.headers()))).status).toBe(
    200,
  )
}

describe.skipIf(lacks('chromium'))('profile page', () => {
  it('changes name, photo, time zone, sound and language from the account menu; checked through /v1/me', async () => {
    await resetOwner()
    const session = await F.signIn(s, w.ownerEmail)
    // The refusals this test provokes on purpose (a name of spaces, a file that is no image).
    const { context, page, problems } = await signedIn(browser, s, session, {
      viewport: DESK,
      ignore: (m) => m.includes('status of 422'),
    })
    await page.goto(`${s.url}/app`)
    await page.getByTestId('account-button').click()
    await page.getByTestId('profile-link').click()
    await page.getByTestId('profile-page').waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/profile')
    await page.getByRole('heading', { name: 'Your profile', level: 1 }).waitFor()
    await page.getByText('No photo yet: your colleagues see your initials.').waitFor()
    expect(await page.getByTestId('pf-initials').textContent()).toBe('OO')

    // Name and time zone.
    const name = page.getByRole('textbox', { name: 'Your name' })
    expect(await name.inputValue()).toBe('Olivia Owner')
    const zone = page.getByRole('combobox', { name: 'Time zone' })
    expect(await zone.inputValue()).toBe('')
    expect(await zone.locator('option').first().textContent()).toBe('Same as the workspace (Asia/Jakarta)')
    await name.fill('Sari Wulandari')
    await zone.selectOption('Asia/Makassar')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Your profile is saved.').waitFor()
    let me = await meOf(owner)
    expect(me.user).toMatchObject({ name: 'Sari Wulandari', timezone: 'Asia/Makassar', locale: 'en' })
    expect(me.timezone).toBe('Asia/Makassar')
    // The top bar follows at once.
    expect((await page.getByTestId('account-button').textContent())?.trim()).toBe('Sari Wulandari ▾')

    // A name of spaces only: the server's message under the field, nothing changed.
    await name.fill('   ')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByText('Check the marked fields.').waitFor()
    await page.getByTestId('pf-details').getByText('must be 1 to 100 characters').waitFor()
    expect(await name.getAttribute('aria-invalid')).toBe('true')
    expect((await meOf(owner)).user.name).toBe('Sari Wulandari')
    await name.fill('Sari Wulandari')

    // A photo: previewed, then used; a file that is no image is refused under the field.
    const picker = page.getByLabel('Choose a photo')
    await picker.setInputFiles({
      name: 'notes.png',
      mimeType: 'image/png',
      buffer: Buffer.from('not a picture'),
    })
    await page.getByTestId('pf-upload').click()
    await page.getByText('must be a PNG, JPG or WebP image').waitFor()
    expect((await meOf(owner)).user.avatar_url).toBeNull()
    await picker.setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: png(96, [15, 110, 95]) })
    const preview = page.getByRole('img', { name: 'Preview of the new photo' })
    await preview.waitFor()
    expect(await preview.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(
      96,
    )
    await shots(page, 'profile-photo-preview-en')
    await page.getByTestId('pf-upload').click()
    await page.getByText('Your photo is updated.').waitFor()
    me = await meOf(owner)
    expect(me.user.avatar_url).toMatch(new RegExp(`^/v1/users/${w.ownerId}/avatar\\?v=`))
    const shown = page.getByRole('img', { name: 'Photo of Sari Wulandari' })
    await shown.waitFor()
    expect(await shown.getAttribute('src')).toBe(me.user.avatar_url)
    await page.waitForFunction(
      () => ((globalThis as any).document.querySelector('[data-testid=pf-avatar]')?.naturalWidth ?? 0) === 96,
    )
    // The top bar's account button shows it too, at once.
    expect(await page.getByTestId('account-button').locator('img').getAttribute('src')).toBe(
      me.user.avatar_url,
    )

    // The sound alert.
    const sound = page.getByRole('checkbox', { name: 'Play a sound for new conversations and notifications' })
    expect(await sound.isChecked()).toBe(false)
    await sound.check()
    await page.getByText('Sound is on.').waitFor()
    expect((await meOf(owner)).preferences).toContainEqual({ key: 'livechat_alert', value: 1 })
    await page.getByTestId('pf-desktop').getByText('does not show notifications from Kotak yet').waitFor()

    // This device in the list, with no way to end it from there (signing out does that).
    const mine = page.getByTestId('pf-session').filter({ has: page.getByTestId('pf-current') })
    await mine.waitFor()
    expect(await mine.getByRole('button', { name: 'End session' }).count()).toBe(0)
    await wholePage(page, 'profile-en-1440-whole')
    expect(await axeFindings(page)).toEqual([])
    await page.setViewportSize(PHONE)
    expect(await axeFindings(page)).toEqual([])
    const overflow = await page.evaluate(() => {
      const d = (globalThis as any).document
      return d.documentElement.scrollWidth - d.documentElement.clientWidth
    })
    expect(overflow).toBe(0)
    await wholePage(page, 'profile-en-390-whole')
    await page.setViewportSize(DESK)

    // The photo removed, after the question.
    await page.getByRole('button', { name: 'Remove photo' }).click()
    await page.getByText('Remove your photo?').waitFor()
    await page.getByRole('button', { name: 'Yes, go ahead' }).click()
    await page.getByText('Your photo is removed.').waitFor()
    expect((await meOf(owner)).user.avatar_url).toBeNull()
    await page.getByTestId('account-button').locator('img').waitFor({ state: 'detached' })
    expect(await page.getByTestId('pf-initials').textContent()).toBe('SW')

    // Language, and back to the workspace's zone: the page speaks Indonesian at once.
    await page.getByTestId('pf-details').getByRole('combobox', { name: 'Language' }).selectOption('id')
    await zone.selectOption('')
    await page.getByRole('button', { name: 'Save', exact: true }).click()
    await page.getByRole('heading', { name: 'Profil Anda', level: 1 }).waitFor()
    await page.getByText('Profil Anda sudah disimpan.').waitFor()
    me = await meOf(owner)
    expect(me.user).toMatchObject({ locale: 'id', timezone: null })
    expect(me.timezone).toBe('Asia/Jakarta')
    const zona = page.getByRole('combobox', { name: 'Zona waktu' })
    expect(await zona.inputValue()).toBe('')
    expect(await zona.locator('option').first().textContent()).toBe('Sama dengan workspace (Asia/Jakarta)')
    await page.getByRole('heading', { name: 'Tempat Anda masuk', level: 2 }).waitFor()
    expect(await page.getByTestId('pf-current').textContent()).toBe('Perangkat ini')
    await wholePage(page, 'profile-id-1440-whole')
    expect(await axeFindings(page)).toEqual([])
    await shots(page, 'profile-id')
    expect(problems).toEqual([])
    await context.close()
  }, 180_000)

  it('ends another browser’s session from the list: that browser is signed out at once, this one goes on', async () => {
    await resetOwner()
    const here = await F.signIn(s, w.ownerEmail)
    const there = await F.signIn(s, w.ownerEmail)
    const thereId = (await body(await s.fetch('/v1/me/sessions', { headers: there.headers() }))).data.find(
      (r: any) => r.current,
    ).id as number

    const a = await signedIn(browser, s, here, { viewport: DESK })
    const b = await signedIn(browser, s, there, { viewport: DESK, ignore: (m) => m.includes('401') })
    const bSocket = socketOf(b.page)
    await b.page.goto(`${s.url}/app`)
    await b.page.getByTestId('inbox-list').waitFor()
    const bWs = await bSocket
    const aSocket = socketOf(a.page)
    await a.page.goto(`${s.url}/app/profile`)
    const aWs = await aSocket
    const row = a.page.locator(`[data-testid=pf-session][data-session-id="${thereId}"]`)
    await row.waitFor()
    expect(await row.getByTestId('pf-current').count()).toBe(0)
    const bClosed = bWs.waitForEvent('close', { timeout: 30_000 })
    await row.getByRole('button', { name: 'End session' }).click()
    await row.getByText('Sign this device out?').waitFor()
    await row.getByRole('button', { name: 'Yes, go ahead' }).click()
    await a.page.getByText('The session is ended.').waitFor()
    await row.waitFor({ state: 'detached' })

    // That browser: its socket closed, the server refuses its session, and it shows the sign-in page.
    await bClosed
    expect((await s.fetch('/v1/me', { headers: there.headers() })).status).toBe(401)
    await b.page.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor({ timeout: 30_000 })
    // This browser goes on, its socket open.
    expect(aWs.isClosed()).toBe(false)
    expect((await s.fetch('/v1/me', { headers: here.headers() })).status).toBe(200)
    const left = (await body(await s.fetch('/v1/me/sessions', { headers: here.headers() }))).data
    expect(left.map((r: any) => r.id)).not.toContain(thereId)
    await shots(a.page, 'profile-sessions-en')
    expect(a.problems).toEqual([])
    await a.context.close()
    await b.context.close()
  }, 180_000)

  it('is every member’s page: an agent on a phone, in Indonesian, from the drawer', async () => {
    const agent = await F.member(s, w)
    const session = await F.signIn(s, agent.email)
    expect(
      (await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, session.headers()), method: 'PATCH' })).status,
    ).toBe(200)
    const { context, page, problems } = await signedIn(browser, s, session, { viewport: PHONE, touch: true })
    await page.goto(`${s.url}/app`)
    await page.getByRole('button', { name: 'Menu' }).tap()
    await page.getByTestId('profile-link').tap()
    await page.getByRole('heading', { name: 'Profil Anda', level: 1 }).waitFor()
    await page.getByText('Belum ada foto: rekan kerja melihat inisial Anda.').waitFor()
    await page.getByRole('heading', { name: 'Passkey', level: 2 }).waitFor()
    await page.getByRole('button', { name: 'Keluar dari semua perangkat' }).waitFor()
    const name = page.getByRole('textbox', { name: 'Nama Anda' })
    await name.fill('Andi Pratama')
    await page.getByRole('button', { name: 'Simpan', exact: true }).tap()
    await page.getByText('Profil Anda sudah disimpan.').waitFor()
    expect((await meOf(session)).user.name).toBe('Andi Pratama')
    expect(await axeFindings(page)).toEqual([])
    const overflow = await page.evaluate(() => {
      const d = (globalThis as any).document
      return d.documentElement.scrollWidth - d.documentElement.clientWidth
    })
    expect(overflow).toBe(0)
    await wholePage(page, 'profile-agent-id-390-whole')
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)
})
