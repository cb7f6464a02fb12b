import { isDeepStrictEqual } from 'node:util'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeError, type FakeSocket } from '../../connectors/msgapp/TransportTest'
import { ENV } from '../broadcasts/support'
import { linkedNumber, textFrom } from '../msgapp/support'
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
 * sees no entry; Indonesian; the dashboard (/broadcasts/dashboard): empty, on the Free plan, refused
 * to a member without `broadcasts.view`, and its figures equal to the API's for the same period and
 * number, following a new send and a reply live, in English and Indonesian; axe-core and
 * screenshots at 1440 and 390 px (test-artifacts/app/broadcasts-*).
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
/** A broadcast to the VIP label (Fajar), started at once. */
const toVip = async (name: string, text: string) => {
  const b = await post(owner, '/v1/broadcasts', {
    name,
    channel_id: channelId,
    audience: { label_ids: [vip] },
    messages: [{ text }],
    settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
  })
  await post(owner, `/v1/broadcasts/${b.id}/schedule`, { risk_ack: true })
  return b
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

/** What the dashboard shows, read from the page: each figure as text, each row with its key. */
const shown = (page: Page) =>
  page.evaluate(() => {
    const doc = (globalThis as any).document
    const all = (sel: string, root: any = doc): any[] => [...root.querySelectorAll(sel)]
    const text = (e: any) => (e?.textContent ?? '').trim()
    const rows = (testid: string, key: string) =>
      all(`[data-testid="${testid}"] tbody tr`).map((r) => [r.dataset[key], ...all('td', r).map(text)])
    return {
      funnel: Object.fromEntries(
        all('[data-testid^="funnel-"]').map((e) => [e.dataset.testid.slice(7), text(e)]),
      ),
      daily: rows('dashboard-daily-table', 'date'),
      chart: all('[data-testid="dashboard-daily-chart"] [data-series="sent"] rect').map(
        (r) => r.dataset.value,
      ),
      hourly: rows('dashboard-hourly-table', 'hour'),
      reasons: all('[data-testid="dashboard-reasons"] tbody tr').map((r) => [
        r.dataset.kind,
        r.dataset.reason,
        text(r.querySelector('[data-testid="reason-count"]')),
      ]),
      numbers: all('[data-testid="dashboard-numbers"] li').map((li) => [
        li.dataset.channel,
        text(li.querySelector('[data-testid="number-24h"]')),
        text(li.querySelector('[data-testid="number-today"]')),
      ]),
      latest: all('[data-testid="dashboard-latest"] tbody tr').map((r) => [
        r.dataset.id,
        text(r.querySelector('[data-testid="reply-rate"]')),
      ]),
      best: all('[data-testid="dashboard-best"] tbody tr').map((r) => [
        r.dataset.id,
        text(r.querySelector('[data-testid="reply-rate"]')),
      ]),
    }
  })

/** The same, written from the API's answer as the page writes it in `lang`. */
const expected = (d: any, lang: 'en' | 'id') => {
  const loc = lang === 'id' ? 'id-ID' : 'en-GB'
  const n = (x: number) => x.toLocaleString(loc)
  const rate = (x: number) => (x / 100).toLocaleString(loc, { style: 'percent', maximumFractionDigits: 1 })
  const f = d.funnel
  const brief = (b: any) => [String(b.id), rate(b.reply_rate)]
  return {
    funnel: Object.fromEntries(
      Object.entries({ ...f, waiting: f.recipients - f.sent - f.failed }).map(([k, v]) => [
        k,
        n(v as number),
      ]),
    ),
    daily: d.daily.map((x: any) => [x.date, n(x.sent), n(x.replied), n(x.failed)]),
    chart: d.daily.map((x: any) => String(x.sent)),
    hourly: d.hourly.map((x: any) => [String(x.hour), n(x.sent), n(x.replied), n(x.failed)]),
    reasons: d.reasons.map((r: any) => [r.kind, r.reason, n(r.count)]),
    numbers: d.numbers.map((x: any) => [
      String(x.channel_id),
      lang === 'id'
        ? `${n(x.sent_24h)} dari ${n(x.warmup.limit)} pesan dalam 24 jam`
        : `${n(x.sent_24h)} of ${n(x.warmup.limit)} messages in 24 hours`,
      lang === 'id'
        ? `Pesan siaran hari ini: ${n(x.broadcast_sent_today)}`
        : `Broadcast messages today: ${n(x.broadcast_sent_today)}`,
    ]),
    latest: d.latest.map(brief),
    best: d.best.map(brief),
  }
}

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

  it('shows the dashboard empty before any broadcast, with the plan refusal on Free and to nobody without broadcasts.view', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/broadcasts`)
    await page
      .getByRole('navigation', { name: 'Broadcasts pages' })
      .getByRole('link', { name: 'Dashboard' })
      .click()
    await page.waitForURL(/\/app\/broadcasts\/dashboard$/)
    await page.getByRole('heading', { name: 'Broadcast dashboard', level: 1 }).waitFor()
    await page.getByTestId('dashboard-empty').getByText('No broadcasts yet, so nothing to show.').waitFor()
    await page.getByTestId('dashboard-empty').getByRole('link', { name: 'Write a broadcast' }).waitFor()
    // The period goes to the address, where a reload finds it.
    await page.getByLabel('Period', { exact: true }).selectOption({ label: 'Last 7 days' })
    await page.waitForURL(/dashboard\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/)
    await page.reload()
    expect(await page.getByLabel('Period', { exact: true }).inputValue()).toBe('7')
    await page.getByTestId('dashboard-empty').waitFor()
    await accessible(page)
    await shots(page, 'broadcasts-dashboard-empty-en')
    await context.close()
    // A Free workspace still reads what was sent, and is told what broadcasts need.
    const free = await F.workspace(s, { plan: 'free', name: 'Warung Gratis' })
    const freeOwner = await F.signIn(s, free.ownerEmail)
    const other = await signedIn(browser, s, freeOwner)
    await other.page.goto(`${s.url}/app/broadcasts/dashboard`)
    await other.page.getByText('Broadcasts need an active Pro or Custom plan').waitFor()
    await other.page.getByTestId('dashboard-empty').waitFor()
    expect(await other.page.getByRole('link', { name: 'Write a broadcast' }).count()).toBe(0)
    expect(other.problems).toEqual([])
    await other.context.close()
    // A member whose role lacks broadcasts.view: told so, and the page asks the API nothing.
    await post(owner, '/v1/roles', { name: 'Inbox only', permissions: ['interactions.view'] })
    const inboxOnly = await F.signIn(s, (await F.member(s, w, 'Inbox only')).email)
    const third = await signedIn(browser, s, inboxOnly)
    const asked: string[] = []
    third.page.on('request', (r) => {
      if (r.url().includes('/v1/broadcasts')) asked.push(r.url())
    })
    await third.page.goto(`${s.url}/app/broadcasts/dashboard`)
    await third.page
      .getByTestId('dashboard-no-access')
      .getByText('You do not have permission to view broadcasts.')
      .waitFor()
    expect(asked).toEqual([])
    expect(third.problems).toEqual([])
    await third.context.close()
    expect(problems).toEqual([])
  }, 60_000)

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
    // The failure goes to the socket's next send, whoever sends it: first nothing else may be
    // sending (a broadcast of the tests before, still running on a loaded machine, once took it).
    for (let i = 0; ; i++) {
      const busy = [
        ...((await get(owner, '/v1/broadcasts?status=running')) as unknown[]),
        ...((await get(owner, '/v1/broadcasts?status=scheduled')) as unknown[]),
      ]
      if (busy.length === 0) break
      expect(i, 'broadcasts still sending').toBeLessThan(100)
      await new Promise((r) => setTimeout(r, 200))
    }
    sock.failures.push(closeError(400, 'bad request'))
    const b = await toVip('One that fails', 'Halo {{first_name}}, sekali lagi')
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
      // As many as the tests before sent (a retried one sends another).
      const completed = ((await get(owner, '/v1/broadcasts?status=completed&per_page=100')) as any[]).length
      expect(completed).toBeGreaterThanOrEqual(2)
      const { page, problems, context } = await signedIn(browser, s, owner)
      await page.goto(`${s.url}/app/broadcasts`)
      await page.getByRole('heading', { name: 'Siaran', level: 1 }).waitFor()
      await page.getByRole('button', { name: `Selesai (${completed})` }).waitFor()
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

  it('shows on the dashboard the API’s figures for the same period and number, live as another broadcast sends and is replied to, in English and Indonesian', async () => {
    const today = new Date().toLocaleDateString('en-CA', { timeZone: 'Asia/Jakarta' })
    const from = new Date(Date.parse(`${today}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10)
    const query = `from=${from}&to=${today}&channel_id=${channelId}`
    const api = () => get(owner, `/v1/broadcasts/dashboard?${query}`)
    const { page, problems, context } = await signedIn(browser, s, owner, {
      viewport: { width: 1440, height: 900 },
    })
    await page.goto(`${s.url}/app/broadcasts/dashboard?from=${from}&to=${today}&channel=${channelId}`)
    await page.getByTestId('dashboard-figures').waitFor()
    expect(await page.getByLabel('Period', { exact: true }).inputValue()).toBe('7')
    expect(await page.getByLabel('Number', { exact: true }).inputValue()).toBe(String(channelId))
    const before = await api()
    expect(before.latest.length).toBeGreaterThan(0)
    expect(before.reasons.length).toBeGreaterThan(0)
    await expect.poll(() => shown(page)).toEqual(expected(before, 'en'))

    // Live: another broadcast to VIP (Fajar) sends, then Fajar replies; no reload.
    const b = await toVip('Dashboard live', 'Halo {{first_name}}, ada stok baru')
    const sentAfter = (before.funnel.sent + 1).toLocaleString('en-GB')
    await page.getByTestId('funnel-sent').getByText(sentAfter, { exact: true }).waitFor({ timeout: 30_000 })
    await page.getByTestId('dashboard-latest').locator(`tr[data-id="${b.id}"]`).waitFor()
    // Fajar had broadcasts before: his reply counts for each one this period sent him.
    textFrom(sock, '6281234500005', 'Mau, kirim katalognya')
    await expect
      .poll(async () => Number((await shown(page)).funnel.replied), { timeout: 30_000 })
      .toBeGreaterThan(before.funnel.replied)
    await expect
      .poll(async () => {
        const [a, e] = [await shown(page), expected(await api(), 'en')]
        return isDeepStrictEqual(a, e) ? 'equal' : JSON.stringify({ page: a, api: e })
      })
      .toBe('equal')
    const after = await api()
    expect(after.best.find((x: any) => x.id === b.id)).toMatchObject({ reply_rate: 100 })
    expect(after.numbers[0].broadcast_sent_today).toBe(before.numbers[0].broadcast_sent_today + 1)
    await shots(page, 'broadcasts-dashboard-en')
    await page.getByTestId('dashboard-daily-chart').locator('..').getByText('The numbers as a table').click()
    await accessible(page)
    // The latest broadcast's link opens it.
    await page.getByTestId('dashboard-latest').getByRole('link', { name: 'Dashboard live' }).click()
    await page.waitForURL(new RegExp(`/app/broadcasts/${b.id}$`))

    await setLocale(owner, 'id')
    try {
      await page.goto(`${s.url}/app/broadcasts/dashboard?from=${from}&to=${today}&channel=${channelId}`)
      await page.getByRole('heading', { name: 'Dasbor siaran', level: 1 }).waitFor()
      await page.getByText('Dari penerima hingga balasan').waitFor()
      await expect.poll(() => shown(page)).toEqual(expected(after, 'id'))
      await shots(page, 'broadcasts-dashboard-id')
      await accessible(page)
    } finally {
      await setLocale(owner, 'en')
    }
    expect(problems).toEqual([])
    await context.close()
  }, 120_000)
})
