import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Page } from 'playwright-core'
import { ARTIFACTS, axe } from './support'

/**
 * A screenshot of the whole page: the app scrolls inside its main area, not the document, so the
 * viewport is grown to the page's height for the picture.
 */
export const wholePage = async (page: Page, name: string) => {
  const size = page.viewportSize() ?? { width: 1280, height: 860 }
  const height = await page.evaluate(() => {
    const el = (globalThis as any).document.querySelector('.chs-page')
    return el ? el.scrollHeight + el.getBoundingClientRect().top : 0
  })
  await page.setViewportSize({ width: size.width, height: Math.max(size.height, Math.ceil(height)) })
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) })
  await page.setViewportSize(size)
}

/**
 * axe-core's serious and critical findings (support.ts `axe`) as lines, leaving out the live chat
 * preview: it is drawn in the customer's own colours, which the page warns about instead.
 */
export const axeFindings = async (page: Page): Promise<string[]> =>
  (await axe(page))
    .map((v) => ({ ...v, nodes: v.nodes.filter((n) => !n.target.some((t) => /chs-pv|chs-preview/.test(t))) }))
    .filter((v) => v.nodes.length > 0)
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
