import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import * as path from 'node:path'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks, SYSTEM_PACKAGES } from '../support/systemPackages'
import { connect } from '../support/ws'
import { body, createLivechat, patch } from './support'

/**
 * End to end in headless Chromium (Debian's `/usr/bin/chromium`; never a downloaded browser): a
 * shop's page on another origin, with CSS of its own, embeds the widget with the embed code; a
 * visitor opens it, fills the form and writes; an agent on a WebSocket gets `message.created`
 * and replies through the API; the visitor sees the reply in the iframe. The screenshot is kept
 * as `test-artifacts/livechat.png`.
 */
/** What the browser's computed style gives back (the test's TypeScript has no DOM types). */
interface CSSLike {
  readonly backgroundColor: string
  readonly borderStyle: string
}

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts')

let s: TestServer
let owner: F.Session
let w: F.Seeded
let host: http.Server
let hostUrl: string
let browser: Browser
let channel: any
beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '300' })
  w = await F.workspace(s, { plan: 'free' })
  owner = await F.signIn(s, w.ownerEmail)
  channel = await createLivechat(s, owner, { title: 'Acme Support', color: '#0f766e' })
  await s.fetch(
    `/v1/channels/${channel.id}/livechat`,
    patch(
      {
        subtitle: 'Usually replies in minutes',
        intro: 'Hi! Tell us who you are.',
        start_label: 'Chat now',
        radius: 16,
        font: 'sans-serif',
        allowed_domains: ['127.0.0.1'],
      },
      owner.headers(),
    ),
  )
  // The customer's site: another origin (its own port), hostile-ish CSS, the embed code as given.
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Acme Shop</title>
<style>
  * { font-family: "Comic Sans MS", cursive !important; color: #c00; }
  body { background: #fdf6e3; margin: 40px; }
  button { background: yellow; border: 4px dashed red; padding: 30px; }
  iframe { border: 8px solid blue; }
</style></head>
<body><h1>Acme Shop</h1><p>Our products are great.</p><button>Buy</button>
${channel.livechat.embed_code}
</body></html>`
  host = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(page)
  })
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r))
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/shop`
  browser = await chromium.launch({ executablePath: SYSTEM_PACKAGES.chromium.binary, args: ['--no-sandbox'] })
})
afterAll(async () => {
  await browser?.close()
  await new Promise((r) => host?.close(r))
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the widget in a browser', () => {
  it('a visitor on another site chats with an agent', async () => {
    const agent = await connect(
      (
        await body(
          await s.fetch('/v1/realtime/token', F.json({ channels: [`ws:${w.workspaceId}`] }, owner.headers())),
        )
      ).data.url,
    )
    await agent.next((f) => f.op === 'subscribed')
    const page = await browser.newPage({ viewport: { width: 1100, height: 760 } })
    const problems: string[] = []
    page.on('pageerror', (e) => problems.push(String(e)))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text())
    })
    await page.goto(hostUrl)
    // The launcher lives in a shadow root: the page's CSS does not reach it.
    const launcher = page.locator('[data-kotak-livechat] button.launcher')
    await launcher.waitFor()
    const look = await launcher.evaluate((b) => {
      const st = (globalThis as unknown as { getComputedStyle: (e: unknown) => CSSLike }).getComputedStyle(b)
      return { bg: st.backgroundColor, border: st.borderStyle }
    })
    expect(look.bg).toBe('rgb(15, 118, 110)')
    expect(look.border).not.toBe('dashed')
    await launcher.click()
    const frame = page.frameLocator('[data-kotak-livechat] iframe')
    await frame.locator('h1', { hasText: 'Acme Support' }).waitFor()
    await frame.locator('text=Hi! Tell us who you are.').waitFor()
    await frame.locator('input[name=name]').fill('Vera Visitor')
    await frame.locator('input[name=email]').fill('vera@example.com')
    await frame.locator('input[name=phone]').fill('+62 812 3456 7890')
    await frame.locator('button', { hasText: 'Chat now' }).click()
    const created = await agent.next(
      (f: any) => f.event === 'inbox.changed' && f.data.channel_id === channel.id,
      30_000,
    )
    const id = created.data.interaction_id as number
    agent.send({ op: 'subscribe', channel: `conv:${id}`, ref: 'c' })
    await agent.next((f) => f.ref === 'c' && f.op === 'subscribed')
    await frame.locator('text=in the queue').waitFor()
    const box = frame.locator('textarea')
    await box.fill('Hello! Is the blue kettle in stock?')
    await box.press('Enter')
    const msg = await agent.next(
      (f: any) => f.event === 'message.created' && f.data.direction === 'in',
      30_000,
    )
    expect(msg.data.body).toBe('Hello! Is the blue kettle in stock?')
    // The widget is open: its heartbeat reaches the agent as visitor.online.
    await agent.next((f: any) => f.event === 'visitor.online', 30_000)
    const reply = await s.fetch(
      `/v1/interactions/${id}/messages`,
      F.json({ text: 'Yes, we have 3 left. Shall I reserve one?' }, owner.headers()),
    )
    expect(reply.status).toBe(201)
    await frame.locator('.msg.out', { hasText: 'Yes, we have 3 left' }).waitFor({ timeout: 30_000 })
    await frame.locator('text=joined the chat').waitFor()
    fs.mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: path.join(ARTIFACTS, 'livechat.png') })
    expect(fs.statSync(path.join(ARTIFACTS, 'livechat.png')).size).toBeGreaterThan(1000)
    expect(problems).toEqual([])
    agent.close()
    await page.close()
  }, 120_000)

  it('a page outside allowed_domains gets no widget', async () => {
    const page = await browser.newPage()
    // Same page served as `localhost`: another host than the allowed 127.0.0.1.
    await page.goto(hostUrl.replace('127.0.0.1', 'localhost'))
    await page.waitForTimeout(1000)
    expect(await page.locator('[data-kotak-livechat]').count()).toBe(0)
    await page.close()
  })
})
