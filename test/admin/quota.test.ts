import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/** The user quota of spec 1 §4.2 (`meta.users`, `meta.quota_error`) on a Free workspace (3 users). */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })

describe('user quota', () => {
  it('says when the workspace is full, in the caller’s language; enabling past the limit is 402', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    const owner = await F.signIn(s, w.ownerEmail)
    const a = await F.member(s, w, 'Admin')
    const b = await F.member(s, w, 'Admin')
    const list = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
    expect(list.meta.users).toEqual({ used: 3, limit: 3 })
    expect(list.meta.quota_error).toEqual(expect.any(String))
    const id = await body(await s.fetch('/v1/members', { headers: owner.headers({ 'x-locale': 'id' }) }))
    expect(id.meta.quota_error).not.toBe(list.meta.quota_error)

    const mb = list.data.find((m: any) => m.user.id === b.id)
    expect(
      (await s.fetch(`/v1/members/${mb.id}`, patch({ status: 'disabled' }, owner.headers()))).status,
    ).toBe(200)
    const freed = await body(await s.fetch('/v1/members', { headers: owner.headers() }))
    expect(freed.meta).toMatchObject({ users: { used: 2, limit: 3 }, quota_error: null })
    // Someone else takes the place; enabling the disabled member no longer fits.
    await F.member(s, w, 'Admin')
    const refused = await s.fetch(`/v1/members/${mb.id}`, patch({ status: 'active' }, owner.headers()))
    expect(refused.status).toBe(402)
    expect((await body(refused)).error.code).toBe('plan_required')
    const dash = await body(await s.fetch('/v1/dashboard', { headers: owner.headers() }))
    expect(dash.data.quota.users).toMatchObject({ used: 3, limit: 3 })
    expect(a.id).toBeGreaterThan(0)
  })
})
