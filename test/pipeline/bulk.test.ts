import { parse } from 'csv-parse/sync'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * `POST /leads/bulk` (move with its rules, assign, followup; at most 100; one result per lead;
 * leads the caller may not see refused, not skipped; bulk moves racing single moves) and
 * `GET /pipeline/export` (leads, activities, expenses as CSV over visible leads, with filters).
 */
let s: TestServer
let w: F.Seeded
let owner: P.Who
let writeKey: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
  writeKey = P.key(await F.apiKey(s, w, 'write'))
  flow = await P.workflow(s, owner, { name: 'Main' })
}, 60_000)
afterAll(() => s?.stop())

const ids = (r: P.Answer) => r.data.map((x: { id: number }) => x.id)

describe('bulk actions', () => {
  it('moves, assigns and sets follow-ups with one result per lead', async () => {
    const seller = await P.person(s, w, ['leads.view', 'leads.manage'])
    const a = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: seller.id, value_estimate: 10 })
    const b = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: seller.id })
    const hidden = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: w.ownerId, value_estimate: 3 })
    expect(
      (await P.api(s, writeKey).post('/v1/leads/bulk', { action: 'move', lead_ids: [a.id] })).status,
    ).toBe(403)
    // To Won: `a` takes its prospect value; `b` has none (422 for it alone); the hidden lead is refused.
    const won = await P.api(s, seller.who).post('/v1/leads/bulk', {
      action: 'move',
      lead_ids: [a.id, b.id, hidden.id, 99999999],
      stage_id: P.stageOf(flow, 'won'),
    })
    expect(won.status).toBe(200)
    expect(won.meta).toEqual({ done: 1, failed: 3 })
    expect(won.data[0]).toEqual({ id: a.id, ok: true, visible: true })
    expect(won.data[1]).toMatchObject({ id: b.id, ok: false, error: { code: 'validation_error' } })
    expect(won.data[1].error.fields.value_won).toBeDefined()
    expect(won.data[2]).toMatchObject({ id: hidden.id, ok: false, error: { code: 'not_found' } })
    expect(won.data[3]).toMatchObject({ id: 99999999, ok: false, error: { code: 'not_found' } })
    expect((await P.api(s, owner).get(`/v1/leads/${a.id}`)).data).toMatchObject({
      status: 'won',
      value_won: 10,
    })
    expect((await P.api(s, owner).get(`/v1/leads/${hidden.id}`)).data.status).toBe('open')
    // Lost needs a reason of the list.
    const lost = await P.api(s, owner).post('/v1/leads/bulk', {
      action: 'move',
      lead_ids: [b.id],
      stage_id: P.stageOf(flow, 'lost'),
      lost_reason: 'no budget',
    })
    expect(lost.data[0]).toMatchObject({ ok: true })
    expect((await P.api(s, owner).get(`/v1/leads/${b.id}`)).data).toMatchObject({
      status: 'lost',
      lost_reason: 'No budget',
    })
    // Assigning away from the seller: done, and then out of the seller's sight.
    const given = await P.api(s, seller.who).post('/v1/leads/bulk', {
      action: 'assign',
      lead_ids: [a.id],
      assignee_id: w.ownerId,
    })
    expect(given.data[0]).toEqual({ id: a.id, ok: true, visible: false })
    const follow = await P.api(s, owner).post('/v1/leads/bulk', {
      action: 'followup',
      lead_ids: [hidden.id, hidden.id],
      followup_at: '2030-01-02T03:00:00Z',
      followup_note: 'Call back',
    })
    expect(follow.data).toHaveLength(1)
    const h = (await P.api(s, owner).get(`/v1/leads/${hidden.id}`)).data
    expect(h).toMatchObject({ followup_at: '2030-01-02T03:00:00Z', followup_note: 'Call back' })
    const cleared = await P.api(s, owner).post('/v1/leads/bulk', {
      action: 'followup',
      lead_ids: [hidden.id],
      followup_at: null,
    })
    expect(cleared.data[0].ok).toBe(true)
    expect((await P.api(s, owner).get(`/v1/leads/${hidden.id}`)).data.followup_at).toBeNull()
  })

  it('refuses more than 100 leads and actions without their fields', async () => {
    const many = Array.from({ length: 101 }, (_, i) => i + 1)
    const r = await P.api(s, owner).post('/v1/leads/bulk', {
      action: 'assign',
      lead_ids: many,
      assignee_id: null,
    })
    expect(r.status).toBe(422)
    expect(r.error.fields.lead_ids).toBeDefined()
    expect((await P.api(s, owner).post('/v1/leads/bulk', { action: 'move', lead_ids: [1] })).status).toBe(422)
    expect((await P.api(s, owner).post('/v1/leads/bulk', { action: 'jump', lead_ids: [1] })).status).toBe(422)
    expect((await P.api(s, owner).post('/v1/leads/bulk', { action: 'assign', lead_ids: [] })).status).toBe(
      422,
    )
  })

  it('races bulk moves against single moves: each lead ends Won or Lost, never half', async () => {
    const leads = await Promise.all(
      Array.from({ length: 8 }, () => P.lead(s, owner, { pipeline_id: flow.id, value_estimate: 5 })),
    )
    const [bulk, ...singles] = await Promise.all([
      P.api(s, owner).post('/v1/leads/bulk', {
        action: 'move',
        lead_ids: ids({ data: leads } as P.Answer),
        stage_id: P.stageOf(flow, 'won'),
      }),
      ...leads.map((l) =>
        P.api(s, owner).post(`/v1/leads/${l.id}/move`, {
          stage_id: P.stageOf(flow, 'lost'),
          lost_reason: 'Other',
        }),
      ),
    ])
    expect(bulk!.status).toBe(200)
    for (const [i, l] of leads.entries()) {
      const now = (await P.api(s, owner).get(`/v1/leads/${l.id}`)).data
      const single = singles[i]!
      const bulkOk = bulk!.data[i].ok
      // Exactly one side won the lead; the other was refused (409, reopen first).
      expect(bulkOk !== (single.status === 200)).toBe(true)
      if (bulkOk) expect(now).toMatchObject({ status: 'won', value_won: 5, lost_reason: null })
      else {
        expect(now).toMatchObject({ status: 'lost', lost_reason: 'Other', value_won: null })
        expect(bulk!.data[i].error.code).toBe('conflict')
      }
    }
  })
})

describe('export', () => {
  it('streams leads, activities and expenses over visible leads with the filters', async () => {
    const other = await P.workflow(s, owner, { name: 'Other' })
    const seller = await P.person(s, w, ['leads.view', 'leads.manage', 'reports.view'])
    const viewer = await P.person(s, w, ['leads.view'])
    const x = await P.lead(s, owner, {
      pipeline_id: other.id,
      title: 'Export, "quoted"',
      assignee_id: seller.id,
      value_estimate: 12.5,
    })
    const y = await P.lead(s, owner, { pipeline_id: other.id, title: 'Not mine', assignee_id: w.ownerId })
    await P.api(s, owner).post(`/v1/leads/${x.id}/activities`, { kind: 'call', body: 'Called' })
    await P.api(s, owner).post(`/v1/leads/${y.id}/activities`, { kind: 'call', body: 'Hidden call' })
    await P.api(s, owner).post(`/v1/leads/${x.id}/expenses`, {
      category: 'Meals',
      amount: 20,
      spent_on: '2026-11-02',
    })
    await P.api(s, owner).post(`/v1/leads/${x.id}/expenses`, {
      category: 'Transport',
      amount: 5,
      spent_on: '2026-10-02',
    })
    const csv = async (who: P.Who, q: string) => {
      const res = await s.fetch(`/v1/pipeline/export?${q}`, { headers: who })
      const text = await res.text()
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        rows:
          res.status === 200 ? (parse(text, { bom: true, columns: true }) as Record<string, string>[]) : [],
      }
    }
    const all = await csv(owner, `type=leads&pipeline_id=${other.id}`)
    expect(all.status).toBe(200)
    expect(all.type).toContain('text/csv')
    expect(all.rows.map((r) => r.title).sort()).toEqual(['Export, "quoted"', 'Not mine'])
    expect(all.rows.find((r) => r.title === 'Not mine')!.identifier).toBe(y.identifier)
    const mine = await csv(seller.who, `type=leads&pipeline_id=${other.id}`)
    expect(mine.rows.map((r) => r.id)).toEqual([String(x.id)])
    expect(mine.rows[0]).toMatchObject({ value_estimate: '12.5', status: 'open', assignee: seller.name })
    expect((await csv(owner, `type=leads&pipeline_id=${other.id}&status=won`)).rows).toEqual([])
    expect(
      (await csv(owner, `type=leads&pipeline_id=${other.id}&from=2000-01-01&to=2000-01-31`)).rows,
    ).toEqual([])
    const acts = await csv(seller.who, `type=activities&pipeline_id=${other.id}`)
    expect(acts.rows.map((r) => r.body)).toEqual(['Called'])
    expect(acts.rows[0]!.lead).toBe(x.identifier)
    const spent = await csv(seller.who, `type=expenses&pipeline_id=${other.id}&from=2026-11-01&to=2026-11-30`)
    expect(spent.rows.map((r) => [r.category, r.amount])).toEqual([['Meals', '20']])
    expect((await csv(viewer.who, 'type=leads')).status).toBe(403)
    expect((await csv(writeKey, 'type=leads')).status).toBe(403)
    expect((await csv(owner, 'type=deals')).status).toBe(422)
  })
})
