import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch, screenshot, signedIn } from './support'

/**
 * 10,000 open conversations: the list keeps only the rows in view in the page (virtualised),
 * loads pages as the reader scrolls, and reaches the last conversation. Figures are printed, not
 * asserted (no timed assertions).
 */
const N = 10_000
let s: TestServer
let w: F.Seeded
let owner: F.Session
let browser: Browser
beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const ch = await I.channel(s, w, 'msgapp')
  await I.sql(
    s,
    (db) => db`INSERT INTO contacts (workspace_id, name, phone)
      SELECT ${w.workspaceId}, 'Customer ' || g, '+6281' || lpad(g::text, 9, '0') FROM generate_series(1, ${N}) g`,
  )
  await I.sql(
    s,
    (
      db,
    ) => db`INSERT INTO conversations (workspace_id, channel_id, contact_id, status, reply_state, last_message_at,
                                         preview, created_at, updated_at, last_seq)
      SELECT ${w.workspaceId}, ${ch.id}, c.id, 'open', 'new', now() - (c.id || ' minutes')::interval,
             'hello from ' || c.name, now() - (c.id || ' minutes')::interval, now(), 0
      FROM contacts c WHERE c.workspace_id = ${w.workspaceId}`,
  )
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the inbox with 10,000 conversations', () => {
  it('renders only what is in view and pages to the last one', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    const t0 = Date.now()
    await page.goto(`${s.url}/app/inbox`)
    const list = page.getByTestId('inbox-list')
    await list.getByRole('option').first().waitFor()
    const firstPage = Date.now() - t0
    expect(await list.getAttribute('data-total')).toBe(String(N))
    await screenshot(page, 'inbox-10000')
    await page.getByTestId('tab-unreplied').getByText('10K').waitFor()
    const newest = (await list.getByRole('option').first().locator('.row-name').textContent())!
    let most = 0
    const t1 = Date.now()
    // Scroll to the end until every conversation is loaded; the DOM never holds more than a screenful.
    while ((await list.evaluate((el) => el.scrollHeight)) < N * 68) {
      await list.evaluate((el) => {
        el.scrollTop = el.scrollHeight
      })
      await page.waitForTimeout(50)
      most = Math.max(most, await list.getByRole('option').count())
    }
    const toEnd = Date.now() - t1
    expect(most).toBeGreaterThan(0)
    expect(most).toBeLessThan(40)
    expect(await list.evaluate((el) => el.scrollHeight)).toBe(N * 68)
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight
    })
    const ids = await list
      .getByRole('option')
      .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-id'))))
    expect(ids.length).toBeGreaterThan(0)
    expect(new Set(ids).size).toBe(ids.length)
    // Keyboard: Home goes back to the newest, which is rendered again.
    await list.focus()
    await page.keyboard.press('Home')
    await list.getByRole('option').first().filter({ hasText: newest }).waitFor()
    console.log(
      `10,000 conversations: first page ${firstPage} ms, scrolled to the last in ${toEnd} ms, at most ${most} rows in the DOM`,
    )
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)
})
