import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { allRoutes } from '../../http/app'
import { unstorableText } from '../../http/validation'
import * as I from '../inbox/support'
import { body, patch } from '../livechat/support'
import * as F from '../support/fixtures'
import { seedWorld, WORLD_ENV, type World } from '../support/routeWorld'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Issue 18, defect 1: a NUL character or an unpaired UTF-16 surrogate in any string answered 500
 * (PostgreSQL refuses NUL in text; a lone surrogate has no UTF-8 form). Now the one decoder of
 * bodies, multipart text fields, queries and path parameters refuses them: 422 `validation_error`
 * with the field's path in `error.fields` (a path parameter: 404, it names nothing), on the
 * outsiders' routes (channel key, visitor, public) as on the members' (docs/decisions.md,
 * "Hardening (input)").
 */
let s: TestServer
let world: World
beforeAll(async () => {
  s = await startTestServer(WORLD_ENV)
  world = await seedWorld(s)
}, 60_000)
afterAll(() => s?.stop())

const BAD = ['a\u0000b', '\ud800', 'x\udfff', '\udc00\ud83d'] as const
const send = (method: string, p: string, b: unknown, headers: Record<string, string>) =>
  s.fetch(p, { ...F.json(b, headers), method })

const expectRefused = async (res: Response, field: string) => {
  const text = await res.text()
  expect(res.status, text).toBe(422)
  const got = JSON.parse(text) as { error: { code: string; fields: Record<string, string> } }
  expect(got.error.code).toBe('validation_error')
  expect(Object.keys(got.error.fields), text).toContain(field)
}

describe('unstorable text', () => {
  it('finds NUL and unpaired surrogates at any depth, in keys too, and lets pairs and RTL pass', () => {
    expect(unstorableText({ a: ['ok', 'x\u0000'], b: { c: '\ud800' }, 'k\u0000': 1 })).toEqual([
      ['a', '1'],
      ['b', 'c'],
      [],
    ])
    expect(unstorableText({ a: '😀 \u202eשלום مرحبا', b: [1, null, true] })).toEqual([])
  })

  it('reaches every path parameter: each route with one decodes it through a schema', () => {
    const raw = allRoutes()
      .filter((r) => r.path.includes('{') && !r.params)
      .map((r) => `${r.method} ${r.path}`)
    expect(raw).toEqual([])
  })

  it.each(BAD)('is refused on the channel API (channel key): %j', async (bad) => {
    const res = await send(
      'POST',
      '/v1/channel-api/messages',
      { conversation_id: 'c-1', contact: { name: bad }, message: { id: `m-${Math.random()}`, text: bad } },
      F.bearer(world.channelKey),
    )
    await expectRefused(res, 'message.text')
  })

  it('is refused on the live chat visitor endpoints, JSON and multipart, and on starting a chat', async () => {
    const v = F.bearer(world.visitorToken)
    const key = world.livechatKey
    await expectRefused(
      await send('POST', `/v1/livechat/${key}/messages`, { text: 'a\u0000', client_id: 'c1' }, v),
      'text',
    )
    const form = I.form({ text: 'hello\u0000', client_id: 'c2' })
    await expectRefused(
      await s.fetch(`/v1/livechat/${key}/messages`, { method: 'POST', headers: v, body: form }),
      'text',
    )
    await expectRefused(await send('POST', `/v1/livechat/${key}/typing`, { text: '\ud800' }, v), 'text')
    await expectRefused(
      await send(
        'POST',
        `/v1/livechat/${key}/visitors`,
        { name: 'Vera\u0000', email: 'v@example.com', phone: '+62 812 3456 7890', form_token: 'x' },
        {},
      ),
      'name',
    )
  })

  it('is refused on the members’ write endpoints, and nothing is stored', async () => {
    const h = world.owner.headers()
    const cases: ReadonlyArray<readonly [string, string, unknown, string]> = [
      ['POST', '/v1/templates', { name: 'T\u0000', body: 'b' }, 'name'],
      ['PATCH', `/v1/templates/${world.ids.template}`, { body: 'x\ud800' }, 'body'],
      ['POST', '/v1/conversation-categories', { name: 'C\u0000' }, 'name'],
      ['POST', '/v1/teams', { name: 'T\u0000', type: 'frontline' }, 'name'],
      ['POST', '/v1/roles', { name: 'R\udfff', permissions: [] }, 'name'],
      ['PATCH', '/v1/workspace', { name: 'W\u0000orkspace' }, 'name'],
      ['PATCH', '/v1/billing/profile', { name: 'PT\u0000' }, 'name'],
      ['PATCH', `/v1/channels/${world.ids.livechatChannel}/livechat`, { title: 'Hi\u0000' }, 'title'],
      [
        'POST',
        '/v1/interactions',
        { channel_id: Number(world.ids.msgappChannel), phone: '+6281\u0000' },
        'phone',
      ],
      ['PATCH', `/v1/interactions/${world.ids.conversation}`, { subject: ['ok', '\ud800'] }, 'subject.1'],
    ]
    for (const [method, p, b, field] of cases) await expectRefused(await send(method, p, b, h), field)
    const names = await I.sql<{ n: number }>(
      s,
      (db) =>
        db`SELECT count(*)::int AS n FROM templates WHERE workspace_id = ${world.w.workspaceId} AND name LIKE 'T%' AND name <> 'World'`,
    )
    expect(names[0]!.n).toBe(0)
  })

  it('is refused in a field the route does not read, too (an extra field is no way around it)', async () => {
    await expectRefused(
      await send(
        'POST',
        '/v1/teams',
        { name: 'Fine', type: 'frontline', note: '\u0000' },
        world.owner.headers(),
      ),
      'note',
    )
  })

  it('is refused in queries (422 on the parameter) and path parameters (404)', async () => {
    const k = F.bearer(world.writeKey)
    await expectRefused(await s.fetch('/v1/interactions?q=a%00b', { headers: k }), 'q')
    const res = await s.fetch('/v1/teams/1%00', { headers: k })
    expect(res.status).toBe(404)
    const byKey = await s.fetch(`/v1/livechat/${world.livechatKey}%00/config`)
    expect(byKey.status).toBe(404)
    expect((await body(byKey)).error.code).toBe('not_found')
  })

  it('leaves well-formed text alone: pairs, RTL marks and other scripts are stored as sent', async () => {
    const name = '😀 \u202eשלום مرحبا'
    const res = await s.fetch(`/v1/teams/${world.ids.team}`, patch({ name }, world.owner.headers()))
    expect(res.status, await res.clone().text()).toBe(200)
    expect((await body(res)).data.name).toBe(name)
  })
})
