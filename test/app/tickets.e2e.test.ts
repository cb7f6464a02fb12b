import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { aiEnv, type StandIn, startOpenAiStandIn } from '../support/openai'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { api, type People, people, raise } from '../tickets/support'
import { axeFindings } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The tickets screens end to end in Chromium (/app/tickets, /app/tickets/:id and the
 * conversation's tickets and AI summary): a Frontline agent raises a ticket from a conversation
 * citing two of its messages and asks for an update; the Back Office list with its status tabs,
 * counts and filters; the detail with a comment that mentions someone and carries a file, seen
 * live by a second agent in another browser, participants (add an assignee, a follower unfollows
 * themselves), status changes and a conclusion that resolves; an agent of another team sees
 * neither the ticket in the list nor its page; the AI summary through the OpenAI-compatible
 * stand-in, and the note in words on a server without a provider. English and Indonesian, axe at
 * 1440 and 390 px, screenshots in test-artifacts/app/tickets-*.
 */
let s: TestServer
let bare: TestServer
let ai: StandIn
let browser: Browser
let p: People
/** Each test makes its own tickets (a retry starts afresh): subjects carry a fresh mark. */
let runs = 0
const mark = () => `${++runs}${Math.random().toString(36).slice(2, 6)}`

const names = {
  agent: 'Fajar Frontline',
  b1: 'Bayu Backoffice',
  b2: 'Citra Backoffice',
  other: 'Oki Othersquad',
  outsider: 'Putri Pengikut',
  admin: 'Ani Admin',
} as const

const live = (page: Page) => page.locator('[data-testid=connection][data-settled=true]').waitFor()
const accessible = async (page: Page) => {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await axeFindings(page), `${page.url()} at ${width}px`).toEqual([])
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}
/** Nothing wider than the phone's screen. */
const fitsPhone = async (page: Page) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const over = await page.evaluate(() => {
    const d = (globalThis as any).document
    return d.documentElement.scrollWidth - d.documentElement.clientWidth
  })
  expect(over, page.url()).toBeLessThanOrEqual(0)
  await page.setViewportSize({ width: 1440, height: 900 })
}
const setLocale = (who: Record<string, string>, locale: 'en' | 'id') =>
  api(s, who).patch('/v1/me', { locale })
/** A new conversation of the Frontline team with the customer's messages (each raise test its own). */
const conversationWith = async (texts: readonly string[]) => {
  const ch = await I.channel(s, p.w)
  const contact = await I.contact(s, p.w)
  const c = await I.conversation(s, p.w, { channelId: ch.id, contactId: contact.id, teamId: p.frontline })
  for (const x of texts) await I.inbound(s, c.id, x)
  return c.id
}
const quiet = (problems: string[]) => problems.filter((x) => !x.startsWith('Failed to load resource'))
const text = async (page: Page, selector: string) =>
  ((await page.locator(selector).textContent()) ?? '').trim()

beforeAll(async () => {
  ai = await startOpenAiStandIn()
  s = await startTestServer(aiEnv(ai))
  p = await people(s)
  for (const [who, name] of Object.entries(names))
    expect((await api(s, p[who as keyof typeof names]).patch('/v1/me', { name })).status).toBe(200)
  await I.inbound(s, p.conversation, 'My refund of 250000 has not arrived yet')
  await I.inbound(s, p.conversation, 'I paid twice on the 3rd, order 8812')
  await I.inbound(s, p.conversation, 'Hello?')
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
  await bare?.stop()
  await ai?.close()
})

describe.skipIf(lacks('chromium'))('tickets in the app', () => {
  it('raises a ticket from the conversation citing two messages, then asks for an update', async () => {
    expect((await setLocale(p.agent, 'en')).status).toBe(200)
    const conversation = await conversationWith([
      'My refund of 250000 has not arrived yet',
      'I paid twice on the 3rd, order 8812',
      'Hello?',
    ])
    const { page, problems, context } = await signedIn(browser, s, p.sessions.agent!, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/inbox/${conversation}`)
    await page.getByTestId('conv-tickets').click()
    const list = page.getByRole('dialog', { name: 'Tickets of this conversation' })
    await list.getByText('No ticket was raised from this conversation.').waitFor()
    await list.getByRole('button', { name: 'Raise a ticket' }).click()
    const form = page.getByRole('dialog', { name: 'Raise a ticket from this conversation' })
    await form.getByLabel('Subject').fill('Double payment, refund missing')
    // The team is required: the server's message shows beside its field first.
    await form.getByRole('button', { name: 'Raise a ticket' }).click()
    await form.getByRole('alert').first().waitFor()
    const teams = (await api(s, p.agent).get('/v1/tickets/candidates')).meta.teams as {
      id: number
      name: string
    }[]
    await form.getByLabel('Team').selectOption({ label: teams.find((x) => x.id === p.team)!.name })
    await form.getByLabel('Priority').selectOption('high')
    await form.getByLabel('Description').fill('Customer was charged twice.')
    await form.getByLabel(/My refund of 250000/).check()
    await form.getByLabel(/I paid twice/).check()
    await accessible(page)
    await shots(page, 'tickets-raise-en')
    await form.getByRole('button', { name: 'Raise a ticket' }).click()
    await form.getByText(/Ticket #\d+ raised\./).waitFor()

    const found = await api(s, p.b1).get(`/v1/tickets?interaction_id=${conversation}&status=active`)
    expect(found.data).toHaveLength(1)
    const raised = { id: found.data[0].id as number, number: found.data[0].number as number }
    const detail = (await api(s, p.b1).get(`/v1/tickets/${raised.id}`)).data
    expect(detail.priority).toBe('high')
    expect(detail.interaction_id).toBe(conversation)
    expect(detail.description).toContain('Customer was charged twice.')
    expect(detail.description).toContain('My refund of 250000 has not arrived yet')
    expect(detail.description).toContain('I paid twice on the 3rd, order 8812')
    expect(detail.description).not.toContain('Hello?')

    // Back to the conversation's tickets: it is listed, and the team is asked for an update.
    await form.getByRole('button', { name: 'Close' }).click()
    const again = page.getByRole('dialog', { name: 'Tickets of this conversation' })
    await again.getByRole('link', { name: `#${raised.number} Double payment, refund missing` }).waitFor()
    await again.getByRole('button', { name: 'Ask for an update' }).click()
    await again.getByTestId('requested').waitFor()
    await again.getByRole('button', { name: 'Close' }).click()
    await page.getByRole('button', { name: 'Tickets (1)' }).click()
    // Once per 15 minutes: the second asks is refused in words.
    await again.getByRole('button', { name: 'Ask for an update' }).click()
    await again.getByRole('alert').waitFor()
    expect((await api(s, p.b1).get(`/v1/tickets/${raised.id}`)).data.update_request).not.toBeNull()
    expect(quiet(problems)).toEqual([])
    await context.close()
  }, 120_000)

  it('lists tickets with status tabs, counts and filters, in English and Indonesian', async () => {
    // A workspace of its own, so that the counts are exact whatever ran before (or on a retry).
    const q = await people(s)
    await raise(s, q, { subject: 'Double payment, refund missing', description: 'My refund of 250000' })
    await raise(s, q, { subject: 'Urgent invoice fix', priority: 'urgent' })
    const done = await raise(s, q, { subject: 'Old address change', priority: 'low' })
    expect((await api(s, q.b1).patch(`/v1/tickets/${done.id}`, { status: 'resolved' })).status).toBe(200)
    await raise(s, q, { subject: 'Other squad secret', team_id: q.otherTeam })

    const { page, problems, context } = await signedIn(browser, s, q.sessions.b1!, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/tickets`)
    const ready = () => page.locator('[data-testid=ticket-list][aria-busy=false]').waitFor()
    // A filter's list replaces the one before it: the ticket sought is in both (All shows it too),
    // and `ready` may look before the new request has begun, so wait for the others to leave.
    const onlyOne = async () => {
      await page.locator('[data-testid=ticket-list] > li.tk-item').nth(1).waitFor({ state: 'detached' })
      return page.locator('[data-testid=ticket-list] > li.tk-item').count()
    }
    await ready()
    // Active by default: the two open ones of b1's team; the other team's is not counted at all.
    expect(await page.locator('[data-testid=ticket-list] > li.tk-item').count()).toBe(2)
    expect(await text(page, '[data-tab=active] .tk-n')).toBe('2')
    expect(await text(page, '[data-tab=resolved] .tk-n')).toBe('1')
    expect(await text(page, '[data-tab=all] .tk-n')).toBe('3')
    expect(await page.getByText('Other squad secret').count()).toBe(0)
    await accessible(page)
    await shots(page, 'tickets-list-en')

    await page.getByRole('link', { name: /^Resolved/ }).click()
    await page.getByRole('link', { name: /Old address change/ }).waitFor()
    expect(await page.locator('[data-testid=ticket-list] > li.tk-item').count()).toBe(1)
    await page.getByRole('link', { name: /^All/ }).click()
    await ready()
    await page.getByLabel('Priority').selectOption('urgent')
    await page.waitForURL(/priority=urgent/)
    await ready()
    await page.getByRole('link', { name: /Urgent invoice fix/ }).waitFor()
    expect(await onlyOne()).toBe(1)
    await page.getByLabel('Priority').selectOption('')
    await page.getByLabel('Search tickets').fill('refund')
    await page.getByLabel('Search tickets').press('Enter')
    await page.waitForURL(/q=refund/)
    await ready()
    await page.getByRole('link', { name: /Double payment, refund missing/ }).waitFor()
    expect(await onlyOne()).toBe(1)

    // A ticket raised elsewhere arrives without reloading (tickets.changed).
    await page.goto(`${s.url}/app/tickets`)
    await ready()
    await live(page)
    await raise(s, q, { subject: 'Raised while watching' })
    await page.getByRole('link', { name: /Raised while watching/ }).waitFor()
    expect(await text(page, '[data-tab=active] .tk-n')).toBe('3')

    expect((await setLocale(q.b1, 'id')).status).toBe(200)
    await page.reload()
    await ready()
    await page.getByRole('heading', { name: 'Tiket' }).waitFor()
    await page.getByRole('link', { name: /^Aktif/ }).waitFor()
    await page.getByLabel('Prioritas').waitFor()
    await accessible(page)
    await fitsPhone(page)
    await shots(page, 'tickets-list-id')
    expect(quiet(problems)).toEqual([])
    await context.close()
  }, 120_000)

  it('a comment with a mention and a file, status and assignees reach a second agent live; a conclusion resolves', async () => {
    expect((await setLocale(p.b2, 'en')).status).toBe(200)
    // Both agents are assigned: an assigned ticket is seen by its participants only (spec 2 §1
    // rule 3), so a teammate who is not one would lose it when someone is assigned.
    const raised = await raise(s, p, {
      subject: `Double payment ${mark()}`,
      priority: 'high',
      assignee_ids: [p.b1Id, p.b2Id],
    })
    const asked = await api(s, p.agent).post(
      `/v1/interactions/${p.conversation}/tickets/${raised.id}/messages`,
      {
        request_update: true,
      },
    )
    expect(asked.status).toBe(200)
    const one = await signedIn(browser, s, p.sessions.b1!, { viewport: { width: 1440, height: 900 } })
    const two = await signedIn(browser, s, p.sessions.b2!, { viewport: { width: 1440, height: 900 } })
    for (const x of [one, two]) {
      await x.page.goto(`${s.url}/app/tickets/${raised.id}`)
      await x.page.locator('[data-testid=ticket][data-live=true]').waitFor()
      await live(x.page)
    }
    const a = one.page
    const b = two.page
    // The update request the conversation made is shown on the ticket.
    await a.getByTestId('update-request').getByText(`${names.agent} asked for an update`).waitFor()
    // The SLA in business hours as the API reports it.
    await a
      .getByTestId('ticket-sla')
      .getByText(/left in business hours|Target passed by/)
      .waitFor()

    await a.getByLabel('Mention').selectOption({ label: names.outsider })
    expect(await a.getByLabel('Comment').inputValue()).toContain(`@${names.outsider}`)
    await a.getByLabel('Comment').press('End')
    await a.getByLabel('Comment').pressSequentially(' please check the bank statement')
    await a.getByLabel('Files (up to 5)').setInputFiles({
      name: 'statement.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('BCA statement: 2 x 250000'),
    })
    await a.getByRole('button', { name: 'Send', exact: true }).click()
    // B sees the comment, its mention marked and its file linked, without reloading.
    const seen = b.getByTestId('discussion').locator('li', { hasText: 'please check the bank statement' })
    await seen.waitFor()
    expect(await seen.locator('.tk-mention').textContent()).toBe(`@${names.outsider}`)
    const file = seen.getByRole('link', { name: 'statement.txt' })
    const href = await file.getAttribute('href')
    const got = await s.fetch(href!, { headers: p.sessions.b2!.headers() })
    expect(await got.text()).toBe('BCA statement: 2 x 250000')
    // The mentioned person follows the ticket now.
    await b.getByTestId('participants').getByText(names.outsider).waitFor()

    // Status change, seen live by B (badge and log).
    await a.getByLabel('Status').selectOption('in_progress')
    await b.locator('.k-head [data-status=in_progress]').waitFor()
    await b
      .getByTestId('ticket-log')
      .getByText(`${names.b1} changed the status: Open → In progress`)
      .waitFor()
    // An assignee added by A (an admin may be assigned beside the team's members).
    await a.getByLabel('Add an assignee').selectOption({ label: names.admin })
    await a.getByRole('button', { name: 'Add', exact: true }).click()
    await b
      .getByTestId('participants')
      .locator(`[data-person="${names.admin}"]`, { hasText: 'Assignee' })
      .waitFor()
    await accessible(a)
    // From the top of the page, whatever scroller the last click moved.
    await a.evaluate(() => {
      for (const el of (globalThis as any).document.querySelectorAll('*')) el.scrollTop = 0
    })
    await shots(a, 'tickets-detail-en')

    // B sends their comment to the conversation as feedback; the conversation's agent sees it.
    await b.getByLabel('Comment').fill('Refund re-issued today')
    await b.getByRole('button', { name: 'Send', exact: true }).click()
    const mine = b.getByTestId('discussion').locator('li', { hasText: 'Refund re-issued today' })
    await mine.getByRole('button', { name: 'Send to the conversation' }).click()
    await mine.getByText('Sent to the conversation').waitFor()
    // A sees B's comment and then its feedback mark live (ticket.message, ticket.message.updated),
    // and the update request it answered goes from the page (ticket.updated).
    await a
      .getByTestId('discussion')
      .locator('li', { hasText: 'Refund re-issued today' })
      .getByText('Sent to the conversation')
      .waitFor()
    await a.getByTestId('update-request').waitFor({ state: 'detached' })

    // A conclusion that resolves: both pages show Resolved.
    await a.getByRole('textbox', { name: 'Conclusion' }).fill('Refund of 250000 sent back to the card.')
    await a.getByLabel('Resolve the ticket too').check()
    await a.getByRole('button', { name: 'Send the conclusion' }).click()
    await b.locator('.k-head [data-status=resolved]').waitFor()
    await a.locator('.k-head [data-status=resolved]').waitFor()
    await b.getByTestId('discussion').locator('li.tk-k-conclusion', { hasText: 'Refund of 250000' }).waitFor()
    const after = (await api(s, p.b1).get(`/v1/tickets/${raised.id}`)).data
    expect(after.status).toBe('resolved')
    expect(after.update_request).toBeNull()

    // Indonesian.
    expect((await setLocale(p.b2, 'id')).status).toBe(200)
    await b.reload()
    await b.getByRole('heading', { name: 'Diskusi' }).waitFor()
    await b.getByRole('link', { name: '← Semua tiket' }).waitFor()
    await accessible(b)
    await fitsPhone(b)
    await shots(b, 'tickets-detail-id')
    expect((await setLocale(p.b2, 'en')).status).toBe(200)
    expect(quiet(one.problems)).toEqual([])
    expect(quiet(two.problems)).toEqual([])
    await one.context.close()
    await two.context.close()
  }, 180_000)

  it('a follower unfollows themselves and loses sight of the ticket', async () => {
    // Assigned to b1, so only its participants see it; b1 mentions the outsider, who follows.
    const raised = await raise(s, p, { subject: `Follow me ${mark()}`, assignee_ids: [p.b1Id] })
    const m = await api(s, p.b1).post(`/v1/tickets/${raised.id}/messages`, {
      body: `@${names.outsider} FYI`,
      mention_ids: [p.outsiderId],
    })
    expect(m.status).toBe(201)
    const t = (await api(s, p.b1).get(`/v1/tickets/${raised.id}`)).data
    expect(t.participants.some((x: any) => x.id === p.outsiderId && x.role === 'mentioned')).toBe(true)
    const { page, problems, context } = await signedIn(browser, s, p.sessions.outsider!, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/tickets/${raised.id}`)
    const me = page.getByTestId('participants').locator(`[data-person="${names.outsider}"]`)
    await me.getByRole('button', { name: 'Unfollow' }).waitFor()
    // A follower without tickets.manage removes nobody else; only themselves.
    expect(await page.getByTestId('participants').getByRole('button', { name: 'Remove' }).count()).toBe(0)
    expect(await page.getByLabel('Status').count()).toBe(0)
    await me.getByRole('button', { name: 'Unfollow' }).click()
    await me.getByRole('button', { name: 'Yes, go ahead' }).click()
    // DELETE /tickets/{id}/participants/{own id}, as spec 2 §4.3 lets followers; the page says
    // why the ticket is gone from sight.
    await page
      .getByText(/You no longer follow this ticket\. Only its participants see this ticket now/)
      .waitFor()
    expect(await page.getByTestId('participants').count()).toBe(0)
    const left = (await api(s, p.b1).get(`/v1/tickets/${raised.id}`)).data
    expect(left.participants.some((x: any) => x.id === p.outsiderId)).toBe(false)
    expect(quiet(problems)).toEqual([])
    await context.close()
  }, 60_000)

  it('an agent of another Back Office team sees neither the ticket in the list nor its page', async () => {
    const tag = mark()
    const raised = await raise(s, p, { subject: `Double payment, refund missing ${tag}` })
    await raise(s, p, { subject: `Other squad secret ${tag}`, team_id: p.otherTeam })
    const { page, problems, context } = await signedIn(browser, s, p.sessions.other!, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/tickets?status=all`)
    await page.locator('[data-testid=ticket-list][aria-busy=false]').waitFor()
    await page.getByRole('link', { name: new RegExp(`Other squad secret ${tag}`) }).waitFor()
    expect(await page.getByText('Double payment').count()).toBe(0)
    expect(await page.getByText('Refund not received').count()).toBe(0)
    await page.goto(`${s.url}/app/tickets/${raised.id}`)
    await page.getByText('This ticket does not exist or you cannot see it.').waitFor()
    expect(await page.getByTestId('discussion').count()).toBe(0)
    await accessible(page)
    expect(quiet(problems)).toEqual([])
    await context.close()
  }, 60_000)

  it('summarises the conversation through the AI provider, in English and Indonesian', async () => {
    expect((await setLocale(p.agent, 'en')).status).toBe(200)
    const { page, problems, context } = await signedIn(browser, s, p.sessions.agent!, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/inbox/${p.conversation}`)
    await page.getByTestId('conv-summary').click()
    const dialog = page.getByRole('dialog', { name: 'AI summary' })
    await dialog.getByRole('button', { name: /^Summarise/ }).click()
    await dialog.getByTestId('summary-points').waitFor()
    const points = await dialog.getByTestId('summary-points').locator('li').allTextContents()
    expect(points.length).toBeGreaterThanOrEqual(3)
    expect(ai.requests.some((r) => r.path.endsWith('/chat/completions'))).toBe(true)
    const saved = (await api(s, p.agent).get(`/v1/interactions/${p.conversation}`)).data.ai_summary as string
    expect(saved).toContain(points[0])
    await accessible(page)
    await shots(page, 'tickets-summary-en')
    await dialog.getByRole('button', { name: 'Close' }).click()

    expect((await setLocale(p.agent, 'id')).status).toBe(200)
    await page.reload()
    await page.getByRole('button', { name: 'Ringkasan AI' }).click()
    const id = page.getByRole('dialog', { name: 'Ringkasan AI' })
    await id.getByRole('button', { name: 'Ringkas ulang' }).waitFor()
    await shots(page, 'tickets-summary-id')
    await id.getByRole('button', { name: 'Tutup' }).click()
    await page.getByTestId('conv-tickets').click()
    await page
      .getByRole('dialog', { name: 'Tiket percakapan ini' })
      .getByRole('button', { name: 'Buat tiket' })
      .click()
    const raiseId = page.getByRole('dialog', { name: 'Buat tiket dari percakapan ini' })
    await raiseId
      .getByLabel('Pesan yang dikutip')
      .waitFor()
      .catch(() => undefined)
    await raiseId.getByLabel('Subjek').waitFor()
    await accessible(page)
    await shots(page, 'tickets-raise-id')
    expect((await setLocale(p.agent, 'en')).status).toBe(200)
    expect(quiet(problems)).toEqual([])
    await context.close()
  }, 90_000)

  it('says in words that AI is not set up when the server has no provider', async () => {
    bare = await startTestServer()
    const w = await F.workspace(bare, { plan: 'pro' })
    const owner = await F.signIn(bare, w.ownerEmail)
    const ch = await I.channel(bare, w)
    const contact = await I.contact(bare, w)
    const c = await I.conversation(bare, w, { channelId: ch.id, contactId: contact.id })
    await I.inbound(bare, c.id, 'Where is my parcel?')
    const { page, problems, context } = await signedIn(browser, bare, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${bare.url}/app/inbox/${c.id}`)
    await page.getByTestId('conv-summary').click()
    const dialog = page.getByRole('dialog', { name: 'AI summary' })
    await dialog.getByRole('button', { name: 'Summarise the conversation' }).click()
    await dialog.getByText(/AI is not set up on this server/).waitFor()
    await accessible(page)
    await shots(page, 'tickets-summary-off-en')
    expect(problems.filter((x) => !x.includes('503') && !x.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 120_000)
})
