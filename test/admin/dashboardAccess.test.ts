import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * The dashboard's figures follow channel access as reports do (docs/decisions.md, "Reports and
 * KPIs"): a member limited to channel B sees nothing of channel A's traffic in the 14-day
 * activity, nor its open conversations in the team summary.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let limited: F.Session
let teamId = 0

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  const a = await I.channel(s, w, 'msgapp')
  const b = await I.channel(s, w, 'msgapp')
  const role = await I.role(s, w, ['dashboard.view', 'reports.view', 'interactions.view'])
  const agent = await I.agent(s, w, role)
  limited = agent.session
  await I.setMember(s, w, agent.user.id, { channelIds: [b.id] })
  teamId = await I.team(s, w, [agent.user.id])
  const onA = await I.conversation(s, w, { channelId: a.id, contactId: (await I.contact(s, w)).id, teamId })
  for (let i = 0; i < 3; i++) await I.inbound(s, onA.id, `order ${i}`)
  const onB = await I.conversation(s, w, { channelId: b.id, contactId: (await I.contact(s, w)).id, teamId })
  await I.inbound(s, onB.id, 'hello from B')
})
afterAll(() => s?.stop())

const dashboard = async (who: F.Session) => {
  const d = await I.body(await s.fetch('/v1/dashboard?parts=activity,teams', { headers: who.headers() }))
  const days = d.data.activity.days as Array<{ messages_in: number; conversations: number }>
  const team = (d.data.teams as Array<{ id: number; open_conversations: number }>).find(
    (t) => t.id === teamId,
  )!
  return {
    messages_in: days.reduce((n, x) => n + x.messages_in, 0),
    conversations: days.reduce((n, x) => n + x.conversations, 0),
    open_in_team: team.open_conversations,
  }
}

describe('the dashboard and channel access', () => {
  it('counts every channel for the owner', async () => {
    expect(await dashboard(owner)).toEqual({ messages_in: 4, conversations: 2, open_in_team: 2 })
  })

  it('counts only channel B for a member limited to it, as the daily report does', async () => {
    expect(await dashboard(limited)).toEqual({ messages_in: 1, conversations: 1, open_in_team: 1 })
    // The report's default range ends today in the workspace's time zone (a UTC date is another
    // day there for part of every day).
    const r = await I.body(await s.fetch('/v1/reports/daily', { headers: limited.headers() }))
    expect((r.data as Array<{ messages_in: number }>).reduce((n, d) => n + d.messages_in, 0)).toBe(1)
  })
})
