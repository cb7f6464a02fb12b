import * as fs from 'node:fs'
import * as path from 'node:path'
import { type Browser, type BrowserContext, type CDPSession, chromium, type Page } from 'playwright-core'
import type * as F from '../support/fixtures'
import type { TestServer } from '../support/server'
import { SYSTEM_PACKAGES } from '../support/systemPackages'

/** The agent app in headless Chromium (Debian's /usr/bin/chromium, never a downloaded browser). */
export const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/app')

export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: SYSTEM_PACKAGES.chromium.binary, args: ['--no-sandbox'] })

/**
 * A browser context signed in as the session's user (its cookies), with page errors collected;
 * `viewport`, `touch` (a phone: touch events, mobile viewport) and `ignore` (console errors that
 * are not the page's fault) for the tests that need them.
 */
export const signedIn = async (
  browser: Browser,
  s: TestServer,
  session: F.Session,
  opts: {
    readonly viewport?: { readonly width: number; readonly height: number }
    readonly touch?: boolean
    readonly ignore?: (text: string) => boolean
    /** The browser's language (navigator.language), for pages that follow it. */
    readonly locale?: string
  } = {},
) => {
  const context: BrowserContext = await browser.newContext({
    viewport: opts.viewport ?? { width: 1280, height: 800 },
    ...(opts.touch ? { hasTouch: true, isMobile: true } : {}),
    ...(opts.locale ? { locale: opts.locale } : {}),
  })
  const url = new URL(s.url)
  await context.addCookies(
    session.cookie.split('; ').map((c) => {
      const [name, value] = c.split('=') as [string, string]
      return { name, value, domain: url.hostname, path: '/' }
    }),
  )
  // Under the test's own timeout, so that a wait that fails says what it waited for.
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error' && !opts.ignore?.(m.text())) problems.push(m.text())
  })
  return { context, page, problems }
}

export const screenshot = async (page: Page, name: string) => {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) })
}

/** Screenshots at 1440 and 390 px (`{name}-1440`, `{name}-390`); the page keeps its own size after. */
export const shots = async (page: Page, name: string) => {
  const size = page.viewportSize() ?? { width: 1280, height: 800 }
  await page.setViewportSize({ width: 1440, height: 900 })
  await screenshot(page, `${name}-1440`)
  await page.setViewportSize({ width: 390, height: 844 })
  await screenshot(page, `${name}-390`)
  await page.setViewportSize(size)
}

/**
 * A browser with nobody signed in, in the browser language `locale`; only the page's own errors
 * count (its first `/v1/me` is a 401, a console error that is not the page's fault).
 */
export const guest = async (
  browser: Browser,
  locale = 'en-GB',
  viewport: { readonly width: number; readonly height: number } = { width: 1280, height: 800 },
) => {
  const context: BrowserContext = await browser.newContext({ viewport, locale })
  context.setDefaultTimeout(10_000)
  const page = await context.newPage()
  const problems: string[] = []
  page.on('pageerror', (e) => problems.push(String(e)))
  return { context, page, problems }
}

/** axe-core's own script, injected into the page under test (no network). */
let axeText: string | undefined
/** axe-core's script, read once per process (test files share their worker's). */
export const axeSource = () => {
  axeText ??= fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8')
  return axeText
}

export interface AxeViolation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: readonly { readonly target: readonly string[] }[]
}

/**
 * Runs axe-core in the page; returns the serious and critical violations. Throws when axe checked
 * nothing (a check that cannot fail is no check).
 */
export const axe = async (page: Page): Promise<readonly AxeViolation[]> => {
  // Evaluated through the DevTools protocol: the app's CSP (script-src 'self') stays as it is.
  await page.evaluate(axeSource())
  const { violations, passes } = (await page.evaluate(async () => {
    const g = globalThis as unknown as {
      axe: { run: (ctx: unknown, opts: unknown) => Promise<{ violations: unknown[]; passes: unknown[] }> }
    }
    // Only violations are read here: axe keeps one node per rule of the other kinds (its
    // documented way to run faster), so `passes` still counts the rules that passed.
    const r = await g.axe.run((globalThis as unknown as { document: unknown }).document, {
      resultTypes: ['violations'],
    })
    return { violations: r.violations, passes: r.passes.length }
  })) as { violations: AxeViolation[]; passes: number }
  if (passes === 0) throw new Error('axe-core checked nothing')
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

export interface Authenticator {
  readonly cdp: CDPSession
  readonly id: string
}

/**
 * Chromium's virtual authenticator on the page (DevTools' WebAuthn domain): a platform one that
 * holds discoverable credentials and verifies its user, as passkeys need.
 */
export const authenticator = async (page: Page): Promise<Authenticator> => {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('WebAuthn.enable', { enableUI: false })
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  })
  return { cdp, id: authenticatorId }
}

export const credentialsOf = async (a: Authenticator) =>
  (await a.cdp.send('WebAuthn.getCredentials', { authenticatorId: a.id })).credentials
