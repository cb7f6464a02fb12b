import * as fs from 'node:fs'
import * as path from 'node:path'
import type { Page } from 'playwright-core'
import { ARTIFACTS, type AxeViolation, axeSource } from './support'

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
 * axe-core's serious and critical findings on the page as it is now, leaving out what is marked
 * `data-axe-skip` (the live chat preview, drawn in the customer's own colours). The script is evaluated
 * through the DevTools protocol rather than added as a script tag, which the app's
 * Content-Security-Policy (`script-src 'self'`) refuses.
 */
export const axeFindings = async (page: Page): Promise<string[]> => {
  await page.evaluate(axeSource())
  const violations = (await page.evaluate(async () => {
    const g = globalThis as any
    return (await g.axe.run({ exclude: [['[data-axe-skip]']] }, { resultTypes: ['violations'] })).violations
  })) as AxeViolation[]
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)
}
