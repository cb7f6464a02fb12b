import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH } from '../../http/validation'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { seedWorld, WORLD_ENV, type World } from '../support/routeWorld'
import { startTestServer, type TestServer } from '../support/server'

/**
 * A request body's bytes before any schema sees them (docs/decisions.md, "Hardening (input)"):
 * bytes that are not UTF-8 are refused, not replaced with U+FFFD and stored; JSON nested deeper
 * than `MAX_JSON_DEPTH` is refused before anything walks it (it used to overflow the stack: 500).
 * Both are 422 `validation_error` on `body`, on JSON and multipart bodies alike.
 */
let s: TestServer
let world: World
beforeAll(async () => {
  s = await startTestServer(WORLD_ENV)
  world = await seedWorld(s)
}, 60_000)
afterAll(() => s?.stop())

/** `a`, the bytes FF FE (never UTF-8), `b`. */
const BAD_TEXT = [0x61, 0xff, 0xfe, 0x62]
/** A JSON body with `field` set to `BAD_TEXT`, and the other fields as given. */
const withBadBytes = (field: string, rest: Record<string, unknown>) => {
  const text = JSON.stringify({ ...rest, [field]: '\u0000' })
  const [before, after] = text.split('"\\u0000"') as [string, string]
  const enc = new TextEncoder()
  return new Uint8Array([...enc.encode(`${before}"`), ...BAD_TEXT, ...enc.encode(`"${after}`)])
}
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

const send = (method: string, p: string, body: RequestInit['body'], headers: Record<string, string>) =>
  s.fetch(p, { method, headers: { 'content-type': 'application/json', ...headers }, body })

const expectRefused = async (res: Response, key: string) => {
  const text = await res.text()
  expect(res.status, text).toBe(422)
  const got = JSON.parse(text) as { error: { code: string; fields: Record<string, string> } }
  expect(got.error.code, text).toBe('validation_error')
  expect(Object.keys(got.error.fields), text).toEqual(['body'])
  expect(got.error.fields.body, text).toBe(key)
}

describe('bytes that are not UTF-8', () => {
  it('are refused on every kind of JSON write, and nothing is stored', async () => {
    const h = world.owner.headers()
    const ticket = (await I.body(await s.fetch(`/v1/tickets/${world.ids.ticket}`, { headers: h }))).data
    const cases: ReadonlyArray<readonly [string, string, Uint8Array]> = [
      ['POST', '/v1/tickets', withBadBytes('subject', { team_id: ticket.team.id })],
      ['PATCH', `/v1/tickets/${world.ids.ticket}`, withBadBytes('subject', {})],
      ['POST', '/v1/contacts', withBadBytes('name', {})],
      ['PATCH', `/v1/contacts/${world.ids.contact}`, withBadBytes('name', {})],
      ['POST', '/v1/kb/articles', withBadBytes('title', {})],
      ['PATCH', `/v1/kb/articles/${world.ids.kbArticle}`, withBadBytes('title', {})],
      ['POST', '/v1/clients', withBadBytes('name', {})],
      ['POST', '/v1/labels', withBadBytes('name', {})],
    ]
    for (const [method, p, b] of cases) {
      const res = await send(method, p, b, h)
      await expectRefused(res, 'is not UTF-8 text')
    }
    const stored = await I.sql<{ n: number }>(
      s,
      (db) =>
        db`SELECT (SELECT count(*) FROM tickets WHERE workspace_id = ${world.w.workspaceId} AND subject LIKE ${'%\ufffd%'})
            + (SELECT count(*) FROM contacts WHERE workspace_id = ${world.w.workspaceId} AND name LIKE ${'%\ufffd%'})
            + (SELECT count(*) FROM kb_articles WHERE workspace_id = ${world.w.workspaceId} AND title LIKE ${'%\ufffd%'}) AS n`,
    )
    expect(Number(stored[0]!.n)).toBe(0)
  })

  it('are refused from outsiders too (channel key, public) and in a multipart text field', async () => {
    const res = await send(
      'POST',
      '/v1/channel-api/messages',
      new Uint8Array([
        ...new TextEncoder().encode('{"conversation_id":"c-utf8","message":{"id":"m-utf8","text":"'),
        ...BAD_TEXT,
        ...new TextEncoder().encode('"}}'),
      ]),
      F.bearer(world.channelKey),
    )
    await expectRefused(res, 'is not UTF-8 text')
    // A multipart text field: the live chat visitor's message (the form a browser sends).
    const boundary = 'kotakboundary'
    const enc = new TextEncoder()
    const form = new Uint8Array([
      ...enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\n`),
      ...BAD_TEXT,
      ...enc.encode(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="client_id"\r\n\r\nu1`),
      ...enc.encode(`\r\n--${boundary}--\r\n`),
    ])
    const multipart = await s.fetch(`/v1/livechat/${world.livechatKey}/messages`, {
      method: 'POST',
      headers: {
        ...F.bearer(world.visitorToken),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      body: form,
    })
    const text = await multipart.text()
    expect(multipart.status, text).toBe(422)
    const got = JSON.parse(text) as { error: { code: string; fields: Record<string, string> } }
    expect(got.error.code).toBe('validation_error')
    expect(Object.keys(got.error.fields)).toEqual(['text'])
  })

  it('leave UTF-8 alone: other scripts, emoji and U+FFFD itself are stored as sent', async () => {
    const name = 'Siti 😀 שלום \ufffd é'
    const res = await s.fetch('/v1/labels', F.json({ name }, world.owner.headers()))
    expect(res.status, await res.clone().text()).toBe(201)
    expect((await I.body(res)).data.name).toBe(name)
  })
})

describe('JSON nested too deep', () => {
  it(`is refused beyond ${MAX_JSON_DEPTH} levels, with or without credentials, and never a 500`, async () => {
    const h = world.owner.headers()
    const deep = nested(9000)
    for (const [method, p, headers] of [
      ['POST', '/v1/plan-requests', h],
      ['POST', '/v1/plan-requests', {}],
      ['POST', '/v1/payments/local/callback', {}],
      ['POST', '/v1/contacts', h],
      ['POST', '/v1/channel-api/messages', F.bearer(world.channelKey)],
    ] as const) {
      await expectRefused(await send(method, p, deep, headers), `nests deeper than ${MAX_JSON_DEPTH} levels`)
    }
    // Objects count as arrays do; brackets inside strings count for nothing.
    const objects = `${'{"a":'.repeat(MAX_JSON_DEPTH + 1)}1${'}'.repeat(MAX_JSON_DEPTH + 1)}`
    await expectRefused(
      await send('POST', '/v1/contacts', objects, h),
      `nests deeper than ${MAX_JSON_DEPTH} levels`,
    )
  })

  it(`takes ${MAX_JSON_DEPTH} levels, and brackets inside strings`, async () => {
    const h = world.owner.headers()
    // The body is an object (one level) whose `name` is a string full of brackets.
    const brackets = JSON.stringify({ name: `Budi ${'[{'.repeat(50)}\\"` })
    const res = await send('POST', '/v1/contacts', brackets, h)
    expect(res.status, await res.clone().text()).toBe(201)
    // At the limit the schema, not the depth, is what answers.
    let body = '"x"'
    for (let i = 1; i < MAX_JSON_DEPTH; i++) body = `{"a":${body}}`
    const atLimit = await send('POST', '/v1/contacts', `{"name":"Budi deep","x":${body}}`, h)
    expect(atLimit.status, await atLimit.clone().text()).toBe(201)
  })
})
