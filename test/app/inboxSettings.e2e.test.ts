import type { Browser, Locator } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeSocket } from '../../connectors/msgapp/TransportTest'
import { ENV, linkedNumber, textFrom, waitFor } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { fitsAndAccessible } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The inbox settings pages (/app/settings/templates, categories, labels, fields) end to end in
 * headless Chromium against a real server: the owner does each thing through the page and the
 * server's state is read back over HTTP; a template's / preview reads as the inbox composer's own
 * suggestion for a real conversation; a 422 shows beside its field; a second person's open page
 * follows labels and custom fields live; a Free workspace is told label rules need Pro; an Agent sees none of the sections and is refused in
 * words (in Indonesian) on their URLs; axe-core at 1440 and 390 px. Screenshots in
 * test-artifacts/app/inbox-settings-*.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let admin: F.Session
let agent: F.Session
let browser: Browser
let numberId: number
let phone: FakeSocket
let teamId: number

const get = async (session: F.Session, p: string) => {
  const res = await s.fetch(p, { headers: session.headers() })
  return (await res.json()) as { data: any; meta: any }
}

beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro', name: 'Toko Maju' })
  owner = await F.signIn(s, w.ownerEmail)
  // A second administrator who reads Indonesian: the "second person" whose page follows changes.
  admin = await F.signIn(s, (await F.member(s, w, 'Admin')).email)
  await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, admin.headers()), method: 'PATCH' })
  agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
  await s.fetch('/v1/me', { ...F.json({ locale: 'id' }, agent.headers()), method: 'PATCH' })
  const linked = await linkedNumber(s, owner)
  numberId = linked.ch.id
  phone = linked.sock
  const team = await s.fetch(
    '/v1/teams',
    F.json({ name: 'Billing desk', type: 'frontline' }, owner.headers()),
  )
  expect(team.status).toBe(201)
  teamId = ((await team.json()) as { data: { id: number } }).data.id
  browser = await launch()
})
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

/** A 422 the test provokes is the browser's console line, not the page's fault. */
const refusals = { ignore: (text: string) => /status of 422/.test(text) }

/** The message the form shows under a field (its `aria-describedby` error). */
const errorOf = async (field: Locator) => {
  const id = await field.getAttribute('id')
  const err = field.page().locator(`#${id}-err`)
  await err.waitFor()
  return (await err.textContent())?.trim()
}

/** Presses a row's Delete, then the in-place confirmation. */
const confirmDelete = async (row: Locator, label = 'Delete') => {
  await row.getByRole('button', { name: label, exact: true }).click()
  await row.getByRole('button', { name: 'Yes, go ahead' }).click()
}

// Each test walks a whole page in two browsers (templates also the inbox's composer): 20 s alone
// on a quiet machine, so the default 30 s left no room under the full suite's load.
describe.skipIf(lacks('chromium'))('inbox settings pages in a browser', { timeout: 90_000 }, () => {
  it('reply templates: create with an attachment and the / preview, refuse a taken shortcut, edit, detach, delete', async () => {
    const { page, problems } = await signedIn(browser, s, owner, refusals)
    await page.goto(`${s.url}/app/settings`)
    await page.getByRole('link', { name: /Reply templates/ }).click()
    await page.waitForURL(/\/app\/settings\/templates$/)
    expect(await page.getByTestId('templates-empty').textContent()).toBe(
      'No reply templates yet. A template is a saved reply: agents type / and its shortcut in the reply box to put it in, filled in with the customer’s name and their own.',
    )
    await shots(page, 'inbox-settings-templates-empty')

    await page.getByRole('button', { name: 'New template' }).click()
    const form = page.getByTestId('template-form')
    await form.getByLabel('Name').fill('Greeting')
    await form.getByLabel('Shortcut').fill('/halo')
    await form.getByLabel('Category').fill('Sales')
    await form.getByLabel('Text').fill('Hi {{contact_name}}, this is {{agent_name}} from {{workspace_name}}.')
    await form.getByLabel('Attachment').setInputFiles({
      name: 'price-list.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('Prices: tea 5, coffee 7\n'),
    })
    // The preview: the suggestion as the composer draws it, and the text it puts in.
    const preview = page.getByTestId('template-preview')
    expect(await preview.locator('.templates .on strong').textContent()).toBe('/halo')
    expect(await preview.locator('.templates .on').textContent()).toContain('/halo Greeting')
    expect(await preview.getByTestId('template-rendered').textContent()).toBe(
      'Hi Budi Santoso, this is Olivia Owner from Toko Maju.',
    )
    expect(await preview.textContent()).toContain('Typing /halo in the reply box shows this')
    await shots(page, 'inbox-settings-template-form')
    await fitsAndAccessible(page)
    await form.getByRole('button', { name: 'Create' }).click()
    await page.getByText('“Greeting” created.').waitFor()

    let list = (await get(owner, '/v1/templates')).data
    expect(list).toHaveLength(1)
    expect(list[0]).toMatchObject({
      name: 'Greeting',
      shortcut: 'halo',
      category: 'Sales',
      body: 'Hi {{contact_name}}, this is {{agent_name}} from {{workspace_name}}.',
      attachment: { name: 'price-list.txt', size: 24 },
    })
    const id = list[0].id as number
    const row = page.locator(`tr[data-template-id="${id}"]`)
    expect(await row.locator('td').first().textContent()).toBe('/halo')

    // The inbox's composer shows the same suggestion on /halo, filled for the real customer.
    textFrom(phone, '6281311112222', 'Hello, is the shop open?')
    const conv = await waitFor(async () => (await get(owner, '/v1/interactions')).data[0])
    const inbox = await signedIn(browser, s, owner)
    await inbox.page.goto(`${s.url}/app/inbox/${conv.id}`)
    await inbox.page.getByLabel('Write a reply… (type / for templates)').fill('/halo')
    const option = inbox.page.locator('.composer [role=listbox] [role=option]')
    await option.first().waitFor()
    expect(await option.allTextContents()).toEqual([
      '/halo GreetingHi Budi, this is Olivia Owner from Toko Maju.',
    ])
    await inbox.context.close()
    await row.getByRole('button', { name: 'Edit Greeting' }).click()
    expect(await preview.locator('.templates .on').textContent()).toBe(
      '/halo GreetingHi Budi Santoso, this is Olivia Owner from Toko Maju.',
    )
    await form.getByRole('button', { name: 'Cancel' }).click()

    // A taken shortcut: the server's message beside the field, nothing created.
    await page.getByRole('button', { name: 'New template' }).click()
    await form.getByLabel('Name').fill('Second greeting')
    await form.getByLabel('Shortcut').fill('HALO')
    await form.getByLabel('Text').fill('Hello!')
    await form.getByRole('button', { name: 'Create' }).click()
    expect(await errorOf(form.getByLabel('Shortcut'))).toBe('is already used here')
    expect(await form.getByRole('alert').first().textContent()).toBeTruthy()
    expect((await get(owner, '/v1/templates')).data).toHaveLength(1)
    await form.getByRole('button', { name: 'Cancel' }).click()

    // Edit the text; then take the attachment off.
    await row.getByRole('button', { name: 'Edit Greeting' }).click()
    await form.getByLabel('Text').fill('Hello {{contact_name}}!')
    expect(await preview.getByTestId('template-rendered').textContent()).toBe('Hello Budi Santoso!')
    const attachment = form.getByTestId('template-attachment')
    expect(await attachment.getByRole('link').textContent()).toBe('price-list.txt')
    await confirmDelete(attachment, 'Remove attachment')
    await attachment.waitFor({ state: 'detached' })
    expect((await get(owner, `/v1/templates/${id}`)).data.attachment).toBeNull()
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Greeting” saved.').waitFor()
    expect((await get(owner, `/v1/templates/${id}`)).data).toMatchObject({
      body: 'Hello {{contact_name}}!',
      shortcut: 'halo',
      attachment: null,
    })
    await shots(page, 'inbox-settings-templates')
    await fitsAndAccessible(page)

    await confirmDelete(row)
    await page.getByText('“Greeting” deleted.').waitFor()
    list = (await get(owner, '/v1/templates')).data
    expect(list).toEqual([])
    expect(problems).toEqual([])
    await page.context().close()

    // In Indonesian: the empty list, the form and its preview.
    const indo = await signedIn(browser, s, admin, { locale: 'id-ID' })
    await indo.page.goto(`${s.url}/app/settings/templates`)
    expect(await indo.page.getByTestId('templates-empty').textContent()).toContain(
      'Belum ada template balasan.',
    )
    await indo.page.getByRole('button', { name: 'Template baru' }).click()
    const idForm = indo.page.getByTestId('template-form')
    await idForm.getByLabel('Nama').fill('Salam')
    await idForm.getByLabel('Pintasan').fill('salam')
    await idForm.getByLabel('Isi').fill('Halo {{contact_name}}, saya {{agent_name}}.')
    expect(await indo.page.getByTestId('template-preview').textContent()).toContain(
      'Mengetik /salam di kotak balasan menampilkan ini',
    )
    expect(await indo.page.getByTestId('template-rendered').textContent()).toBe(
      'Halo Budi Santoso, saya Andi Agent.',
    )
    await shots(indo.page, 'inbox-settings-template-form-id')
    await fitsAndAccessible(indo.page)
    expect(indo.problems).toEqual([])
    await indo.context.close()
  })

  it('conversation categories: a tree with colours, a taken name refused, reorder, delete moves children up', async () => {
    const { page, problems } = await signedIn(browser, s, owner, refusals)
    await page.goto(`${s.url}/app/settings/categories`)
    await page.getByTestId('categories-empty').waitFor()
    expect(await page.getByTestId('categories-empty').textContent()).toContain(
      'Categories sort conversations by topic',
    )
    const form = page.getByTestId('category-form')
    const create = async (name: string, parent?: string, color?: string) => {
      await page.getByRole('button', { name: 'New category' }).click()
      await form.getByLabel('Name').fill(name)
      if (parent) await form.getByLabel('Inside').selectOption({ label: parent })
      if (color) await form.getByRole('radio', { name: color }).check()
      await form.getByRole('button', { name: 'Create' }).click()
    }
    await create('Orders', undefined, 'Green')
    await page.getByText('“Orders” created.').waitFor()
    await create('Refunds', 'Orders')
    await page.getByText('“Refunds” created.').waitFor()
    await create('Billing', undefined, 'Blue')
    await page.getByText('“Billing” created.').waitFor()
    let tree = (await get(owner, '/v1/conversation-categories')).data
    expect(tree.map((c: any) => [c.path_text, c.color])).toEqual([
      ['Orders', '#22c55e'],
      ['Orders › Refunds', ''],
      ['Billing', '#3b82f6'],
    ])

    // Same name under the same parent: refused beside the field.
    await create('orders')
    expect(await errorOf(form.getByLabel('Name'))).toBe('is already used here')
    await form.getByRole('button', { name: 'Cancel' }).click()
    expect((await get(owner, '/v1/conversation-categories')).data).toHaveLength(3)

    // Billing moves above Orders (Refunds stays under Orders).
    await page.getByRole('button', { name: 'Move Billing up' }).click()
    await waitFor(async () => (await get(owner, '/v1/conversation-categories')).data[0].name === 'Billing')
    await page.locator('tbody tr').first().filter({ hasText: 'Billing' }).waitFor()
    tree = (await get(owner, '/v1/conversation-categories')).data
    expect(tree.map((c: any) => c.path_text)).toEqual(['Billing', 'Orders', 'Orders › Refunds'])
    await shots(page, 'inbox-settings-categories')
    await fitsAndAccessible(page)

    const orders = tree.find((c: any) => c.name === 'Orders')
    const row = page.locator(`tr[data-category-id="${orders.id}"]`)
    await row.getByRole('button', { name: 'Delete', exact: true }).click()
    expect(await row.locator('.k-confirm').textContent()).toContain(
      'Delete “Orders”? Its subcategories and conversations move up to no category.',
    )
    await row.getByRole('button', { name: 'Yes, go ahead' }).click()
    await page.getByText('“Orders” deleted.').waitFor()
    tree = (await get(owner, '/v1/conversation-categories')).data
    expect(tree.map((c: any) => [c.name, c.parent_id])).toEqual([
      ['Billing', null],
      ['Refunds', null],
    ])
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('labels and label rules: create, refuse a taken name, reorder, a rule read as a sentence, turned off, deleted; a second admin’s page follows live in Indonesian', async () => {
    const { page, problems } = await signedIn(browser, s, owner, refusals)
    const other = await signedIn(browser, s, admin, { locale: 'id-ID' })
    await other.page.goto(`${s.url}/app/settings/labels`)
    await other.page.getByRole('heading', { name: 'Label dan aturan label', level: 1 }).waitFor()
    expect(await other.page.getByTestId('labels-empty').textContent()).toContain('Belum ada label.')

    await page.goto(`${s.url}/app/settings/labels`)
    expect(await page.getByTestId('labels-empty').textContent()).toBe(
      'No labels yet. Labels tag contacts (VIP, Reseller, …) so agents see who they are talking to and you can filter and reach them together.',
    )
    expect(await page.getByTestId('rules-empty').textContent()).toBe('No label rules yet.')
    const form = page.getByTestId('label-form')
    const create = async (name: string, color?: string) => {
      await page.getByRole('button', { name: 'New label' }).click()
      await form.getByLabel('Name').fill(name)
      if (color) await form.getByRole('radio', { name: color }).check()
      await form.getByRole('button', { name: 'Create' }).click()
    }
    await create('VIP', 'Blue')
    await page.getByText('“VIP” created.').waitFor()
    await create('Reseller')
    await page.getByText('“Reseller” created.').waitFor()
    let labels = (await get(owner, '/v1/labels')).data
    expect(labels.map((l: any) => [l.name, l.color])).toEqual([
      ['VIP', '#3b82f6'],
      ['Reseller', '#ef4444'],
    ])
    // The second admin's page shows them without a reload.
    await other.page.locator('tbody tr').filter({ hasText: 'Reseller' }).waitFor()

    await create('vip')
    expect(await errorOf(form.getByLabel('Name'))).toBe('is already used here')
    await form.getByRole('button', { name: 'Cancel' }).click()
    await page.getByRole('button', { name: 'Move Reseller up' }).click()
    await waitFor(async () => (await get(owner, '/v1/labels')).data[0].name === 'Reseller')
    await other.page.locator('tbody tr').first().filter({ hasText: 'Reseller' }).waitFor()

    // A rule: the label "Paid" on the phone gives the contact the label VIP.
    await page.getByRole('button', { name: 'New rule' }).click()
    const rf = page.getByTestId('rule-form')
    expect(await rf.getByLabel('Number').inputValue()).toBe(String(numberId))
    await rf.getByLabel('Label on the phone').fill('Paid')
    await rf.getByLabel('Contact label').selectOption({ label: 'VIP' })
    expect(await rf.getByTestId('rule-reads').textContent()).toBe(
      'When a chat on Shop number gets the label “Paid” on the phone, the contact gets the label “VIP”.',
    )
    // Handing to a team needs the team: refused beside the field when none is chosen.
    await rf.getByLabel('Then').selectOption({ label: 'Hand the conversation to a team' })
    await rf.getByRole('button', { name: 'Create' }).click()
    expect(await errorOf(rf.getByLabel('Frontline team'))).toBe('is required')
    await rf.getByLabel('Frontline team').selectOption({ label: 'Billing desk' })
    await rf.getByRole('button', { name: 'Create' }).click()
    await page.getByText('Rule saved.').waitFor()
    let rules = (await get(owner, '/v1/msgapp-label-rules')).data
    expect(rules).toEqual([
      {
        id: expect.any(Number),
        label_name: 'Paid',
        channel: { id: numberId, name: 'Shop number' },
        action: 'assign_team',
        value: teamId,
        value_label: 'Billing desk',
        active: true,
      },
    ])
    const ruleRow = page.locator(`tr[data-rule-id="${rules[0].id}"]`)
    expect(await ruleRow.locator('.is-sentence').textContent()).toBe(
      'When a chat on Shop number gets the label “Paid” on the phone, the conversation goes to the team Billing desk.',
    )
    await ruleRow.getByRole('button', { name: 'Turn off' }).click()
    await ruleRow.getByText('Off', { exact: true }).waitFor()
    expect((await get(owner, '/v1/msgapp-label-rules')).data[0].active).toBe(false)
    await shots(page, 'inbox-settings-labels')
    await fitsAndAccessible(page)
    await shots(other.page, 'inbox-settings-labels-id')
    await fitsAndAccessible(other.page)

    await confirmDelete(ruleRow)
    await page.getByText('Rule deleted.').waitFor()
    rules = (await get(owner, '/v1/msgapp-label-rules')).data
    expect(rules).toEqual([])

    const vip = labels.find((l: any) => l.name === 'VIP')
    await confirmDelete(page.locator(`tr[data-label-id="${vip.id}"]`))
    await page.getByText('“VIP” deleted.').waitFor()
    labels = (await get(owner, '/v1/labels')).data
    expect(labels.map((l: any) => l.name)).toEqual(['Reseller'])
    await other.page.locator(`tr[data-label-id="${vip.id}"]`).waitFor({ state: 'detached' })
    expect(problems).toEqual([])
    expect(other.problems).toEqual([])
    await other.context.close()
    await page.context().close()
  })

  it('custom fields of the five entities: a choice field, a refused one, edit the choices, reorder, delete; live on a second page', async () => {
    const { page, problems } = await signedIn(browser, s, owner, refusals)
    const other = await signedIn(browser, s, admin, { locale: 'id-ID' })
    await other.page.goto(`${s.url}/app/settings/fields`)
    await other.page.getByRole('button', { name: /^Tiket/ }).click()
    await other.page.getByTestId('fields-empty').waitFor()
    expect(await other.page.getByTestId('fields-empty').textContent()).toBe(
      'Belum ada kolom kustom untuk tiket.',
    )

    await page.goto(`${s.url}/app/settings/fields`)
    await page.getByTestId('fields-empty').waitFor()
    // The five entities the API knows, as its `entity` values.
    expect(await page.locator('.is-tabs button').allTextContents()).toEqual([
      'Contacts (0)',
      'Conversations (0)',
      'Tickets (0)',
      'Leads (0)',
      'Clients (0)',
    ])
    await page.getByRole('button', { name: /^Tickets/ }).click()
    expect(await page.getByTestId('fields-empty').textContent()).toBe('No custom fields for tickets yet.')
    const form = page.getByTestId('field-form')
    await page.getByRole('button', { name: 'New field' }).click()
    await form.getByLabel('Label').fill('Size')
    await form.getByLabel('Type').selectOption('select')
    await form.getByRole('button', { name: 'Create' }).click()
    expect(await errorOf(form.getByLabel('Choices'))).toBe('a select field needs options')
    await form.getByLabel('Choices').fill('Small\nMedium\nLarge')
    await form.getByRole('button', { name: 'Create' }).click()
    await page.getByText('“Size” created.').waitFor()
    await page.getByRole('button', { name: 'New field' }).click()
    await form.getByLabel('Label').fill('Order number')
    await form.getByLabel('Key', { exact: true }).fill('order_no')
    await form.getByRole('button', { name: 'Create' }).click()
    await page.getByText('“Order number” created.').waitFor()
    let fields = (await get(owner, '/v1/custom-fields?entity=ticket')).data
    expect(fields.map((f: any) => [f.label, f.key, f.type, f.options])).toEqual([
      ['Size', 'size', 'select', ['Small', 'Medium', 'Large']],
      ['Order number', 'order_no', 'text', []],
    ])
    expect((await get(owner, '/v1/custom-fields?entity=contact')).data).toEqual([])
    // The second admin, on Tickets, sees both without a reload.
    await other.page.locator('tbody tr').filter({ hasText: 'order_no' }).waitFor()

    const size = fields[0]
    const row = page.locator(`tr[data-field-id="${size.id}"]`)
    await row.getByRole('button', { name: 'Edit Size' }).click()
    expect(await form.textContent()).toContain('Type and key cannot change once the field exists.')
    await form.getByLabel('Choices').fill('Small\nLarge\nSmall')
    await form.getByRole('button', { name: 'Save' }).click()
    expect(await errorOf(form.getByLabel('Choices'))).toBe('options must differ')
    await form.getByLabel('Choices').fill('Small\nLarge\nExtra large')
    await form.getByRole('button', { name: 'Save' }).click()
    await page.getByText('“Size” saved.').waitFor()
    await page.getByRole('button', { name: 'Move Order number up' }).click()
    await waitFor(
      async () => (await get(owner, '/v1/custom-fields?entity=ticket')).data[0].key === 'order_no',
    )
    fields = (await get(owner, '/v1/custom-fields?entity=ticket')).data
    expect(fields.map((f: any) => [f.key, f.options])).toEqual([
      ['order_no', []],
      ['size', ['Small', 'Large', 'Extra large']],
    ])
    await page.locator('tbody tr').first().filter({ hasText: 'order_no' }).waitFor()
    await shots(page, 'inbox-settings-fields')
    await fitsAndAccessible(page)
    await other.page.locator('tbody tr').first().filter({ hasText: 'order_no' }).waitFor()
    await shots(other.page, 'inbox-settings-fields-id')

    await confirmDelete(row)
    await page.getByText('“Size” deleted.').waitFor()
    expect((await get(owner, '/v1/custom-fields?entity=ticket')).data.map((f: any) => f.key)).toEqual([
      'order_no',
    ])
    await other.page.locator(`tr[data-field-id="${size.id}"]`).waitFor({ state: 'detached' })
    expect(problems).toEqual([])
    expect(other.problems).toEqual([])
    await other.context.close()
    await page.context().close()
  })

  it('on a Free workspace the label rules say they need Pro, in place of the list', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const freeOwner = await F.signIn(s, free.ownerEmail)
    const { page, problems } = await signedIn(browser, s, freeOwner, {
      ignore: (text) => /status of 402/.test(text),
    })
    await page.goto(`${s.url}/app/settings/labels`)
    const rules = page.getByTestId('label-rules')
    await rules.locator('.k-notice-info').waitFor()
    expect(await rules.locator('.k-notice-info').textContent()).toBe(
      'This needs an active Pro or Custom plan.',
    )
    expect(await rules.getByRole('button', { name: 'New rule' }).count()).toBe(0)
    // Labels themselves are on every plan.
    expect(await page.getByTestId('labels-empty').isVisible()).toBe(true)
    expect(problems).toEqual([])
    await page.context().close()
  })

  it('an Agent sees none of these sections and is refused in words, in Indonesian, on their URLs', async () => {
    const { page, problems } = await signedIn(browser, s, agent, { locale: 'id-ID' })
    await page.goto(`${s.url}/app/settings`)
    await page.getByTestId('settings-index').waitFor()
    const index = (await page.getByTestId('settings-index').textContent()) ?? ''
    for (const title of ['Template balasan', 'Kategori percakapan', 'Label dan aturan label', 'Kolom kustom'])
      expect(index).not.toContain(title)
    for (const [path, title] of [
      ['templates', 'Template balasan'],
      ['categories', 'Kategori percakapan'],
      ['labels', 'Label dan aturan label'],
      ['fields', 'Kolom kustom'],
    ] as const) {
      await page.goto(`${s.url}/app/settings/${path}`)
      await page.getByRole('heading', { name: title, level: 1 }).waitFor()
      expect(await page.locator('.k-notice-bad').textContent()).toBe(
        'Peran Anda tidak mengizinkan pengelolaan ini. Administrator dapat mengubah peran Anda bila perlu.',
      )
      expect(await page.getByRole('button', { name: /baru$/ }).count()).toBe(0)
      expect(await page.locator('table').count()).toBe(0)
    }
    await shots(page, 'inbox-settings-refused-id')
    await fitsAndAccessible(page)
    expect(problems).toEqual([])
    await page.context().close()
  })
})
