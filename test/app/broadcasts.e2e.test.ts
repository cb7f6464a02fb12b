import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeError, type FakeSocket } from '../../connectors/msgapp/TransportTest'
import { ENV } from '../broadcasts/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The broadcasts pages (/app/broadcasts, /broadcasts/segments, /broadcasts/segments/:id,
 * /broadcasts/:id) end to end in headless Chromium against a real server sending through the
 * messaging-app test transport: a segment built rule by rule with its live count and samples;
 * a draft from it with number, message and settings; the estimate (skips, quota, finish time,
 * risk) before scheduling; the live preview; a test send; the schedule refused without the risk
 * acknowledgement and started with it; the progress moving live while it sends, and the
 * per-recipient outcomes; pause, resume and cancel of another; an Agent without the permission
 * sees no entry; Indonesian; axe-core and screenshots at 1440 and 390 px
 * (test-artifacts/app/broadcasts-*).
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agent: F.Session
let browser: Browser
let sock: FakeSocket
let channelId: number
let vip: number

const post = async (session: F.Session, p: string, body: unknown) => {
  const res = await s.fetch(p, F.json(body, session.headers()))
  expect(res.status, `${p}: ${await res.clone().text()}`).toBeLessThan(300)
  return ((await res.json()) as { data: any }).data
}
const get = async (session: F.Session, p: string) => {
  const res = await s.fetch(p, { headers: session.headers() })
  expect(res.status, p).toBe(200)
  return ((await res.json()) as { data: any }).data
}
const setLocale = async (session: F.Session, locale: string) => {
  const res = await s.fetch('/v1/me', { ...F.json({ locale }, session.headers()), method: 'PATCH' })
  expect(res.status).toBe(200)
}

/** No serious or critical axe-core finding at 1440 and 390 px, and nothing wider than the phone. */
const accessible = async (page: Page) => {
  const size = page.viewportSize()!
  for (const width of [1440, 390]) {
    await page.setViewportSize({ width, height: 900 })
    expect(await axeFindings(page), `axe at ${width}`).toEqual([])
    if (width === 390) {
      const wide = await page.evaluate(() => {
        const doc = (globalThis as any).document
        return [...doc.querySelectorAll('.k-page *')]
          .filter((e: any) => e.getBoundingClientRect().right > 391 && !e.closest('.k-table-wrap'))
          .map((e: any) => `${e.tagName.toLowerCase()}.${e.className}`)
      })
      expect(wide).toEqual([])
    }
  }
  await page.setViewportSize(size)
}

const refusals = { ignore: (text: string) => /status of (404|409|422)/.test(text) }

beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro', name: 'Toko Maju' })
  owner = await F.signIn(s, w.ownerEmail)
  agent = await F.signIn(s, (await F.member(s, w, 'Agent')).email)
  const linked = await linkedNumber(s, owner)
  sock = linked.sock
  channelId = linked.ch.id
  const colors = ((await (await s.fetch('/v1/labels', { headers: owner.headers() })).json()) as any).meta
    .colors
  vip = (await post(owner, '/v1/labels', { name: 'VIP', color: colors[0] })).id
  const people: readonly [string, string | null, string][] = [
    ['Budi Santoso', '+6281234500001', 'Bandung'],
    ['Citra Lestari', '+6281234500002', 'Bandung'],
    ['Dewi Anggraini', '+6281234500003', 'Bandung'],
    ['Eko Prasetyo', null, 'Bandung'],
    ['Fajar Nugroho', '+6281234500005', 'Jakarta'],
  ]
  for (const [name, phone, city] of people)
    await post(owner, '/v1/contacts', {
      name,
      city,
      ...(phone ? { phone } : { email: `${name.split(' ')[0]!.toLowerCase()}@example.com` }),
      ...(city === 'Jakarta' ? { label_ids: [vip] } : {}),
    })
  browser = await launch()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
})

describe.skipIf(lacks('chromium'))('broadcasts pages', () => {
  it('builds a segment with a live count and samples, and saves it', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/broadcasts`)
    await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor()
    await page.getByTestId('broadcasts-empty').waitFor()
    await page.getByText('This month: 0 of 10,000 broadcast messages used').waitFor()
    await accessible(page)
    await shots(page, 'broadcasts-empty-en')
    await page.getByRole('link', { name: 'Segments' }).click()
    await page.getByRole('heading', { name: 'Segments', level: 1 }).waitFor()
    await page.getByRole('link', { name: 'New segment' }).click()
    await page.getByRole('heading', { name: 'New segment', level: 1 }).waitFor()
    // No rule: every contact.
    await page.getByTestId('segment-count').getByText('5 contacts match').waitFor()
    await page.getByLabel('Segment name').fill('Bandung customers')
    await page.getByRole('button', { name: 'Add a rule' }).click()
    await page.getByLabel('Rule 1: Field').selectOption({ label: 'City' })
    await page.getByLabel('Condition').selectOption({ label: 'contains' })
    await page.getByLabel('Value', { exact: true }).fill('bandung')
    await page.getByTestId('segment-count').getByText('4 contacts match').waitFor()
    await page.getByText('3 with a phone').waitFor()
    expect(await page.getByTestId('segment-samples').getByRole('link').allTextContents()).toEqual([
      'Budi Santoso',
      'Citra Lestari',
      'Dewi Anggraini',
      'Eko Prasetyo',
    ])
    // A second rule on a label: any rule matches.
    await page.getByRole('button', { name: 'Add a rule' }).click()
    await page.getByLabel('Rule 2: Field').selectOption({ label: 'Label' })
    await page.locator('select[name="rule-1-value"]').selectOption({ label: 'VIP' })
    await page.getByLabel('Contacts matching').selectOption({ label: 'any rule' })
    await page.getByTestId('segment-count').getByText('5 contacts match').waitFor()
    await accessible(page)
    await shots(page, 'broadcasts-segment-en')
    // Back to the one rule, saved.
    await page.getByRole('button', { name: 'Remove rule 2' }).click()
    await page.getByLabel('Contacts matching').selectOption({ label: 'all rules' })
    await page.getByTestId('segment-count').getByText('4 contacts match').waitFor()
    await page.getByRole('button', { name: 'Save segment' }).click()
    await page.getByText('Segment saved.').waitFor()
    await page.waitForURL(/\/app\/broadcasts\/segments\/\d+$/)
    const saved = (await get(owner, '/v1/segments')) as any[]
    expect(saved.map((x) => [x.name, x.match, x.rules, x.last_count])).toEqual([
      ['Bandung customers', 'all', [{ field: 'city', op: 'contains', value: 'bandung' }], 4],
    ])
    await page.getByRole('link', { name: 'Segments' }).click()
    await page.getByTestId('segments-list').getByText('City contains bandung').waitFor()
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)

  it('drafts a broadcast, estimates, previews, test-sends, schedules with the risk acknowledgement and shows its progress live', async () => {
    const segment = ((await get(owner, '/v1/segments')) as any[])[0]
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
      ...refusals,
    })
    await page.goto(`${s.url}/app/broadcasts/segments/${segment.id}`)
    await page.getByRole('button', { name: 'Broadcast to it' }).click()
    await page.waitForURL(/\/app\/broadcasts\/\d+$/, { waitUntil: 'commit' })
    const id = Number(new URL(page.url()).pathname.split('/').pop())
    const form = page.getByTestId('broadcast-form')
    await form.getByLabel('Name').fill('Promo Bandung')
    await form.getByLabel('Send from').selectOption({ index: 1 })
    await form.getByLabel('Text of variant 1').fill('Halo {{first_name}}, promo akhir tahun!')
    await form.getByLabel('Messages per minute').fill('30')
    await form.getByLabel('Random extra delay (seconds)').fill('0')
    // Quiet hours would hold it (the workspace's evening): off for this one.
    await form.getByLabel('Hold messages during quiet hours').uncheck()
    expect(await form.getByLabel('Bandung customers · 4 contacts').isChecked()).toBe(true)
    await form.getByRole('button', { name: 'Save draft' }).click()
    await form.getByText('Draft saved.').waitFor()
    // The estimate of the saved draft: 3 recipients, the one without a phone skipped.
    const est = page.getByTestId('broadcast-estimate')
    await est.getByTestId('estimate-recipients').getByText('3', { exact: true }).waitFor()
    await est.getByText('No phone: 1').waitFor()
    await est.getByText('9,997').waitFor()
    await est.getByTestId('estimate-risk').waitFor()
    await est.getByText('A fast pace looks like a bot to the service.').waitFor()
    await est.getByText('Messages at exact intervals look automated.').waitFor()
    expect(await est.getByTestId('estimate-finish').textContent()).not.toBe('')
    // The preview as the first contacts read it.
    await page.getByTestId('broadcast-preview').getByText('Halo Budi, promo akhir tahun!').waitFor()
    // A test send to the manager's own phone.
    const test = page.getByTestId('broadcast-test')
    await test.getByLabel('Phone for the test').fill('+6281299999999')
    await test.getByRole('button', { name: 'Send a test' }).click()
    await test.getByText(/Test sent to \+6281299999999 \(1 of 10 tests this hour\)/).waitFor()
    await accessible(page)
    await shots(page, 'broadcasts-draft-en')

    // Without the acknowledgement the button stays off; with it, the broadcast starts.
    const start = est.getByRole('button', { name: 'Start sending' })
    expect(await start.isDisabled()).toBe(true)
    await est.getByLabel('I have read the risks above and take responsibility for this broadcast.').check()
    const sentBefore = sock.sent.length
    await start.click()
    await page.getByTestId('broadcast-progress').waitFor()
    // Live: the figures move on their own (no reload) until all three are sent.
    const progress = page.getByTestId('progress-text')
    const seen = new Set<string>()
    const deadline = Date.now() + 60_000
    for (;;) {
      const t = (await progress.textContent()) ?? ''
      seen.add(t.split(' · ')[0]!)
      if (t.startsWith('3 of 3 handled')) break
      expect(Date.now(), `progress stuck at ${t}`).toBeLessThan(deadline)
      await page.waitForTimeout(150)
    }
    expect(seen.size, [...seen].join(' | ')).toBeGreaterThan(1)
    await page.locator('[data-status="completed"]').first().waitFor({ timeout: 30_000 })
    await page.getByTestId('stat-sent').getByText('3', { exact: true }).waitFor()
    expect(sock.sent.length - sentBefore).toBe(3)
    // The per-recipient outcomes, with the message each one got.
    const rec = page.getByTestId('broadcast-recipients')
    await rec.getByTestId('recipients-total').getByText('4 recipients').waitFor()
    await rec.getByText('Halo Citra, promo akhir tahun!').waitFor()
    await rec.getByLabel('Outcome').selectOption({ label: 'Skipped' })
    await rec.getByTestId('recipients-total').getByText('1 recipients').waitFor()
    await rec.getByText('Eko Prasetyo').waitFor()
    await rec.getByText('No phone').waitFor()
    await rec.getByLabel('Outcome').selectOption({ label: 'All' })
    await rec.getByTestId('recipients-total').getByText('4 recipients').waitFor()
    expect(await rec.getByRole('link', { name: 'Export (CSV)' }).getAttribute('href')).toBe(
      `/v1/broadcasts/${id}/export?format=csv`,
    )
    await accessible(page)
    await shots(page, 'broadcasts-sent-en')
    // The list shows it with its bar.
    await page.getByRole('link', { name: '← Broadcasts' }).click()
    const row = page.getByTestId('broadcasts-list').locator(`tr[data-id="${id}"]`)
    await row.getByText('3 of 3 sent').waitFor()
    await page.getByRole('button', { name: 'Completed (1)' }).waitFor()
    await accessible(page)
    await shots(page, 'broadcasts-list-en')
    expect(problems).toEqual([])
    await context.close()
  }, 180_000)

  it('adds and removes single contacts in a draft’s audience, and keeps those chosen through the API when saved', async () => {
    const idOf = async (q: string) =>
      ((await get(owner, `/v1/contacts?q=${encodeURIComponent(q)}`)) as any[])[0].id
    const budi = await idOf('Budi Santoso')
    const citra = await idOf('Citra Lestari')
    const draft = await post(owner, '/v1/broadcasts', {
      name: 'Picked by hand',
      channel_id: channelId,
      audience: { label_ids: [vip], contact_ids: [budi] },
      messages: [{ text: 'Halo {{first_name}}' }],
      // Citra had the first test's broadcast: not skipped as messaged recently.
      settings: { pace_per_minute: 10, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
    })
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
      ...refusals,
    })
    await page.goto(`${s.url}/app/broadcasts/${draft.id}`)
    const form = page.getByTestId('broadcast-form')
    const picks = form.getByTestId('audience-contacts')
    await picks.getByText('Budi Santoso · +6281234500001').waitFor()
    // Saving another change keeps the contact chosen through the API (it was dropped before).
    await form.getByLabel('Name').fill('Picked by hand, renamed')
    await form.getByRole('button', { name: 'Save draft' }).click()
    await form.getByText('Draft saved.').waitFor()
    expect((await get(owner, `/v1/broadcasts/${draft.id}`)).audience).toMatchObject({
      label_ids: [vip],
      contact_ids: [budi],
    })
    // Found by name and added; Budi removed; the estimate counts VIP's Fajar and Citra.
    await picks.getByLabel('Add a contact').fill('Citra')
    await picks.getByRole('button', { name: 'Add Citra Lestari' }).click()
    await picks.getByRole('button', { name: 'Remove Budi Santoso' }).click()
    await accessible(page)
    await shots(page, 'broadcasts-contacts-en')
    await form.getByRole('button', { name: 'Save draft' }).click()
    await form.getByText('Draft saved.').waitFor()
    expect((await get(owner, `/v1/broadcasts/${draft.id}`)).audience).toMatchObject({
      label_ids: [vip],
      contact_ids: [citra],
    })
    await page
      .getByTestId('broadcast-estimate')
      .getByTestId('estimate-recipients')
      .getByText('2', { exact: true })
      .waitFor()
    // Indonesian.
    await setLocale(owner, 'id')
    await page.reload()
    await page.getByTestId('audience-contacts').getByText('Kontak satuan').waitFor()
    await page.getByTestId('audience-contacts').getByText('Citra Lestari · +6281234500002').waitFor()
    await shots(page, 'broadcasts-contacts-id')
    await accessible(page)
    await setLocale(owner, 'en')
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)

  it('pauses, resumes and cancels a running broadcast; the schedule is refused without a number', async () => {
    const segment = ((await get(owner, '/v1/segments')) as any[])[0]
    const slow = await post(owner, '/v1/broadcasts', {
      name: 'Slow one',
      channel_id: channelId,
      audience: { segment_ids: [segment.id], label_ids: [vip] },
      messages: [{ text: 'Halo {{name}}' }, { text: 'Hai {{first_name}}' }],
      settings: { pace_per_minute: 1, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
    })
    await post(owner, `/v1/broadcasts/${slow.id}/schedule`, { risk_ack: true })
    const empty = await post(owner, '/v1/broadcasts', { name: 'No number yet' })
    const { page, problems, context } = await signedIn(browser, s, owner, refusals)
    await page.goto(`${s.url}/app/broadcasts/${slow.id}`)
    await page.locator('[data-status="running"]').waitFor()
    await page.getByRole('button', { name: 'Pause' }).click()
    await page.locator('[data-status="paused"]').waitFor()
    await page.getByText('Paused by a person.').waitFor()
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.locator('[data-status="running"]').waitFor()
    await page.getByRole('button', { name: 'Cancel broadcast' }).click()
    await page.getByRole('button', { name: 'Yes, go ahead' }).click()
    await page.locator('[data-status="cancelled"]').waitFor()
    const after = await get(owner, `/v1/broadcasts/${slow.id}`)
    expect(after.status).toBe('cancelled')
    expect(after.skip_reasons.cancelled).toBeGreaterThan(0)
    await page.getByTestId('broadcast-recipients').getByText('Cancelled').first().waitFor()
    // A draft without number or message: the server's reasons, in words, when scheduling.
    await page.goto(`${s.url}/app/broadcasts/${empty.id}`)
    const est = page.getByTestId('broadcast-estimate')
    await est.getByText('No messaging-app number is chosen.').waitFor()
    await est.getByLabel('I have read the risks above and take responsibility for this broadcast.').check()
    await est.getByRole('button', { name: 'Start sending' }).click()
    await est.getByText(/choose a messaging-app number/).waitFor()
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)

  it('resends a failed recipient with "Resend failed"', async () => {
    sock.failures.push(closeError(400, 'bad request'))
    const b = await post(owner, '/v1/broadcasts', {
      name: 'One that fails',
      channel_id: channelId,
      audience: { label_ids: [vip] },
      messages: [{ text: 'Halo {{first_name}}, sekali lagi' }],
      settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
    })
    await post(owner, `/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/broadcasts/${b.id}`)
    await page.getByTestId('stat-failed').getByText('1', { exact: true }).waitFor({ timeout: 30_000 })
    await page.getByTestId('recipients-list').getByText('Failed', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Resend failed (1)' }).click()
    await page.getByTestId('stat-sent').getByText('1', { exact: true }).waitFor({ timeout: 30_000 })
    await page.getByTestId('stat-failed').getByText('0', { exact: true }).waitFor()
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  it('shows an Agent (broadcasts.view only) the broadcasts with no control that changes them', async () => {
    const done = ((await get(owner, '/v1/broadcasts?q=Promo%20Bandung')) as any[])[0]
    const { page, problems, context } = await signedIn(browser, s, agent)
    await page.goto(`${s.url}/app/inbox`)
    await page.getByRole('link', { name: 'Broadcasts' }).first().click()
    await page.getByRole('heading', { name: 'Broadcasts', level: 1 }).waitFor()
    await page.getByTestId('broadcasts-list').getByRole('link', { name: done.name }).click()
    await page.getByTestId('progress-text').getByText('3 of 3 handled').waitFor()
    await page.getByTestId('recipients-total').getByText('4 recipients').waitFor()
    for (const name of ['Duplicate', 'Delete', 'Pause', 'Cancel broadcast', 'New broadcast'])
      expect(await page.getByRole('button', { name }).count(), name).toBe(0)
    expect(await page.getByTestId('broadcast-new').count()).toBe(0)
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  it('reads in Indonesian: list, segment builder and a sent broadcast', async () => {
    await setLocale(owner, 'id')
    try {
      const done = ((await get(owner, '/v1/broadcasts?q=Promo%20Bandung')) as any[])[0]
      const segment = ((await get(owner, '/v1/segments')) as any[])[0]
      const { page, problems, context } = await signedIn(browser, s, owner)
      await page.goto(`${s.url}/app/broadcasts`)
      await page.getByRole('heading', { name: 'Siaran', level: 1 }).waitFor()
      await page.getByRole('button', { name: 'Selesai (2)' }).waitFor()
      await accessible(page)
      await shots(page, 'broadcasts-list-id')
      await page.goto(`${s.url}/app/broadcasts/segments/${segment.id}`)
      await page.getByTestId('segment-count').getByText('4 kontak cocok').waitFor()
      await page.getByLabel('Aturan 1: Kolom').waitFor()
      expect(await page.getByLabel('Kondisi').locator('option:checked').textContent()).toBe('berisi')
      await accessible(page)
      await shots(page, 'broadcasts-segment-id')
      await page.goto(`${s.url}/app/broadcasts/${done.id}`)
      await page.getByTestId('progress-text').getByText('3 dari 3 diproses').waitFor()
      await page.getByTestId('recipients-total').getByText('4 penerima').waitFor()
      await accessible(page)
      await shots(page, 'broadcasts-sent-id')
      const draft = await post(owner, '/v1/broadcasts', {
        name: 'Draf Indonesia',
        channel_id: channelId,
        audience: { segment_ids: [segment.id] },
        messages: [{ text: 'Halo {{first_name}}' }],
      })
      await page.goto(`${s.url}/app/broadcasts/${draft.id}`)
      await page
        .getByTestId('broadcast-estimate')
        .getByRole('heading', { name: 'Sebelum mengirim' })
        .waitFor()
      await page.getByTestId('estimate-risk').waitFor()
      await accessible(page)
      await shots(page, 'broadcasts-draft-id')
      expect(problems).toEqual([])
      await context.close()
    } finally {
      await setLocale(owner, 'en')
    }
  }, 120_000)
})
