import { Effect } from 'effect'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, guest, launch, shots, signedIn } from './support'

/**
 * Invitations end to end in Chromium (spec 1 §4.1, §4.2, §4.5): the e-mailed `/invite/{token}`
 * link opened signed out, sign-in by a one-time link and back to the invitation, Accept landing
 * in the workspace's inbox; the page for an account without a workspace listing its invitations;
 * a member of another workspace seeing a new invitation live in the top bar; expired, cancelled
 * and unknown links explained; the Indonesian texts.
 */
let smtp: Smtp
let s: TestServer
let browser: Browser
let seq = 0
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`

const body = async (res: Response) => (await res.json()) as Record<string, any>

const workspace = async (name: string) => {
  const w = await F.workspace(s, { plan: 'pro', name })
  const owner = await F.signIn(s, w.ownerEmail)
  const roles = (await body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
  const admin = roles.find((r: any) => r.is_admin && !r.is_owner)
  const invite = async (email: string) => {
    const res = await s.fetch('/v1/invitations', F.json({ email, role_id: admin.id }, owner.headers()))
    expect(res.status, await res.clone().text()).toBe(201)
    return (await body(res)).data as { id: number }
  }
  return { w, owner, invite, role: admin.name as string }
}

/** The link as e-mailed to the address (the newest mail to it after `after`). */
const linkFor = async (email: string, after = 0) => {
  const mail = await smtp.waitFor((m) => m.to.includes(email) && smtp.received.indexOf(m) >= after)
  const link = /(http:\/\/\S+\/invite\/[A-Za-z0-9_-]+)/.exec(String(mail.parsed.text))?.[1]
  expect(link).toBeTruthy()
  return link!
}

/** Signs in in this browser through a one-time link (as the CLI's): its page, then its Sign in button. */
const signInWithLink = async (page: Page, email: string) => {
  const token = await s.run(
    Effect.gen(function* () {
      const user = yield* Users.byEmail(email)
      return yield* Sessions.createLoginLink(user!.id, 5)
    }),
  )
  await page.goto(`${s.url}/auth/link/${token}`)
  await page.getByTestId('link-signin').click()
}

const workspaceShown = (page: Page) =>
  page.getByRole('combobox', { name: /^(Workspace)$/ }).evaluate((el) => {
    const select = el as unknown as { selectedOptions: { textContent: string }[] }
    return select.selectedOptions[0]?.textContent ?? ''
  })

beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({ SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}` })
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
  await smtp?.stop()
})

describe.skipIf(lacks('chromium'))('invitations in the app', () => {
  it('the e-mailed link, opened signed out: sign in, come back, accept, land in the inbox', async () => {
    const team = await workspace(`Toko Maju ${unique()}`)
    const email = `dewi-${unique()}@example.com`
    const after = smtp.received.length
    await team.invite(email)
    const link = await linkFor(email, after)
    expect(link.startsWith(`${s.url}/invite/`)).toBe(true)

    const { context, page, problems } = await guest(browser)
    await page.goto(link)
    await page.waitForURL(/\/app\/invite\/[A-Za-z0-9_-]+$/)
    const facts = page.getByTestId('invite-facts')
    await facts.getByText('Olivia Owner').waitFor()
    await expect.poll(() => facts.textContent()).toContain(team.role)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Toko Maju')
    expect(await facts.textContent()).toContain(email)
    expect(await page.getByTestId('invite-status').getAttribute('data-status')).toBe('pending')
    await page
      .getByTestId('invite-signin')
      .getByText(`Sign in as ${email} to accept this invitation.`)
      .waitFor()
    await shots(page, 'invite-signed-out-en')
    expect(await axe(page)).toEqual([])

    // Signing in lands on /app; the app takes the person back to the invitation.
    await signInWithLink(page, email)
    await page.waitForURL(/\/app\/invite\/[A-Za-z0-9_-]+$/)
    await page.getByTestId('invite-accept').waitFor()
    await shots(page, 'invite-signed-in-en')
    await page.getByTestId('invite-accept').click()
    await page.waitForURL(`${s.url}/app/inbox`)
    await page.getByTestId('inbox-list').waitFor()
    await expect.poll(() => workspaceShown(page)).toContain('Toko Maju')
    expect(problems).toEqual([])
    await context.close()

    // The link now says it was accepted.
    const again = await guest(browser)
    await again.page.goto(link)
    await again.page
      .getByTestId('invite-status')
      .and(again.page.locator('[data-status="accepted"]'))
      .waitFor()
    await again.context.close()
  })

  it('signed in as another account: the page says whose invitation it is and does not offer Accept', async () => {
    const team = await workspace(`Salah Akun ${unique()}`)
    const email = `rina-${unique()}@example.com`
    const after = smtp.received.length
    await team.invite(email)
    const link = await linkFor(email, after)
    const other = await workspace(`Other ${unique()}`)
    const { context, page, problems } = await signedIn(browser, s, other.owner)
    await page.goto(link)
    await page.getByRole('alert').getByText(`This invitation is for ${email}`).waitFor()
    expect(await page.getByTestId('invite-accept').count()).toBe(0)
    // The API refuses anyway: only the invited address may accept.
    const inv = (await body(await s.fetch(`/v1${new URL(link).pathname}`))).data
    const res = await s.fetch(`/v1/me/invitations/${inv.id}/accept`, F.json({}, other.owner.headers()))
    expect(res.status).toBe(404)
    expect(problems).toEqual([])
    await context.close()
  })

  it('an account without a workspace sees its invitations (updated by itself), hides one, accepts another', async () => {
    const email = `budi-${unique()}@example.com`
    await s.run(Users.ensure(email, 'Budi Baru'))
    const session = await F.signIn(s, email)
    const { context, page, problems } = await signedIn(browser, s, session)
    await page.goto(`${s.url}/app`)
    await page.getByTestId('welcome-none').waitFor()
    expect(await page.textContent('body')).not.toContain('Something went wrong')
    expect(await page.textContent('body')).toContain('Ask an owner or administrator')
    await shots(page, 'welcome-none-en')

    const first = await workspace(`Gudang ${unique()}`)
    const second = await workspace(`Kantor ${unique()}`)
    await first.invite(email)
    await second.invite(email)
    // No socket without a workspace: the page asks again (every 15 s, or when the tab is shown).
    await page.evaluate(() => {
      const g = globalThis as unknown as { document: { dispatchEvent: (e: Event) => boolean } }
      g.document.dispatchEvent(new Event('visibilitychange'))
    })
    const items = page.getByTestId('invitation')
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(2)
    await items.filter({ hasText: 'Gudang' }).getByText('Olivia Owner invited you to').waitFor()
    await shots(page, 'welcome-list-en')
    expect(await axe(page)).toEqual([])

    await items.filter({ hasText: 'Gudang' }).getByRole('button', { name: 'Not now' }).click()
    await expect.poll(() => items.count()).toBe(1)
    await page.getByRole('button', { name: 'Show hidden invitations (1)' }).waitFor()

    await items.filter({ hasText: 'Kantor' }).getByRole('button', { name: 'Accept' }).click()
    await page.waitForURL(`${s.url}/app/inbox`)
    await expect.poll(() => workspaceShown(page)).toContain('Kantor')
    // The browser logs the first `GET /v1/me` (409 workspace_required) that led to this page.
    expect(problems.filter((p) => !p.includes('409'))).toEqual([])
    await context.close()
  }, 60_000)

  it('a member of another workspace gets the invitation live in the top bar and accepts it there', async () => {
    const home = await workspace(`Rumah ${unique()}`)
    const next = await workspace(`Cabang ${unique()}`)
    const { context, page, problems } = await signedIn(browser, s, home.owner)
    await page.goto(`${s.url}/app/inbox`)
    await page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
    expect(await page.getByTestId('invitations-button').count()).toBe(0)
    await next.invite(home.w.ownerEmail)
    await page.getByTestId('invitations-button').getByText('1 invitation', { exact: true }).waitFor()
    await page.getByTestId('invitations-button').click()
    const item = page.getByTestId('invitation').filter({ hasText: 'Cabang' })
    await item.waitFor()
    await shots(page, 'topbar-invitation-en')
    expect(await axe(page)).toEqual([])
    await item.getByRole('button', { name: 'Accept' }).click()
    await page.waitForURL(`${s.url}/app/inbox`)
    await expect.poll(() => workspaceShown(page)).toContain('Cabang')
    expect(problems).toEqual([])
    await context.close()
  })

  it('expired, cancelled and unknown links explain themselves, in Indonesian with the id locale', async () => {
    const team = await workspace(`Lama ${unique()}`)
    const expiredEmail = `lama-${unique()}@example.com`
    let after = smtp.received.length
    const expired = await team.invite(expiredEmail)
    const expiredLink = await linkFor(expiredEmail, after)
    await I.sql(
      s,
      (sql) => sql`UPDATE invitations SET expires_at = now() - interval '1 hour' WHERE id = ${expired.id}`,
    )
    const cancelledEmail = `batal-${unique()}@example.com`
    after = smtp.received.length
    const cancelled = await team.invite(cancelledEmail)
    const cancelledLink = await linkFor(cancelledEmail, after)
    const del = await s.fetch(`/v1/invitations/${cancelled.id}`, {
      method: 'DELETE',
      headers: team.owner.headers(),
    })
    expect(del.status).toBe(200)

    const en = await guest(browser)
    await en.page.goto(expiredLink)
    await en.page.locator('[data-status="expired"]').getByText('Expired').waitFor()
    await en.page.getByTestId('invite-help').getByText('This invitation expired on').waitFor()
    expect(await en.page.getByTestId('invite-signin').count()).toBe(0)
    await shots(en.page, 'invite-expired-en')
    expect(await axe(en.page)).toEqual([])
    await en.page.goto(cancelledLink)
    await en.page.locator('[data-status="cancelled"]').getByText('Cancelled').waitFor()
    await en.page.goto(`${s.url}/invite/not-a-real-token-aaaaaaaaaaaa`)
    await en.page.getByRole('heading', { name: 'This invitation link does not work' }).waitFor()
    // A link mangled by a mail client still reaches the page.
    await en.page.goto(`${s.url}/invite/abc%22def.`)
    await en.page.getByRole('heading', { name: 'This invitation link does not work' }).waitFor()
    expect(en.problems).toEqual([])
    await en.context.close()

    const id = await guest(browser, 'id-ID')
    await id.page.goto(expiredLink)
    await id.page.locator('[data-status="expired"]').getByText('Kedaluwarsa').waitFor()
    await id.page.getByTestId('invite-help').getByText('Undangan ini kedaluwarsa pada').waitFor()
    expect(await id.page.getByRole('heading', { level: 1 }).textContent()).toContain('Undangan ke')
    await shots(id.page, 'invite-expired-id')
    await id.page.goto(cancelledLink)
    await id.page.locator('[data-status="cancelled"]').getByText('Dibatalkan').waitFor()
    await id.page.goto(`${s.url}/invite/not-a-real-token-aaaaaaaaaaaa`)
    await id.page.getByRole('heading', { name: 'Tautan undangan ini tidak berlaku' }).waitFor()
    await id.context.close()

    // A pending one in Indonesian, signed out: the way to sign in is in Indonesian too.
    const pendingEmail = `baru-${unique()}@example.com`
    after = smtp.received.length
    await team.invite(pendingEmail)
    const pendingLink = await linkFor(pendingEmail, after)
    const idPending = await guest(browser, 'id-ID')
    await idPending.page.goto(pendingLink)
    await idPending.page.getByText(`Masuk sebagai ${pendingEmail} untuk menerima undangan ini.`).waitFor()
    await idPending.page.locator('[data-status="pending"]').getByText('Menunggu Anda').waitFor()
    await shots(idPending.page, 'invite-signed-out-id')
    // The language switch on the page goes back to English.
    await idPending.page.getByRole('combobox', { name: 'Bahasa' }).selectOption('en')
    await idPending.page.getByText(`Sign in as ${pendingEmail} to accept this invitation.`).waitFor()
    await idPending.context.close()
  }, 60_000)

  it('the no-workspace page in Indonesian', async () => {
    const email = `sari-${unique()}@example.com`
    await s.run(Users.ensure(email, 'Sari'))
    const team = await workspace(`Usaha ${unique()}`)
    await team.invite(email)
    const session = await F.signIn(s, email)
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'id-ID' })
    const url = new URL(s.url)
    await context.addCookies(
      session.cookie.split('; ').map((c) => {
        const [name, value] = c.split('=') as [string, string]
        return { name, value, domain: url.hostname, path: '/' }
      }),
    )
    const page = await context.newPage()
    page.setDefaultTimeout(10_000)
    await page.goto(`${s.url}/app`)
    await page.getByRole('heading', { name: 'Bergabung dengan workspace' }).waitFor()
    await page.getByTestId('invitation').getByRole('button', { name: 'Terima' }).waitFor()
    await page.getByRole('button', { name: 'Nanti saja' }).waitFor()
    await shots(page, 'welcome-list-id')
    await context.close()
  })
})
