import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { launch, shots, signedIn } from './support'

/**
 * Searching the inbox by the words of messages (issue 47), as an agent meets it: the row of a
 * conversation found by a message shows the fragment with the searched words marked, in place of
 * the last message's preview; a row found by its contact's name keeps its preview.
 */
let s: TestServer
let owner: F.Session
let browser: Browser
let found = 0
let byName = 0

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const msgapp = (await I.channel(s, w, 'msgapp')).id
  const ani = await I.contact(s, w, { name: 'Ani Lestari', phone: '+6283333', email: 'ani@toko.id' })
  found = (await I.conversation(s, w, { channelId: msgapp, contactId: ani.id })).id
  await I.inbound(s, found, 'Saya mau retur barangnya, kemasan rusak')
  await I.inbound(s, found, 'Ditunggu ya')
  const named = await I.contact(s, w, { name: 'Returno Wijaya', phone: '+6284444', email: 'rw@toko.id' })
  byName = (await I.conversation(s, w, { channelId: msgapp, contactId: named.id })).id
  await I.inbound(s, byName, 'halo kak')
  browser = await launch()
}, 60_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe('inbox search', () => {
  it.each([
    ['en', 'Search conversations', 'Found in a message:'],
    ['id', 'Cari percakapan', 'Ditemukan di pesan:'],
  ])('marks the words where a message matched (%s)', async (locale, searchLabel, foundIn) => {
    // The app speaks the member's own language (their profile's), not the browser's.
    await s.fetch('/v1/me', {
      method: 'PATCH',
      headers: { ...owner.headers(), 'content-type': 'application/json' },
      body: JSON.stringify({ locale }),
    })
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/inbox`)
    const rowFound = page.locator(`#conv-${found}`)
    await expect.poll(() => rowFound.textContent()).toContain('Ditunggu ya')
    await page.getByRole('searchbox', { name: searchLabel }).fill('retur')
    await expect.poll(() => rowFound.textContent()).toContain('kemasan rusak')
    expect(await rowFound.locator('mark').allTextContents()).toEqual(['retur'])
    expect(await rowFound.textContent()).toContain(foundIn)
    // Found by the contact's name: the row keeps its last message.
    const rowNamed = page.locator(`#conv-${byName}`)
    expect(await rowNamed.textContent()).toContain('halo kak')
    expect(await rowNamed.locator('mark').count()).toBe(0)
    await shots(page, `inbox-search-${locale}`)
    expect(problems).toEqual([])
    await context.close()
  })
})
