import { SqlError } from '@effect/sql/SqlError'
import { Cause, Effect, Schema } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pageFields, pageMeta, pageOf } from '../../actors/pagination'
import { ActorDefect } from '../../engine/actor/Actor'
import { makeLogger } from '../../engine/log'
import { handle } from '../../http/apiPipeline'
import { failureResponse, type Incoming } from '../../http/pipeline'
import { ok, type Route, route } from '../../http/route'
import * as Router from '../../http/router'
import { DatabaseDown } from '../../store/pool'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Rules of the kernel that no endpoint of this stage exercises yet (a K mutation, permission
 * alternatives, pagination) are checked in-process, Hono-style: the real pipeline, auth and
 * database, with probe routes declared the way domain modules declare theirs.
 */
let s: TestServer
let w: F.Seeded
const router = Router.make<Route>()

const probes: Route[] = [
  route({
    method: 'POST',
    path: '/v1/probe/write',
    access: 'K',
    tag: 'Probe',
    summary: 'a K mutation',
    handler: () => Effect.succeed(ok({ written: true })),
  }),
  route({
    method: 'GET',
    path: '/v1/probe/either',
    access: 'K',
    permission: ['settings.roles', 'settings.members'],
    tag: 'Probe',
    summary: 'needs one of two permissions',
    handler: () => Effect.succeed(ok({ allowed: true })),
  }),
  route({
    method: 'GET',
    path: '/v1/probe/items',
    access: 'K',
    tag: 'Probe',
    summary: 'a paginated list of 57 items',
    query: Schema.Struct(pageFields),
    handler: ({ query }) => {
      const page = pageOf(query)
      const all = Array.from({ length: 57 }, (_, i) => i + 1)
      return Effect.succeed(ok(all.slice(page.offset, page.offset + page.limit), pageMeta(page, all.length)))
    },
  }),
]

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  for (const p of probes) router.add(p.method, p.path, p)
})
afterAll(() => s?.stop())

const call = async (method: string, path: string, headers: Record<string, string>, query = '') => {
  const req: Incoming = {
    method,
    path,
    query,
    headers: new Map(Object.entries(headers)),
    body: null,
    ip: () => '127.0.0.1',
  }
  const out = await s.run(handle(router, req))
  return { status: out.status, body: JSON.parse(String(out.body)) as Record<string, any> }
}

describe('scopes and permissions', () => {
  it('refuses a read key changing data with 403, lets a write key through', async () => {
    const read = await call('POST', '/v1/probe/write', F.bearer(await F.apiKey(s, w, 'read')))
    expect(read.status).toBe(403)
    expect(read.body.error.code).toBe('forbidden')
    expect(read.body.error.message).toMatch(/read-only/)
    const write = await call('POST', '/v1/probe/write', F.bearer(await F.apiKey(s, w, 'write')))
    expect(write.status).toBe(200)
  })

  it('accepts either permission of an alternative and refuses neither', async () => {
    const agent = await F.member(s, w, 'Agent')
    const session = await F.signIn(s, agent.email)
    expect((await call('GET', '/v1/probe/either', session.headers())).status).toBe(403)
    const admin = await F.member(s, w, 'Admin')
    expect((await call('GET', '/v1/probe/either', (await F.signIn(s, admin.email)).headers())).status).toBe(
      200,
    )
    // An API key holds every permission.
    expect((await call('GET', '/v1/probe/either', F.bearer(await F.apiKey(s, w, 'read')))).status).toBe(200)
  })
})

describe('pagination', () => {
  it('defaults to 25 per page with the meta of spec 1 §2', async () => {
    const key = await F.apiKey(s, w, 'read')
    const first = await call('GET', '/v1/probe/items', F.bearer(key))
    expect(first.body.data).toHaveLength(25)
    expect(first.body.meta).toEqual({ page: 1, per_page: 25, total: 57, pages: 3, has_more: true })
    const last = await call('GET', '/v1/probe/items', F.bearer(key), 'page=2&per_page=50')
    expect(last.body.data).toEqual([51, 52, 53, 54, 55, 56, 57])
    expect(last.body.meta).toEqual({ page: 2, per_page: 50, total: 57, pages: 2, has_more: false })
  })

  it.each([
    ['per_page=101', 'per_page', 'must be at most 100'],
    ['per_page=0', 'per_page', 'must be at least 1'],
    ['page=0', 'page', 'must be at least 1'],
    ['page=abc', 'page', 'must be a number'],
    ['page=1.5', 'page', 'must be an integer'],
  ])('refuses %s with 422', async (query, field, message) => {
    const res = await call('GET', '/v1/probe/items', F.bearer(await F.apiKey(s, w, 'read')), query)
    expect(res.status).toBe(422)
    expect(res.body.error.fields).toEqual({ [field]: message })
  })
})

describe('a database that cannot serve', () => {
  const answer = (cause: Cause.Cause<unknown>) => {
    const out = failureResponse(
      cause,
      { headers: [], locale: 'en', requestId: 'r' },
      makeLogger('error', () => {}),
      {
        route: '/v1/probe',
        method: 'GET',
      },
    )
    const body = JSON.parse(String(out.body)) as { error: { code: string } }
    return { status: out.status, code: body.error.code, retryAfter: new Map(out.headers).get('Retry-After') }
  }

  it('answers 503 `unavailable`: Retry-After 1 when out of reach, 2 when busy, however deep the cause', () => {
    const refused = new SqlError({
      message: 'Failed to acquire connection',
      cause: new DatabaseDown('no answer'),
    })
    expect(answer(Cause.fail(refused))).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' })
    const waited = new SqlError({
      message: 'Failed to acquire connection',
      cause: new Error('timeout exceeded when trying to connect'),
    })
    expect(answer(Cause.fail(waited))).toEqual({ status: 503, code: 'unavailable', retryAfter: '2' })
    // A transaction whose connection went away dies in its ROLLBACK (the SQL client's `orDie`),
    // which crashes the actor running it; from another node its cause comes as text.
    const lost = new SqlError({
      message: 'Failed to execute statement',
      cause: new Error('Connection terminated unexpectedly'),
    })
    const crashed = (cause: Cause.Cause<unknown>) =>
      Cause.fail(new ActorDefect({ actor: 'conversation', id: '4', tag: 'Append', cause }))
    expect(answer(crashed(Cause.die(lost)))).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' })
    const remote = Cause.die(new Error(Cause.pretty(Cause.die(lost), { renderErrorCause: true })))
    expect(answer(crashed(remote))).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' })
    // A statement whose connection was cut under it (the failover bench's PostgreSQL outage): on
    // its own node the error's code says so, from another node only the words do.
    for (const [syscall, code] of [
      ['read', 'ECONNRESET'],
      ['write', 'EPIPE'],
    ]) {
      const reset = new SqlError({
        message: 'Failed to execute statement',
        cause: Object.assign(new Error(`${syscall} ${code}`), { code, syscall }),
      })
      expect(answer(crashed(Cause.die(reset)))).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' })
      const text = Cause.die(new Error(Cause.pretty(Cause.die(reset), { renderErrorCause: true })))
      expect(answer(crashed(text))).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' })
    }
    // Anything else is the server's fault.
    expect(answer(crashed(Cause.die(new Error('a bug')))).status).toBe(500)
  })
})
