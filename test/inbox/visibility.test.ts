import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/**
 * Spec 2 §1 visibility, one rule (store/conversations `visibleWhere`) for the list, the detail and
 * `conv:` subscriptions: unassigned, team-assigned and person-assigned conversations, admins,
 * view-all members, channel access (which binds admins too) and API keys.
 */
let s: TestServer
let w: F.Seeded
const conv: Record<'U' | 'T' | 'P' | 'UB', number> = { U: 0, T: 0, P: 0, UB: 0 }
type Who = { headers: Record<string, string>; session: F.Session | null }
const who: Record<string, Who> = {}

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  const a = await I.channel(s, w, 'msgapp')
  const b = await I.channel(s, w, 'livechat')
  const sessionOf = async (role: string | number, tweak?: (id: number) => Promise<void>) => {
    const x = await I.agent(s, w, role)
    if (tweak) await tweak(x.user.id)
    return x
  }
  const owner = await F.signIn(s, w.ownerEmail)
  const admin = await sessionOf('Admin')
  const viewAll = await sessionOf('Agent', (id) => I.setMember(s, w, id, { viewAll: true }))
  const teamAgent = await sessionOf('Agent')
  const otherAgent = await sessionOf('Agent')
  const assignee = await sessionOf('Agent')
  const limited = await sessionOf('Agent', (id) => I.setMember(s, w, id, { channelIds: [b.id] }))
  const limitedAdmin = await sessionOf('Admin', (id) => I.setMember(s, w, id, { channelIds: [b.id] }))
  const limitedViewAll = await sessionOf('Agent', (id) =>
    I.setMember(s, w, id, { viewAll: true, channelIds: [b.id] }),
  )
  const noView = await sessionOf(await I.role(s, w, ['dashboard.view', 'interactions.reply']))
  const team = await I.team(s, w, [teamAgent.user.id])
  conv.U = (await I.conversation(s, w, { channelId: a.id })).id
  conv.T = (await I.conversation(s, w, { channelId: a.id, teamId: team })).id
  conv.P = (await I.conversation(s, w, { channelId: a.id, teamId: team, assigneeId: assignee.user.id })).id
  conv.UB = (await I.conversation(s, w, { channelId: b.id })).id
  const key = await F.apiKey(s, w, 'read')
  const s_ = (x: { session: F.Session }): Who => ({ headers: x.session.headers(), session: x.session })
  Object.assign(who, {
    owner: { headers: owner.headers(), session: owner },
    admin: s_(admin),
    viewAll: s_(viewAll),
    teamAgent: s_(teamAgent),
    otherAgent: s_(otherAgent),
    assignee: s_(assignee),
    limited: s_(limited),
    limitedAdmin: s_(limitedAdmin),
    limitedViewAll: s_(limitedViewAll),
    noView: s_(noView),
    key: { headers: F.bearer(key), session: null },
  })
})
afterAll(() => s?.stop())

const all = ['U', 'T', 'P', 'UB'] as const
const matrix: ReadonlyArray<readonly [string, ReadonlyArray<(typeof all)[number]>]> = [
  ['owner', all],
  ['admin', all],
  ['viewAll', all],
  ['key', all],
  ['teamAgent', ['U', 'T', 'UB']],
  ['otherAgent', ['U', 'UB']],
  ['assignee', ['U', 'P', 'UB']],
  ['limited', ['UB']],
  ['limitedAdmin', ['UB']],
  ['limitedViewAll', ['UB']],
]

describe.each(matrix)('%s', (name, visible) => {
  it('lists exactly the visible conversations, and counts only those', async () => {
    const r = await I.body(await s.fetch('/v1/interactions?per_page=100', { headers: who[name]!.headers }))
    const ids = new Set((r.data as Array<{ id: number }>).map((x) => x.id))
    expect(ids).toEqual(new Set(visible.map((k) => conv[k])))
    expect(r.meta.total).toBe(visible.length)
    expect(r.meta.counts.new).toBe(visible.length)
  })

  it('opens the visible ones and answers 404 for the rest (messages and notes too)', async () => {
    for (const k of all) {
      const expected = visible.includes(k) ? 200 : 404
      for (const p of ['', '/messages', '/notes']) {
        const res = await s.fetch(`/v1/interactions/${conv[k]}${p}`, { headers: who[name]!.headers })
        expect(res.status, `${k}${p}`).toBe(expected)
      }
    }
  })

  it.skipIf(name === 'key')('may subscribe to conv: of the visible ones only', async () => {
    for (const k of all) {
      const { c, answer } = await I.socketFor(s, who[name]!.session!, `conv:${conv[k]}`)
      expect(answer.op, k).toBe(visible.includes(k) ? 'subscribed' : 'refused')
      c.close()
    }
  })
})

describe('a member without interactions.view', () => {
  it('is refused the list and the detail (403) and every conv: subscription', async () => {
    expect((await s.fetch('/v1/interactions', { headers: who.noView!.headers })).status).toBe(403)
    expect((await s.fetch(`/v1/interactions/${conv.U}`, { headers: who.noView!.headers })).status).toBe(403)
    const { c, answer } = await I.socketFor(s, who.noView!.session!, `conv:${conv.U}`)
    expect(answer).toMatchObject({ op: 'refused', code: 'forbidden' })
    c.close()
  })
})

describe('losing sight', () => {
  it('unsubscribes a subscriber when a change takes the conversation out of their sight', async () => {
    const { c, answer } = await I.socketFor(s, who.otherAgent!.session!, `conv:${conv.U}`)
    expect(answer.op).toBe('subscribed')
    const res = await s.fetch(
      `/v1/interactions/${conv.U}`,
      I.patch({ assignee_id: w.ownerId }, who.owner!.headers),
    )
    expect(res.status).toBe(200)
    expect(await c.next((f) => f.op === 'unsubscribed')).toMatchObject({
      channel: `conv:${conv.U}`,
      reason: 'access_lost',
    })
    expect((await s.fetch(`/v1/interactions/${conv.U}`, { headers: who.otherAgent!.headers })).status).toBe(
      404,
    )
    c.close()
  })
})

describe('counts and team membership', () => {
  it('a member who joins a team counts its conversations on the very next call, and stops when leaving', async () => {
    const x = await I.agent(s, w, 'Agent')
    const h = x.session.headers()
    const count = async () =>
      (await I.body(await s.fetch('/v1/interactions', { headers: h }))).meta.counts.new as number
    const ch = await I.channel(s, w, 'msgapp')
    const t = await I.team(s, w, [])
    await I.conversation(s, w, { channelId: ch.id, teamId: t })
    const base = await count()
    await I.sql(s, (db) => db`INSERT INTO team_members (team_id, user_id) VALUES (${t}, ${x.user.id})`)
    expect(await count()).toBe(base + 1)
    await I.sql(s, (db) => db`DELETE FROM team_members WHERE team_id = ${t} AND user_id = ${x.user.id}`)
    expect(await count()).toBe(base)
  })
})
