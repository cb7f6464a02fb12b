import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api, type Who } from '../contacts/support'
import { linkedNumber } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { advance, ENV, get, sql, warmedUp } from './support'

/**
 * Broadcasts follow the member's channel access as the inbox does. Found by the review of session
 * 39: a member allowed broadcasts but only some channels still listed, read and exported (the
 * customers' names and phone numbers) the broadcasts of the other numbers, saw them on the
 * dashboard and could draft one on a number they cannot access.
 */
let s: TestServer
let owner: Who
let marketer: Who
let mine = 0
let theirs = 0
let contactId = 0

const draft = (who: Who, name: string, channelId: number) =>
  api(s, who).post('/v1/broadcasts', {
    name,
    channel_id: channelId,
    audience: { contact_ids: [contactId] },
    messages: [{ text: 'Halo {{first_name}}, promo minggu ini!' }],
    settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 0 },
  })

beforeAll(async () => {
  s = await startTestServer({ ...ENV, REDIS_URL: '' })
  const w = await F.workspace(s, { plan: 'pro' })
  const session = await F.signIn(s, w.ownerEmail)
  owner = session.headers()
  const a = await linkedNumber(s, session, '6281277900001')
  const b = await linkedNumber(s, session, '6281277900002')
  mine = a.ch.id
  theirs = b.ch.id
  await warmedUp(s, mine)
  await warmedUp(s, theirs)
  contactId = (await api(s, owner).post('/v1/contacts', { name: 'Sari Rahasia', phone: '+6281277911101' }))
    .data.id
  const role = await api(s, owner).post('/v1/roles', {
    name: 'Marketer',
    permissions: ['broadcasts.view', 'broadcasts.manage'],
  })
  expect(role.status, JSON.stringify(role.error)).toBe(201)
  const user = await F.member(s, w, 'Marketer')
  await sql(
    s,
    (db) => db`UPDATE members SET channel_access = 'selected', channel_ids = ${`{${mine}}`}::int[]
      WHERE user_id = ${user.id} AND workspace_id = ${w.workspaceId} RETURNING id`,
  )
  marketer = (await F.signIn(s, user.email)).headers()
}, 60_000)
afterAll(() => s?.stop())

describe('broadcasts and channel access', () => {
  it('hides the broadcasts of a channel the member cannot access, and refuses drafting on it', async () => {
    const other = await draft(owner, 'Their promo', theirs)
    expect(other.status, JSON.stringify(other.error)).toBe(201)
    const id = other.data.id as number
    expect((await api(s, owner).post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })).status).toBe(200)
    for (let i = 0; i < 200; i++) {
      if ((await get(s, owner, `/v1/broadcasts/${id}`)).data.status === 'completed') break
      await advance(s, 2500)
      await new Promise((r) => setTimeout(r, 30))
    }
    expect((await get(s, owner, `/v1/broadcasts/${id}`)).data.status).toBe('completed')
    const own = await draft(marketer, 'My promo', mine)
    expect(own.status, JSON.stringify(own.error)).toBe(201)

    // The owner sees both; the member only the one on their number.
    const all = await get(s, owner, '/v1/broadcasts')
    expect(all.data.map((b: { id: number }) => b.id).sort()).toEqual([id, own.data.id].sort())
    const listed = await get(s, marketer, '/v1/broadcasts')
    expect(listed.data.map((b: { id: number }) => b.id)).toEqual([own.data.id])
    expect(listed.meta.stats).toMatchObject({ all: 1, completed: 0, draft: 1 })
    expect(listed.meta.total).toBe(1)

    // Detail, recipients, export, actions: 404 as for another workspace's broadcast.
    const m = api(s, marketer)
    expect((await m.get(`/v1/broadcasts/${id}`)).status).toBe(404)
    expect((await m.get(`/v1/broadcasts/${id}/recipients`)).status).toBe(404)
    const exported = await s.fetch(`/v1/broadcasts/${id}/export?format=csv`, { headers: marketer })
    expect(exported.status).toBe(404)
    expect(await exported.text()).not.toContain('Rahasia')
    expect((await m.post(`/v1/broadcasts/${id}/duplicate`)).status).toBe(404)
    expect((await m.del(`/v1/broadcasts/${id}`)).status).toBe(404)
    expect((await get(s, owner, `/v1/broadcasts/${id}/recipients`)).data).toHaveLength(1)

    // The dashboard counts only the member's numbers.
    const ownerBoard = (await get(s, owner, '/v1/broadcasts/dashboard')).data
    expect(ownerBoard.funnel.recipients).toBe(1)
    expect(ownerBoard.latest.map((b: { id: number }) => b.id)).toEqual([id])
    const board = (await get(s, marketer, '/v1/broadcasts/dashboard')).data
    expect(board.funnel).toMatchObject({ recipients: 0, sent: 0 })
    expect(board.latest).toEqual([])
    expect(board.best).toEqual([])
    expect(board.numbers.map((n: { channel_id: number }) => n.channel_id)).toEqual([mine])
    const options = (await get(s, marketer, '/v1/broadcasts/options')).data
    expect(options.numbers.map((n: { id: number }) => n.id)).toEqual([mine])

    // Drafting on, or moving a draft to, the other number is refused as an unknown number.
    const refused = await draft(marketer, 'Sneaky', theirs)
    expect(refused.status).toBe(422)
    expect(refused.error.fields.channel_id).toBeDefined()
    const moved = await m.patch(`/v1/broadcasts/${own.data.id}`, { channel_id: theirs })
    expect(moved.status).toBe(422)
  })
})
