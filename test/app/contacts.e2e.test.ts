import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeSocket } from '../../connectors/msgapp/TransportTest'
import { ENV, linkedNumber, textFrom, waitFor } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { fitsAndAccessible } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The contacts pages (/app/contacts, /contacts/:id, /new, /:id/merge, /import) and the
 * conversation's contact panel end to end in headless Chromium against a real server: search,
 * label filter and order; create, edit, labels in place (and a label created from the picker),
 * notes, delete; merge with its preview; a CSV import of 1,201 rows in three parts with one bad
 * row (its line in the person's file) and the progress passing each part; the export with the
 * list's filter; the panel's profile link and editor; a second person's list and profile follow
 * changes live; an Agent (contacts.view only) sees no control that changes contacts; Indonesian;
 * axe-core at 1440 and 390 px. Screenshots in test-artifacts/app/contacts-*.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let admin: F.Session
let agent: F.Session
let browser: Browser
let phone: FakeSocket
let vip: number

const get = async (session: F.Session, p: string) => {
  const res = await s.fetch(p, { headers: session.headers() })
  return { status: res.status, ...((await res.json()) as { data: any; meta: any }) }
}
const post = async (session: F.Session, p: string, body: unknown) => {
  const res = await s.fetch(p, F.json(body, session.headers()))
  expect(res.status, `${p}: ${await res.clone().text()}`).toBeLessThan(300)
  return ((await res.json()) as { data: any }).data
}
const patch = async (session: F.Session, p: string, body: unknown) => {
  const res = await s.fetch(p, { ...F.json(body, session.headers()), method: 'PATCH' })
  expect(res.status).toBeLessThan(300)
}

beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro', name: 'Toko Maju' })
  owner = await F.signIn(s, w.ownerEmail)
  admin = await F.signIn(s, (await F.member(s, w, 'Admin')).email)
  await patch(admin, '/v1/me', { locale: 'id' })
  agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
  phone = (await linkedNumber(s, owner)).sock
  vip = (
    await post(owner, '/v1/labels', { name: 'VIP', color: (await get(owner, '/v1/labels')).meta.colors[0] })
  ).id
  await post(owner, '/v1/contact-fields', { label: 'Tier', type: 'select', options: ['Gold', 'Silver'] })
  await post(owner, '/v1/contacts', {
    name: 'Budi Santoso',
    phone: '+6281234500001',
    label_ids: [vip],
    company: 'PT Maju',
  })
  await post(owner, '/v1/contacts', { name: 'Citra Lestari', email: 'citra@example.com' })
  await post(owner, '/v1/contacts', { name: 'Dewi Anggraini', phone: '+6281234500003' })
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

const refusals = { ignore: (text: string) => /status of (404|422)/.test(text) }

const rowsOf = async (page: Page) =>
  (await page.getByTestId('contacts-list').getByRole('listitem').getByRole('link').allTextContents()).sort()

describe.skipIf(lacks('chromium'))('contacts pages', () => {
  it('lists, searches, filters by label and orders by name; axe at 1440 and 390 px', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/contacts`)
    await page.getByRole('heading', { name: 'Contacts', level: 1 }).waitFor()
    await page.getByTestId('contacts-total').getByText('3 contacts').waitFor()
    expect(await rowsOf(page)).toEqual(['Budi Santoso', 'Citra Lestari', 'Dewi Anggraini'])
    await page.getByLabel('Search').fill('citra')
    await page.getByTestId('contacts-total').getByText('1 contacts').waitFor()
    expect(await rowsOf(page)).toEqual(['Citra Lestari'])
    await page.getByLabel('Search').fill('')
    await page.getByTestId('contacts-total').getByText('3 contacts').waitFor()
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'VIP' })
    await page.getByTestId('contacts-total').getByText('1 contacts').waitFor()
    expect(await rowsOf(page)).toEqual(['Budi Santoso'])
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'Any' })
    await page.getByLabel('Order').selectOption({ label: 'Name' })
    await page.getByTestId('contacts-total').getByText('3 contacts').waitFor()
    const ordered = await page
      .getByTestId('contacts-list')
      .getByRole('listitem')
      .getByRole('link')
      .allTextContents()
    expect(ordered).toEqual(['Budi Santoso', 'Citra Lestari', 'Dewi Anggraini'])
    // Settings for labels are linked, not repeated.
    expect(await page.getByRole('link', { name: 'Manage labels' }).getAttribute('href')).toBe(
      '/app/settings/labels',
    )
    await fitsAndAccessible(page)
    await shots(page, 'contacts-list-en')
    expect(problems).toEqual([])
    await context.close()
  })

  it('creates, edits, labels (one created from the picker), notes and deletes a contact', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner, refusals)
    await page.goto(`${s.url}/app/contacts`)
    await page.getByRole('link', { name: 'New contact' }).click()
    await page.getByLabel('Name').fill('Eko Prasetyo')
    await page.getByLabel('Phone').fill('not a phone')
    await page.getByRole('button', { name: 'Create contact' }).click()
    // The server's message under the field.
    await page.getByTestId('contact-form').getByRole('alert').first().waitFor()
    await page.getByLabel('Phone').fill('+6281234500005')
    await page.getByLabel('Tier').selectOption('Gold')
    await page.getByRole('button', { name: 'Create contact' }).click()
    await page.getByRole('heading', { name: 'Eko Prasetyo', level: 1 }).waitFor()
    const id = Number(/contacts\/(\d+)$/.exec(page.url())![1])
    expect((await get(owner, `/v1/contacts/${id}`)).data.custom).toEqual({ tier: 'Gold' })
    await page.getByRole('button', { name: 'Edit' }).click()
    await page.getByLabel('Company').fill('CV Sejahtera')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('contact-details').getByText('CV Sejahtera').waitFor()
    expect((await get(owner, `/v1/contacts/${id}`)).data.company).toBe('CV Sejahtera')
    // Labels in place: add an existing one, create one from the picker, remove one.
    const labels = page.getByTestId('contact-labels')
    await labels.getByLabel('Add a label').selectOption({ label: 'VIP' })
    await labels.getByRole('button', { name: 'Add', exact: true }).click()
    await labels.getByRole('button', { name: 'Remove label VIP' }).waitFor()
    await labels.getByLabel('New label').fill('Reseller')
    await labels.getByRole('button', { name: 'Create and add' }).click()
    await labels.getByRole('button', { name: 'Remove label Reseller' }).waitFor()
    await labels.getByRole('button', { name: 'Remove label VIP' }).click()
    await labels.getByRole('button', { name: 'Remove label VIP' }).waitFor({ state: 'detached' })
    expect((await get(owner, `/v1/contacts/${id}`)).data.labels.map((l: any) => l.name)).toEqual(['Reseller'])
    // A note, then the timeline shows it.
    await page.getByLabel('Add a note').fill('Prefers calls after 5 pm')
    await page.getByRole('button', { name: 'Add note' }).click()
    await page.getByTestId('contact-notes').getByText('Prefers calls after 5 pm').waitFor()
    await page.getByTestId('contact-timeline').getByText('Prefers calls after 5 pm').waitFor()
    await page.getByTestId('contact-stats').waitFor()
    await fitsAndAccessible(page)
    await shots(page, 'contacts-profile-en')
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click()
    await page.getByText('Delete Eko Prasetyo with their conversations and notes?').waitFor()
    await page.getByRole('button', { name: 'Yes, go ahead' }).click()
    await page.waitForURL(/\/app\/contacts$/)
    await waitFor(async () => (await get(owner, `/v1/contacts/${id}`)).status === 404)
    expect(problems).toEqual([])
    await context.close()
  })

  it('merges a duplicate after a preview of what moves', async () => {
    const keep = await post(owner, '/v1/contacts', { name: 'Fajar Nugroho', phone: '+6281234500011' })
    const dup = await post(owner, '/v1/contacts', {
      name: 'Fajar N.',
      email: 'fajar@example.com',
      label_ids: [vip],
    })
    await post(owner, `/v1/contacts/${dup.id}/notes`, { body: 'Asked about wholesale' })
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/contacts/${keep.id}`)
    await page.getByRole('link', { name: 'Merge' }).click()
    await page.getByLabel('Find the other contact').fill('fajar n')
    await page.getByRole('button', { name: 'Fajar N.' }).click()
    const preview = page.getByTestId('merge-preview')
    await preview.waitFor()
    const email = preview.getByRole('row', { name: /E-mail/ })
    expect(await email.getByRole('cell').allTextContents()).toEqual([
      '',
      'fajar@example.com',
      'fajar@example.com',
    ])
    await page.getByTestId('merge-moves').getByText('1 notes').waitFor()
    await fitsAndAccessible(page)
    await shots(page, 'contacts-merge-en')
    await page.getByRole('button', { name: 'Merge Fajar N. into Fajar Nugroho' }).click()
    await page.waitForURL(new RegExp(`/app/contacts/${keep.id}$`))
    await page.getByTestId('contact-details').getByText('fajar@example.com').waitFor()
    await page.getByTestId('contact-notes').getByText('Asked about wholesale').waitFor()
    expect((await get(owner, `/v1/contacts/${dup.id}`)).status).toBe(404)
    expect(problems).toEqual([])
    await context.close()
  })

  it('imports a CSV in parts with live progress and a bad row on its own line; exports with the filters', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/contacts/import`)
    // 1,201 rows: three parts of up to 500; line 702 (second part) has a phone that is not one.
    const lines = ['Nama;No HP;Kota;Notes']
    for (let i = 1; i <= 1201; i++)
      lines.push(
        i === 701
          ? 'Broken Row;call me maybe;Bandung;x'
          : `Importir ${i};+62813${String(i).padStart(7, '0')};Bandung;"a; b"`,
      )
    await page.getByLabel('CSV file').setInputFiles({
      name: 'pelanggan.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`${lines.join('\r\n')}\r\n`),
    })
    const mapping = page.getByTestId('import-mapping')
    await mapping.getByText('pelanggan.csv: 1,201 rows').waitFor()
    // The header's names chose the columns; an unknown one is not imported.
    expect(await mapping.getByLabel('Import column Nama as').inputValue()).toBe('name')
    expect(await mapping.getByLabel('Import column No HP as').inputValue()).toBe('phone')
    expect(await mapping.getByLabel('Import column Notes as').inputValue()).toBe('')
    await mapping.getByLabel('Import column Kota as').selectOption({ label: 'Do not import' })
    await fitsAndAccessible(page)
    // Every value the progress bar takes, as the page shows it.
    await page.evaluate(() => {
      const g = globalThis as any
      g.seen = []
      new g.MutationObserver(() => {
        const p = g.document.querySelector('#ct-prog')
        if (p && g.seen[g.seen.length - 1] !== p.value) g.seen.push(p.value)
      }).observe(g.document.body, { subtree: true, childList: true, attributes: true })
    })
    await page.getByRole('button', { name: 'Import 1,201 rows' }).click()
    await page.getByRole('heading', { name: 'Import finished' }).waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('import-counts').textContent()).toBe(
      '1,200 created, 0 updated, 0 skipped, 1 with errors',
    )
    expect(await page.evaluate(() => (globalThis as any).seen)).toEqual([0, 500, 1000, 1201])
    const errors = page.getByTestId('import-errors')
    expect(await errors.getByRole('row').nth(1).getByRole('cell').first().textContent()).toBe('702')
    await errors.getByRole('cell', { name: 'Phone', exact: true }).waitFor()
    await shots(page, 'contacts-import-en')
    const imported = await get(owner, '/v1/contacts?q=Importir 12&per_page=1')
    expect(imported.data[0].city).toBeNull()

    // Export with the list's filter: only the VIP contacts.
    await page.goto(`${s.url}/app/contacts`)
    await page.getByLabel('Label', { exact: true }).selectOption({ label: 'VIP' })
    await page
      .getByTestId('contacts-total')
      .getByText(/^\d+ contacts$/)
      .waitFor()
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ])
    const csv = await (await import('node:fs/promises')).readFile((await download.path())!, 'utf8')
    expect(csv).toContain('Budi Santoso')
    expect(csv).toContain('Fajar Nugroho')
    expect(csv).not.toContain('Citra Lestari')
    expect(csv).not.toContain('Importir')
    expect(problems).toEqual([])
    await context.close()
  })

  it('scrolls a long list with only the rows in view in the page', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/contacts`)
    await page
      .getByTestId('contacts-total')
      .getByText(/^1,2\d\d contacts$/)
      .waitFor()
    const list = page.getByTestId('contacts-list')
    expect(await list.getByRole('listitem').count()).toBeLessThan(60)
    await list.evaluate((el) => {
      el.scrollTop = el.scrollHeight
    })
    const lastItem = list.getByRole('listitem').last()
    await lastItem.getByRole('link').waitFor()
    const total = Number(
      await list.getByRole('list').getByRole('listitem').last().getAttribute('aria-setsize'),
    )
    expect(await lastItem.getAttribute('aria-posinset')).toBe(String(total))
    expect(await list.getByRole('listitem').count()).toBeLessThan(60)
    expect(problems).toEqual([])
    await context.close()
  })

  it('the conversation panel links to the profile and edits the contact', async () => {
    textFrom(phone, '6281399990000', 'Halo, masih buka?')
    const conv = await waitFor(async () => (await get(owner, '/v1/interactions')).data[0])
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/inbox/${conv.id}`)
    const panel = page.getByRole('complementary', { name: 'Contact' })
    await panel.getByRole('link', { name: 'Open profile' }).waitFor()
    await panel.getByRole('button', { name: 'Edit contact' }).click()
    await panel.getByLabel('Name').fill('Gita Permata')
    await panel.getByLabel('E-mail').fill('gita@example.com')
    await panel.getByLabel('VIP').check()
    await panel.getByRole('button', { name: 'Save' }).click()
    await panel.getByRole('heading', { name: 'Gita Permata' }).waitFor()
    await panel.getByText('gita@example.com').waitFor()
    const c = (await get(owner, `/v1/contacts/${conv.contact.id}`)).data
    expect([c.name, c.email, c.labels.map((l: any) => l.name)]).toEqual([
      'Gita Permata',
      'gita@example.com',
      ['VIP'],
    ])
    await panel.getByRole('link', { name: 'Open profile' }).click()
    await page.waitForURL(new RegExp(`/app/contacts/${conv.contact.id}$`))
    await page.getByRole('heading', { name: 'Gita Permata', level: 1 }).waitFor()
    // The timeline links the conversation back to the inbox.
    expect(
      await page
        .getByTestId('contact-timeline')
        .getByRole('link', { name: `Conversation #${conv.id}` })
        .getAttribute('href'),
    ).toBe(`/app/inbox/${conv.id}`)
    expect(problems).toEqual([])
    await context.close()
  })

  it("a second person's list and profile follow changes live, in Indonesian", async () => {
    const other = await signedIn(browser, s, admin)
    await other.page.goto(`${s.url}/app/contacts`)
    await other.page.getByRole('heading', { name: 'Kontak', level: 1 }).waitFor()
    await other.page.getByLabel('Cari').fill('Hendra')
    await other.page.getByText('Tidak ada kontak yang cocok dengan filter ini.').waitFor()
    const h = await post(owner, '/v1/contacts', { name: 'Hendra Wijaya', phone: '+6281234500021' })
    await other.page.getByRole('link', { name: 'Hendra Wijaya' }).waitFor()
    await other.page.getByRole('link', { name: 'Hendra Wijaya' }).click()
    await other.page.getByRole('heading', { name: 'Hendra Wijaya', level: 1 }).waitFor()
    await patch(owner, `/v1/contacts/${h.id}`, { company: 'Toko Hendra' })
    await other.page.getByTestId('contact-details').getByText('Toko Hendra').waitFor()
    await other.page.getByRole('button', { name: 'Ubah' }).waitFor()
    await other.page.getByRole('link', { name: 'Gabungkan' }).waitFor()
    await fitsAndAccessible(other.page)
    await shots(other.page, 'contacts-profile-id')
    await other.page.goto(`${s.url}/app/contacts`)
    await other.page
      .getByTestId('contacts-total')
      .getByText(/kontak$/)
      .waitFor()
    await shots(other.page, 'contacts-list-id')
    await other.page.goto(`${s.url}/app/contacts/import`)
    await other.page.getByRole('heading', { name: 'Impor kontak' }).waitFor()
    await fitsAndAccessible(other.page)
    await shots(other.page, 'contacts-import-id')
    expect(other.problems).toEqual([])
    await other.context.close()
  })

  it('an Agent without contacts.manage sees no control that changes contacts', async () => {
    const { page, problems, context } = await signedIn(browser, s, agent, refusals)
    await page.goto(`${s.url}/app/contacts`)
    await page.getByLabel('Search').fill('Budi')
    await page.getByRole('link', { name: 'Budi Santoso' }).click()
    await page.getByRole('heading', { name: 'Budi Santoso', level: 1 }).waitFor()
    await page.getByTestId('contact-notes').waitFor()
    for (const name of ['Edit', 'Delete', 'Remove label VIP'])
      expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(0)
    expect(await page.getByRole('link', { name: 'Merge' }).count()).toBe(0)
    expect(await page.getByLabel('New label').count()).toBe(0)
    await page.goto(`${s.url}/app/contacts`)
    await page
      .getByTestId('contacts-total')
      .getByText(/contacts$/)
      .waitFor()
    for (const name of ['New contact', 'Import CSV', 'Export CSV', 'Manage labels'])
      expect(await page.getByRole('link', { name }).count(), name).toBe(0)
    await page.goto(`${s.url}/app/contacts/new`)
    await page.getByText('Your role may not change contacts.').waitFor()
    expect(problems).toEqual([])
    await context.close()
  })
})
