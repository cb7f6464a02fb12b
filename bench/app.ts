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
 * bench/run.ts may call `measureApp(url, cookie)`. With `--contacts` (and a cookie), the contacts
 * list's scroll instead (`measureContactsScroll`, below; `BENCH_CONTACTS` contacts, 100,000).
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

const launch = () =>
  chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] })

/** A `Cookie` header's pairs as browser cookies of `base`'s host. */
const cookiesOf = (base: string, cookie: string) => {
  const host = new URL(base).hostname
  return cookie.split(/;\s*/).map((c) => {
    const i = c.indexOf('=')
    return { name: c.slice(0, i), value: c.slice(i + 1), domain: host, path: '/' }
  })
}

export const measureApp = async (base: string, cookie?: string): Promise<AppLoad> => {
  const browser = await launch()
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    if (cookie) await context.addCookies(cookiesOf(base, cookie))
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

/**
 * The reports page over a range (issue 46: "the reports page with a year of data draws in < 1 s"),
 * in headless Chromium at 1440 × 900 with a session cookie: from the start of the navigation to
 * the first frame after the day chart's summary (written from the figures) is in the page: the
 * HTML, the app's and the reports area's scripts, the four reports it asks, and the drawing. Once
 * with nothing cached, once on a reload (scripts cached, as a returning agent has them).
 */
export interface ReportsPage {
  readonly url: string
  readonly first_ms: number
  readonly reload_ms: number
  readonly met: boolean
}

export const REPORTS_PAGE_TARGET_MS = 1000

export const measureReportsPage = async (
  base: string,
  cookie: string,
  range: { readonly from: string; readonly to: string },
): Promise<ReportsPage> => {
  const browser = await launch()
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    await context.addCookies(cookiesOf(base, cookie))
    const page = await context.newPage()
    const url = `${base}/app/reports?from=${range.from}&to=${range.to}`
    const drawn = async () => {
      await page.getByTestId('daily-summary').waitFor({ timeout: 60_000 })
      return Math.round(
        // A string: the page's own requestAnimationFrame (this file is typed for Node).
        await page.evaluate<number>('new Promise((r) => requestAnimationFrame(() => r(performance.now())))'),
      )
    }
    await page.goto(url, { waitUntil: 'commit' })
    const first = await drawn()
    await page.reload({ waitUntil: 'commit' })
    const reload = await drawn()
    return {
      url: url.replace(base, ''),
      first_ms: first,
      reload_ms: reload,
      met: first < REPORTS_PAGE_TARGET_MS && reload < REPORTS_PAGE_TARGET_MS,
    }
  } finally {
    await browser.close()
  }
}

/**
 * The contacts list under 100,000 contacts (issue 45): the contacts are imported through the public
 * API (POST /v1/contacts/import, parts of 20,000 rows) unless the workspace already holds `n`,
 * then /app/contacts opens in headless Chromium and its list is scrolled from the top to the
 * bottom, `stepPx` per animation frame, while every frame's time is taken with
 * requestAnimationFrame (performance.now). Reports frames per second over the scroll, the frames
 * dropped (each frame interval beyond one 60 Hz frame counts the frames it missed), the longest
 * frame, how many rows were in the DOM at most (the list is virtual), and the JavaScript the
 * contacts page loads on demand (its chunks, gzipped). Target: 60 fps, i.e. ≥ 58 measured with
 * under 1 % of frames dropped.
 */
export interface ContactsScroll {
  readonly contacts: number
  readonly scrolled_px: number
  readonly frames: number
  readonly duration_ms: number
  readonly fps: number
  readonly dropped_frames: number
  readonly dropped_share: number
  readonly longest_frame_ms: number
  readonly max_rows_in_dom: number
  readonly chunk_scripts: number
  readonly chunk_js_bytes: number
  readonly chunk_js_gzip_bytes: number
  readonly met: boolean
}

export const CONTACTS_TARGET = { fps: 58, droppedShare: 0.01 }

const csrfOf = (cookie: string) => /(?:^|;\s*)kotak_csrf=([^;]*)/.exec(cookie)?.[1] ?? ''

/** Imports contacts `Bench 1…n` through the API until the workspace holds at least `n`. */
export const seedContacts = async (base: string, cookie: string, n: number) => {
  const headers = { cookie, 'x-csrf-token': csrfOf(cookie) }
  const count = async () => {
    const r = await fetch(`${base}/v1/contacts?per_page=1`, { headers })
    if (!r.ok) throw new Error(`GET /v1/contacts answered ${r.status}`)
    return Number(((await r.json()) as { meta: { total: number } }).meta.total)
  }
  const have = await count()
  const PART = 20_000
  for (let from = have + 1; from <= n; from += PART) {
    const rows = ['name,phone,email,city']
    for (let i = from; i < Math.min(n + 1, from + PART); i++)
      rows.push(`Bench Contact ${i},+62812${String(i).padStart(8, '0')},bench${i}@example.com,Jakarta`)
    const form = new FormData()
    form.append('file', new Blob([`${rows.join('\n')}\n`], { type: 'text/csv' }), 'bench.csv')
    const r = await fetch(`${base}/v1/contacts/import`, { method: 'POST', headers, body: form })
    if (!r.ok) throw new Error(`POST /v1/contacts/import answered ${r.status}: ${await r.text()}`)
  }
  return count()
}

export const measureContactsScroll = async (
  base: string,
  cookie: string,
  opts: { readonly contacts?: number; readonly stepPx?: number } = {},
): Promise<ContactsScroll> => {
  const contacts = await seedContacts(base, cookie, opts.contacts ?? 100_000)
  const stepPx = opts.stepPx ?? 2400
  const browser = await launch()
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
    await context.addCookies(cookiesOf(base, cookie))
    const page = await context.newPage()
    // The first load (the inbox) first, so the scripts counted after are the contacts page's own.
    await page.goto(`${base}/app`, { waitUntil: 'networkidle' })
    const scripts: Promise<Buffer>[] = []
    page.on('response', (res) => {
      if (res.request().resourceType() === 'script') scripts.push(res.body())
    })
    await page.evaluate(
      `history.pushState(null, '', '/app/contacts'); dispatchEvent(new PopStateEvent('popstate'))`,
    )
    await page.locator('[data-testid=contacts-list] li a').first().waitFor({ timeout: 30_000 })
    await page.waitForLoadState('networkidle')
    const bodies = await Promise.all(scripts)
    // Scroll from top to bottom, one step per frame, each frame's time taken as it comes.
    // A string, not a function: the page runs it as written (tsx's helpers do not exist there).
    const r = (await page.evaluate(`new Promise((done) => {
      const el = document.querySelector('[data-testid=contacts-list]')
      const times = []
      let maxRows = 0
      const frame = (t) => {
        times.push(t)
        maxRows = Math.max(maxRows, el.querySelectorAll('li').length)
        const end = el.scrollHeight - el.clientHeight
        if (el.scrollTop >= end) return done({ times, scrolled: el.scrollTop, maxRows })
        el.scrollTop = Math.min(end, el.scrollTop + ${stepPx})
        requestAnimationFrame(frame)
      }
      requestAnimationFrame(frame)
    })`)) as { times: number[]; scrolled: number; maxRows: number }
    const FRAME = 1000 / 60
    let dropped = 0
    let longest = 0
    for (let i = 1; i < r.times.length; i++) {
      const d = r.times[i]! - r.times[i - 1]!
      longest = Math.max(longest, d)
      dropped += Math.max(0, Math.round(d / FRAME) - 1)
    }
    const duration = r.times[r.times.length - 1]! - r.times[0]!
    const frames = r.times.length - 1
    const fps = frames / (duration / 1000)
    const share = dropped / (frames + dropped)
    return {
      contacts,
      scrolled_px: Math.round(r.scrolled),
      frames,
      duration_ms: Math.round(duration),
      fps: Math.round(fps * 10) / 10,
      dropped_frames: dropped,
      dropped_share: Math.round(share * 10_000) / 10_000,
      longest_frame_ms: Math.round(longest * 10) / 10,
      max_rows_in_dom: r.maxRows,
      chunk_scripts: bodies.length,
      chunk_js_bytes: bodies.reduce((n, b) => n + b.length, 0),
      chunk_js_gzip_bytes: bodies.reduce((n, b) => n + zlib.gzipSync(b).length, 0),
      met: fps >= CONTACTS_TARGET.fps && share < CONTACTS_TARGET.droppedShare,
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
  if (args.includes('--contacts')) {
    if (!cookie) throw new Error('--contacts needs --cookie (a session of a member with contacts.manage)')
    const n = Number(process.env.BENCH_CONTACTS ?? 100_000)
    const result = await measureContactsScroll(base, cookie, { contacts: n })
    console.log(JSON.stringify(result, null, 2))
    process.exit(result.met ? 0 : 1)
  }
  const result = await measureApp(base, cookie)
  console.log(JSON.stringify(result, null, 2))
  process.exit(result.within_budget ? 0 : 1)
}
