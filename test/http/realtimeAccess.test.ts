import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import type { Client } from '../support/ws'

/**
 * A socket gets a conversation's events only while its person may see that conversation over
 * HTTP (spec 1 §6 rule 1, the one visibility rule): not with a permission HTTP asks for and they
 * lack, and not after a change to their membership, role or teams took the conversation out of
 * their sight; and a session that ends closes the sockets it opened.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let channelId: number

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  channelId = (await I.channel(s, w, 'api')).id
})
afterAll(() => s?.stop())

const memberIdOf = async (userId: number) => {
  const r = await I.body(await s.fetch('/v1/members', { headers: owner.headers() }))
  return (r.data as Array<{ id: number; user: { id: number } }>).find((m) => m.user.id === userId)!.id
}

/** The owner changes the member `userId` is (PATCH /v1/members/{id}). */
const editMember = async (userId: number, change: Record<string, unknown>) => {
  const res = await s.fetch(`/v1/members/${await memberIdOf(userId)}`, I.patch(change, owner.headers()))
  expect(res.status).toBe(200)
}

/** `who` subscribed to the conversation's channel. */
const watching = async (who: F.Session, convId: number) => {
  const { c, answer } = await I.socketFor(s, who, `conv:${convId}`)
  expect(answer.op).toBe('subscribed')
  return c
}

/**
 * An inbound message to `convId`, and the bodies of `message.created` that reached `c`: the
 * owner's socket on the same conversation is the marker (the node publishes to both at once).
 */
const messagesAfterInbound = async (c: Client, convId: number, text: string) => {
  const { c: marker, answer } = await I.socketFor(s, owner, `conv:${convId}`)
  expect(answer.op).toBe('subscribed')
  await I.inbound(s, convId, text)
  await marker.next((f) => f.event === 'message.created' && (f.data as { body: string }).body === text)
  await new Promise((r) => setTimeout(r, 100))
  marker.close()
  return c.frames
    .filter((f) => f.event === 'message.created')
    .map((f) => (f.data as { body: string }).body)
    .filter((b) => b === text)
}

/** A change by the owner, then `conv:` of `convId` answered `unsubscribed {access_lost}`. */
const losesAccess = async (c: Client, convId: number) => {
  const f = await c.next((x) => x.op === 'unsubscribed' && x.channel === `conv:${convId}`)
  expect(f.reason).toBe('access_lost')
}

describe('a conversation channel and the permission HTTP asks for', () => {
  it('refuses a view-all member whose role lacks interactions.view, as HTTP does (403)', async () => {
    const x = await I.agent(s, w, await I.role(s, w, ['leads.view']))
    await I.setMember(s, w, x.user.id, { viewAll: true })
    const conv = await I.conversation(s, w, { channelId, assigneeId: w.ownerId })
    expect((await s.fetch(`/v1/interactions/${conv.id}`, { headers: x.session.headers() })).status).toBe(403)
    const { c, answer } = await I.socketFor(s, x.session, `conv:${conv.id}`)
    expect(answer).toMatchObject({ op: 'refused', code: 'forbidden' })
    expect(await messagesAfterInbound(c, conv.id, 'private customer text')).toEqual([])
    c.close()
  })
})

describe('a change that takes a conversation out of sight ends its subscription', () => {
  it('view-all turned off', async () => {
    const x = await I.agent(s, w, 'Agent')
    await I.setMember(s, w, x.user.id, { viewAll: true })
    const conv = await I.conversation(s, w, { channelId, assigneeId: w.ownerId })
    const c = await watching(x.session, conv.id)
    await editMember(x.user.id, { view_all: false })
    await losesAccess(c, conv.id)
    expect((await s.fetch(`/v1/interactions/${conv.id}`, { headers: x.session.headers() })).status).toBe(404)
    expect(await messagesAfterInbound(c, conv.id, 'after view-all was turned off')).toEqual([])
    c.close()
  })

  it('channel access narrowed to another channel', async () => {
    const other = (await I.channel(s, w, 'api')).id
    const x = await I.agent(s, w, 'Agent')
    const conv = await I.conversation(s, w, { channelId })
    const c = await watching(x.session, conv.id)
    await editMember(x.user.id, { channel_access: 'selected', channel_ids: [other] })
    await losesAccess(c, conv.id)
    expect(await messagesAfterInbound(c, conv.id, 'after channel access was narrowed')).toEqual([])
    c.close()
  })

  it('removed from the Frontline team the conversation belongs to', async () => {
    const x = await I.agent(s, w, 'Agent')
    const t1 = await I.team(s, w, [x.user.id])
    await I.team(s, w, [x.user.id]) // a second team: leaving the first is allowed
    const conv = await I.conversation(s, w, { channelId, teamId: t1 })
    const c = await watching(x.session, conv.id)
    expect((await s.fetch(`/v1/teams/${t1}`, I.patch({ member_ids: [] }, owner.headers()))).status).toBe(200)
    await losesAccess(c, conv.id)
    expect(await messagesAfterInbound(c, conv.id, 'after leaving the team')).toEqual([])
    c.close()
  })

  it('role changed from Admin to Agent, for a conversation assigned to someone else', async () => {
    const x = await I.agent(s, w, 'Admin')
    const roles = (await I.body(await s.fetch('/v1/roles', { headers: owner.headers() }))).data as Array<{
      id: number
      name: string
    }>
    const team = await I.team(s, w, [x.user.id])
    const conv = await I.conversation(s, w, { channelId, assigneeId: w.ownerId })
    const c = await watching(x.session, conv.id)
    await editMember(x.user.id, { role_id: roles.find((r) => r.name === 'Agent')!.id, team_ids: [team] })
    await losesAccess(c, conv.id)
    expect(await messagesAfterInbound(c, conv.id, 'after the demotion')).toEqual([])
    c.close()
  })

  it('keeps a subscription the change left visible', async () => {
    const other = (await I.channel(s, w, 'api')).id
    const x = await I.agent(s, w, 'Agent')
    const conv = await I.conversation(s, w, { channelId })
    const c = await watching(x.session, conv.id)
    await editMember(x.user.id, { channel_access: 'selected', channel_ids: [channelId, other] })
    expect(await messagesAfterInbound(c, conv.id, 'still visible')).toEqual(['still visible'])
    expect(c.frames.filter((f) => f.op === 'unsubscribed')).toEqual([])
    c.close()
  })
})

describe('a session that ends closes its sockets', () => {
  it('signing out (POST /auth/logout) closes that session’s socket with 4503; other sessions stay', async () => {
    const a = await F.signIn(s, w.ownerEmail)
    const { c, answer } = await I.socketFor(s, a, `ws:${w.workspaceId}`)
    expect(answer.op).toBe('subscribed')
    const { c: stays } = await I.socketFor(s, owner, `ws:${w.workspaceId}`)
    const out = await s.fetch('/auth/logout', F.json({}, a.headers()))
    expect(out.status).toBe(200)
    expect(await c.closed).toEqual({ code: 4503, reason: 'access_lost' })
    expect((await s.fetch('/v1/me', { headers: a.headers() })).status).toBe(401)
    const res = await s.fetch('/v1/workspace', I.patch({ name: `Renamed ${Date.now()}` }, owner.headers()))
    expect(res.status).toBe(200)
    await stays.next((f) => f.event === 'workspace.updated')
    expect(c.frames.filter((f) => f.event === 'workspace.updated')).toEqual([])
    stays.close()
  })
})
