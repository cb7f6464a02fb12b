import * as path from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import type * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts/app')

/** A browser context signed in as `session` (the cookies `GET /auth/link/{token}` sets). */
export const signedIn = async (
  browser: Browser,
  s: TestServer,
  session: F.Session,
): Promise<BrowserContext> => {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  await ctx.addCookies(
    session.cookie.split('; ').map((c) => {
      const [name, value] = c.split('=') as [string, string]
      return { name, value, url: s.url }
    }),
  )
  return ctx
}

/**
 * A screenshot of the whole page: the app scrolls inside its main area, not the document, so the
 * viewport is grown to the page's height for the picture.
 */
export const screenshot = async (page: Page, name: string) => {
  const size = page.viewportSize() ?? { width: 1280, height: 860 }
  const height = await page.evaluate(() => {
    const el = (globalThis as any).document.querySelector('.chs-page')
    return el ? el.scrollHeight + el.getBoundingClientRect().top : 0
  })
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, Math.ceil(height)) })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) })
  await page.setViewportSize(size)
}
