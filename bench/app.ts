import * as zlib from 'node:zlib'
import { chromium } from 'playwright-core'

/**
 * The agent app's first load, measured in headless Chromium against a running Kotak (it builds
 * and starts nothing): `npx tsx bench/app.ts [BASE_URL] [--cookie 'kotak_session=…; kotak_csrf=…']`.
 * Reports the JavaScript of the first load (every script fetched until the network is idle),
 * gzipped here with the default level as a server or proxy would send it, and the paint timings:
 * first contentful paint and the app's own `kotak:meaningful` mark (the sign-in choice, or the
 * first page of the inbox when a session cookie is given). Budget (issue #27): ≤ 150 KB gzipped
 * JavaScript, first meaningful paint < 1 s. Prints one JSON object; exits 1 over budget.
 * bench/run.ts may call `measureApp(url, cookie)`.
 */
export interface AppLoad {
  readonly url: string
  readonly scripts: number
  readonly js_bytes: number
  readonly js_gzip_bytes: number
  readonly first_contentful_paint_ms: number | null
  readonly first_meaningful_paint_ms: number | null
  readonly within_budget: boolean
}

export const BUDGET = { jsGzipBytes: 150 * 1024, meaningfulPaintMs: 1000 }

export const measureApp = async (base: string, cookie?: string): Promise<AppLoad> => {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  })
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    if (cookie) {
      const host = new URL(base).hostname
      await context.addCookies(
        cookie.split(/;\s*/).map((c) => {
          const i = c.indexOf('=')
          return { name: c.slice(0, i), value: c.slice(i + 1), domain: host, path: '/' }
        }),
      )
    }
    const page = await context.newPage()
    const scripts: Promise<Buffer>[] = []
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script') scripts.push(res.body())
    })
    await page.goto(`${base}/app`, { waitUntil: 'networkidle' })
    await page.waitForFunction(() => performance.getEntriesByName('kotak:meaningful').length > 0, null, {
      timeout: 10_000,
    })
    const paints = await page.evaluate(() => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0]
      const fmp = performance.getEntriesByName('kotak:meaningful')[0]
      return { fcp: fcp ? fcp.startTime : null, fmp: fmp ? fmp.startTime : null }
    })
    const bodies = await Promise.all(scripts)
    const js = bodies.reduce((n, b) => n + b.length, 0)
    const gz = bodies.reduce((n, b) => n + zlib.gzipSync(b).length, 0)
    const fmp = paints.fmp === null ? null : Math.round(paints.fmp)
    return {
      url: `${base}/app`,
      scripts: bodies.length,
      js_bytes: js,
      js_gzip_bytes: gz,
      first_contentful_paint_ms: paints.fcp === null ? null : Math.round(paints.fcp),
      first_meaningful_paint_ms: fmp,
      within_budget: gz <= BUDGET.jsGzipBytes && fmp !== null && fmp < BUDGET.meaningfulPaintMs,
    }
  } finally {
    await browser.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2)
  const at = args.indexOf('--cookie')
  const cookie = at >= 0 ? args[at + 1] : process.env.KOTAK_COOKIE
  const base = (
    args.find((a, i) => !a.startsWith('--') && !(at >= 0 && i === at + 1)) ?? 'http://localhost:8080'
  ).replace(/\/$/, '')
  const result = await measureApp(base, cookie)
  console.log(JSON.stringify(result, null, 2))
  process.exit(result.within_budget ? 0 : 1)
}
