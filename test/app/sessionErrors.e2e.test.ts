import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invalidateCredentials } from '../../engine/events'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, launch, screenshot, signedIn } from './support'

/**
 * Failures the account's pages must not hide (security review): "Sign out of every device" that
 * did not reach the server or was refused says so and stays, since the person's other sessions
 * are still going; the passkeys page that could not load its list shows the error, not an empty
 * list that reads as "you have none". Failures are made in the browser (Playwright's routing), so
 * the server's sessions show what really happened.
 */
let s: TestServer
let browser: Browser

beforeAll(async () => {
  s = await startTestServer()
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const settled = (page: Page) => page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
/** The browser's own report of a request made to fail here. */
const madeToFail = (text: string) => /Failed to load resource|net::ERR_FAILED|status of (500|503)/.test(text)

describe.skipIf(lacks('chromium'))('the account’s failures are shown', () => {
  it('sign out of every device: a failure is said and nothing is left; success and 401 go to sign-in', async () => {
    const w = await F.workspace(s)
    const session = await F.signIn(s, w.ownerEmail)
    const elsewhere = await F.signIn(s, w.ownerEmail)
    const { context, page, problems } = await signedIn(browser, s, session, {
      viewport: { width: 1440, height: 900 },
      ignore: (t) => madeToFail(t) || t.includes('401'),
    })
    await page.goto(`${s.url}/app/inbox`)
    await settled(page)

    // The server cannot be reached.
    await page.route('**/auth/logout', (r) => r.abort('failed'))
    await page.getByTestId('account-button').click()
    await page.getByTestId('signout-all').click()
    const alert = page.getByTestId('signout-all-error')
    await alert.waitFor()
    expect(await alert.textContent()).toBe(
      'You are still signed in on your devices: the server could not be reached. Check the connection and try again.',
    )
    expect(new URL(page.url()).pathname).toBe('/app/inbox')
    expect(await page.getByRole('heading', { name: 'Sign in to Kotak' }).count()).toBe(0)
    expect((await s.fetch('/v1/me', { headers: elsewhere.headers() })).status).toBe(200)
    expect(await page.getByTestId('signout-all').isEnabled()).toBe(true)
    await screenshot(page, 'signout-all-failed-en-1440')
    expect(await axe(page)).toEqual([])

    // The server refuses: its own message is shown.
    await page.unroute('**/auth/logout')
    await page.route('**/auth/logout', (r) =>
      r.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'unavailable', message: 'Try again in a minute.' } }),
      }),
    )
    await page.getByTestId('signout-all').click()
    await page.getByText('You are still signed in on your devices: Try again in a minute.').waitFor()
    expect(new URL(page.url()).pathname).toBe('/app/inbox')

    // Through: this browser shows the sign-in page, and the other session has ended.
    await page.unroute('**/auth/logout')
    await page.getByTestId('signout-all').click()
    await page.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    expect((await s.fetch('/v1/me', { headers: elsewhere.headers() })).status).toBe(401)
    expect(problems).toEqual([])
    await context.close()
  }, 60_000)

  it('on a phone, in Indonesian; a browser signed out already (401) goes to the sign-in page', async () => {
    const w = await F.workspace(s)
    const session = await F.signIn(s, w.ownerEmail)
    await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, session.headers()), method: 'PATCH' })
    const phone = await signedIn(browser, s, session, {
      viewport: { width: 390, height: 844 },
      touch: true,
      ignore: (t) => madeToFail(t) || t.includes('401'),
    })
    await phone.page.goto(`${s.url}/app/inbox`)
    await settled(phone.page)
    await phone.page.route('**/auth/logout', (r) => r.abort('failed'))
    await phone.page.getByRole('button', { name: 'Menu', exact: true }).tap()
    await phone.page.getByRole('button', { name: 'Keluar dari semua perangkat' }).tap()
    await phone.page
      .getByText(
        'Anda masih masuk di perangkat Anda: server tidak dapat dihubungi. Periksa koneksi lalu coba lagi.',
      )
      .waitFor()
    await screenshot(phone.page, 'signout-all-failed-id-390')
    expect(await axe(phone.page)).toEqual([])
    expect((await s.fetch('/v1/me', { headers: session.headers() })).status).toBe(200)

    // This session ran out meanwhile (its time is up: nothing closes the socket, which a sign-out
    // elsewhere now does, taking the app to the sign-in page by itself): the 401 is no failure to
    // report.
    await phone.page.unroute('**/auth/logout')
    await s.run(
      Effect.zipRight(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE sessions SET expires_at = now() WHERE user_id = ${w.ownerId}`,
        ),
        // The nodes' cached credentials go, as with any change to a session.
        invalidateCredentials({ userId: w.ownerId }),
      ),
    )
    expect((await s.fetch('/v1/me', { headers: session.headers() })).status).toBe(401)
    await phone.page.getByRole('button', { name: 'Keluar dari semua perangkat' }).tap()
    await phone.page.getByRole('heading', { name: 'Masuk ke Kotak' }).waitFor()
    expect(await phone.page.getByTestId('signout-all-error').count()).toBe(0)
    await phone.context.close()
  }, 60_000)

  it('a session ended while the browser holds a newer one: the socket comes back on the newer one', async () => {
    const w = await F.workspace(s)
    const first = await F.signIn(s, w.ownerEmail)
    const { context, page, problems } = await signedIn(browser, s, first, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/inbox`)
    await settled(page)

    // Signed in again in another tab of this browser: its cookies now hold the newer session,
    // which then ends the first one (the profile's list), closing the socket the page opened on it.
    const second = await F.signIn(s, w.ownerEmail)
    const url = new URL(s.url)
    await context.addCookies(
      second.cookie.split('; ').map((c) => {
        const [name, value] = c.split('=') as [string, string]
        return { name, value, domain: url.hostname, path: '/' }
      }),
    )
    const listed = await s.fetch('/v1/me/sessions', { headers: second.headers() })
    const firstId = ((await listed.json()) as { data: Array<{ id: number; current: boolean }> }).data.find(
      (r) => !r.current,
    )!.id
    const badge = page.getByTestId('connection')
    const end = await s.fetch(`/v1/me/sessions/${firstId}`, { method: 'DELETE', headers: second.headers() })
    expect(end.status).toBe(200)
    await page.locator('[data-testid="connection"].conn-down').waitFor()
    // Back by itself on the session the browser holds, without the Reconnect button.
    await settled(page)
    expect(await badge.getAttribute('class')).toContain('conn-open')
    expect(new URL(page.url()).pathname).toBe('/app/inbox')
    expect((await s.fetch('/v1/me', { headers: first.headers() })).status).toBe(401)
    expect(problems).toEqual([])
    await context.close()
  }, 60_000)

  it('the passkeys page that cannot load its list shows the error and no list', async () => {
    const w = await F.workspace(s)
    const session = await F.signIn(s, w.ownerEmail)
    for (const [lang, width] of [
      ['en', 1440],
      ['id', 390],
    ] as const) {
      await s.fetch('/v1/me', { ...F.json({ locale: lang }, session.headers()), method: 'PATCH' })
      const { context, page, problems } = await signedIn(browser, s, session, {
        viewport: { width, height: 900 },
        ignore: madeToFail,
      })
      await page.route('**/v1/me/passkeys', (r) =>
        r.request().method() === 'GET'
          ? r.fulfill({
              status: 500,
              contentType: 'application/json',
              body: JSON.stringify({ error: { code: 'server_error', message: 'Database unavailable.' } }),
            })
          : r.continue(),
      )
      await page.goto(`${s.url}/app/passkeys`)
      const page_ = page.getByTestId('passkeys-page')
      await page_.getByRole('alert').filter({ hasText: 'Database unavailable.' }).waitFor()
      expect(
        await page_
          .getByText(lang === 'en' ? 'You have no passkeys yet.' : 'Anda belum punya passkey.')
          .count(),
      ).toBe(0)
      expect(await page_.locator('.pk-list').count()).toBe(0)
      expect(await page_.getByText(lang === 'en' ? 'Loading' : 'Memuat').count()).toBe(0)
      await screenshot(page, `passkeys-load-error-${lang}-${width}`)
      expect(problems).toEqual([])
      await context.close()
    }
  }, 60_000)
})
