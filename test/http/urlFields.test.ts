import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { body, patch } from '../livechat/support'
import * as F from '../support/fixtures'
import { seedWorld, WORLD_ENV, type World } from '../support/routeWorld'
import { startTestServer, type TestServer } from '../support/server'

/**
 * URLs a screen shows as links (a client's website; the page a live chat started on, which the
 * e-mail fallback links back to) take `http` and `https` only (actors/fields.ts `WebUrl`,
 * docs/decisions.md "Hardening (input)"): `javascript:`, `data:` and `file:` were stored as sent.
 */
let s: TestServer
let world: World
beforeAll(async () => {
  s = await startTestServer(WORLD_ENV)
  world = await seedWorld(s)
}, 60_000)
afterAll(() => s?.stop())

const UNSAFE = [
  'javascript:alert(1)',
  ' JavaScript:alert(1)',
  'file:///etc/passwd',
  'data:text/html,<script>alert(1)</script>',
  'vbscript:msgbox(1)',
  '//evil.example/x',
  'acme.co.id',
  'https://',
] as const
const MESSAGE = 'must be a web address that starts with http:// or https://'

const expectRefused = async (res: Response, field: string) => {
  const text = await res.text()
  expect(res.status, text).toBe(422)
  const got = JSON.parse(text) as { error: { code: string; fields: Record<string, string> } }
  expect(got.error.code, text).toBe('validation_error')
  expect(got.error.fields, text).toEqual({ [field]: MESSAGE })
}

describe('URL fields', () => {
  it.each(UNSAFE)("a client's website refuses %j on create and on change", async (url) => {
    const h = world.owner.headers()
    await expectRefused(
      await s.fetch('/v1/clients', F.json({ name: `C ${url}`, website: url }, h)),
      'website',
    )
    await expectRefused(
      await s.fetch(`/v1/clients/${world.ids.client}`, patch({ website: url }, h)),
      'website',
    )
  })

  it("a client's website takes http and https (and null or '' for none)", async () => {
    const h = world.owner.headers()
    const made = await s.fetch(
      '/v1/clients',
      F.json({ name: 'PT Web', website: 'https://acme.co.id/about' }, h),
    )
    expect(made.status, await made.clone().text()).toBe(201)
    expect((await body(made)).data.website).toBe('https://acme.co.id/about')
    for (const website of ['http://acme.example', null, '']) {
      const res = await s.fetch(`/v1/clients/${world.ids.client}`, patch({ website }, h))
      expect(res.status, await res.clone().text()).toBe(200)
    }
  })

  it('the page a live chat starts on refuses them too', async () => {
    const key = world.livechatKey
    const cfg = await body(await s.fetch(`/v1/livechat/${key}/config`))
    const start = (page_url: string) =>
      s.fetch(
        `/v1/livechat/${key}/visitors`,
        F.json({
          name: 'Vera',
          email: 'vera-url@example.com',
          phone: '+62 812 3456 7890',
          page_url,
          form_token: cfg.data.form_token,
        }),
      )
    await expectRefused(await start('javascript:alert(document.cookie)'), 'page_url')
    await expectRefused(await start('file:///etc/passwd'), 'page_url')
  })
})
