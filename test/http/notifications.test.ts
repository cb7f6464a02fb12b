import { afterAll, beforeAll, expect, it } from 'vitest'
import * as Notifications from '../../actors/notifications'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

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

it('delivers notification.created on user:{id} and lists the 20 latest with the unread count', async () => {
  const token = await body(
    await s.fetch('/v1/realtime/token', F.json({ channels: [`user:${w.ownerId}`] }, owner.headers())),
  )
  const c = await connect(token.data.url)
  await c.next((f) => f.op === 'subscribed')
  for (let i = 1; i <= 22; i++) {
    await s.run(
      Notifications.notify({
        workspaceId: w.workspaceId,
        userId: w.ownerId,
        kind: 'test',
        title: `Hello ${i}`,
      }),
    )
  }
  const first = await c.next((f) => f.event === 'notification.created')
  expect(first.data).toMatchObject({ title: 'Hello 1', read: false, kind: 'test' })

  const list = await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))
  expect(list.data).toHaveLength(20)
  expect(list.data[0].title).toBe('Hello 22')
  expect(list.meta).toEqual({ unread: 22, limit: 20 })

  const one = await s.fetch('/v1/notifications/read', F.json({ id: list.data[0].id }, owner.headers()))
  expect(await body(one)).toEqual({ data: { marked: 1 }, meta: { unread: 21 } })
  const all = await s.fetch('/v1/notifications/read', F.json({}, owner.headers()))
  expect(await body(all)).toEqual({ data: { marked: 21 }, meta: { unread: 0 } })
  c.close()
})

it('hides other users’ notifications (404) and is app-only', async () => {
  const agent = await F.member(s, w, 'Agent')
  const theirs = await s.run(
    Notifications.notify({ workspaceId: w.workspaceId, userId: agent.id, kind: 'test', title: 'Private' }),
  )
  const res = await s.fetch('/v1/notifications/read', F.json({ id: theirs.id }, owner.headers()))
  expect(res.status).toBe(404)
  expect((await s.fetch('/v1/notifications', { headers: F.bearer(await F.apiKey(s, w)) })).status).toBe(403)
})
