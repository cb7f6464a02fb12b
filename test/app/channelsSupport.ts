import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'
import { ARTIFACTS, axe } from './support'

/**
 * A screenshot of the whole page: the app scrolls inside its main area, not the document, so the
 * viewport is grown to the page's height for the picture.
 */
export const wholePage = async (page: Page, name: string) => {
  const size = page.viewportSize() ?? { width: 1280, height: 860 }
  const height = await page.evaluate(() => {
    const el = (globalThis as any).document.querySelector('.k-page')
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

/**
 * A page as people see it at both widths: axe-core finds nothing serious at 1440 and 390 px, and
 * at 390 px nothing sticks out past the screen's right edge (a table scrolls inside its own
 * `.k-table-wrap`, which itself must fit) and the document never scrolls sideways. Failures name
 * the elements. The viewport is put back as it was.
 */
export const fitsAndAccessible = async (page: Page) => {
  const size = page.viewportSize() ?? { width: 1440, height: 900 }
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await axeFindings(page), `axe on ${page.url()} at ${width} px`).toEqual([])
    if (width !== 390) continue
    const wide = await page.evaluate(() => {
      const doc = (globalThis as any).document
      return [...doc.querySelectorAll('.k-page *')]
        .filter(
          (e: any) => e.getBoundingClientRect().right > 391 && !e.parentElement?.closest('.k-table-wrap'),
        )
        .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`)
    })
    expect(wide, `sticks out at 390 px on ${page.url()}`).toEqual([])
    expect(
      await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(390)
  }
  await page.setViewportSize(size)
}
