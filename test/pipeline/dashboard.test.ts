import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * `GET /pipeline/dashboard` on a hand-built set of leads: tiles, funnel, 8 weeks, per owner,
 * expenses, agenda and quota, for the owner (every lead) and for a seller who sees only their own.
 */
let s: TestServer
let w: F.Seeded
let owner: P.Who
let readKey: P.Who

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
  readKey = P.key(await F.apiKey(s, w, 'read'))
}, 60_000)
afterAll(() => s?.stop())

const DAY = 86_400_000

describe('dashboard', () => {
  it('answers the figures of a hand-built set, only over visible leads', async () => {
    const flow = await P.workflow(s, owner, { name: 'Dash' })
    // A salesperson: sees and works leads, manages no workflow (the dashboard is theirs too).
    const seller = await P.person(s, w, ['leads.view', 'leads.manage'])
    const first = await P.api(s, owner).get(`/v1/pipeline/dashboard?pipeline_id=${flow.id}`)
    expect(first.status).toBe(200)
    const zone: string = first.data.range.timezone
    const day = (ms: number) => new Date(ms).toLocaleDateString('en-CA', { timeZone: zone })
    const today = day(Date.now())
    // The default range is the current month.
    expect(first.data.range.from).toBe(`${today.slice(0, 7)}-01`)
    expect(first.data.tiles).toMatchObject({ created: 0, open: 0, won: 0, win_rate: null })

    const stage = (kind: string, nth = 0) => P.stageOf(flow, kind, nth)
    const mine = { pipeline_id: flow.id, assignee_id: seller.id }
    const l1 = await P.lead(s, owner, {
      ...mine,
      value_estimate: 100,
      followup_at: new Date(Date.now() + DAY).toISOString(),
    })
    const l2 = await P.lead(s, owner, {
      ...mine,
      value_estimate: 200,
      followup_at: new Date(Date.now() - DAY).toISOString(),
    })
    await P.api(s, owner).post(`/v1/leads/${l2.id}/move`, { stage_id: stage('progress', 1) }) // Proposal, 50 %
    const l3 = await P.lead(s, owner, { ...mine, value_estimate: 250 })
    await P.api(s, owner).post(`/v1/leads/${l3.id}/move`, { stage_id: stage('won'), value_won: 300 })
    const l4 = await P.lead(s, owner, { ...mine, value_estimate: 50 })
    await P.api(s, owner).post(`/v1/leads/${l4.id}/move`, { stage_id: stage('lost'), lost_reason: 'Other' })
    const l5 = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: w.ownerId, value_estimate: 1000 })
    await P.api(s, owner).post(`/v1/leads/${l1.id}/expenses`, {
      category: 'Meals',
      amount: 20,
      spent_on: today,
    })
    await P.api(s, owner).post(`/v1/leads/${l5.id}/expenses`, {
      category: 'Transport',
      amount: 500,
      spent_on: today,
    })
    await P.api(s, owner).post(`/v1/leads/${l2.id}/events`, {
      title: 'Demo',
      starts_at: new Date(Date.now() + 2 * DAY).toISOString(),
    })
    // L4 was created two weeks ago (it closed today).
    await I.sql(s, (db) => db`UPDATE leads SET created_at = now() - interval '14 days' WHERE id = ${l4.id}`)
    const from = day(Date.now() - 30 * DAY)
    const q = `pipeline_id=${flow.id}&from=${from}&to=${today}`

    const all = (await P.api(s, owner).get(`/v1/pipeline/dashboard?${q}`)).data
    expect(all.tiles).toEqual({
      created: 5,
      open: 3,
      open_value: 1300,
      weighted_value: 210, // 100 × 10 % + 200 × 50 % + 1000 × 10 %
      won: 1,
      won_value: 300,
      lost: 1,
      lost_value: 50,
      win_rate: 50,
      average_won: 300,
      overdue_followups: 1,
    })
    const funnel = Object.fromEntries(
      all.funnel.map((f: { label: string; count: number; reached: number }) => [
        f.label,
        [f.count, f.reached],
      ]),
    )
    expect(funnel).toEqual({
      New: [2, 4],
      Qualified: [0, 2],
      Proposal: [1, 2],
      Negotiation: [0, 1],
      Won: [1, 1],
      Lost: [1, 1],
    })
    expect(all.weekly).toHaveLength(8)
    const thisWeek = all.weekly[7]
    expect(thisWeek).toMatchObject({ created: 4, won: 1, won_value: 300, lost: 1 })
    expect(all.weekly.reduce((n: number, x: { created: number }) => n + x.created, 0)).toBe(5)
    expect(
      all.by_assignee
        .map((p: { assignee: { id: number } | null; open: number }) => [p.assignee?.id, p.open])
        .sort(),
    ).toEqual(
      [
        [seller.id, 2],
        [w.ownerId, 1],
      ].sort(),
    )
    expect(all.expenses).toEqual({
      total: 520,
      count: 2,
      by_category: [
        { category: 'Transport', count: 1, amount: 500 },
        { category: 'Meals', count: 1, amount: 20 },
      ],
    })
    expect(all.agenda.items.map((a: { kind: string; lead: { id: number } }) => [a.kind, a.lead.id])).toEqual([
      ['followup', l1.id],
      ['event', l2.id],
    ])
    expect(all.quota).toMatchObject({ limit: 5000 })
    expect(all.quota.used).toBeGreaterThanOrEqual(5)

    // The seller sees only their four leads.
    const own = (await P.api(s, seller.who).get(`/v1/pipeline/dashboard?${q}`)).data
    expect(own.tiles).toMatchObject({
      created: 4,
      open: 2,
      open_value: 300,
      weighted_value: 110,
      won: 1,
      lost: 1,
    })
    expect(own.expenses.total).toBe(20)
    expect(own.by_assignee).toHaveLength(1)
    expect(own.funnel.find((f: { label: string }) => f.label === 'New').count).toBe(1)
    // Filters: owner, keys, a narrower range.
    const none = (await P.api(s, readKey).get(`/v1/pipeline/dashboard?${q}&assignee_id=none`)).data
    expect(none.tiles.created).toBe(0)
    const past = (
      await P.api(s, owner).get(
        `/v1/pipeline/dashboard?pipeline_id=${flow.id}&from=${from}&to=${day(Date.now() - 10 * DAY)}`,
      )
    ).data
    expect(past.tiles).toMatchObject({ created: 1, won: 0, lost: 0 })
    expect((await P.api(s, owner).get(`/v1/pipeline/dashboard?from=${today}&to=${from}`)).status).toBe(422)
    expect((await P.api(s, owner).get('/v1/pipeline/dashboard?pipeline_id=999999')).status).toBe(404)
    // The last days of the calendar: the weeks' end falls past 9999-12-31 (a 500 before).
    const end = await P.api(s, owner).get(
      `/v1/pipeline/dashboard?pipeline_id=${flow.id}&from=9999-12-30&to=9999-12-31`,
    )
    expect(end.status).toBe(200)
    expect(end.data.tiles).toMatchObject({ created: 0, won: 0, lost: 0 })
    expect(end.data.weekly).toHaveLength(8)
    expect(end.data.weekly.at(-1).week_start).toBe('9999-12-27')
    // The list's permission (docs/decisions.md): `leads.view` alone is enough, over the leads it
    // sees (none of this workflow's are theirs); managing workflows alone is not.
    const viewer = await P.person(s, w, ['leads.view'])
    const seen = await P.api(s, viewer.who).get(`/v1/pipeline/dashboard?${q}`)
    expect(seen.status).toBe(200)
    expect(seen.data.tiles).toMatchObject({ created: 0, open: 0, won: 0, lost: 0 })
    const manager = await P.person(s, w, ['pipeline.manage'])
    const refused = await P.api(s, manager.who).get('/v1/pipeline/dashboard')
    expect(refused.status).toBe(403)
    expect(refused.error.code).toBe('forbidden')
  })
})
