import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Users from '../../store/users'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * The first run in the browser, through HTTP: the one-time setup link a node logs when it starts
 * on an install with no workspace and no user (`First run: open …/app/setup/{token} …`), checking
 * it (`GET /v1/setup/{token}`) and claiming the install with it (`POST /v1/setup`): the first
 * workspace and its owner, signed in; concurrent claims; a link replaced by a restart; no link once
 * a workspace exists; the token in no other log line; the claims' rate limit.
 */

const body = async (res: Response) => (await res.json()) as Record<string, any>

const LINE =
  /^First run: open (\S+)\/app\/setup\/([A-Za-z0-9_-]+) to create the first workspace and its owner$/

/** A server whose log lines are kept, and the setup links found in them so far. */
const logged = async (opts: { durable?: boolean } = {}) => {
  const lines: string[] = []
  const s = await startTestServer({}, { onLog: (l) => lines.push(l), ...opts })
  const tokens = () =>
    lines
      .map((l) => LINE.exec((JSON.parse(l) as { msg: string }).msg))
      .filter((m) => m !== null)
      .map((m) => {
        // PUBLIC_URL (a restart moves the test server to a new port, and its URL with it).
        expect(m[1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
        return m[2]!
      })
  return { s, lines, tokens }
}

/** Another token of the same shape: its last character changed. */
const other = (token: string) => `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`

const claim = (s: TestServer, b: Record<string, unknown>, headers: Record<string, string> = {}) =>
  s.fetch('/v1/setup', F.json(b, headers))

const form = (token: string, extra: Record<string, unknown> = {}) => ({
  token,
  workspace_name: 'Toko Maju',
  name: 'Sari Pemilik',
  email: 'sari@example.com',
  ...extra,
})

const count = (s: TestServer, table: 'workspaces' | 'users' | 'setup_tokens') =>
  s.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql(table)}`, (r) => r[0]!.n),
    ),
  )

describe('first run: the setup link and claiming the install', () => {
  let a: Awaited<ReturnType<typeof logged>>
  beforeAll(async () => {
    a = await logged()
  })
  afterAll(() => a?.s.stop())

  it('logs one setup link at start, at the info level, and checks it', async () => {
    const tokens = a.tokens()
    expect(tokens).toHaveLength(1)
    expect(a.lines.find((l) => l.includes('First run'))).toContain(`${a.s.cfg.publicUrl}/app/setup/`)
    const line = a.lines.find((l) => l.includes('First run'))!
    expect(JSON.parse(line)).toMatchObject({ level: 'info' })
    // Stored only as its digest.
    expect(await count(a.s, 'setup_tokens')).toBe(1)
    const ok = await a.s.fetch(`/v1/setup/${tokens[0]}`)
    expect(ok.status).toBe(200)
    expect((await body(ok)).data).toEqual({ valid: true })
    const wrong = await a.s.fetch(`/v1/setup/${other(tokens[0]!)}`)
    expect(wrong.status).toBe(404)
    expect((await body(wrong)).error.code).toBe('setup_token_invalid')
    const junk = await a.s.fetch('/v1/setup/%E0%A4%A')
    expect(junk.status).toBe(404)
  })

  it('refuses a claim without a token, with a wrong one, or with invalid fields, and keeps the link', async () => {
    const token = a.tokens()[0]!
    const none = await claim(a.s, { workspace_name: 'Toko', name: 'Sari', email: 'sari@example.com' })
    expect(none.status).toBe(422)
    expect(Object.keys((await body(none)).error.fields)).toEqual(['token'])

    const wrong = await claim(a.s, form(other(token)))
    expect(wrong.status).toBe(404)
    expect((await body(wrong)).error.code).toBe('setup_token_invalid')

    const bad = await claim(
      a.s,
      form(token, { workspace_name: 'T', name: '   ', email: 'not-an-address', locale: 'fr' }),
      { 'x-locale': 'id' },
    )
    expect(bad.status).toBe(422)
    const err = (await body(bad)).error
    expect(err.code).toBe('validation_error')
    expect(Object.keys(err.fields).sort()).toEqual(['email', 'locale', 'name', 'workspace_name'])
    expect(err.fields.email).toBe('harus alamat e-mail')
    const long = await claim(a.s, form(token, { workspace_name: 'x'.repeat(121) }))
    expect(long.status).toBe(422)
    expect(Object.keys((await body(long)).error.fields)).toEqual(['workspace_name'])

    expect((await a.s.fetch(`/v1/setup/${token}`)).status).toBe(200)
    expect(await count(a.s, 'workspaces')).toBe(0)
  })

  it('refuses an address that has an account already, and the link still works', async () => {
    const token = a.tokens()[0]!
    await a.s.run(Users.ensure('taken@example.com', 'Someone Else'))
    const taken = await claim(a.s, form(token, { email: 'Taken@Example.com' }))
    expect(taken.status).toBe(409)
    const err = (await body(taken)).error
    expect(err.code).toBe('conflict')
    expect(Object.keys(err.fields)).toEqual(['email'])
    expect((await a.s.fetch(`/v1/setup/${token}`)).status).toBe(200)
    expect(await count(a.s, 'setup_tokens')).toBe(1)
  })

  it('two claims at once: exactly one creates the workspace and signs its owner in, the other is 410', async () => {
    const token = a.tokens()[0]!
    const [one, two] = await Promise.all([
      claim(a.s, form(token, { email: 'first@example.com', name: 'First', locale: 'id' })),
      claim(a.s, form(token, { email: 'second@example.com', name: 'Second', locale: 'id' })),
    ])
    const statuses = [one.status, two.status].sort()
    expect(statuses).toEqual([201, 410])
    const won = one.status === 201 ? one : two
    const lost = one.status === 201 ? two : one
    expect((await body(lost)).error.code).toBe('setup_done')
    expect(lost.headers.getSetCookie()).toEqual([])

    const data = (await body(won)).data
    expect(data.redirect_to).toBe('/app')
    expect(data.workspace).toMatchObject({ name: 'Toko Maju', plan: 'free' })
    // Session cookies exactly like the other ways in: HttpOnly session, readable CSRF token.
    const set = won.headers.getSetCookie()
    expect(set).toHaveLength(2)
    expect(set[0]).toMatch(/^kotak_session=[^;]+; HttpOnly; Path=\/; SameSite=Lax; Max-Age=\d+$/)
    expect(set[1]).toMatch(/^kotak_csrf=[^;]+; Path=\/; SameSite=Lax; Max-Age=\d+$/)
    const cookie = set.map((c) => c.split(';')[0]).join('; ')
    const me = (await body(await a.s.fetch('/v1/me', { headers: { cookie } }))).data
    expect(me.user).toMatchObject({ id: data.user.id, email: data.user.email, locale: 'id' })
    expect(me.workspace.id).toBe(data.workspace.id)
    expect(me.is_owner).toBe(true)
    expect(me.role.name).toBe('Owner')

    // The workspace's log says who created it, from where.
    const log = (await body(await a.s.fetch('/v1/audit-logs', { headers: { cookie } }))).data
    expect(log).toHaveLength(1)
    expect(log[0]).toMatchObject({ action: 'workspace.created', target: 'Toko Maju', ip: '127.0.0.1' })
    expect(log[0].user.id).toBe(data.user.id)

    expect(await count(a.s, 'workspaces')).toBe(1)
    expect(await count(a.s, 'setup_tokens')).toBe(0)
  })

  it('once the install has a workspace, the link and any claim answer 410 setup_done', async () => {
    const token = a.tokens()[0]!
    const check = await a.s.fetch(`/v1/setup/${token}`)
    expect(check.status).toBe(410)
    expect((await body(check)).error.code).toBe('setup_done')
    for (const t of [token, 'anything-else-at-all']) {
      const res = await claim(a.s, form(t, { email: 'third@example.com' }))
      expect(res.status).toBe(410)
      expect((await body(res)).error.code).toBe('setup_done')
    }
    expect(await count(a.s, 'workspaces')).toBe(1)
  })

  it('the token is in no log line but the one that shows the link', () => {
    const token = a.tokens()[0]!
    const carrying = a.lines.filter((l) => l.includes(token))
    expect(carrying).toHaveLength(1)
    expect(LINE.test((JSON.parse(carrying[0]!) as { msg: string }).msg)).toBe(true)
    // Requests were logged about meanwhile (the wrong tokens' failures are no server errors).
    expect(a.lines.some((l) => l.includes('"level":"error"'))).toBe(false)
  })
})

describe('first run: restarts', () => {
  let b: Awaited<ReturnType<typeof logged>>
  beforeAll(async () => {
    b = await logged({ durable: true })
  })
  afterAll(() => b?.s.stop())

  it('a restart with still no workspace prints a new link, and the older one stops working', async () => {
    const [first] = b.tokens()
    expect(first).toBeDefined()
    await b.s.restart()
    const tokens = b.tokens()
    expect(tokens).toHaveLength(2)
    expect(tokens[1]).not.toBe(first)
    expect((await b.s.fetch(`/v1/setup/${first}`)).status).toBe(404)
    expect((await b.s.fetch(`/v1/setup/${tokens[1]}`)).status).toBe(200)
    expect(await count(b.s, 'setup_tokens')).toBe(1)
  })

  it('once a workspace exists (made another way), a start prints no link and leaves no token', async () => {
    await F.workspace(b.s, { name: 'Made by the CLI' })
    const before = b.tokens().length
    await b.s.restart()
    expect(b.tokens()).toHaveLength(before)
    expect(await count(b.s, 'setup_tokens')).toBe(0)
    const last = b.tokens().at(-1)!
    const res = await claim(b.s, form(last))
    expect(res.status).toBe(410)
    expect((await body(res)).error.code).toBe('setup_done')
  })

  it('claims are rate limited per client address (429 with Retry-After)', async () => {
    const answers: number[] = []
    let limited: Response | undefined
    for (let i = 0; i < 12; i++) {
      const res = await claim(b.s, form('no-such-token'))
      answers.push(res.status)
      if (res.status === 429) limited = res
    }
    // One claim was made in the test before: ten a minute, then 429.
    expect(answers.filter((x) => x === 410)).toHaveLength(9)
    expect(answers.slice(9)).toEqual([429, 429, 429])
    expect((await body(limited!)).error.code).toBe('rate_limited')
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})

describe('first run: login CSRF (security review)', () => {
  let c: Awaited<ReturnType<typeof logged>>
  beforeAll(async () => {
    c = await logged()
  })
  afterAll(() => c?.s.stop())

  it('a claim from another site, or in a type a form may send, creates nothing and keeps the link', async () => {
    const token = c.tokens()[0]!
    const crossSite = await claim(c.s, form(token), { 'sec-fetch-site': 'cross-site' })
    expect(crossSite.status).toBe(403)
    expect((await body(crossSite)).error).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/own pages/),
    })
    expect(crossSite.headers.getSetCookie()).toEqual([])
    // A CORS-safelisted type that only mentions JSON: no preflight, so it must not count as JSON.
    const loose = await c.s.fetch('/v1/setup', {
      method: 'POST',
      headers: { 'content-type': 'text/plain; x=application/json' },
      body: JSON.stringify(form(token)),
    })
    expect(loose.status).toBe(422)
    expect((await body(loose)).error.fields.body).toMatch(/application\/json/)
    expect(await count(c.s, 'workspaces')).toBe(0)
    expect((await c.s.fetch(`/v1/setup/${token}`)).status).toBe(200)

    const own = await claim(c.s, form(token), { 'sec-fetch-site': 'same-origin' })
    expect(own.status).toBe(201)
    expect(await count(c.s, 'workspaces')).toBe(1)
  })
})
