import * as fs from 'node:fs'
import * as path from 'node:path'
import { Effect } from 'effect'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { type Smtp, startSmtp } from '../email/dovecot'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { lacks } from '../support/systemPackages'
import { axeFindings } from './channelsSupport'
import { guest, launch, signedIn } from './support'

/**
 * Every page of the app through axe-core: no serious or critical finding, at 1440 and 390 px, in
 * English and Indonesian. The pages are the app's own route registry (app/src/routes.ts) plus the
 * pages shown outside it (signed out, no workspace, an invitation): a page added to the registry
 * without a line here fails the sweep, so no page goes unchecked.
 */
let s: TestServer
let smtp: Smtp
let browser: Browser
let w: F.Seeded
let owner: F.Session
let lonely: F.Session
let conversationId = 0
let apiChannelId = 0
let livechatChannelId = 0
let inviteToken = ''
let linkToken = ''
let roleId = 0
let teamId = 0
let contactId = 0
let ticketId = 0
let articleId = 0
let leadId = 0
let clientId = 0
let segmentId = 0
let broadcastId = 0

type Who = 'owner' | 'guest' | 'lonely'
interface Case {
  /** The registry's pattern this visit covers, or the standalone page's name. */
  readonly route: string
  readonly who: Who
  readonly url: () => string
  /** What shows once the page has its content. */
  readonly ready: (page: Page) => Promise<unknown>
}

/**
 * The registry's paths, read from its source (importing it would compile the app's pages here):
 * app/src/routes.ts and every area's routes.ts it spreads in.
 */
const registryPaths = () =>
  fs
    .readdirSync(path.resolve(__dirname, '../../app/src'), { recursive: true, encoding: 'utf8' })
    .filter((file) => path.basename(file) === 'routes.ts')
    .flatMap((file) =>
      [
        ...fs
          .readFileSync(path.resolve(__dirname, '../../app/src', file), 'utf8')
          .matchAll(/\{ path: '([^']+)'/g),
      ].map((m) => m[1]!),
    )

const main = (page: Page) => page.locator('main').first().waitFor()
const cases: readonly Case[] = [
  {
    route: '/inbox',
    who: 'owner',
    url: () => '/app/inbox',
    ready: (p) => p.locator('[data-testid="inbox-list"][aria-busy="false"]').waitFor(),
  },
  {
    route: '/inbox/:id',
    who: 'owner',
    url: () => `/app/inbox/${conversationId}`,
    ready: (p) => p.getByTestId('message').first().waitFor(),
  },
  {
    route: '/channels',
    who: 'owner',
    url: () => '/app/channels',
    ready: (p) => p.locator('.k-card').first().waitFor(),
  },
  ...(['livechat', 'api', 'msgapp', 'email'] as const).map(
    (type): Case => ({
      route: '/channels/new/:type',
      who: 'owner',
      url: () => `/app/channels/new/${type}`,
      ready: (p) => p.locator('form').first().waitFor(),
    }),
  ),
  ...(['api', 'livechat'] as const).map(
    (type): Case => ({
      route: '/channels/:id',
      who: 'owner',
      url: () => `/app/channels/${type === 'api' ? apiChannelId : livechatChannelId}`,
      ready: (p) => p.locator('.k-page h1').first().waitFor(),
    }),
  ),
  {
    route: '/settings',
    who: 'owner',
    url: () => '/app/settings',
    ready: (p) => p.getByTestId('settings-index').locator('.k-card').first().waitFor(),
  },
  {
    route: '/dashboard',
    who: 'owner',
    url: () => '/app/dashboard',
    ready: (p) => p.getByTestId('dashboard').locator('.k-panel').first().waitFor(),
  },
  {
    route: '/settings/workspace',
    who: 'owner',
    url: () => '/app/settings/workspace',
    ready: (p) => p.getByTestId('ws-ownership').waitFor(),
  },
  {
    route: '/workspaces',
    who: 'owner',
    url: () => '/app/workspaces',
    ready: (p) => p.getByTestId('workspace-list').waitFor(),
  },
  {
    route: '/settings/members',
    who: 'owner',
    url: () => '/app/settings/members',
    ready: (p) => p.getByTestId('members').waitFor(),
  },
  {
    route: '/settings/roles',
    who: 'owner',
    url: () => '/app/settings/roles',
    ready: (p) => p.getByTestId('roles').waitFor(),
  },
  {
    route: '/settings/roles/:id',
    who: 'owner',
    url: () => `/app/settings/roles/${roleId}`,
    ready: (p) => p.getByTestId('role-form').waitFor(),
  },
  {
    route: '/settings/teams',
    who: 'owner',
    url: () => '/app/settings/teams',
    ready: (p) => p.getByTestId('people-teams').locator('.k-panel').first().waitFor(),
  },
  {
    route: '/settings/teams/:id',
    who: 'owner',
    url: () => `/app/settings/teams/${teamId}`,
    ready: (p) => p.getByTestId('team-form').waitFor(),
  },
  {
    route: '/settings/templates',
    who: 'owner',
    url: () => '/app/settings/templates',
    ready: (p) =>
      p.getByTestId('templates-page').locator('[data-testid=templates-empty], table').first().waitFor(),
  },
  {
    route: '/settings/categories',
    who: 'owner',
    url: () => '/app/settings/categories',
    ready: (p) =>
      p.getByTestId('categories-page').locator('[data-testid=categories-empty], table').first().waitFor(),
  },
  {
    route: '/settings/labels',
    who: 'owner',
    url: () => '/app/settings/labels',
    ready: (p) =>
      p.getByTestId('label-rules').locator('[data-testid=rules-empty], table, .k-notice').first().waitFor(),
  },
  {
    route: '/settings/fields',
    who: 'owner',
    url: () => '/app/settings/fields',
    ready: (p) => p.getByTestId('fields-page').locator('[data-testid=fields-empty], table').first().waitFor(),
  },
  {
    route: '/settings/api-keys',
    who: 'owner',
    url: () => '/app/settings/api-keys',
    ready: (p) => p.getByTestId('keys-count').waitFor(),
  },
  {
    route: '/settings/audit',
    who: 'owner',
    url: () => '/app/settings/audit',
    ready: (p) => p.getByTestId('audit-total').waitFor(),
  },
  {
    route: '/settings/billing',
    who: 'owner',
    url: () => '/app/settings/billing',
    ready: (p) => p.getByTestId('plan-name').waitFor(),
  },
  {
    route: '/contacts',
    who: 'owner',
    url: () => '/app/contacts',
    ready: (p) => p.getByTestId('contacts-list').getByText('Rina Akses').first().waitFor(),
  },
  {
    route: '/contacts/new',
    who: 'owner',
    url: () => '/app/contacts/new',
    ready: (p) => p.getByTestId('contact-form').waitFor(),
  },
  {
    route: '/contacts/import',
    who: 'owner',
    url: () => '/app/contacts/import',
    ready: (p) => p.getByRole('heading', { level: 1 }).waitFor(),
  },
  {
    route: '/contacts/:id',
    who: 'owner',
    url: () => `/app/contacts/${contactId}`,
    ready: (p) => p.getByTestId('contact-timeline').waitFor(),
  },
  {
    route: '/contacts/:id/merge',
    who: 'owner',
    url: () => `/app/contacts/${contactId}/merge`,
    ready: (p) => p.getByRole('heading', { level: 1 }).waitFor(),
  },
  {
    route: '/tickets',
    who: 'owner',
    url: () => '/app/tickets',
    ready: (p) => p.getByTestId('tickets').getByText('Parcel never arrived').first().waitFor(),
  },
  {
    route: '/tickets/:id',
    who: 'owner',
    url: () => `/app/tickets/${ticketId}`,
    ready: (p) => p.getByTestId('discussion').waitFor(),
  },
  {
    route: '/kb',
    who: 'owner',
    url: () => '/app/kb',
    ready: (p) => p.getByTestId('kb-articles').waitFor(),
  },
  {
    route: '/kb/categories',
    who: 'owner',
    url: () => '/app/kb/categories',
    ready: (p) => p.getByTestId('kb-categories').waitFor(),
  },
  {
    route: '/kb/articles/new',
    who: 'owner',
    url: () => '/app/kb/articles/new',
    ready: (p) => p.getByTestId('kb-editor').getByRole('textbox').first().waitFor(),
  },
  {
    route: '/kb/articles/:id',
    who: 'owner',
    url: () => `/app/kb/articles/${articleId}`,
    ready: (p) => p.getByTestId('kb-article').getByText('How returns work').first().waitFor(),
  },
  {
    route: '/kb/articles/:id/edit',
    who: 'owner',
    url: () => `/app/kb/articles/${articleId}/edit`,
    ready: (p) => p.getByTestId('kb-editor').getByRole('textbox').first().waitFor(),
  },
  {
    route: '/reports',
    who: 'owner',
    url: () => '/app/reports',
    ready: async (p) => {
      await p.getByTestId('report').waitFor()
      await p.getByTestId('breakdown-table').waitFor()
    },
  },
  {
    route: '/reports/agents',
    who: 'owner',
    url: () => '/app/reports/agents',
    ready: (p) => p.getByTestId('agents-table').locator(`tr[data-user="${w.ownerId}"]`).waitFor(),
  },
  {
    route: '/reports/agents/:id',
    who: 'owner',
    url: () => `/app/reports/agents/${w.ownerId}`,
    ready: (p) => p.getByTestId('kpi').waitFor(),
  },
  {
    route: '/pipeline',
    who: 'owner',
    url: () => '/app/pipeline',
    ready: (p) => p.getByTestId('pipeline-board').locator(`[data-lead="${leadId}"]`).waitFor(),
  },
  {
    route: '/pipeline/leads',
    who: 'owner',
    url: () => '/app/pipeline/leads',
    ready: (p) => p.getByTestId('leads-page').getByRole('link', { name: 'Armada sweep' }).first().waitFor(),
  },
  {
    route: '/pipeline/leads/new',
    who: 'owner',
    url: () => '/app/pipeline/leads/new',
    ready: (p) => p.getByTestId('lead-form').waitFor(),
  },
  {
    route: '/pipeline/leads/:id',
    who: 'owner',
    url: () => `/app/pipeline/leads/${leadId}`,
    ready: (p) => p.getByTestId('lead-timeline').waitFor(),
  },
  {
    route: '/pipeline/dashboard',
    who: 'owner',
    url: () => '/app/pipeline/dashboard',
    ready: (p) => p.getByTestId('dashboard-tiles').waitFor(),
  },
  {
    route: '/pipeline/clients',
    who: 'owner',
    url: () => '/app/pipeline/clients',
    ready: (p) => p.getByTestId('clients-page').getByRole('link', { name: 'PT Sapu Akses' }).waitFor(),
  },
  {
    route: '/pipeline/clients/:id',
    who: 'owner',
    url: () => `/app/pipeline/clients/${clientId}`,
    ready: (p) => p.getByTestId('client-page').getByRole('link', { name: 'Armada sweep' }).first().waitFor(),
  },
  {
    route: '/pipeline/import',
    who: 'owner',
    url: () => '/app/pipeline/import',
    ready: (p) =>
      p
        .getByTestId('lead-import')
        .locator('select[name=pipeline_id] option')
        .first()
        .waitFor({ state: 'attached' }),
  },
  {
    route: '/pipeline/workflows',
    who: 'owner',
    url: () => '/app/pipeline/workflows',
    ready: (p) => p.getByTestId('workflows-page').locator('section[data-workflow]').first().waitFor(),
  },
  {
    route: '/broadcasts',
    who: 'owner',
    url: () => '/app/broadcasts',
    ready: (p) => p.getByTestId('broadcasts-list').locator(`tr[data-id="${broadcastId}"]`).waitFor(),
  },
  {
    route: '/broadcasts/dashboard',
    who: 'owner',
    url: () => '/app/broadcasts/dashboard',
    ready: (p) => p.getByTestId('dashboard-figures').waitFor(),
  },
  {
    route: '/broadcasts/segments',
    who: 'owner',
    url: () => '/app/broadcasts/segments',
    ready: (p) => p.getByTestId('segments-list').getByText('Sweep segment').first().waitFor(),
  },
  {
    route: '/broadcasts/segments/:id',
    who: 'owner',
    url: () => `/app/broadcasts/segments/${segmentId}`,
    ready: (p) => p.getByTestId('segment-count').waitFor(),
  },
  {
    route: '/broadcasts/:id',
    who: 'owner',
    url: () => `/app/broadcasts/${broadcastId}`,
    ready: async (p) => {
      await p.getByTestId('broadcast-form').waitFor()
      await p.getByTestId('estimate-recipients').waitFor()
    },
  },
  {
    route: '/profile',
    who: 'owner',
    url: () => '/app/profile',
    ready: (p) => p.getByTestId('pf-current').waitFor(),
  },
  {
    route: '/passkeys',
    who: 'owner',
    url: () => '/app/passkeys',
    ready: (p) => p.getByTestId('passkeys-page').waitFor(),
  },
  {
    route: 'sign-in link',
    who: 'guest',
    url: () => `/auth/link/${linkToken}`,
    ready: (p) => p.getByTestId('link-signin').waitFor(),
  },
  {
    route: 'unknown sign-in link',
    who: 'guest',
    url: () => '/app/link/not-a-real-link',
    ready: (p) => p.getByTestId('link-help').waitFor(),
  },
  {
    route: 'first run, once done',
    who: 'guest',
    url: () => '/app/setup/not-a-real-token',
    ready: (p) => p.getByTestId('setup-help').waitFor(),
  },
  { route: 'sign-in', who: 'guest', url: () => '/app', ready: (p) => p.locator('main.signin h1').waitFor() },
  {
    route: 'invitation',
    who: 'guest',
    url: () => `/invite/${inviteToken}`,
    ready: (p) => p.getByTestId('invite-summary').or(p.locator('main h1')).first().waitFor(),
  },
  {
    route: 'no workspace',
    who: 'lonely',
    url: () => '/app',
    ready: (p) => p.getByTestId('welcome-none').waitFor(),
  },
]

const contexts: Partial<
  Record<`${Who}-${'en' | 'id'}`, { context: BrowserContext; page: Page; problems: string[] }>
> = {}
const open = async (who: Who, lang: 'en' | 'id') => {
  const key = `${who}-${lang}` as const
  const have = contexts[key]
  if (have) return have
  let made: { context: BrowserContext; page: Page; problems: string[] }
  if (who === 'guest') {
    made = await guest(browser, lang === 'id' ? 'id-ID' : 'en-GB')
  } else {
    const session = who === 'owner' ? owner : lonely
    await s.fetch('/v1/me', { ...F.json({ locale: lang }, session.headers()), method: 'PATCH' })
    made = await signedIn(browser, s, session, {
      // Without a workspace the language is the browser's (PATCH /v1/me needs one).
      locale: lang === 'id' ? 'id-ID' : 'en-GB',
      // No workspace: /v1/me answers workspace_required, which the page turns into its welcome.
      ignore: (text) => /status of 4\d\d/.test(text),
    })
  }
  contexts[key] = made
  return made
}

beforeAll(async () => {
  smtp = await startSmtp()
  smtp.accounts.set('mailer@kotak.test', 'pw')
  s = await startTestServer({
    // One owner opens every page twice (en, id) within a minute, more than a person's 600
    // requests a minute; the sweep is about the pages, not the limit (test/http covers that).
    RATE_LIMIT_PER_SESSION: '100000',
    CONNECTORS: 'local',
    SMTP_URL: `smtp://mailer%40kotak.test:pw@${smtp.host}:${smtp.port}`,
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const api = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
  expect(api.status, await api.clone().text()).toBe(201)
  const apiChannel = (await I.body(api)).data
  apiChannelId = apiChannel.id
  const said = await s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: 'a11y-1',
        contact: { id: 'c-a11y-1', name: 'Rina Akses', email: null, phone: null },
        message: { id: 'm1', text: 'Is my parcel on its way?' },
      },
      F.bearer(apiChannel.credentials.key),
    ),
  )
  expect(said.status, await said.clone().text()).toBe(201)
  conversationId = (await I.body(said)).data.interaction_id
  const detail = await I.body(
    await s.fetch(`/v1/interactions/${conversationId}`, { headers: owner.headers() }),
  )
  contactId = detail.data.contact.id
  const article = await s.fetch(
    '/v1/kb/articles',
    F.json(
      {
        title: 'How returns work',
        body: '# Returns\n\nSend the parcel back **within 7 days**.',
        status: 'published',
      },
      owner.headers(),
    ),
  )
  expect(article.status, await article.clone().text()).toBe(201)
  articleId = (await I.body(article)).data.id
  // The pipeline's and the broadcasts' pages with something on them: a workflow (a workspace
  // starts with none), a client, a lead of it in that workflow, a segment and a draft broadcast to it.
  const flow = await s.fetch('/v1/pipelines', F.json({ name: 'Sweep sales' }, owner.headers()))
  expect(flow.status, await flow.clone().text()).toBe(201)
  const client = await s.fetch('/v1/clients', F.json({ name: 'PT Sapu Akses' }, owner.headers()))
  expect(client.status, await client.clone().text()).toBe(201)
  clientId = (await I.body(client)).data.id
  const lead = await s.fetch(
    '/v1/leads',
    F.json(
      {
        title: 'Armada sweep',
        pipeline_id: (await I.body(flow)).data.id,
        client_id: clientId,
        value_estimate: 5_000_000,
      },
      owner.headers(),
    ),
  )
  expect(lead.status, await lead.clone().text()).toBe(201)
  leadId = (await I.body(lead)).data.id
  const segment = await s.fetch(
    '/v1/segments',
    F.json(
      { name: 'Sweep segment', rules: [{ field: 'city', op: 'contains', value: 'bandung' }] },
      owner.headers(),
    ),
  )
  expect(segment.status, await segment.clone().text()).toBe(201)
  segmentId = (await I.body(segment)).data.id
  const draft = await s.fetch(
    '/v1/broadcasts',
    F.json(
      {
        name: 'Sweep broadcast',
        audience: { segment_ids: [segmentId] },
        messages: [{ text: 'Halo {{first_name}}, promo akhir tahun!' }],
      },
      owner.headers(),
    ),
  )
  expect(draft.status, await draft.clone().text()).toBe(201)
  broadcastId = (await I.body(draft)).data.id
  const chat = await s.fetch(
    '/v1/channels/livechat',
    F.json({ name: 'Website chat', title: 'Chat with us', color: '#0f766e' }, owner.headers()),
  )
  expect(chat.status, await chat.clone().text()).toBe(201)
  livechatChannelId = (await I.body(chat)).data.id
  const roles = (await I.body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
  const admin = roles.find((r: { is_admin: boolean; is_owner: boolean }) => r.is_admin && !r.is_owner)
  roleId = roles.find((r: { name: string }) => r.name === 'Agent').id
  const team = await s.fetch('/v1/teams', F.json({ name: 'Sweep team', type: 'frontline' }, owner.headers()))
  expect(team.status, await team.clone().text()).toBe(201)
  teamId = (await I.body(team)).data.id
  const back = await s.fetch('/v1/teams', F.json({ name: 'Claims', type: 'backoffice' }, owner.headers()))
  expect(back.status, await back.clone().text()).toBe(201)
  const backOffice = (await I.body(back)).data.id
  const ticket = await s.fetch(
    '/v1/tickets',
    F.json({ subject: 'Parcel never arrived', team_id: backOffice }, owner.headers()),
  )
  expect(ticket.status, await ticket.clone().text()).toBe(201)
  ticketId = (await I.body(ticket)).data.id
  const invited = await s.fetch(
    '/v1/invitations',
    F.json({ email: 'tamu@example.com', role_id: admin.id }, owner.headers()),
  )
  expect(invited.status, await invited.clone().text()).toBe(201)
  const mail = await smtp.waitFor((m) => m.to.includes('tamu@example.com'))
  inviteToken = /\/invite\/([A-Za-z0-9_-]+)/.exec(String(mail.parsed.text))?.[1] ?? ''
  expect(inviteToken).not.toBe('')
  // Opening a sign-in link's page uses nothing (the button does): one link serves every visit.
  linkToken = await s.run(
    Effect.flatMap(Users.byEmail(w.ownerEmail), (user) => Sessions.createLoginLink(user!.id, 30)),
  )
  const email = 'sendiri@example.com'
  await s.run(Users.ensure(email, 'Sendiri Saja'))
  lonely = await F.signIn(s, email)
  browser = await launch()
}, 90_000)

afterAll(async () => {
  for (const c of Object.values(contexts)) await c?.context.close()
  await browser?.close()
  await s?.stop()
  await smtp?.stop()
})

describe.skipIf(lacks('chromium'))('every page, through axe-core', () => {
  it('covers every page of the app registry', () => {
    const covered = new Set(cases.map((c) => c.route))
    const paths = registryPaths()
    expect(paths).toContain('/inbox/:id')
    expect(paths.filter((p) => !covered.has(p))).toEqual([])
  })

  for (const lang of ['en', 'id'] as const) {
    it(`has no serious or critical finding on any page in ${lang === 'en' ? 'English' : 'Indonesian'}, at 1440 and 390 px`, async () => {
      const findings: string[] = []
      for (const c of cases) {
        const { page, problems } = await open(c.who, lang)
        for (const width of [1440, 390]) {
          await page.setViewportSize({ width, height: 900 })
          await page.goto(`${s.url}${c.url()}`)
          await c.ready(page)
          await main(page).catch(() => undefined)
          // A signed-out page takes the browser's language in an effect after its first paint.
          await expect
            .poll(
              () =>
                page.evaluate(
                  () =>
                    (globalThis as unknown as { document: { documentElement: { lang: string } } }).document
                      .documentElement.lang,
                ),
              { message: c.url() },
            )
            .toBe(lang)
          for (const f of await axeFindings(page)) findings.push(`${c.url()} ${lang} ${width}px: ${f}`)
        }
        expect(problems, c.url()).toEqual([])
      }
      expect(findings).toEqual([])
    }, 900_000)
  }
})
