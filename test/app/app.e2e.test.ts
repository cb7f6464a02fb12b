import type { Browser, Page, WebSocketRoute } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUDGET, measureApp } from '../../bench/app'
import { receiver } from '../channels/receiver'
import * as I from '../inbox/support'
import { createLivechat, png, startVisitor } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axe, launch, screenshot, signedIn } from './support'

/**
 * The agent app end to end in headless Chromium: two agents (the owner and an agent) in two
 * browser contexts, a customer on the API channel with a real webhook receiver, and a live-chat
 * visitor. Screenshots go to test-artifacts/app/.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agent: { user: { id: number; name: string }; session: F.Session }
let browser: Browser
let rx: Awaited<ReturnType<typeof receiver>>
let apiChannel: { id: number; credentials: { key: string; webhook_secret: string } }
let livechat: { id: number; livechat: { key: string } }
let a: Awaited<ReturnType<typeof signedIn>>
let b: Awaited<ReturnType<typeof signedIn>>

const customerSays = (conversation: string, id: string, text: string) =>
  s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: conversation,
        contact: { id: `c-${conversation}`, name: 'Budi Santoso', email: 'budi@example.com', phone: null },
        message: { id, text },
      },
      F.bearer(apiChannel.credentials.key),
    ),
  )

const row = (page: Page, text: string) => page.getByRole('option').filter({ hasText: text })

beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1', LIVECHAT_MIN_FILL_MS: '0' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  agent = await I.agent(s, w)
  rx = await receiver(() => apiChannel.credentials.webhook_secret)
  const made = await s.fetch(
    '/v1/channels/api',
    F.json({ name: 'Shop backend', webhook_url: rx.url }, owner.headers()),
  )
  expect(made.status).toBe(201)
  apiChannel = (await I.body(made)).data
  livechat = await createLivechat(s, owner, { title: 'Acme Support' })
  browser = await launch()
  a = await signedIn(browser, s, owner)
  b = await signedIn(browser, s, agent.session)
})
afterAll(async () => {
  await browser?.close()
  await rx?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the agent app', () => {
  it('shows the sign-in page without a session', async () => {
    const anon = await browser.newPage()
    await anon.goto(`${s.url}/app`)
    await anon.getByRole('heading', { name: 'Sign in to Kotak' }).waitFor()
    expect(await anon.locator('code').textContent()).toContain('login-link')
    await screenshot(anon, 'signin')
    await anon.close()
  })

  it('a customer message through the API channel appears live for both agents', async () => {
    for (const x of [a, b]) {
      await x.page.goto(`${s.url}/app`)
      await x.page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
      expect(new URL(x.page.url()).pathname).toBe('/app/inbox')
    }
    expect((await customerSays('order-1', 'm1', 'Is the blue kettle in stock?')).status).toBe(201)
    for (const x of [a, b]) {
      await row(x.page, 'Is the blue kettle in stock?').waitFor()
      await x.page.getByTestId('tab-unreplied').getByText('1').waitFor()
    }
    await screenshot(a.page, 'inbox')
  })

  it('a reply reaches the customer’s webhook; a note stays internal', async () => {
    await row(a.page, 'blue kettle').click()
    await a.page.getByTestId('message').filter({ hasText: 'Is the blue kettle in stock?' }).waitFor()
    // Opening it marks it read.
    const opened = Number(new URL(a.page.url()).pathname.split('/').pop())
    await expect
      .poll(async () => {
        const list = await I.body(
          await s.fetch('/v1/interactions?tab=unreplied', { headers: owner.headers() }),
        )
        return list.data.find((x: { id: number }) => x.id === opened)?.unread_count
      })
      .toBe(0)
    await b.page.goto(new URL(a.page.url()).href)
    await b.page.getByTestId('message').filter({ hasText: 'Is the blue kettle in stock?' }).waitFor()

    await a.page.getByTestId('mode-note').click()
    await a.page.getByTestId('composer').fill('Customer ordered twice last month')
    await a.page.getByTestId('send').click()
    // The other agent sees the note live; the customer never gets it.
    await b.page.getByTestId('message').filter({ hasText: 'Customer ordered twice last month' }).waitFor()
    expect(
      await b.page
        .locator('[data-testid=message][data-type=note]')
        .filter({ hasText: 'ordered twice' })
        .count(),
    ).toBe(1)

    await a.page.getByRole('button', { name: 'Reply', exact: true }).click()
    await a.page.getByTestId('composer').fill('Yes, we have 3 left.')
    await a.page.getByTestId('composer').press('Enter')
    await b.page.getByTestId('message').filter({ hasText: 'Yes, we have 3 left.' }).waitFor()
    await rx.until((got) =>
      got.some(
        (g) => g.json.event === 'message.created' && JSON.stringify(g.json).includes('Yes, we have 3 left.'),
      ),
    )
    const delivered = rx.got.map((g) => g.body)
    expect(delivered.some((d) => d.includes('ordered twice'))).toBe(false)
    expect(rx.got.every((g) => g.signatureValid)).toBe(true)
    await a.page.getByTestId('delivery').first().waitFor()
    await screenshot(a.page, 'conversation')
    expect(a.problems).toEqual([])
    expect(b.problems).toEqual([])
  })

  it('sends an attachment to the customer and changes status, assignee and category', async () => {
    const cat = await s.fetch('/v1/conversation-categories', F.json({ name: 'Orders' }, owner.headers()))
    expect(cat.status, await cat.clone().text()).toBe(201)
    await a.page.goto(`${s.url}/app/inbox`)
    await a.page.getByTestId('tab-replied').click()
    await row(a.page, 'Yes, we have 3 left.').click()
    await a.page.getByTestId('composer').waitFor()
    await a.page.locator('input[type=file]').setInputFiles({
      name: 'photo.png',
      mimeType: 'image/png',
      buffer: png(40, 30),
    })
    await a.page.getByTestId('send').click()
    const photo = a.page.getByTestId('message').locator('img.preview')
    await photo.waitFor()
    // The preview is the real file, decoded by the browser.
    expect(await photo.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBe(40)
    await a.page.locator('input[type=file]').setInputFiles({
      name: 'invoice.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Invoice 77: Rp 150.000'),
    })
    await a.page.getByTestId('composer').fill('Here is your invoice')
    await a.page.getByTestId('send').click()
    await a.page
      .getByTestId('message')
      .filter({ hasText: 'Here is your invoice' })
      .getByText('invoice.txt')
      .waitFor()
    await rx.until((got) => got.some((g) => JSON.stringify(g.json).includes('invoice.txt')))
    await screenshot(a.page, 'conversation-attachments')

    await a.page.getByRole('combobox', { name: 'Category' }).selectOption({ label: 'Orders' })
    await a.page.getByRole('combobox', { name: 'Assignee' }).selectOption({ label: agent.user.name })
    await a.page.getByTestId('status').selectOption('solved')
    const id = Number(new URL(a.page.url()).pathname.split('/').pop())
    const state = async () => {
      const d = (await I.body(await s.fetch(`/v1/interactions/${id}`, { headers: owner.headers() }))).data
      return [d.status, d.assignee?.id, d.category?.name]
    }
    await expect.poll(state, { timeout: 10_000 }).toEqual(['solved', agent.user.id, 'Orders'])
    // The other agent's inbox follows: the conversation counts as solved now.
    await b.page.goto(`${s.url}/app/inbox`)
    await b.page.getByTestId('tab-solved').getByText('1').waitFor()
  })

  it('one agent picks up a live chat and the other sees it taken', async () => {
    const visitor = await startVisitor(s, livechat.livechat.key)
    const id = visitor.interaction_id
    await a.page.goto(`${s.url}/app/inbox/${id}`)
    await b.page.goto(`${s.url}/app/inbox/${id}`)
    for (const x of [a, b]) await x.page.getByTestId('queue').waitFor()
    await b.page.getByTestId('pickup').click()
    await a.page.getByTestId('taken').getByText(`Taken by ${agent.user.name}`).waitFor()
    await b.page.getByTestId('queue').waitFor({ state: 'detached' })
    expect(await a.page.getByTestId('queue').count()).toBe(0)
    // The list follows too (inbox.changed): the row is no longer marked as queued.
    await row(a.page, 'Vera Visitor').getByText('In queue').waitFor({ state: 'detached' })
    await screenshot(a.page, 'livechat-taken')
  })

  it('a dropped socket reconnects and shows what it missed, once each', async () => {
    const page = await a.context.newPage()
    let refuse = false
    const live: WebSocketRoute[] = []
    await page.routeWebSocket(/\/v1\/realtime/, (ws) => {
      if (refuse) {
        void ws.close({ code: 4000, reason: 'test' })
        return
      }
      ws.connectToServer()
      live.push(ws)
    })
    await page.goto(`${s.url}/app/inbox`)
    await page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
    expect((await customerSays('order-2', 'n1', 'First question')).status).toBe(201)
    await row(page, 'First question').click()
    await page.getByTestId('message').filter({ hasText: 'First question' }).waitFor()

    refuse = true
    for (const ws of live.splice(0)) await ws.close({ code: 4000, reason: 'dropped' })
    await page.getByTestId('connection').getByText('Offline: reconnecting').waitFor()
    expect((await customerSays('order-2', 'n2', 'Second question while you were away')).status).toBe(201)
    expect((await customerSays('order-3', 'n3', 'A new customer while you were away')).status).toBe(201)
    refuse = false
    await page.getByTestId('connection').getByRole('button', { name: 'Reconnect now' }).click()
    await page.locator('[data-testid="connection"][data-settled="true"]').waitFor()
    await page.getByTestId('message').filter({ hasText: 'Second question while you were away' }).waitFor()
    await row(page, 'A new customer while you were away').waitFor()
    expect(await page.getByTestId('message').filter({ hasText: 'Second question' }).count()).toBe(1)
    expect(await page.getByTestId('message').filter({ hasText: 'First question' }).count()).toBe(1)
    await page.close()
  })

  it('has no serious or critical accessibility violations on the inbox and a conversation', async () => {
    expect((await customerSays('order-4', 'x1', 'Can I pay by bank transfer?')).status).toBe(201)
    await a.page.goto(`${s.url}/app/inbox`)
    await row(a.page, 'Can I pay by bank transfer?').waitFor()
    expect(await axe(a.page)).toEqual([])
    // Keyboard: the list takes focus, arrows move, Enter opens.
    await a.page.getByRole('listbox', { name: 'Conversations' }).focus()
    await a.page.keyboard.press('Home')
    await a.page.keyboard.press('Enter')
    await a.page.waitForURL(/\/app\/inbox\/\d+$/)
    await a.page.getByTestId('composer').waitFor()
    await a.page.getByTestId('message').first().waitFor()
    expect(await axe(a.page)).toEqual([])
  })

  it('says so when a conversation is not visible (unknown id or access lost)', async () => {
    await a.page.goto(`${s.url}/app/inbox/987654321`)
    await a.page.getByText('This conversation is not (or no longer) visible to you.').waitFor()
    expect(a.problems.filter((p) => !p.includes('404'))).toEqual([])
  })

  it('loads within the JavaScript budget (bench/app.ts; paint times are reported, not asserted)', async () => {
    const load = await measureApp(s.url, owner.cookie)
    console.log(`app first load: ${JSON.stringify(load)}`)
    expect(load.scripts).toBeGreaterThan(1)
    expect(load.js_gzip_bytes).toBeLessThanOrEqual(BUDGET.jsGzipBytes)
    expect(load.first_meaningful_paint_ms).toEqual(expect.any(Number))
  })
})
