import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { startTestServer, type TestServer } from '../support/server'
import { api, people } from './support'

/**
 * The monthly ticket quota (spec 1 §2 `tickets_per_month`, spec 2 §7: 402), checked and counted
 * atomically, with gap-free human numbers; and the SLA of spec 2 §2 (Pro and Custom) from the
 * priority's target in the workspace's business hours, on the ticket and on its conversation.
 */
let s: TestServer
const MIN = 60_000

beforeAll(async () => {
  s = await startTestServer()
}, 60_000)
afterAll(() => s?.stop())

describe('monthly quota', () => {
  it('two creates racing for the last slot: one 201, one 402; numbers stay gap-free', async () => {
    const p = await people(s, 'pro')
    await I.sql(
      s,
      (db) => db`UPDATE workspaces SET plan = 'custom', limits = '{"tickets_per_month": 2}'::jsonb
      WHERE id = ${p.w.workspaceId}`,
    )
    const create = (subject: string) => api(s, p.agent).post('/v1/tickets', { subject, team_id: p.team })
    const first = await create('first')
    expect(first.status).toBe(201)
    expect(first.meta.quota).toEqual({ used: 1, limit: 2 })
    const race = await Promise.all([create('a'), create('b')])
    expect(race.map((r) => r.status).sort()).toEqual([201, 402])
    const refused = race.find((r) => r.status === 402)!
    expect(refused.error.code).toBe('plan_required')
    expect((await create('later')).status).toBe(402)
    // A refused create and an invalid one take no number and no quota.
    expect((await api(s, p.agent).post('/v1/tickets', { subject: 'x', team_id: p.frontline })).status).toBe(
      422,
    )
    const list = await api(s, p.owner).get('/v1/tickets')
    expect(list.data.map((t: any) => t.number).sort()).toEqual([1, 2])
    const [usage] = await I.sql<{ used: number }>(
      s,
      (db) =>
        db`SELECT used FROM usage_counters WHERE workspace_id = ${p.w.workspaceId} AND counter = 'tickets_per_month'`,
    )
    expect(usage!.used).toBe(2)
  })
})

describe('SLA', () => {
  it('warns and breaches by the priority target; none on Free', async () => {
    const p = await people(s, 'pro')
    const t = (
      await api(s, p.agent).post('/v1/tickets', {
        subject: 'Urgent',
        team_id: p.team,
        priority: 'urgent',
        interaction_id: p.conversation,
      })
    ).data
    expect(t.sla).toMatchObject({ level: null, target_minutes: 240 })
    const due = Date.parse(t.sla.due_at) - Date.parse(t.created_at)
    expect(due).toBe(240 * MIN)
    await I.advance(s, 200 * MIN)
    try {
      expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).data.sla.level).toBe('warn')
      await I.advance(s, 41 * MIN)
      expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).data.sla.level).toBe('breach')
      const conv = await api(s, p.agent).get(`/v1/interactions/${p.conversation}`)
      expect(conv.data.tickets.find((x: any) => x.id === t.id).sla.level).toBe('breach')
      // A finished ticket has no SLA.
      await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'resolved' })
      expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).data.sla).toBeNull()
    } finally {
      await I.advance(s, -241 * MIN)
    }
    const free = await people(s, 'free')
    const f = await api(s, free.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: free.team,
      priority: 'urgent',
    })
    expect(f.status).toBe(201)
    expect(f.data.sla).toBeNull()
  })

  it("counts only the workspace's business hours", async () => {
    const p = await people(s, 'pro')
    const hours = {
      enabled: true,
      days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: true, from: '08:00', to: '09:00' })),
    }
    const set = await s.fetch('/v1/settings', {
      method: 'PATCH',
      headers: { ...p.owner, 'content-type': 'application/json' },
      body: JSON.stringify({ business_hours: hours }),
    })
    expect(set.status).toBe(200)
    // One open hour a day: an urgent ticket's four hours take at least three more days.
    const t = (
      await api(s, p.agent).post('/v1/tickets', { subject: 'x', team_id: p.team, priority: 'urgent' })
    ).data
    const wait = Date.parse(t.sla.due_at) - Date.parse(t.created_at)
    expect(wait).toBeGreaterThan(3 * 24 * 60 * MIN)
    expect(wait).toBeLessThan(5 * 24 * 60 * MIN)
  })
})

describe('ticket custom fields', () => {
  it('deleting a definition removes its values from tickets', async () => {
    const p = await people(s, 'pro')
    const f = await api(s, p.owner).post('/v1/custom-fields', {
      entity: 'ticket',
      label: 'Region',
      type: 'text',
    })
    const t = (
      await api(s, p.agent).post('/v1/tickets', { subject: 'x', team_id: p.team, custom: { region: 'Java' } })
    ).data
    expect(t.custom).toEqual({ region: 'Java' })
    const changed = await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { custom: { region: 'Bali' } })
    expect(changed.data.custom).toEqual({ region: 'Bali' })
    const log = (await api(s, p.b1).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.at(-1)).toMatchObject({ field: 'custom.region', old: 'Java', new: 'Bali' })
    expect((await api(s, p.owner).del(`/v1/custom-fields/${f.data.id}`)).status).toBe(200)
    const [row] = await I.sql<{ custom: Record<string, unknown> }>(
      s,
      (db) => db`SELECT custom FROM tickets WHERE id = ${t.id}`,
    )
    expect(row!.custom).toEqual({})
  })
})
