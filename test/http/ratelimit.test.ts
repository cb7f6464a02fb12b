import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

/** The limit is a fixed window per clock minute: start well inside one so the window cannot roll over. */
const awaitFreshMinute = async () => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < 20_000) await new Promise((r) => setTimeout(r, left + 50))
}

/** Public calls from this address until the budget (300 a minute) answers 429. */
const spendPublicBudget = async () => {
  let last = 0
  for (let i = 0; i < 301 && last !== 429; i++) {
    const res = await s.fetch('/')
    last = res.status
    await res.arrayBuffer()
  }
  expect(last).toBe(429)
}

it('allows 120 calls per minute per key, then answers 429 with Retry-After', {
  timeout: 60_000,
}, async () => {
  const w = await F.workspace(s, { plan: 'pro' })
  const key = await F.apiKey(s, w, 'read')
  const other = await F.apiKey(s, w, 'read')
  await awaitFreshMinute()
  const remaining: number[] = []
  for (let i = 0; i < 120; i++) {
    const res = await s.fetch('/v1/workspace', { headers: F.bearer(key) })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-limit')).toBe('120')
    remaining.push(Number(res.headers.get('x-ratelimit-remaining')))
  }
  expect(remaining[0]).toBe(119)
  expect(remaining[119]).toBe(0)
  const over = await s.fetch('/v1/workspace', { headers: F.bearer(key) })
  expect(over.status).toBe(429)
  const retry = Number(over.headers.get('retry-after'))
  expect(retry).toBeGreaterThanOrEqual(1)
  expect(retry).toBeLessThanOrEqual(60)
  expect(Math.abs(retry - (60 - new Date().getSeconds()))).toBeLessThanOrEqual(2)
  expect(over.headers.get('x-ratelimit-remaining')).toBe('0')
  const b = (await over.json()) as { error: { code: string } }
  expect(b.error.code).toBe('rate_limited')
  // The budget is per key: another key of the same workspace is unaffected.
  expect((await s.fetch('/v1/workspace', { headers: F.bearer(other) })).status).toBe(200)
})

it('never rate limits /healthz and /metrics, which probes poll from one address', {
  timeout: 60_000,
}, async () => {
  await awaitFreshMinute()
  // More than the public budget of one address (300 a minute), as a load balancer's probes add up.
  for (let i = 0; i < 320; i++) {
    const res = await s.fetch(i % 4 === 3 ? '/metrics' : '/healthz')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-ratelimit-limit')).toBeNull()
    await res.arrayBuffer()
  }
  // The public budget itself still holds for the address's other public calls.
  await spendPublicBudget()
  expect((await s.fetch('/healthz')).status).toBe(200)
})

it("never rate limits the app's page and files or the widget's, which a team behind one address loads", {
  timeout: 60_000,
}, async () => {
  await awaitFreshMinute()
  // The page names its current script; take one of the app's hashed files from it.
  const html = await (await s.fetch('/app')).text()
  const asset = /\/app\/assets\/[A-Za-z0-9._-]+\.js/.exec(html)?.[0]
  expect(asset).toBeDefined()
  // The address spends its public budget (signing in, invitation links: those stay limited)...
  await spendPublicBudget()
  // ...and its agents still open the app, more than a budget's worth (an office behind one NAT).
  const paths = [
    '/app',
    '/app/inbox',
    asset!,
    '/widget.js',
    '/livechat/assets/frame.js',
    '/livechat/assets/frame.css',
  ]
  for (let i = 0; i < 330; i++) {
    const res = await s.fetch(paths[i % paths.length]!)
    expect(res.status, paths[i % paths.length]).toBe(200)
    expect(res.headers.get('x-ratelimit-limit')).toBeNull()
    await res.arrayBuffer()
  }
})
