import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as K from '../kb/support'
import * as F from '../support/fixtures'
import { aiEnv, type StandIn, startOpenAiStandIn } from '../support/openai'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings } from './channelsSupport'
import { launch, shots, signedIn } from './support'

/**
 * The knowledge base in the agent app, in headless Chromium through real HTTP: categories,
 * the article editor (a Markdown body whose script and onerror attempts stay inert in the
 * preview and the reader), drafts and publishing with the semantic processing shown, team
 * visibility, keyword and semantic search with snippets (the OpenAI-compatible stand-in; the
 * note on a server without a provider), the conversation's panel putting an article into a sent
 * reply, a second agent seeing changes live, English and Indonesian, axe-core, screenshots.
 */
let ai: StandIn
let s: TestServer
let bare: TestServer
let w: F.Seeded
let owner: F.Session
let inTeam: Awaited<ReturnType<typeof K.member>>
let outsider: Awaited<ReturnType<typeof K.member>>
let teamId: number
let teamName: string
let conversationId: number
let browser: Browser
let articleId: number

const AGENT = ['kb.view', 'interactions.view', 'interactions.reply'] as const
const ATTACK = [
  '# Refunds',
  '',
  'We **reimburse** the full amount to your card within 14 days.',
  '',
  '- Keep the receipt',
  '- Bring the card',
  '',
  '<script>window.__pwned = "script"</script>',
  '',
  'Photo: <img src="x" onerror="window.__pwned = \'onerror\'">',
  '',
  '[Open me](javascript:window.__pwned=%22link%22) and [our site](https://example.com/refunds)',
  '',
  // A path that the browser reads as another site, and one of the app's own.
  'See [elsewhere](/\\evil.example/refunds) or [the list](/app/kb?q=refund#top).',
].join('\n')

beforeAll(async () => {
  ai = await startOpenAiStandIn()
  s = await startTestServer({ CONNECTORS: 'local', ...aiEnv(ai) })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  inTeam = await K.member(s, w, AGENT)
  outsider = await K.member(s, w, AGENT)
  teamId = await I.team(s, w, [inTeam.user.id])
  teamName = (await K.api(s, K.session(owner)).get(`/v1/teams/${teamId}`)).data.name
  const ch = await I.channel(s, w, 'msgapp')
  const contact = await I.contact(s, w, { name: 'Budi Santoso' })
  conversationId = (await I.conversation(s, w, { channelId: ch.id, contactId: contact.id })).id
  await I.inbound(s, conversationId, 'Can I get my money back?')
  browser = await launch()
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await s?.stop()
  await bare?.stop()
  await ai?.close()
})

const setLocale = (srv: TestServer, who: F.Session, locale: 'en' | 'id') =>
  K.api(srv, K.session(who)).patch('/v1/me', { locale })

/** No serious or critical axe finding on the page as it is now. */
const clean = async (page: Page, what: string) => expect(await axeFindings(page), what).toEqual([])

/** How wide the page is, scrolled sideways included. */
const scrollWidth = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  )

/** Nothing the author typed ran: no marker set, no script or image element in `scope`. */
const inert = async (page: Page, scope: string) => {
  expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned)).toBeUndefined()
  expect(await page.locator(`${scope} script, ${scope} img, ${scope} [onerror]`).count()).toBe(0)
  expect(await page.locator(`${scope} a[href^="javascript"]`).count()).toBe(0)
}

describe.skipIf(lacks('chromium'))('the knowledge base in the app', () => {
  it('creates, renames, reorders and deletes categories', async () => {
    // The name already taken is a 422 the browser logs; the page shows it beside the field.
    const { page, problems, context } = await signedIn(browser, s, owner, {
      ignore: (t) => t.includes('422'),
    })
    await page.goto(`${s.url}/app/kb`)
    await page.getByRole('link', { name: 'Categories' }).click()
    await page.getByRole('heading', { name: 'Knowledge base categories' }).waitFor()
    await page.getByText('No categories yet.').waitFor()
    await shots(page, 'kb-categories-empty-en')
    for (const name of ['Shipping', 'Refunds', 'Old stuff']) {
      await page.getByLabel('Name', { exact: true }).fill(name)
      await page.getByRole('button', { name: 'Create' }).click()
      await page.getByRole('row').filter({ hasText: name }).waitFor()
    }
    const names = () => page.locator('tbody tr td:first-child').allInnerTexts()
    expect(await names()).toEqual(['Shipping', 'Refunds', 'Old stuff'])

    // A name already taken is refused beside the field.
    await page.getByLabel('Name', { exact: true }).fill('refunds')
    await page.getByRole('button', { name: 'Create' }).click()
    await page
      .getByRole('alert')
      .filter({ hasText: /taken|used|exists/i })
      .first()
      .waitFor()

    await page.getByRole('button', { name: 'Edit category Refunds' }).click()
    await page.locator('tr[data-editing] input[name=name]').fill('Refunds and returns')
    await page.locator('tr[data-editing] input[name=description]').fill('Money back, exchanges')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByRole('row').filter({ hasText: 'Money back, exchanges' }).waitFor()

    await page.getByRole('button', { name: 'Move Refunds and returns up' }).click()
    await expect.poll(names).toEqual(['Refunds and returns', 'Shipping', 'Old stuff'])

    const old = page.getByRole('row').filter({ hasText: 'Old stuff' })
    await old.getByRole('button', { name: 'Delete' }).click()
    await old.getByRole('button', { name: 'Yes, go ahead' }).click()
    await expect.poll(names).toEqual(['Refunds and returns', 'Shipping'])

    const api = await K.api(s, K.session(owner)).get('/v1/kb/categories')
    expect(api.data.map((c: { name: string }) => c.name)).toEqual(['Refunds and returns', 'Shipping'])
    await clean(page, 'categories')
    await shots(page, 'kb-categories-en')
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  it('writes a draft whose HTML stays inert, publishes it for one team and shows its processing', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/kb/articles/new`)
    await page.getByRole('heading', { name: 'New article' }).waitFor()
    await page.getByLabel('Title').fill('Refund policy')
    await page.getByLabel('Text (Markdown)').fill(ATTACK)
    const preview = page.getByTestId('kb-preview')
    await preview.getByRole('heading', { name: 'Refunds' }).waitFor()
    expect(await preview.locator('strong').textContent()).toBe('reimburse')
    expect(await preview.getByRole('listitem').count()).toBe(2)
    // The markup typed is shown as text, and nothing of it runs.
    await preview.getByText('<script>window.__pwned = "script"</script>').waitFor()
    await preview.getByText(/<img src="x" onerror=/).waitFor()
    await inert(page, '[data-testid=kb-preview]')
    expect(await preview.getByRole('link', { name: 'Open me' }).count()).toBe(0)
    expect(await preview.getByRole('link', { name: 'our site' }).getAttribute('href')).toBe(
      'https://example.com/refunds',
    )
    expect(await preview.getByRole('link', { name: 'elsewhere' }).count()).toBe(0)
    expect(await preview.getByRole('link', { name: 'the list' }).getAttribute('href')).toBe(
      '/app/kb?q=refund#top',
    )

    await page.getByLabel('Category').selectOption({ label: 'Refunds and returns' })
    await page.getByLabel('Tags').fill('refund, money')
    await page.getByRole('checkbox', { name: teamName }).check()
    await page.getByRole('button', { name: 'Save draft' }).click()
    await page.getByText('Draft saved.').waitFor()
    await page.waitForURL(/\/kb\/articles\/\d+\/edit$/)
    articleId = Number(/articles\/(\d+)\/edit/.exec(page.url())![1])
    const saved = await K.api(s, K.session(owner)).get(`/v1/kb/articles/${articleId}`)
    expect(saved.data).toMatchObject({
      status: 'draft',
      body: ATTACK,
      team_ids: [teamId],
      tags: ['refund', 'money'],
    })
    await clean(page, 'editor')
    await shots(page, 'kb-editor-en')

    // A draft is the managers' alone.
    expect((await K.api(s, inTeam.who).get(`/v1/kb/articles/${articleId}`)).status).toBe(404)

    await page.getByRole('button', { name: 'Publish' }).click()
    await page.getByText('Published.').waitFor()
    // The processing for search by meaning ends in the background; the editor follows it live.
    const panel = page.getByTestId('kb-embedding')
    await panel.getByText('AI ready').waitFor({ timeout: 30_000 })
    await panel.getByText(/Ready: 1 parts?, processed/).waitFor()
    await shots(page, 'kb-editor-published-en')

    // The reader: the same body, inert.
    await page.getByRole('link', { name: 'Refund policy' }).click()
    const body = page.getByTestId('kb-body')
    await body.getByRole('heading', { name: 'Refunds' }).waitFor()
    await body.getByText('<script>window.__pwned = "script"</script>').waitFor()
    await inert(page, '[data-testid=kb-body]')
    await page.getByText(`Teams: ${teamName}`).waitFor()
    await clean(page, 'reader')
    await shots(page, 'kb-article-en')
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)

  it('shows a team-only article to its team and to nobody outside it', async () => {
    const a = await signedIn(browser, s, inTeam.session)
    await a.page.goto(`${s.url}/app/kb`)
    await a.page.getByRole('link', { name: 'Refund policy' }).waitFor()
    // Not a manager: no editing, no drafts, no categories page.
    expect(await a.page.getByRole('link', { name: 'New article' }).count()).toBe(0)
    expect(await a.page.getByRole('link', { name: 'Categories' }).count()).toBe(0)
    await a.page.getByRole('link', { name: 'Refund policy' }).click()
    await a.page.getByTestId('kb-body').waitFor()
    expect(await a.page.getByRole('link', { name: 'Edit article' }).count()).toBe(0)

    const b = await signedIn(browser, s, outsider.session, { ignore: (t) => t.includes('404') })
    await b.page.goto(`${s.url}/app/kb`)
    await b.page.getByText('No articles here yet.').waitFor()
    expect(await b.page.getByRole('link', { name: 'Refund policy' }).count()).toBe(0)
    await b.page.goto(`${s.url}/app/kb/articles/${articleId}`)
    await b.page.getByText('This article does not exist or is not shared with your teams.').waitFor()
    await b.page.goto(`${s.url}/app/kb?q=reimburse`)
    await b.page.getByText('No published article matches “reimburse”.').waitFor()
    expect(a.problems).toEqual([])
    expect(b.problems).toEqual([])
    await a.context.close()
    await b.context.close()
  }, 60_000)

  it('searches by keywords with a snippet and by meaning through the stand-in', async () => {
    await K.embedded(s, K.session(owner), articleId)
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.goto(`${s.url}/app/kb`)
    await page.getByLabel('Search articles').fill('reimburse')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    const hit = page.getByTestId('kb-hit').filter({ hasText: 'Refund policy' })
    await hit.waitFor()
    expect(await hit.locator('mark').first().textContent()).toBe('reimburse')
    await hit.getByText('Keyword match').waitFor()
    await inert(page, '[data-testid=kb-results]')
    await clean(page, 'keyword search')
    await shots(page, 'kb-search-en')

    // No word in common: only meaning finds it.
    await page.getByLabel('Search articles').fill('give my cash back')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.getByText('No published article matches “give my cash back”.').waitFor()
    await page.getByRole('radio', { name: 'Meaning (AI)' }).check()
    await page
      .getByTestId('kb-hit')
      .filter({ hasText: 'Refund policy' })
      .getByText(/Similar meaning · score [\d.]+/)
      .waitFor()
    await page.getByText(/AI requests this month: 1 of \d+/).waitFor()
    expect(
      ai.requests.some((r) => r.path.endsWith('/embeddings') && JSON.stringify(r.body).includes('cash')),
    ).toBe(true)
    await shots(page, 'kb-search-semantic-en')
    expect(problems).toEqual([])
    await context.close()
  }, 60_000)

  it('says clearly that search by meaning is unavailable on a server without an AI provider', async () => {
    bare = await startTestServer({ CONNECTORS: 'local' })
    const bw = await F.workspace(bare, { plan: 'pro' })
    const bo = await F.signIn(bare, bw.ownerEmail)
    await K.article(bare, K.session(bo), {
      title: 'Refund policy',
      body: 'We reimburse within 14 days.',
      status: 'published',
    })
    const { page, problems, context } = await signedIn(browser, bare, bo, {
      ignore: (t) => t.includes('503'),
    })
    await page.goto(`${bare.url}/app/kb?q=money%20back&mode=semantic`)
    await page
      .getByText(
        'Search by meaning is not available: this server has no AI provider set up. Search by keywords still works.',
      )
      .waitFor()
    await page.getByRole('radio', { name: 'Keywords' }).check()
    await page.getByLabel('Search articles').fill('reimburse')
    await page.getByRole('button', { name: 'Search', exact: true }).click()
    await page.getByTestId('kb-hit').filter({ hasText: 'Refund policy' }).waitFor()
    await setLocale(bare, bo, 'id')
    await page.goto(`${bare.url}/app/kb?q=uang&mode=semantic`)
    await page.getByText('Pencarian berdasarkan makna tidak tersedia', { exact: false }).waitFor()
    await shots(page, 'kb-search-noai-id')
    expect(problems).toEqual([])
    await context.close()
  }, 150_000)

  it('puts an article into a reply from the conversation and sends it', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${s.url}/app/inbox/${conversationId}`)
    await page
      .getByTestId('message')
      .filter({ hasText: 'Can I get my money back?' })
      .waitFor({ timeout: 30_000 })
    await page.getByRole('button', { name: 'Knowledge base' }).click()
    const panel = page.getByTestId('kb-panel')
    await panel.getByRole('heading', { name: 'Find an article for this reply' }).waitFor()
    await panel.getByText('Recently updated').waitFor()
    await panel.getByRole('searchbox', { name: 'Search articles' }).fill('reimburse')
    await panel
      .getByTestId('kb-panel-item')
      .filter({ hasText: 'Refund policy' })
      .locator('mark')
      .first()
      .waitFor()
    await clean(page, 'conversation panel')
    await shots(page, 'kb-panel-en')
    await panel.getByRole('button', { name: 'Insert text: Refund policy' }).click()
    const box = page.getByTestId('composer')
    await expect
      .poll(() => box.inputValue())
      .toContain('We reimburse the full amount to your card within 14 days.')
    const text = await box.inputValue()
    // Plain text for the customer: no Markdown marks, the link spelled out, the HTML as typed.
    expect(text).toContain('- Keep the receipt')
    expect(text).not.toContain('**')
    expect(text).toContain('our site (https://example.com/refunds)')
    await panel.getByRole('button', { name: 'Cancel — Close the knowledge base' }).click()
    await expect.poll(() => panel.count()).toBe(0)
    await page.getByTestId('send').click()
    await page.getByTestId('message').filter({ hasText: 'We reimburse the full amount' }).waitFor()
    const list = await K.api(s, K.session(owner)).get(`/v1/interactions/${conversationId}/messages`)
    const sent = list.data.find((m: { body: string; direction: string }) => m.direction === 'out')
    expect(sent.body).toBe(text)
    await expect
      .poll(async () => JSON.stringify(await I.recorded(s)))
      .toContain('We reimburse the full amount to your card within 14 days.')

    // A link, for a note to colleagues.
    await page.getByRole('button', { name: 'Knowledge base' }).click()
    await panel.getByRole('button', { name: 'Insert link: Refund policy' }).click()
    await expect.poll(() => box.inputValue()).toBe(`Refund policy: ${s.url}/app/kb/articles/${articleId}`)
    expect(problems).toEqual([])
    await context.close()
  }, 60_000)

  it('shows a second agent what a manager publishes and changes, without reloading', async () => {
    const m = await signedIn(browser, s, owner)
    const a = await signedIn(browser, s, inTeam.session)
    await a.page.goto(`${s.url}/app/kb`)
    await a.page.getByRole('link', { name: 'Refund policy' }).waitFor()
    // The article taken back to draft is a 404 for this reader, which the browser logs.
    const b = await signedIn(browser, s, inTeam.session, { ignore: (t) => t.includes('404') })
    await b.page.goto(`${s.url}/app/kb/articles/${articleId}`)
    await b.page.getByRole('heading', { name: 'Refund policy', level: 1 }).waitFor()
    // Both pages hold the workspace's events before the change is made.
    for (const x of [a, b]) await x.page.locator('[data-testid="connection"][data-settled="true"]').waitFor()

    await m.page.goto(`${s.url}/app/kb/articles/new`)
    await m.page.getByLabel('Title').fill('Shipping times')
    await m.page
      .getByLabel('Text (Markdown)')
      .fill('Couriers deliver every parcel in two to five working days.')
    await m.page.getByRole('button', { name: 'Publish' }).click()
    await m.page.getByText('Published.').waitFor()
    await a.page.getByRole('link', { name: 'Shipping times' }).waitFor()

    await m.page.goto(`${s.url}/app/kb/articles/${articleId}/edit`)
    await m.page.getByLabel('Title').fill('Refund policy (2026)')
    await m.page.getByRole('button', { name: 'Save', exact: true }).click()
    await m.page.getByText('Published.').waitFor()
    await b.page.getByRole('heading', { name: 'Refund policy (2026)', level: 1 }).waitFor()
    await b.page.getByText('Updated just now by a colleague.').waitFor()
    await a.page.getByRole('link', { name: 'Refund policy (2026)' }).waitFor()

    // Back to draft: the agent's list loses it, live.
    await m.page.getByRole('button', { name: 'Back to draft' }).click()
    await m.page.getByText('Draft saved.').waitFor()
    await expect.poll(() => a.page.getByRole('link', { name: 'Refund policy (2026)' }).count()).toBe(0)
    await b.page.getByText(/This article is no longer available to you/).waitFor()
    await m.page.getByRole('button', { name: 'Publish' }).click()
    await m.page.getByText('Published.').waitFor()
    await a.page.getByRole('link', { name: 'Refund policy (2026)' }).waitFor()
    for (const x of [m, a, b]) {
      expect(x.problems).toEqual([])
      await x.context.close()
    }
  }, 90_000)

  it('reads in Indonesian, with no serious axe finding, at 1440 and 390 px', async () => {
    await setLocale(s, owner, 'id')
    try {
      const { page, problems, context } = await signedIn(browser, s, owner)
      const pages: Array<[string, string, string]> = [
        ['/kb', 'Basis pengetahuan', 'kb-list'],
        ['/kb/categories', 'Kategori basis pengetahuan', 'kb-categories'],
        [`/kb/articles/${articleId}`, 'Refund policy (2026)', 'kb-article'],
        [`/kb/articles/${articleId}/edit`, 'Ubah “Refund policy (2026)”', 'kb-editor'],
        ['/kb/articles/new', 'Artikel baru', 'kb-editor-new'],
        ['/kb?q=reimburse', 'Hasil untuk “reimburse”', 'kb-search'],
      ]
      for (const [path, heading, name] of pages) {
        for (const width of [1440, 390]) {
          await page.setViewportSize({ width, height: 900 })
          await page.goto(`${s.url}/app${path}`)
          await page.getByRole('heading', { name: heading }).first().waitFor()
          await clean(page, `${path} id ${width}`)
          // No sideways scrolling on a phone.
          expect(await scrollWidth(page)).toBeLessThanOrEqual(width)
        }
        await shots(page, `${name}-id`)
      }
      await page.goto(`${s.url}/app/kb`)
      await page.getByRole('link', { name: 'Artikel baru' }).waitFor()
      await page.getByText(/\d+ terbit · \d+ draf/).waitFor()
      await page.setViewportSize({ width: 1440, height: 900 })
      await page.goto(`${s.url}/app/inbox/${conversationId}`)
      await page.getByRole('button', { name: 'Basis pengetahuan' }).click()
      await page.getByRole('heading', { name: 'Cari artikel untuk balasan ini' }).waitFor()
      await page.getByTestId('kb-panel-item').first().waitFor()
      await clean(page, 'panel id')
      await shots(page, 'kb-panel-id')
      expect(problems).toEqual([])
      await context.close()
    } finally {
      await setLocale(s, owner, 'en')
    }
  }, 120_000)

  it('shows the pages in English at both widths, with no serious axe finding', async () => {
    const { page, problems, context } = await signedIn(browser, s, owner)
    for (const width of [1440, 390]) {
      await page.setViewportSize({ width, height: 900 })
      for (const path of ['/kb', `/kb/articles/${articleId}`, `/kb/articles/${articleId}/edit`]) {
        await page.goto(`${s.url}/app${path}`)
        await page.getByRole('heading', { level: 1 }).first().waitFor()
        await page.getByText('Loading…').waitFor({ state: 'detached' })
        await clean(page, `${path} en ${width}`)
        expect(await scrollWidth(page)).toBeLessThanOrEqual(width)
      }
    }
    await page.goto(`${s.url}/app/kb`)
    await page.getByRole('link', { name: 'Shipping times' }).waitFor()
    await shots(page, 'kb-list-en')
    expect(problems).toEqual([])
    await context.close()
  }, 90_000)
})
