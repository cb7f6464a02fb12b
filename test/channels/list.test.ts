import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>

it('lists only the channels a member on selected-channel access has; managers and keys see all', async () => {
  const ids: number[] = []
  for (const name of ['A', 'B']) {
    const r = await body(await s.fetch('/v1/channels/api', F.json({ name }, owner.headers())))
    ids.push(r.data.id)
  }
  const agent = await F.member(s, w, 'Agent')
  await s.run(
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) => sql`UPDATE members SET channel_access = 'selected', channel_ids = ${`{${ids[1]}}`}::int[]
                   WHERE user_id = ${agent.id} AND workspace_id = ${w.workspaceId}`,
    ),
  )
  const session = await F.signIn(s, agent.email)
  const mine = await body(await s.fetch('/v1/channels', { headers: session.headers() }))
  expect(mine.data.map((c: any) => c.id)).toEqual([ids[1]])
  expect(mine.meta.quota).toEqual({ used: 2, limit: 10 })
  // Channel configuration needs channels.manage.
  expect((await s.fetch(`/v1/channels/${ids[1]}`, { headers: session.headers() })).status).toBe(403)

  const all = await body(await s.fetch('/v1/channels', { headers: F.bearer(await F.apiKey(s, w)) }))
  expect(all.data.map((c: any) => c.id)).toEqual(ids)
  const managed = await body(await s.fetch('/v1/channels', { headers: owner.headers() }))
  expect(managed.data).toHaveLength(2)
  expect(managed.data[0]).toMatchObject({
    type: 'api',
    name: 'A',
    status: 'active',
    hours: null,
    icon_url: null,
  })
})

it("hides another workspace's channel (404)", async () => {
  const other = await F.workspace(s, { plan: 'pro' })
  const o = await F.signIn(s, other.ownerEmail)
  const r = await body(await s.fetch('/v1/channels/api', F.json({ name: 'theirs' }, o.headers())))
  expect((await s.fetch(`/v1/channels/${r.data.id}`, { headers: owner.headers() })).status).toBe(404)
  expect((await s.fetch(`/v1/channels/${r.data.id}/api/secret`, { headers: owner.headers() })).status).toBe(
    404,
  )
  expect(
    (await s.fetch(`/v1/channels/${r.data.id}`, { method: 'DELETE', headers: owner.headers() })).status,
  ).toBe(404)
})
