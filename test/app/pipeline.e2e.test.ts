import * as zlib from 'node:zlib'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as P from '../pipeline/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The pipeline screens end to end in Chromium through real HTTP (/app/pipeline…): a salesperson
 * drags a lead to another stage and it moves on the owner's board live (`pipeline.changed`); the
 * owner moves another from the keyboard to Won, giving the deal value, and it moves on the
 * salesperson's board; a new lead from the board's form; the lead page with an activity, a
 * checklist item, an event with a reminder, an expense and a file, each activity, event and expense
 * changed after and the checklist put in order from the keyboard; the new-lead form's warning of
 * the contact's open leads and a lead custom field saved and changed; a contact linked to a client;
 * an archived workflow's board from the board's chooser; English and Indonesian, axe at 1440 and
 * 390 px, screenshots in test-artifacts/app/pipeline-*.
 */
let s: TestServer
let browser: Browser
let w: F.Seeded
let owner: P.Who
let ownerSession: F.Session
let sales: Awaited<ReturnType<typeof P.person>>
let team: number
let flow: Awaited<ReturnType<typeof P.workflow>>

const live = (page: Page) => page.locator('[data-testid=connection][data-settled=true]').waitFor()
const accessible = async (page: Page) => {
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await axeFindings(page), `${page.url()} at ${width}px`).toEqual([])
  }
  await page.setViewportSize({ width: 1440, height: 900 })
}
/** Nothing wider than the phone's screen (the board scrolls inside itself). */
const fitsPhone = async (page: Page) => {
  await page.setViewportSize({ width: 390, height: 844 })
  const over = await page.evaluate(() => {
    const d = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document
    return d.documentElement.scrollWidth - d.documentElement.clientWidth
  })
  expect(over, page.url()).toBeLessThanOrEqual(0)
  await page.setViewportSize({ width: 1440, height: 900 })
}
const setLocale = (who: P.Who, locale: 'en' | 'id') => P.api(s, who).patch('/v1/me', { locale })
const column = (page: Page, label: string) => page.locator(`section.pl-col:has(h2:has-text("${label}"))`)
const stageOfLead = async (id: number) =>
  (await P.api(s, owner).get(`/v1/leads/${id}`)).data.stage.label as string

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = P.session(ownerSession)
  expect((await P.api(s, owner).patch('/v1/me', { name: 'Olivia Owner' })).status).toBe(200)
  sales = await P.person(s, w, ['leads.view', 'leads.manage'])
  expect((await P.api(s, sales.who).patch('/v1/me', { name: 'Sari Sales' })).status).toBe(200)
  team = await P.team(s, w, [sales.id])
  flow = await P.workflow(s, owner, { name: 'Enterprise sales', team_ids: [team] })
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('pipeline in the app', () => {
  it('a lead dragged by one person moves on the other’s board live; a keyboard move to Won asks the value', async () => {
    const mark = Math.random().toString(36).slice(2, 6)
    const common = { pipeline_id: flow.id, team_id: team, assignee_id: sales.id }
    const drag = await P.lead(s, sales.who, {
      ...common,
      title: `Drag ${mark}`,
      value_estimate: 5_000_000,
      contact: { name: 'Budi', phone: P.phone() },
      client_name: `PT Maju ${mark}`,
    })
    const keys = await P.lead(s, sales.who, { ...common, title: `Keys ${mark}`, value_estimate: 7_500_000 })
    expect((await setLocale(owner, 'en')).status).toBe(200)
    expect((await setLocale(sales.who, 'en')).status).toBe(200)

    const a = await signedIn(browser, s, sales.session, { viewport: { width: 1440, height: 900 } })
    const b = await signedIn(browser, s, ownerSession, { viewport: { width: 1440, height: 900 } })
    for (const { page } of [a, b]) {
      await page.goto(`${s.url}/app/pipeline?workflow=${flow.id}`)
      await column(page, 'New').getByText(`Drag ${mark}`).waitFor()
      await live(page)
    }
    // The nav entry is there for a salesperson.
    await a.page.getByRole('link', { name: 'Pipeline' }).first().waitFor()

    // Sari drags her lead from New to Qualified; Olivia's board follows.
    await a.page.dragAndDrop(`[data-lead="${drag.id}"]`, 'section.pl-col:has(h2:has-text("Qualified"))')
    await column(a.page, 'Qualified').getByText(`Drag ${mark}`).waitFor()
    await P.eventually(
      () => stageOfLead(drag.id),
      (x) => x === 'Qualified',
    )
    await column(b.page, 'Qualified').getByText(`Drag ${mark}`).waitFor()
    expect(await column(b.page, 'New').getByText(`Drag ${mark}`).count()).toBe(0)
    await shots(b.page, 'pipeline-board-en')
    await accessible(b.page)
    await fitsPhone(b.page)

    // Olivia moves the other from the keyboard to Won: the deal value is asked (the prospect
    // value by default); Sari's board shows it in Won.
    const select = b.page.getByLabel(`Move Keys ${mark} to`)
    await select.focus()
    await select.selectOption({ label: 'Won' })
    const dialog = b.page.getByRole('dialog', { name: `Mark Keys ${mark} as won` })
    expect(await dialog.getByLabel('Deal value').inputValue()).toBe('7500000')
    await dialog.getByLabel('Deal value').fill('8000000')
    await shots(b.page, 'pipeline-won-en')
    await dialog.getByRole('button', { name: 'Mark as won' }).click()
    await column(a.page, 'Won').getByText(`Keys ${mark}`).waitFor()
    const won = (await P.api(s, owner).get(`/v1/leads/${keys.id}`)).data
    expect(won).toMatchObject({ status: 'won', value_won: 8_000_000 })

    // To Lost: the reason from the settings' list.
    await column(a.page, 'Lost').scrollIntoViewIfNeeded()
    await a.page.dragAndDrop(`[data-lead="${drag.id}"]`, 'section.pl-col:has(h2:has-text("Lost"))')
    const lost = a.page.getByRole('dialog', { name: `Mark Drag ${mark} as lost` })
    const reasons = (await P.api(s, owner).get('/v1/pipeline/settings')).data.lost_reasons as string[]
    await lost.getByLabel('Lost reason').selectOption(reasons[1]!)
    await lost.getByLabel('Note on the loss').fill('Chose a cheaper offer')
    await lost.getByRole('button', { name: 'Mark as lost' }).click()
    await column(b.page, 'Lost').getByText(`Drag ${mark}`).waitFor()
    expect((await P.api(s, owner).get(`/v1/leads/${drag.id}`)).data).toMatchObject({
      status: 'lost',
      lost_reason: reasons[1],
      lost_note: 'Chose a cheaper offer',
    })
    expect(a.problems.filter((x) => !x.startsWith('Failed to load resource'))).toEqual([])
    expect(b.problems.filter((x) => !x.startsWith('Failed to load resource'))).toEqual([])

    // Indonesian.
    expect((await setLocale(owner, 'id')).status).toBe(200)
    await b.page.goto(`${s.url}/app/pipeline?workflow=${flow.id}`)
    await b.page.getByRole('heading', { name: 'Pipeline', level: 1 }).waitFor()
    await b.page.getByText('Menang bulan ini').waitFor()
    await shots(b.page, 'pipeline-board-id')
    await accessible(b.page)
    expect((await setLocale(owner, 'en')).status).toBe(200)
    await a.context.close()
    await b.context.close()
  }, 180_000)

  it('creates a lead from the board and works on its page: activity, checklist, event, expense, file', async () => {
    const mark = Math.random().toString(36).slice(2, 6)
    expect((await setLocale(sales.who, 'en')).status).toBe(200)
    // A lead custom field, and a contact with an open lead in the workflow already.
    const field = await P.api(s, owner).post('/v1/custom-fields', {
      entity: 'lead',
      label: `Fleet size ${mark}`,
      type: 'number',
    })
    expect(field.status).toBe(201)
    const key = field.data.key as string
    const known = P.phone()
    const earlier = await P.lead(s, sales.who, {
      pipeline_id: flow.id,
      team_id: team,
      title: `Earlier ${mark}`,
      contact: { name: 'Wati', phone: known },
    })
    const { page, problems, context } = await signedIn(browser, s, sales.session, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/pipeline?workflow=${flow.id}`)
    await page.getByRole('link', { name: 'New lead' }).click()
    const form = page.getByTestId('lead-form')
    // Without a title the server's message shows beside the field.
    await form.getByRole('button', { name: 'Create lead' }).click()
    await form.getByRole('alert').first().waitFor()
    await form.getByLabel('Title').fill(`Fleet ${mark}`)
    await form.getByLabel('Contact name').fill('Wati')
    // The phone of a contact with an open lead here, written as people write it: that lead is
    // shown before saving, and the button says so.
    await form.getByLabel('Phone').fill(`0${known.slice(3, 6)}-${known.slice(6)}`)
    const dupes = form.getByTestId('lead-duplicates')
    await dupes.getByRole('link', { name: `${earlier.identifier} Earlier ${mark}` }).waitFor()
    await form.getByRole('button', { name: 'Create anyway' }).waitFor()
    await shots(page, 'pipeline-duplicates-en')
    // Another number: no warning.
    await form.getByLabel('Phone').fill(P.phone())
    await dupes.waitFor({ state: 'detached' })
    await form.getByLabel(`Fleet size ${mark}`).fill('20')
    await form.getByLabel('Client (company)').fill(`PT Armada ${mark}`)
    await form.getByLabel('Prospect value').fill('12000000')
    await form.getByLabel('Owner').selectOption({ label: 'Sari Sales' })
    await form.getByRole('button', { name: 'Create lead' }).click()
    await page.waitForURL(/\/app\/pipeline\/leads\/\d+$/)
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    const lead = (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data
    expect(lead).toMatchObject({ title: `Fleet ${mark}`, value_estimate: 12_000_000, assignee_id: sales.id })
    expect(lead.custom_fields.find((f: { key: string }) => f.key === key).value).toBe(20)
    expect(lead.contact_id).not.toBe(earlier.contact_id)
    expect(lead.client.name).toBe(`PT Armada ${mark}`)
    await page.getByRole('heading', { name: `Fleet ${mark}` }).waitFor()
    await live(page)

    // An activity.
    await page.getByLabel('Activity', { exact: true }).selectOption('call')
    await page.getByLabel('What happened').fill('Called about 20 trucks')
    await page.getByRole('button', { name: 'Log activity' }).click()
    await page.getByTestId('lead-timeline').getByText('Called about 20 trucks').waitFor()
    // Changed in place.
    const called = page.getByTestId('lead-timeline').locator('li', { hasText: 'Called about 20 trucks' })
    await called.getByRole('button', { name: 'Edit the activity' }).click()
    const change = page.getByTestId('activity-edit')
    await change.getByLabel('Activity').selectOption('meeting')
    await change.getByLabel('What happened').fill('Met about 25 trucks')
    await change.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('lead-timeline').getByText('Met about 25 trucks').waitFor()
    const acts = (await P.api(s, sales.who).get(`/v1/leads/${id}/activities`)).data as {
      kind: string
      body: string | null
    }[]
    expect(acts.find((a) => a.body === 'Met about 25 trucks')?.kind).toBe('meeting')
    // Checklist items, one ticked, then put in order from the keyboard.
    const checklist = page.getByRole('region', { name: 'Checklist' })
    const add = checklist.getByRole('button', { name: 'Add' })
    // The next item typed while the first is on its way is kept: the form clears only what it sent.
    let release = () => {}
    const held = new Promise<void>((r) => {
      release = r
    })
    await page.route(/\/v1\/leads\/\d+\/checklist$/, async (route) => {
      await held
      await route.continue()
    })
    await page.getByLabel('New item').fill('Send the quotation')
    await add.click()
    await page.getByLabel('New item').fill('Book the demo')
    release()
    await checklist.getByRole('checkbox', { name: 'Send the quotation' }).waitFor()
    await expect.poll(() => add.isEnabled()).toBe(true)
    expect(await page.getByLabel('New item').inputValue()).toBe('Book the demo')
    await page.unroute(/\/v1\/leads\/\d+\/checklist$/)
    await add.click()
    await checklist.getByRole('checkbox', { name: 'Book the demo' }).waitFor()
    await expect.poll(() => page.getByLabel('New item').inputValue()).toBe('')
    await page.getByLabel('New item').fill('Sign the contract')
    await add.click()
    await checklist.getByRole('checkbox', { name: 'Sign the contract' }).waitFor()
    await page.getByRole('checkbox', { name: 'Send the quotation' }).check()
    await P.eventually(
      async () => (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data.checklist,
      (c: { done: boolean }[]) => c.length === 3 && c[0]!.done,
    )
    const order = async () =>
      ((await P.api(s, sales.who).get(`/v1/leads/${id}`)).data.checklist as { text: string }[]).map(
        (c) => c.text,
      )
    await checklist.getByRole('button', { name: 'Move Sign the contract up' }).focus()
    await page.keyboard.press('Enter')
    await P.eventually(order, (o) => o.join() === 'Send the quotation,Sign the contract,Book the demo')
    // Focus stayed on the moved item's button: Enter moves it again, to the top, where only its
    // Move down button can act, and focus goes there.
    await page.keyboard.press('Enter')
    await P.eventually(order, (o) => o.join() === 'Sign the contract,Send the quotation,Book the demo')
    await expect
      .poll(() =>
        page.evaluate(() =>
          (
            globalThis as unknown as {
              document: { activeElement: { getAttribute: (n: string) => string | null } | null }
            }
          ).document.activeElement?.getAttribute('aria-label'),
        ),
      )
      .toBe('Move Sign the contract down')
    expect(await checklist.locator('li').allTextContents()).toEqual([
      expect.stringContaining('Sign the contract'),
      expect.stringContaining('Send the quotation'),
      expect.stringContaining('Book the demo'),
    ])
    // An event with a reminder an hour before.
    await page.getByRole('button', { name: 'Plan an event' }).click()
    const ev = page.getByRole('dialog', { name: 'Plan an event' })
    await ev.getByLabel('Title').fill('Site visit')
    await ev.getByLabel('Kind').selectOption('visit')
    await ev.getByLabel('Starts at').fill('2030-05-02T10:00')
    await ev.getByLabel('Reminder').selectOption('60')
    await ev.getByRole('button', { name: 'Add' }).click()
    await page.getByRole('region', { name: 'Events' }).getByText('Site visit').waitFor()
    const events = (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data.events
    expect(events[0]).toMatchObject({ title: 'Site visit', kind: 'visit', remind_minutes: 60 })
    expect(new Date(events[0].remind_at).getTime()).toBe(new Date(events[0].starts_at).getTime() - 3_600_000)
    // Changed: a new title; the start time and its reminder stay.
    await page.getByRole('button', { name: 'Edit Site visit' }).click()
    const evEdit = page.getByRole('dialog', { name: 'Change the event' })
    expect(await evEdit.getByLabel('Reminder').inputValue()).toBe('60')
    await evEdit.getByLabel('Title').fill('Site visit with the CFO')
    await evEdit.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('region', { name: 'Events' }).getByText('Site visit with the CFO').waitFor()
    const changedEvent = (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data.events[0]
    expect(changedEvent).toMatchObject({
      title: 'Site visit with the CFO',
      starts_at: events[0].starts_at,
      remind_minutes: 60,
    })
    // An expense with a receipt.
    const categories = (await P.api(s, owner).get('/v1/pipeline/settings')).data
      .expense_categories as string[]
    await page.getByLabel('Category').selectOption(categories[0]!)
    await page.getByLabel('Amount').fill('150000')
    await page.getByLabel('Receipt (optional)').setInputFiles({
      name: 'receipt.png',
      mimeType: 'image/png',
      buffer: Buffer.from(
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
        'base64',
      ),
    })
    await page.getByRole('button', { name: 'Record expense' }).click()
    await page.getByTestId('expenses-total').waitFor()
    const x = (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data
    expect(x.expenses_total).toBe(150000)
    expect(x.expenses[0].receipt.name).toBe('receipt.png')
    // Changed: an amount that is no amount is refused beside the field, then a right one.
    const expenses = page.getByRole('region', { name: 'Expenses' })
    await expenses.getByRole('button', { name: /^Edit 150,000/ }).click()
    const xEdit = page.getByRole('dialog', { name: 'Change the expense' })
    await xEdit.getByLabel('Amount').fill('-5')
    await xEdit.getByRole('button', { name: 'Save' }).click()
    await xEdit.getByRole('alert').first().waitFor()
    expect(await xEdit.getByLabel('Amount').getAttribute('aria-invalid')).toBe('true')
    await shots(page, 'pipeline-expense-edit-en')
    await xEdit.getByLabel('Amount').fill('175000')
    await xEdit.getByLabel('Expense note').fill('Taxi and tolls')
    await xEdit.getByRole('button', { name: 'Save' }).click()
    await xEdit.waitFor({ state: 'detached' })
    const x2 = (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data
    expect(x2.expenses_total).toBe(175000)
    expect(x2.expenses[0]).toMatchObject({ amount: 175000, note: 'Taxi and tolls' })
    expect(x2.expenses[0].receipt.name).toBe('receipt.png')
    // A file.
    await page.getByLabel('Attach a file').setInputFiles({
      name: 'proposal.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Proposal for 20 trucks'),
    })
    await page.getByRole('region', { name: 'Files' }).getByRole('link', { name: 'proposal.txt' }).waitFor()
    // Edit: the follow-up and the custom field.
    await page.getByRole('button', { name: 'Edit', exact: true }).click()
    await page.getByTestId('lead-form').getByLabel('Follow-up note').fill('Call back after the visit')
    expect(await page.getByTestId('lead-form').getByLabel(`Fleet size ${mark}`).inputValue()).toBe('20')
    await page.getByTestId('lead-form').getByLabel(`Fleet size ${mark}`).fill('25')
    await page.getByTestId('lead-form').getByRole('button', { name: 'Save' }).click()
    await page
      .getByTestId('lead-form')
      .waitFor({ state: 'detached' })
      .catch(async () => {
        throw new Error(`edit not saved: ${await page.getByTestId('lead-form').textContent()}`)
      })
    await page.getByText('Call back after the visit').waitFor()
    expect(
      (await P.api(s, sales.who).get(`/v1/leads/${id}`)).data.custom_fields.find(
        (f: { key: string }) => f.key === key,
      ).value,
    ).toBe(25)
    await page.getByRole('region', { name: 'Details' }).getByText(`Fleet size ${mark}`).waitFor()
    await shots(page, 'pipeline-lead-en')
    await accessible(page)
    await fitsPhone(page)

    // Another person's note arrives live.
    expect(
      (await P.api(s, owner).post(`/v1/leads/${id}/activities`, { kind: 'note', body: 'Owner note here' }))
        .status,
    ).toBe(201)
    await page.getByTestId('lead-timeline').getByText('Owner note here').waitFor()
    // Her own activity can be deleted; the owner's note cannot (no button).
    const timeline = page.getByTestId('lead-timeline')
    expect(await timeline.locator('li', { hasText: 'Owner note here' }).getByRole('button').count()).toBe(0)
    await timeline
      .locator('li', { hasText: 'Met about 25 trucks' })
      .getByRole('button', { name: 'Delete' })
      .click()
    await timeline.getByRole('button', { name: 'Yes, go ahead' }).click()
    await timeline.getByText('Met about 25 trucks').waitFor({ state: 'detached' })

    expect((await setLocale(sales.who, 'id')).status).toBe(200)
    await page.reload()
    await page.getByRole('heading', { name: 'Daftar periksa' }).waitFor()
    await shots(page, 'pipeline-lead-id')
    await accessible(page)
    expect((await setLocale(sales.who, 'en')).status).toBe(200)

    // A lead that does not exist says so.
    await page.goto(`${s.url}/app/pipeline/leads/99999999`)
    await page
      .getByText('Prospek ini tidak ada', { exact: false })
      .or(page.getByText('This lead does not exist'))
      .waitFor()
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 180_000)
  it('lists leads with a bulk action, shows clients and the dashboard, and imports a CSV with per-row errors', async () => {
    const mark = Math.random().toString(36).slice(2, 6)
    const common = { pipeline_id: flow.id, team_id: team, assignee_id: sales.id }
    const one = await P.lead(s, sales.who, {
      ...common,
      title: `Bulk one ${mark}`,
      client_name: `PT Klien ${mark}`,
    })
    const two = await P.lead(s, sales.who, { ...common, title: `Bulk two ${mark}` })
    expect((await setLocale(owner, 'en')).status).toBe(200)
    const { page, problems, context } = await signedIn(browser, s, ownerSession, {
      viewport: { width: 1440, height: 900 },
    })
    // The list: two leads ticked and moved to Proposal at once.
    await page.goto(`${s.url}/app/pipeline/leads`)
    await page.getByLabel('Search').fill(`Bulk`)
    await page.getByLabel(`Select Bulk one ${mark}`).check()
    await page.getByLabel(`Select Bulk two ${mark}`).check()
    const bar = page.getByTestId('bulk-bar')
    await bar.getByLabel('Stage').selectOption({ label: 'Proposal' })
    await shots(page, 'pipeline-leads-en')
    await accessible(page)
    await bar.getByRole('button', { name: 'Apply' }).click()
    await P.eventually(
      async () => [await stageOfLead(one.id), await stageOfLead(two.id)],
      (x) => x.every((l) => l === 'Proposal'),
    )
    await bar.waitFor({ state: 'detached' })
    // To Won without a value: each lead is refused, and the refusals are listed per lead.
    await page.getByLabel(`Select Bulk one ${mark}`).check()
    await bar.getByLabel('Stage').selectOption({ label: 'Won' })
    await bar.getByRole('button', { name: 'Apply' }).click()
    const refusal = page.getByRole('alert').filter({ hasText: '0 done, 1 refused' })
    await refusal.getByText(`${one.identifier} Bulk one ${mark}`, { exact: false }).waitFor()
    expect(await stageOfLead(one.id)).toBe('Proposal')
    await page.getByLabel(`Select Bulk one ${mark}`).uncheck()

    // Clients: the list, then the client's page with its lead.
    await page.goto(`${s.url}/app/pipeline/clients`)
    await page.getByRole('link', { name: `PT Klien ${mark}` }).click()
    await page.getByRole('heading', { name: `PT Klien ${mark}` }).waitFor()
    await page
      .getByRole('region', { name: 'Leads' })
      .getByRole('link', { name: `Bulk one ${mark}` })
      .waitFor()
    // An existing contact found by name and linked; the API has it among the client's.
    const rina = await P.api(s, owner).post('/v1/contacts', { name: `Rina ${mark}`, phone: P.phone() })
    expect(rina.status).toBe(201)
    await page.getByLabel('Link an existing contact').fill(`Rina ${mark}`)
    await page.getByRole('button', { name: `Link Rina ${mark}` }).click()
    await page
      .getByTestId('client-contacts')
      .getByRole('link', { name: `Rina ${mark}` })
      .waitFor()
    const client = (await P.api(s, owner).get(`/v1/clients/${one.client_id}`)).data
    expect(client.contacts.map((c: { id: number }) => c.id)).toContain(rina.data.id)
    await shots(page, 'pipeline-client-en')
    await accessible(page)
    const clientUrl = page.url()

    // The dashboard.
    await page.goto(`${s.url}/app/pipeline/dashboard`)
    await page.getByTestId('dashboard-tiles').waitFor()
    await page
      .getByRole('region', { name: /Funnel/ })
      .getByText('Proposal')
      .waitFor()
    await shots(page, 'pipeline-dashboard-en')
    await accessible(page)
    await fitsPhone(page)
    // Its team and owner filters ask the API's own: the figures are the API's for the same filters.
    const created = async () =>
      (await page.getByTestId('dashboard-tiles').locator('dd').first().textContent())?.trim()
    const figure = async (q: string) =>
      String((await P.api(s, owner).get(`/v1/pipeline/dashboard?${q}`)).data.tiles.created)
    await page.getByLabel('Team', { exact: true }).selectOption(String(team))
    await page.getByLabel('Owner', { exact: true }).selectOption(String(sales.id))
    const mine = await figure(`team_id=${team}&assignee_id=${sales.id}`)
    expect(Number(mine)).toBeGreaterThanOrEqual(2)
    await expect.poll(created).toBe(mine)
    await page.getByLabel('Owner', { exact: true }).selectOption({ label: 'Nobody' })
    await expect.poll(created).toBe(await figure(`team_id=${team}&assignee_id=none`))
    await page.getByLabel('Team', { exact: true }).selectOption({ label: 'All' })
    await page.getByLabel('Owner', { exact: true }).selectOption({ label: 'Anyone' })

    // Import: a CSV whose second row has no title and a value that is not a number.
    await page.goto(`${s.url}/app/pipeline/import`)
    await page.getByLabel('Workflow for rows without one').selectOption({ label: 'Enterprise sales' })
    await page.getByLabel('Spreadsheet or CSV file').setInputFiles({
      name: 'leads.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`Title,Value,Region\nImported ${mark},2500000,Jakarta\n,lots,Bandung\n`),
    })
    const mapping = page.getByTestId('import-mapping')
    await mapping.waitFor()
    expect(await page.getByLabel('Import Title as').inputValue()).toBe('title')
    expect(await page.getByLabel('Import Value as').inputValue()).toBe('value_estimate')
    await page.getByLabel('Import Region as').selectOption('-')
    await page.getByRole('button', { name: 'Check first' }).click()
    await page.getByTestId('import-counts').getByText('1 new, 0 updated, 0 unchanged, 1 refused.').waitFor()
    await page.getByTestId('import-errors').getByRole('cell', { name: '3', exact: true }).waitFor()
    await shots(page, 'pipeline-import-en')
    await accessible(page)
    await page.getByRole('button', { name: 'Import', exact: true }).click()
    await page.getByRole('heading', { name: 'Imported' }).waitFor()
    const found = await P.api(s, owner).get(`/v1/leads?q=Imported%20${mark}`)
    expect(found.data).toHaveLength(1)
    expect(found.data[0]).toMatchObject({ value_estimate: 2_500_000, pipeline_id: flow.id })

    // Indonesian.
    expect((await setLocale(owner, 'id')).status).toBe(200)
    await page.goto(`${s.url}/app/pipeline/dashboard`)
    await page.getByRole('heading', { name: 'Dasbor pipeline' }).waitFor()
    await shots(page, 'pipeline-dashboard-id')
    await accessible(page)
    await page.goto(clientUrl)
    await page.getByRole('heading', { name: 'Kontak' }).waitFor()
    await shots(page, 'pipeline-client-id')
    await page.goto(`${s.url}/app/pipeline/import`)
    await page.getByRole('heading', { name: 'Impor prospek' }).waitFor()
    await shots(page, 'pipeline-import-id')
    expect((await setLocale(owner, 'en')).status).toBe(200)
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 180_000)
  it('edits a workflow’s stages: a removed stage’s leads move to the nearest earlier stage kept', async () => {
    const mark = Math.random().toString(36).slice(2, 6)
    const wf = await P.workflow(s, owner, { name: `Layout ${mark}` })
    const negotiation = wf.stages.find((x) => x.label === 'Negotiation')!.id
    const l = await P.lead(s, owner, { pipeline_id: wf.id, stage_id: negotiation, title: `Staged ${mark}` })
    expect((await setLocale(owner, 'en')).status).toBe(200)
    const { page, problems, context } = await signedIn(browser, s, ownerSession, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/pipeline/workflows`)
    const panel = page.locator(`section[data-workflow="${wf.id}"]`)
    await panel.getByRole('button', { name: 'Remove Negotiation' }).click()
    await panel.getByRole('button', { name: 'Add a stage' }).click()
    await panel.getByLabel('Label', { exact: true }).nth(3).fill('Contract')
    await panel.getByRole('button', { name: 'Save stages' }).click()
    await panel.getByText('Stages saved.').waitFor()
    const after = (await P.api(s, owner).get(`/v1/pipelines/${wf.id}`)).data.stages.map(
      (x: { label: string }) => x.label,
    )
    expect(after).toEqual(['New', 'Qualified', 'Proposal', 'Contract', 'Won', 'Lost'])
    expect(await stageOfLead(l.id)).toBe('Proposal')
    await shots(page, 'pipeline-workflows-en')
    await accessible(page)

    // Deleted with a lead, it is archived; the board's chooser still reaches it, read-only, and
    // restores it.
    expect((await P.api(s, owner).del(`/v1/pipelines/${wf.id}`)).status).toBe(200)
    await page.goto(`${s.url}/app/pipeline`)
    await page.getByLabel('Workflow').selectOption({ label: `Layout ${mark}` })
    await page.getByTestId('board-archived').waitFor()
    await column(page, 'Proposal').getByText(`Staged ${mark}`).waitFor()
    expect(await page.getByLabel(`Move Staged ${mark} to`).count()).toBe(0)
    expect(await page.getByRole('link', { name: 'New lead' }).count()).toBe(0)
    await page.getByTestId('board-archived').getByRole('button', { name: 'Restore' }).click()
    await page.getByTestId('board-archived').waitFor({ state: 'detached' })
    expect((await P.api(s, owner).get(`/v1/pipelines/${wf.id}`)).data.archived).toBe(false)
    await page.getByLabel(`Move Staged ${mark} to`).waitFor()
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 120_000)

  it('keeps the pipeline out of the first load: its chunks load on demand', async () => {
    const { page, problems, context } = await signedIn(browser, s, ownerSession, {
      viewport: { width: 1440, height: 900 },
    })
    const bodies = new Map<string, Buffer>()
    page.on('response', async (r) => {
      if (r.url().endsWith('.js')) bodies.set(r.url(), await r.body().catch(() => Buffer.alloc(0)))
    })
    await page.goto(`${s.url}/app/inbox`)
    await page.getByRole('link', { name: 'Pipeline' }).first().waitFor()
    await page.waitForLoadState('networkidle')
    const first = new Map(bodies)
    const gz = (xs: Iterable<Buffer>) => [...xs].reduce((n, b) => n + zlib.gzipSync(b).length, 0)
    await page.getByRole('link', { name: 'Pipeline' }).first().click()
    await page.getByTestId('pipeline-board').waitFor()
    await page.waitForLoadState('networkidle')
    const own = [...bodies].filter(([u]) => !first.has(u))
    const firstKb = gz(first.values()) / 1024
    const ownKb = gz(own.map(([, b]) => b)) / 1024
    console.log(
      `pipeline: first load ${firstKb.toFixed(1)} KB gzipped JS (${first.size} files); the board's own chunks ${ownKb.toFixed(1)} KB gzipped (${own.length} files)`,
    )
    expect(firstKb).toBeLessThanOrEqual(150)
    expect(own.length).toBeGreaterThan(0)
    expect([...first.keys()].some((u) => /BoardPage|LeadPage/.test(u))).toBe(false)
    expect(problems.filter((p) => !p.startsWith('Failed to load resource'))).toEqual([])
    await context.close()
  }, 90_000)
})
