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
    ready: (p) => p.locator('.chs-card').first().waitFor(),
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
      ready: (p) => p.locator('.chs-page h1').first().waitFor(),
    }),
  ),
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
  const chat = await s.fetch(
    '/v1/channels/livechat',
    F.json({ name: 'Website chat', title: 'Chat with us', color: '#0f766e' }, owner.headers()),
  )
  expect(chat.status, await chat.clone().text()).toBe(201)
  livechatChannelId = (await I.body(chat)).data.id
  const roles = (await I.body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data
  const admin = roles.find((r: { is_admin: boolean; is_owner: boolean }) => r.is_admin && !r.is_owner)
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
    }, 180_000)
  }
})
