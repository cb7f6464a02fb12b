import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { createLivechat, startVisitor, v } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { launch, screenshot, signedIn } from './support'

/**
 * The inbox bugs that break an agent's trust, in Chromium with two browser contexts where live
 * updates matter: rows lost when new conversations arrive over a scrolled list, a typing
 * indicator that outlives the visitor's message, j/k lost after opening a conversation, the open
 * conversation leaving the list on reply (views All, Mine, Unassigned), and a reply in a
 * conversation someone else has, sent without a word.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agent: { user: { id: number; name: string }; session: F.Session }
let browser: Browser
let apiChannel: { id: number; credentials: { key: string } }

const says = (key: string, conversation: string, id: string, text: string, name = 'Budi Santoso') =>
  s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: conversation,
        contact: { id: `c-${conversation}`, name, email: null, phone: null },
        message: { id, text },
      },
      F.bearer(key),
    ),
  )
const customerSays = async (conversation: string, id: string, text: string, name?: string) => {
  const r = await says(apiChannel.credentials.key, conversation, id, text, name)
  expect(r.status, await r.clone().text()).toBe(201)
}
const interactionOf = async (session: F.Session, text: string) => {
  const list = await I.body(await s.fetch('/v1/interactions?per_page=100', { headers: session.headers() }))
  const found = list.data.find((x: { preview: string | null }) => x.preview?.includes(text))
  expect(found, text).toBeDefined()
  return found.id as number
}
const row = (page: Page, text: string) => page.getByRole('option').filter({ hasText: text })
/** The list holds the current view's rows (not still loading them). */
const listed = (page: Page) => page.locator('[data-testid="inbox-list"][aria-busy="false"]').waitFor()
const settled = (page: Page) => page.locator('[data-testid="connection"][data-settled="true"]').waitFor()

beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  agent = await I.agent(s, w)
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
  expect(made.status, await made.clone().text()).toBe(201)
  apiChannel = (await I.body(made)).data
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('the inbox an agent can trust', () => {
  it('keeps every loaded row reachable when new conversations arrive (300 loaded, 5 new)', async () => {
    // A workspace of its own: 300 conversations, then 5 more through its API channel.
    const big = await F.workspace(s, { plan: 'pro' })
    const bigOwner = await F.signIn(s, big.ownerEmail)
    const ch = await I.channel(s, big, 'msgapp')
    const made = await s.fetch('/v1/channels/api', F.json({ name: 'Shop' }, bigOwner.headers()))
    expect(made.status).toBe(201)
    const key = (await I.body(made)).data.credentials.key as string
    await I.sql(
      s,
      (db) => db`INSERT INTO contacts (workspace_id, name, phone)
        SELECT ${big.workspaceId}, 'Customer ' || g, '+6282' || lpad(g::text, 9, '0') FROM generate_series(1, 300) g`,
    )
    await I.sql(
      s,
      (db) => db`INSERT INTO conversations (workspace_id, channel_id, contact_id, status, reply_state,
          last_message_at, preview, created_at, updated_at, last_seq)
        SELECT ${big.workspaceId}, ${ch.id}, c.id, 'open', 'new', now() - (c.id || ' minutes')::interval,
               'hello from ' || c.name, now() - (c.id || ' minutes')::interval, now(), 0
        FROM contacts c WHERE c.workspace_id = ${big.workspaceId}`,
    )
    const { page, problems, context } = await signedIn(browser, s, bigOwner)
    await page.goto(`${s.url}/app/inbox`)
    await settled(page)
    const list = page.getByTestId('inbox-list')
    await list.getByRole('option').first().waitFor()
    // Scroll until all 300 are loaded.
    await expect
      .poll(
        async () => {
          await list.evaluate((el) => {
            el.scrollTop = el.scrollHeight
          })
          return list.evaluate((el) => el.scrollHeight)
        },
        { timeout: 20_000 },
      )
      .toBe(300 * 68)
    // Read from the middle of the list while five new conversations arrive.
    await list.evaluate((el) => {
      el.scrollTop = 150 * 68
    })
    const before = await list.locator('[style*="top: 10200px"]').getAttribute('data-id')
    for (let i = 1; i <= 5; i++) {
      const r = await says(key, `new-${i}`, `n-${i}`, `Newcomer ${i} says hi`, `Newcomer ${i}`)
      expect(r.status).toBe(201)
    }
    await expect.poll(() => list.getAttribute('data-total'), { timeout: 10_000 }).toBe('305')
    // Where the reader was (checked below, after the rows).
    const readerAt = await list.evaluate((el) => el.scrollTop)
    const beforeStyle = await list.locator(`[data-id="${before}"]`).getAttribute('style')
    await list.evaluate((el) => {
      el.scrollTop = 0
    })
    await row(page, 'Newcomer 5 says hi').waitFor()
    // Every one of the 305 can be reached by scrolling, once each.
    const seen = new Map<number, number>()
    for (let top = 0; top <= 305 * 68; top += 10 * 68) {
      await list.evaluate((el, y) => {
        el.scrollTop = y
      }, top)
      await page.waitForTimeout(20)
      const ids = await list
        .getByRole('option')
        .evaluateAll((els) =>
          els.map(
            (e) =>
              [
                Number(e.getAttribute('data-id')),
                Number.parseFloat((e as unknown as { style: { top: string } }).style.top),
              ] as const,
          ),
        )
      for (const [id, y] of ids) seen.set(id, y)
    }
    expect(seen.size).toBe(305)
    expect(new Set(seen.values()).size).toBe(305)
    expect(await list.evaluate((el) => el.scrollHeight)).toBe(305 * 68)
    // The row the reader was looking at stayed in view: the five went above it.
    expect(readerAt).toBe(155 * 68)
    expect(beforeStyle).toContain(`top: ${155 * 68}px`)
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)

  it('clears "… is typing" the moment the visitor’s message arrives', async () => {
    const lc = await createLivechat(s, owner, { title: 'Acme Support' })
    const visitor = await startVisitor(s, lc.livechat.key)
    const a = await signedIn(browser, s, owner)
    const b = await signedIn(browser, s, agent.session)
    for (const x of [a, b]) {
      await x.page.goto(`${s.url}/app/inbox/${visitor.interaction_id}`)
      await x.page.locator('section.conv[data-live="true"]').waitFor()
    }
    const typed = await s.fetch(
      `/v1/livechat/${lc.livechat.key}/typing`,
      F.json({ typing: true }, v(visitor.token)),
    )
    expect(typed.status).toBeLessThan(300)
    for (const x of [a, b]) await x.page.getByTestId('typing').getByText('is typing…').waitFor()
    const sent = await s.fetch(
      `/v1/livechat/${lc.livechat.key}/messages`,
      F.json({ text: 'Do you ship to Bandung?', client_id: 'v-1' }, v(visitor.token)),
    )
    expect(sent.status, await sent.clone().text()).toBe(201)
    for (const x of [a, b]) {
      await x.page.getByTestId('message').filter({ hasText: 'Do you ship to Bandung?' }).waitFor()
      // Cleared with the message itself, not when the indicator expires seconds later.
      expect(await x.page.getByTestId('typing').textContent()).toBe('')
    }
    // Another agent's typing goes with their message too.
    await b.page.getByTestId('composer').pressSequentially('Yes we do')
    await a.page.getByTestId('typing').getByText(`${agent.user.name} is typing…`).waitFor()
    await b.page.getByTestId('send').click()
    await a.page.getByTestId('message').filter({ hasText: 'Yes we do' }).waitFor()
    expect(await a.page.getByTestId('typing').textContent()).toBe('')
    expect(a.problems).toEqual([])
    await a.context.close()
    await b.context.close()
  })

  it('keeps j/k moving through the list after a conversation is opened by click or keyboard', async () => {
    await customerSays('k-1', 'k1', 'Keyboard one')
    await customerSays('k-2', 'k2', 'Keyboard two')
    await customerSays('k-3', 'k3', 'Keyboard three')
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/inbox`)
    const list = page.getByRole('listbox', { name: 'Conversations' })
    await row(page, 'Keyboard three').waitFor()
    const active = () => list.getAttribute('aria-activedescendant')
    const idOf = async (text: string) => `conv-${await row(page, text).getAttribute('data-id')}`
    // Opened with a click: j goes to the next row, k back.
    await row(page, 'Keyboard three').click()
    await page.waitForURL(/\/app\/inbox\/\d+$/)
    await page.getByTestId('composer').waitFor()
    await page.getByTestId('message').first().waitFor()
    await page.keyboard.press('j')
    expect(await active()).toBe(await idOf('Keyboard two'))
    await page.keyboard.press('j')
    expect(await active()).toBe(await idOf('Keyboard one'))
    // Opened with the keyboard (the first conversation the list opens on this page).
    await page.keyboard.press('Enter')
    await page.waitForURL(new RegExp(`/app/inbox/${(await idOf('Keyboard one')).slice(5)}$`))
    await page.getByTestId('message').filter({ hasText: 'Keyboard one' }).waitFor()
    await page.keyboard.press('k')
    expect(await active()).toBe(await idOf('Keyboard two'))
    // Opened from a fresh page with the keyboard.
    await page.goto(`${s.url}/app/inbox`)
    await row(page, 'Keyboard three').waitFor()
    await list.focus()
    await page.keyboard.press('Home')
    await page.keyboard.press('Enter')
    await page.waitForURL(/\/app\/inbox\/\d+$/)
    await page.getByTestId('message').first().waitFor()
    await page.keyboard.press('j')
    expect(await active()).toBe(await idOf('Keyboard two'))
    // After a click elsewhere on the conversation, j/k still go to the list…
    await page.locator('.conv-head h2').click()
    await page.keyboard.press('j')
    expect(await active()).toBe(await idOf('Keyboard one'))
    // …but in the composer they are letters.
    await page.getByTestId('composer').click()
    await page.keyboard.type('jk')
    expect(await page.getByTestId('composer').inputValue()).toBe('jk')
    expect(await active()).toBe(await idOf('Keyboard one'))
    expect(problems).toEqual([])
    await context.close()
  })

  it('opens on All; replying keeps the conversation in the list; Mine and Unassigned views', async () => {
    await customerSays('v-1', 'v1', 'Where is parcel 11?', 'Rina Views')
    await customerSays('v-2', 'v2', 'Where is parcel 22?', 'Sari Views')
    await customerSays('v-3', 'v3', 'Do you gift-wrap?', 'Tono Views')
    const sari = await interactionOf(owner, 'parcel 22')
    const a = await signedIn(browser, s, owner)
    const b = await signedIn(browser, s, agent.session)
    await a.page.goto(`${s.url}/app/inbox`)
    await settled(a.page)
    expect(await a.page.getByTestId('view-all').getAttribute('aria-selected')).toBe('true')
    expect(await a.page.getByTestId('tab-all').getAttribute('aria-selected')).toBe('true')
    // Replying in the default view: the conversation stays where the agent is.
    await row(a.page, 'parcel 11').click()
    await a.page.getByTestId('composer').fill('It left the warehouse today.')
    await a.page.getByTestId('composer').press('Enter')
    await a.page.getByTestId('message').filter({ hasText: 'It left the warehouse today.' }).waitFor()
    await row(a.page, 'It left the warehouse today.').waitFor()
    await a.page.waitForTimeout(600)
    expect(await row(a.page, 'Rina Views').count()).toBe(1)
    // On Unreplied, the open conversation is answered by another agent: it no longer matches the
    // tab (the count drops) but stays listed for the one reading it, until they move on.
    await a.page.getByTestId('tab-unreplied').click()
    await row(a.page, 'Sari Views').click()
    await a.page.locator('section.conv[data-live="true"]').waitFor()
    await b.page.goto(`${s.url}/app/inbox/${sari}`)
    await b.page.getByTestId('composer').fill('Parcel 22 arrives tomorrow.')
    await b.page.getByTestId('composer').press('Enter')
    await a.page.getByTestId('message').filter({ hasText: 'Parcel 22 arrives tomorrow.' }).waitFor()
    const expected = await unrepliedCount(owner)
    await expect
      .poll(
        async () => Number(await a.page.getByTestId('tab-unreplied').locator('.tab-count').textContent()),
        {
          timeout: 10_000,
        },
      )
      .toBe(expected)
    expect(await row(a.page, 'Sari Views').count()).toBe(1)
    expect(b.problems).toEqual([])
    await b.context.close()
    await screenshot(a.page, 'inbox-kept-open')
    await row(a.page, 'Tono Views').click()
    await row(a.page, 'Sari Views').waitFor({ state: 'detached' })
    // Mine: the owner's; Unassigned: the others.
    const assigned = await s.fetch(
      `/v1/interactions/${sari}`,
      I.patch({ assignee_id: w.ownerId }, owner.headers()),
    )
    expect(assigned.status, await assigned.clone().text()).toBe(200)
    await a.page.getByTestId('tab-all').click()
    await a.page.getByTestId('view-mine').click()
    await listed(a.page)
    await row(a.page, 'Sari Views').waitFor()
    expect(await row(a.page, 'Rina Views').count()).toBe(0)
    await screenshot(a.page, 'inbox-view-mine')
    await a.page.getByTestId('view-unassigned').click()
    await listed(a.page)
    await row(a.page, 'Rina Views').waitFor()
    expect(await row(a.page, 'Sari Views').count()).toBe(0)
    expect(a.problems).toEqual([])
    await a.context.close()
  })

  it('warns before replying in a conversation another agent has, and can take it over', async () => {
    await customerSays('h-1', 'h1', 'Can I change my address?', 'Dewi Held')
    const id = await interactionOf(owner, 'change my address')
    const a = await signedIn(browser, s, owner)
    const b = await signedIn(browser, s, agent.session)
    for (const x of [a, b]) {
      await x.page.goto(`${s.url}/app/inbox/${id}`)
      await x.page.locator('section.conv[data-live="true"]').waitFor()
    }
    expect(await a.page.getByTestId('held-by').count()).toBe(0)
    // The agent takes it; the owner's composer says so live.
    await b.page.getByTestId('assignee').selectOption({ label: agent.user.name })
    await a.page.getByTestId('held-by').getByText(`${agent.user.name} has this conversation`).waitFor()
    await screenshot(a.page, 'composer-held-by')
    await a.page.getByTestId('composer').fill('I can change it for you.')
    await a.page.getByTestId('composer').press('Enter')
    const ask = a.page.getByTestId('confirm-other')
    await ask.getByText(`${agent.user.name} has this conversation. Send your reply anyway?`).waitFor()
    await screenshot(a.page, 'composer-confirm-other')
    const sentTexts = async () =>
      (await I.body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))).data.map(
        (m: { body: string }) => m.body,
      ) as string[]
    // Nothing went out yet; cancel keeps the draft.
    expect(await sentTexts()).not.toContain('I can change it for you.')
    await ask.getByRole('button', { name: 'Cancel' }).click()
    expect(await a.page.getByTestId('composer').inputValue()).toBe('I can change it for you.')
    // Send anyway sends it, once.
    await a.page.getByTestId('send').click()
    await a.page.getByTestId('send-anyway').click()
    await b.page.getByTestId('message').filter({ hasText: 'I can change it for you.' }).waitFor()
    expect((await sentTexts()).filter((x) => x === 'I can change it for you.')).toHaveLength(1)
    // A note is never asked about.
    await a.page.getByTestId('mode-note').click()
    await a.page.getByTestId('composer').fill('Checked the address book')
    await a.page.getByTestId('send').click()
    await b.page.getByTestId('message').filter({ hasText: 'Checked the address book' }).waitFor()
    await a.page.getByRole('button', { name: 'Reply', exact: true }).click()
    // Take it over and send: the owner has it now, and the warning goes.
    await a.page.getByTestId('composer').fill('Which address should it be?')
    await a.page.getByTestId('send').click()
    await a.page.getByTestId('take-over').click()
    await a.page.getByTestId('message').filter({ hasText: 'Which address should it be?' }).waitFor()
    await a.page.getByTestId('held-by').waitFor({ state: 'detached' })
    const d = (await I.body(await s.fetch(`/v1/interactions/${id}`, { headers: owner.headers() }))).data
    expect(d.assignee.id).toBe(w.ownerId)
    expect(await sentTexts()).toContain('Which address should it be?')
    expect(a.problems).toEqual([])
    await a.context.close()
    await b.context.close()
  })
})

const unrepliedCount = async (session: F.Session) =>
  Number(
    (await I.body(await s.fetch('/v1/interactions?tab=unreplied&per_page=1', { headers: session.headers() })))
      .meta.total,
  )
