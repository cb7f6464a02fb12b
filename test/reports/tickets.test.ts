import { parse } from 'csv-parse/sync'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Rollup from '../../actors/reports/rollup'
import { WallClock } from '../../engine/clock'
import * as Settings from '../../store/settings'
import * as I from '../inbox/support'
import { startTestServer, type TestServer } from '../support/server'
import { api, type People, people } from '../tickets/support'

/**
 * Ticket figures of the reports and the Back Office KPI card (spec 2 §4.6; definitions in
 * actors/metrics.ts and docs/decisions.md "Ticket figures"), through HTTP on a workspace in
 * Jakarta (UTC+7, no daylight saving), open Monday to Friday 09:00–17:00. Targets: ticket first
 * response 1 hour for the workspace, 2 hours for b2 personally; ticket resolution the default 16
 * hours. Every figure is worked out by hand in the comments.
 */
let s: TestServer
let p: People
let t1: number
let t2: number
let t3: number

const ZONE = 'Asia/Jakarta'
const RANGE = 'from=2025-03-10&to=2025-03-17'

/** Sets the server's wall clock to an instant. */
const setClock = (at: string) =>
  s.run(
    Effect.flatMap(WallClock, (c) =>
      Effect.flatMap(c.millis, (now) => c.advance(new Date(at).getTime() - now)),
    ),
  )

const ok = (r: { status: number; error: unknown }, status = 200) =>
  expect(r.status, JSON.stringify(r.error)).toBe(status)

const at = async <T>(instant: string, f: () => Promise<T>) => {
  await setClock(instant)
  return f()
}

const create = async (team: number, instant: string) =>
  at(instant, async () => {
    const r = await api(s, p.agent).post('/v1/tickets', {
      subject: 'Refund not received',
      team_id: team,
      interaction_id: p.conversation,
    })
    ok(r, 201)
    return r.data.id as number
  })

const get = async (path: string) => {
  const r = await api(s, p.owner).get(path)
  ok(r)
  return r.data
}

beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  p = await people(s, 'pro')
  await s.run(
    Settings.update(p.w.workspaceId, {
      timezone: ZONE,
      business_hours: {
        enabled: true,
        days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from: '09:00', to: '17:00' })),
      },
    }),
  )
  // Targets first: a fact is judged against the target in force when it is rolled up.
  const put = await s.fetch('/v1/kpi/config', {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...p.owner },
    body: JSON.stringify({
      targets: { ticket_first_response: 1 },
      overrides: [{ scope: 'user', id: p.b2Id, metric: 'ticket_first_response', value: 2 }],
    }),
  })
  expect(put.status, await put.clone().text()).toBe(200)

  // T1 (team), Monday 10 March 10:00 WIB, raised by the Frontline agent.
  t1 = await create(p.team, '2025-03-10T03:00:00Z')
  // 10:30 the creator adds a comment, 10:45 the conversation side posts: neither is a response.
  await at('2025-03-10T03:30:00Z', async () =>
    ok(await api(s, p.agent).post(`/v1/tickets/${t1}/messages`, { body: 'More detail' }), 201),
  )
  await at('2025-03-10T03:45:00Z', async () =>
    ok(
      await api(s, p.agent).post(`/v1/interactions/${p.conversation}/tickets/${t1}/messages`, {
        text: 'Customer asks again',
      }),
    ),
  )
  // 11:15 b1 answers: the first response, 75 business minutes (over b1's 60-minute target).
  await at('2025-03-10T04:15:00Z', async () =>
    ok(await api(s, p.b1).post(`/v1/tickets/${t1}/messages`, { body: 'Looking into it' }), 201),
  )
  // 11:30 b2 answers too: not a first response any more.
  await at('2025-03-10T04:30:00Z', async () =>
    ok(await api(s, p.b2).post(`/v1/tickets/${t1}/messages`, { body: 'Me too' }), 201),
  )
  // 16:00 b1 resolves it: 10:00–16:00 = 360 business minutes.
  await at('2025-03-10T09:00:00Z', async () =>
    ok(await api(s, p.b1).patch(`/v1/tickets/${t1}`, { status: 'resolved' })),
  )
  // Tuesday 09:30 b2 reopens it, 10:00 resolves it again, 10:30 closes it: no further resolution.
  await at('2025-03-11T02:30:00Z', async () =>
    ok(await api(s, p.b2).patch(`/v1/tickets/${t1}`, { status: 'open' })),
  )
  await at('2025-03-11T03:00:00Z', async () =>
    ok(await api(s, p.b2).patch(`/v1/tickets/${t1}`, { status: 'resolved' })),
  )
  await at('2025-03-11T03:30:00Z', async () =>
    ok(await api(s, p.b2).patch(`/v1/tickets/${t1}`, { status: 'closed' })),
  )

  // T3 (other team), Tuesday 11 March 09:00 WIB; `other` closes it unanswered at 12:00: a
  // resolution of 180 business minutes without a first response.
  t3 = await create(p.otherTeam, '2025-03-11T02:00:00Z')
  await at('2025-03-11T05:00:00Z', async () =>
    ok(await api(s, p.other).patch(`/v1/tickets/${t3}`, { status: 'closed' })),
  )

  // T2 (team), Friday 14 March 16:00 WIB.
  t2 = await create(p.team, '2025-03-14T09:00:00Z')
  // Monday 17 March 09:10 an admin outside the team comments: not a Back Office response.
  await at('2025-03-17T02:10:00Z', async () =>
    ok(await api(s, p.admin).post(`/v1/tickets/${t2}/messages`, { body: 'Any news?' }), 201),
  )
  // 09:30 b2 concludes with resolve: the first response and the resolution at once, both
  // Fri 16:00–17:00 (60) + Mon 09:00–09:30 (30) = 90 business minutes (b2's own target: 120).
  await at('2025-03-17T02:30:00Z', async () =>
    ok(
      await api(s, p.b2).post(`/v1/tickets/${t2}/conclusion`, { conclusion: 'Refunded', resolve: true }),
      201,
    ),
  )
  // Reports are asked on Tuesday 18 March.
  await setClock('2025-03-18T03:00:00Z')
})
afterAll(() => s?.stop())

describe('ticket figures', () => {
  it('summary and team breakdown: tickets created and resolved (a reopen counts once)', async () => {
    expect((await get(`/v1/reports/summary?${RANGE}`)).tickets).toEqual({ created: 3, resolved: 3 })
    const teams = (await get(`/v1/reports/breakdown?${RANGE}&type=team`)) as Array<Record<string, any>>
    expect(teams.find((r) => r.team.id === p.team)).toMatchObject({ tickets_created: 2, tickets_resolved: 2 })
    expect(teams.find((r) => r.team.id === p.otherTeam)).toMatchObject({
      tickets_created: 1,
      tickets_resolved: 1,
    })
    expect(teams.find((r) => r.team.id === p.frontline)).toMatchObject({
      tickets_created: 0,
      tickets_resolved: 0,
    })
    // A range that ends before T2: only T1 and T3.
    const early = (await get('/v1/reports/breakdown?from=2025-03-10&to=2025-03-13&type=team')) as Array<
      Record<string, any>
    >
    expect(early.find((r) => r.team.id === p.team)).toMatchObject({ tickets_created: 1, tickets_resolved: 1 })
    const agents = (await get(`/v1/reports/agents?${RANGE}`)) as Array<Record<string, any>>
    expect(
      [p.b1Id, p.b2Id, p.otherId, p.agentId].map(
        (id) => agents.find((r) => r.user.id === id)?.tickets_resolved,
      ),
    ).toEqual([1, 1, 1, 0])
  })

  it('Back Office KPI cards in business minutes against the targets in force', async () => {
    const cards = (await get(`/v1/kpi?${RANGE}`)).backoffice as Array<Record<string, any>>
    const card = (id: number) => cards.find((c) => c.user.id === id)
    expect(card(p.b1Id)).toMatchObject({
      tickets_created: 0,
      // 75 minutes against the workspace's 1 hour: missed.
      first_response: { count: 1, average_minutes: 75, average_hours: 1.3, within_target_percent: 0 },
      // 360 minutes against the default 16 hours.
      resolution: { count: 1, average_minutes: 360, average_hours: 6, within_target_percent: 100 },
    })
    expect(card(p.b2Id)).toMatchObject({
      first_response: { count: 1, average_minutes: 90, average_hours: 1.5, within_target_percent: 100 },
      resolution: { count: 1, average_minutes: 90, average_hours: 1.5, within_target_percent: 100 },
    })
    expect(card(p.otherId)).toMatchObject({
      first_response: { count: 0, average_minutes: null, within_target_percent: null },
      resolution: { count: 1, average_minutes: 180, average_hours: 3, within_target_percent: 100 },
    })
    // Filtered by team: the facts of that team only.
    const other = (await get(`/v1/kpi?${RANGE}&team_id=${p.otherTeam}`)).backoffice as Array<
      Record<string, any>
    >
    expect(other.map((c) => [c.user.id, c.resolution.count])).toEqual([[p.otherId, 1]])
    // The creator's tickets are theirs (one person's KPIs).
    const mine = await get(`/v1/kpi/users/${p.agentId}?${RANGE}`)
    expect(mine.backoffice.tickets_created).toBe(3)
    // b1's missed first response is a breach of Monday 10 March, listed with its ticket.
    const b1 = await get(`/v1/kpi/users/${p.b1Id}?${RANGE}`)
    expect(b1.daily.find((d: { date: string }) => d.date === '2025-03-10')).toMatchObject({
      tickets_resolved: 1,
      breaches: 1,
    })
    expect(b1.breaches).toEqual([
      expect.objectContaining({ kind: 'ticket_first_response', minutes: 75, ticket_id: t1 }),
    ])
  })

  it('the KPI raw export lists each ticket fact once', async () => {
    const res = await s.fetch(`/v1/kpi/export?${RANGE}&type=tickets`, { headers: p.owner })
    expect(res.status).toBe(200)
    const rows = parse(Buffer.from(await res.arrayBuffer()), { bom: true, columns: true }) as Array<
      Record<string, string>
    >
    expect(
      rows
        .map((r) => [r.ticket_id, r.kind, r.user_id, r.team_id, r.business_minutes, r.within_target])
        .sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`)),
    ).toEqual(
      [
        [t1, 'ticket_created', p.agentId, p.team, '', ''],
        [t1, 'ticket_first_response', p.b1Id, p.team, '75', 'no'],
        [t1, 'ticket_resolved', p.b1Id, p.team, '360', 'yes'],
        [t2, 'ticket_created', p.agentId, p.team, '', ''],
        [t2, 'ticket_first_response', p.b2Id, p.team, '90', 'yes'],
        [t2, 'ticket_resolved', p.b2Id, p.team, '90', 'yes'],
        [t3, 'ticket_created', p.agentId, p.otherTeam, '', ''],
        [t3, 'ticket_resolved', p.otherId, p.otherTeam, '180', 'yes'],
      ]
        .map((r) => r.map(String))
        .sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`)),
    )
  })

  it('the rebuild recomputes ticket figures identically', async () => {
    const paths = [
      `/v1/reports/summary?${RANGE}`,
      `/v1/reports/breakdown?${RANGE}&type=team`,
      `/v1/reports/agents?${RANGE}`,
      `/v1/kpi?${RANGE}`,
      `/v1/kpi/users/${p.b1Id}?${RANGE}`,
    ]
    const before = await Promise.all(paths.map((path) => get(path)))
    await I.sql(s, (db) => db`DELETE FROM report_days WHERE workspace_id = ${p.w.workspaceId}`)
    await I.sql(s, (db) => db`DELETE FROM report_hours WHERE workspace_id = ${p.w.workspaceId}`)
    expect((await get(`/v1/reports/summary?${RANGE}`)).tickets).toEqual({ created: 0, resolved: 0 })
    await s.run(Rollup.rebuild(p.w.workspaceId))
    const after = await Promise.all(paths.map((path) => get(path)))
    expect(after).toEqual(before)
    expect(after[0].tickets).toEqual({ created: 3, resolved: 3 })
  })
})
