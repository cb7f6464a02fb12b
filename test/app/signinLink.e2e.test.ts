import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as F from '../support/fixtures'
import { freePort, startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { authenticator, axe, credentialsOf, guest, launch, screenshot, shots, signedIn } from './support'

/**
 * Signing in a person can do alone, in Chromium: a one-time link survives link previews and is
 * used by its page's button (a second browser of someone already signed in); used, expired and
 * unknown links explained in English and Indonesian, with the way to a new one (the e-mail form
 * when the server can send mail, the operator's command otherwise); a link e-mailed from the
 * sign-in page through a real SMTP server, opened and used; signing out of every device, which
 * drops the person's other browser to the sign-in page at once.
 */
let smtp: Smtp
let s: TestServer
let off: TestServer
let browser: Browser
let seq = 0
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`

const linkOf = (server: TestServer, email: string) =>
  server.run(
    Effect.gen(function* () {
      const user = yield* Users.byEmail(email)
      return yield* Sessions.createLoginLink(user!.id, 5)
    }),
  )
const expire = (server: TestServer, userId: number) =>
  server.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`UPDATE login_links SET expires_at = now() - interval '1 minute' WHERE user_id = ${userId}`,
    ),
  )

const settled = (page: Page) => page.locator('[data-testid="connection"][data-settled="true"]').waitFor()

beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({ SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}` })
  off = await startTestServer()
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await Promise.all([s?.stop(), off?.stop()])
  await smtp?.stop()
})

describe.skipIf(lacks('chromium'))('sign-in links in the app', () => {
  it('link previews use nothing; the button signs a second browser in beside the first', async () => {
    const w = await F.workspace(s, { name: `Toko ${unique()}` })
    const first = await signedIn(browser, s, await F.signIn(s, w.ownerEmail))
    await first.page.goto(`${s.url}/app`)
    await settled(first.page)

    const token = await linkOf(s, w.ownerEmail)
    const link = `${s.url}/auth/link/${token}`
    // A chat app's preview: plain GETs, and a headless browser that renders the page.
    for (let i = 0; i < 3; i++) expect((await fetch(link)).status).toBe(200)
    const preview = await guest(browser)
    await preview.page.goto(link)
    await preview.page.getByTestId('link-signin').waitFor()
    await preview.context.close()

    const second = await guest(browser)
    await second.page.goto(link)
    await second.page.waitForURL(`${s.url}/app/link/${token}`)
    const masked = `${w.ownerEmail[0]}***@example.com`
    await second.page.getByTestId('link-for').getByText(`signs you in as ${masked}`).waitFor()
    expect(await second.page.textContent('body')).not.toContain(w.ownerEmail)
    await shots(second.page, 'signin-link-valid-en')
    expect(await axe(second.page)).toEqual([])
    await second.page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await second.page.waitForURL(`${s.url}/app/inbox`)
    await settled(second.page)
    expect(second.problems).toEqual([])

    // Both browsers are signed in, each with its own session.
    await first.page.reload()
    await settled(first.page)
    expect(new URL(first.page.url()).pathname).toBe('/app/inbox')
    expect(first.problems).toEqual([])
    await Promise.all([first.context.close(), second.context.close()])
  })

  it('a used, an expired and an unknown link say so, in English and Indonesian, and offer a new link by e-mail', async () => {
    const w = await F.workspace(s)
    const used = await linkOf(s, w.ownerEmail)
    expect((await s.fetch(`/auth/link/${used}`, F.json({}))).status).toBe(200)
    const { context, page, problems } = await guest(browser)

    await page.goto(`${s.url}/auth/link/${used}`)
    await page.getByRole('heading', { name: 'This sign-in link was already used' }).waitFor()
    expect(await page.getByTestId('link-help').getAttribute('data-status')).toBe('used')
    await page.getByRole('button', { name: 'E-mail me a sign-in link' }).waitFor()
    expect(await page.getByTestId('link-signin').count()).toBe(0)
    await shots(page, 'signin-link-used-en')
    expect(await axe(page)).toEqual([])
    await page.getByRole('combobox', { name: 'Language' }).selectOption('id')
    await page.getByRole('heading', { name: 'Tautan masuk ini sudah dipakai' }).waitFor()
    await page.getByRole('button', { name: 'Kirimkan tautan masuk ke e-mail saya' }).waitFor()
    await shots(page, 'signin-link-used-id')
    expect(await axe(page)).toEqual([])

    const late = await linkOf(s, w.ownerEmail)
    await expire(s, w.ownerId)
    // The language picked stays for the next page in this browser.
    await page.goto(`${s.url}/auth/link/${late}`)
    await page.getByRole('heading', { name: 'Tautan masuk ini sudah kedaluwarsa' }).waitFor()
    await shots(page, 'signin-link-expired-id')
    await page.getByRole('combobox', { name: 'Bahasa' }).selectOption('en')
    await page.getByRole('heading', { name: 'This sign-in link has expired' }).waitFor()
    expect(await page.textContent('body')).toContain('30 minutes')
    await shots(page, 'signin-link-expired-en')

    await page.goto(`${s.url}/auth/link/not-a-real-link`)
    await page.getByRole('heading', { name: 'This sign-in link does not work' }).waitFor()
    expect(await page.textContent('body')).not.toContain('"error"')
    expect(problems).toEqual([])
    await context.close()
  })

  it('a link used in another tab while its page was open: the button says it is used', async () => {
    const w = await F.workspace(s)
    const token = await linkOf(s, w.ownerEmail)
    const { context, page, problems } = await guest(browser)
    await page.goto(`${s.url}/auth/link/${token}`)
    await page.getByTestId('link-signin').waitFor()
    expect((await s.fetch(`/auth/link/${token}`, F.json({}))).status).toBe(200)
    await page.getByTestId('link-signin').click()
    await page.getByRole('heading', { name: 'This sign-in link was already used' }).waitFor()
    expect(new URL(page.url()).pathname).toBe(`/app/link/${token}`)
    expect(problems).toEqual([])
    await context.close()
  })

  it('without mail, an expired link’s page tells how to get one from the operator', async () => {
    const w = await F.workspace(off)
    const token = await linkOf(off, w.ownerEmail)
    await expire(off, w.ownerId)
    const { context, page, problems } = await guest(browser, 'id-ID')
    await page.goto(`${off.url}/auth/link/${token}`)
    await page.getByRole('heading', { name: 'Tautan masuk ini sudah kedaluwarsa' }).waitFor()
    expect(await page.locator('code').textContent()).toContain('npm run kotak -- login-link')
    expect(await page.getByRole('button', { name: 'Kirimkan tautan masuk ke e-mail saya' }).count()).toBe(0)
    await shots(page, 'signin-link-expired-nomail-id')
    expect(await axe(page)).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })

  it('an e-mailed link end to end: ask on the sign-in page, read the mail, press the button, land in the inbox', async () => {
    const w = await F.workspace(s, { name: `Warung ${unique()}` })
    const { context, page, problems } = await guest(browser)
    await page.goto(`${s.url}/app`)
    await page.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    expect(await page.locator('code').count()).toBe(0)
    await shots(page, 'signin-email-form-en')
    expect(await axe(page)).toEqual([])

    // An address with no account gets the same answer as one with an account.
    const form = page.getByTestId('signin-email')
    await form.getByLabel('Your e-mail address').fill('nobody-here@example.com')
    await form.getByRole('button', { name: 'E-mail me a sign-in link' }).click()
    const sent = page.getByTestId('signin-email-sent')
    await sent.getByText('If nobody-here@example.com has a Kotak account').waitFor()
    await page.getByRole('button', { name: 'Send to another address' }).click()

    const after = smtp.received.length
    await form.getByLabel('Your e-mail address').fill(w.ownerEmail)
    await form.getByRole('button', { name: 'E-mail me a sign-in link' }).click()
    await sent.getByText(`If ${w.ownerEmail} has a Kotak account, a sign-in link is on its way.`).waitFor()
    await shots(page, 'signin-email-sent-en')
    const mail = await smtp.waitFor((m) => m.to.includes(w.ownerEmail) && smtp.received.indexOf(m) >= after)
    expect(mail.parsed.subject).toBe('Your sign-in link for Kotak')
    const link = /(http:\/\/\S+\/auth\/link\/[A-Za-z0-9_-]+)/.exec(String(mail.parsed.text))?.[1]
    expect(link).toBeTruthy()
    expect(smtp.received.slice(after).flatMap((m) => m.to)).not.toContain('nobody-here@example.com')

    await page.goto(link!)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.waitForURL(`${s.url}/app/inbox`)
    await page.getByTestId('inbox-list').waitFor()
    expect(problems).toEqual([])
    await context.close()

    // In Indonesian, and too many requests for one address: the form says to wait.
    const again = await guest(browser, 'id-ID')
    await again.page.goto(`${s.url}/app`)
    await again.page.getByRole('heading', { name: 'Masuk ke Kotak' }).waitFor()
    await shots(again.page, 'signin-email-form-id')
    const idForm = again.page.getByTestId('signin-email')
    let refused = ''
    for (let i = 0; i < 8 && !refused; i++) {
      await idForm.getByLabel('Alamat e-mail Anda').fill('banyak@example.com')
      await idForm.getByRole('button', { name: 'Kirimkan tautan masuk ke e-mail saya' }).click()
      const outcome = await Promise.race([
        again.page
          .getByTestId('signin-email-sent')
          .waitFor()
          .then(() => 'sent'),
        idForm
          .getByRole('alert')
          .waitFor()
          .then(() => 'refused'),
      ])
      if (outcome === 'sent') await again.page.getByRole('button', { name: 'Kirim ke alamat lain' }).click()
      else refused = (await idForm.getByRole('alert').textContent()) ?? ''
    }
    expect(refused).toMatch(/^Terlalu banyak permintaan/)
    await shots(again.page, 'signin-email-limited-id')
    await again.context.close()
  }, 60_000)

  it('sign out of every device: the other browser shows the sign-in page at once', async () => {
    const w = await F.workspace(s)
    const ignore401 = (text: string) => text.includes('401')
    const a = await signedIn(browser, s, await F.signIn(s, w.ownerEmail), {
      viewport: { width: 1440, height: 900 },
    })
    const b = await signedIn(browser, s, await F.signIn(s, w.ownerEmail), { ignore: ignore401 })
    await Promise.all([a.page.goto(`${s.url}/app`), b.page.goto(`${s.url}/app`)])
    await Promise.all([settled(a.page), settled(b.page)])

    await a.page.getByTestId('account-button').click()
    const menu = a.page.getByRole('dialog', { name: 'Olivia Owner' })
    await menu.getByText(w.ownerEmail).waitFor()
    await screenshot(a.page, 'signout-all-menu-1440')
    expect(await axe(a.page)).toEqual([])
    await menu.getByRole('button', { name: 'Sign out of every device' }).click()
    await a.page.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    // The other browser, without a reload: its socket closes and the app finds the session gone.
    await b.page.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    expect(new URL(b.page.url()).pathname).toBe('/app/inbox')
    expect(b.problems).toEqual([])
    await screenshot(b.page, 'signout-all-other-browser')
    await Promise.all([a.context.close(), b.context.close()])

    // On a phone the drawer has it too, in Indonesian when the person chose it.
    const session = await F.signIn(s, w.ownerEmail)
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, session.headers()), method: 'PATCH' })
    const phone = await signedIn(browser, s, session, {
      viewport: { width: 390, height: 844 },
      touch: true,
      ignore: ignore401,
    })
    await phone.page.goto(`${s.url}/app`)
    await settled(phone.page)
    await phone.page.getByRole('button', { name: 'Menu', exact: true }).tap()
    const everywhere = phone.page.getByRole('button', { name: 'Keluar dari semua perangkat' })
    await everywhere.waitFor()
    await screenshot(phone.page, 'signout-all-drawer-id-390')
    await everywhere.tap()
    await phone.page.getByRole('heading', { name: 'Masuk ke Kotak' }).waitFor()
    expect((await s.fetch('/v1/me', { headers: session.headers() })).status).toBe(401)
    await phone.context.close()
  }, 60_000)
})

describe.skipIf(lacks('chromium'))('sign-in links in the app: the security review', () => {
  it('a badly encoded link shows the unknown-link page, in English and Indonesian, not a blank app', async () => {
    const { context, page, problems } = await guest(browser)
    // First through the app's own history: the sign-in page, then the mangled address.
    const mangled = async (path: string) => {
      await page.goto(`${s.url}/app`)
      await page.getByRole('heading', { name: /^(Sign in to Kotak|Masuk ke Kotak)$/ }).waitFor()
      // A string: the root type-check has no DOM types.
      await page.evaluate(
        `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
      )
    }
    await mangled('/app/link/abc%')
    expect(new URL(page.url()).pathname).toBe('/app/link/abc%')
    await page.getByRole('heading', { name: 'This sign-in link does not work' }).waitFor()
    await page.getByTestId('link-help').and(page.locator('[data-status="invalid"]')).waitFor()
    expect(problems).toEqual([])
    await shots(page, 'signin-link-badly-encoded-en')
    await page.getByRole('combobox', { name: 'Language' }).selectOption('id')
    await page.getByRole('heading', { name: 'Tautan masuk ini tidak berfungsi' }).waitFor()
    await shots(page, 'signin-link-badly-encoded-id')
    // An invitation link mangled the same way says so on its own page.
    await mangled('/app/invite/abc%')
    await page.getByRole('heading', { name: 'Tautan undangan ini tidak berlaku' }).waitFor()
    await shots(page, 'invite-badly-encoded-id')
    // Typed into the address bar (or cut short by a chat app): the server serves the same pages.
    for (const typed of ['/app/link/abc%', '/auth/link/abc%']) {
      await page.goto(`${s.url}${typed}`)
      await page.getByTestId('link-help').and(page.locator('[data-status="invalid"]')).waitFor()
    }
    await page.goto(`${s.url}/app/invite/abc%`)
    await page.getByRole('heading', { name: 'Tautan undangan ini tidak berlaku' }).waitFor()
    expect(problems).toEqual([])
    await context.close()
  })

  it('after the button, only the app’s own path: a backslash path lands in the inbox, not on another site', async () => {
    const w = await F.workspace(s)
    const { context, page, problems } = await guest(browser)
    // Anything off this server would be a failed navigation the test sees as a wrong URL.
    const away: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(s.url)) away.push(r.url())
    })
    for (const back of ['/\\evil.example', '/%5Cevil.example', '//evil.example']) {
      const token = await linkOf(s, w.ownerEmail)
      await page.goto(`${s.url}/app/link/${token}?return_to=${encodeURIComponent(back)}`)
      await page.getByTestId('link-signin').click()
      await page.waitForURL(`${s.url}/app/inbox`)
      await page.getByTestId('inbox-list').waitFor()
      await context.clearCookies()
    }
    // An app path is kept.
    const token = await linkOf(s, w.ownerEmail)
    await page.goto(`${s.url}/app/link/${token}?return_to=${encodeURIComponent('/app/passkeys')}`)
    await page.getByTestId('link-signin').click()
    await page.waitForURL(`${s.url}/app/passkeys`)
    expect(away).toEqual([])
    expect(problems).toEqual([])
    await context.close()
  })
})

describe.skipIf(lacks('chromium'))('a passkey on a link’s page: the security review', () => {
  // WebAuthn needs a host name for the relying party, so this server's public address is localhost.
  let local: TestServer
  let base: string
  beforeAll(async () => {
    const port = await freePort()
    base = `http://localhost:${port}`
    local = await startTestServer({ PORT: String(port), PUBLIC_URL: base })
  }, 60_000)
  afterAll(() => local?.stop())

  it('signed in with a passkey, the page goes to the app, not to a backslash path', async () => {
    const w = await F.workspace(local)
    const { context, page, problems } = await signedIn(
      browser,
      { ...local, url: base } as TestServer,
      await F.signIn(local, w.ownerEmail),
    )
    const device = await authenticator(page)
    await page.goto(`${base}/app/passkeys`)
    await page.getByLabel('Name', { exact: true }).fill('Laptop')
    await page.getByRole('button', { name: 'Add a passkey' }).click()
    await page.getByTestId('passkey').filter({ hasText: 'Laptop' }).waitFor()
    await context.clearCookies()

    const away: string[] = []
    page.on('request', (r) => {
      if (!r.url().startsWith(base)) away.push(r.url())
    })
    await page.goto(`${base}/app/link/not-a-real-link?return_to=${encodeURIComponent('/\\evil.example')}`)
    await page.getByRole('heading', { name: 'This sign-in link does not work' }).waitFor()
    await shots(page, 'signin-link-passkey-en')
    await page.getByTestId('passkey-signin').click()
    await page.waitForURL(`${base}/app/inbox`)
    await page.getByTestId('inbox-list').waitFor()
    expect(await credentialsOf(device)).toHaveLength(1)
    expect(away).toEqual([])
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 60_000)
})
