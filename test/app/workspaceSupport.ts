import type { Browser, Page } from 'playwright-core'
import { expect } from 'vitest'
import type * as F from '../support/fixtures'
import type { TestServer } from '../support/server'
import { axeFindings, wholePage } from './channelsSupport'
import { signedIn } from './support'

/** What the workspace and dashboard browser tests share. */

/** No serious or critical axe-core finding at 1440 and at 390 px; screenshots of both. */
export const checked = async (page: Page, name: string) => {
  const size = page.viewportSize()!
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await axeFindings(page)).toEqual([])
    // No sideways scroll of the page itself at either width.
    expect(
      await page.evaluate(() => {
        const d = (globalThis as any).document
        return d.documentElement.scrollWidth <= d.documentElement.clientWidth + 1
      }),
    ).toBe(true)
    await wholePage(page, `${name}-${width}`)
  }
  await page.setViewportSize(size)
}

/** A signed-in browser; the refusals the tests provoke (4xx answers) are not the page's errors. */
export const open = (browser: Browser, s: TestServer, session: F.Session) =>
  signedIn(browser, s, session, { ignore: (t) => /status of 4\d\d/.test(t) })
