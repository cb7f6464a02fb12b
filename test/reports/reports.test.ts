import { parse } from 'csv-parse/sync'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConversationActor } from '../../actors/inbox/ConversationActor'
import * as Rollup from '../../actors/reports/rollup'
import { WallClock } from '../../engine/clock'
import * as Reports from '../../store/reports'
import * as Settings from '../../store/settings'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * Reports and KPIs (spec 2 §4.6) on hand-computed fixtures: a workspace in New York (daylight
 * saving starts Sunday 9 March 2025), open Monday to Friday 09:00–17:00 (weekends closed), response
 * target 60 minutes; one conversation waits over the weekend and the DST change, is solved, and is
 * reopened by the customer; another is on a channel with its own hours (every day 08:00–20:00).
 * Notes and an automatic reply sit between, and must not count. Every figure below is worked out
 * by hand in the comments.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let agentA: Awaited<ReturnType<typeof I.agent>>
let agentB: Awaited<ReturnType<typeof I.agent>>
let teamA: number
let c1: number
let c2: number
let c3: number
let msgapp: { id: number }
let api: { id: number }

const ZONE = 'America/New_York'

/** Sets the server's wall clock to an instant. */
const setClock = (at: string) =>
  s.run(
    Effect.flatMap(WallClock, (c) =>
      Effect.flatMap(c.millis, (now) => c.advance(new Date(at).getTime() - now)),
    ),
  )

const send = async (session: F.Session, id: number, b: unknown) => {
  const res = await s.fetch(`/v1/interactions/${id}/messages`, F.json(b, session.headers()))
  expect(res.status, await res.clone().text()).toBe(201)
}

const customer = async (id: number, at: string, text = 'Halo') => {
  await setClock(at)
  await I.inbound(s, id, text)
}

const get = async (path: string, session: F.Session = owner) => {
  const res = await s.fetch(path, { headers: session.headers() })
  return { status: res.status, body: await I.body(res) }
}

const RANGE = 'from=2025-03-07&to=2025-03-11'

beforeAll(async () => {
  // The node's own roll-up loop runs once at start, then hourly: these tests take and roll facts
  // themselves, step by step, and count what each catch-up did.
  s = await startTestServer({ CONNECTORS: 'local', REPORTS_ROLLUP_MS: '3600000' })
  w = await F.workspace(s, { plan: 'pro' })
  await s.run(
    Settings.update(w.workspaceId, {
      timezone: ZONE,
      response_target_minutes: 60,
      business_hours: {
        enabled: true,
        days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from: '09:00', to: '17:00' })),
      },
    }),
  )
  owner = await F.signIn(s, w.ownerEmail)
  agentA = await I.agent(s, w)
  agentB = await I.agent(s, w)
  teamA = await I.team(s, w, [agentA.user.id])
  msgapp = await I.channel(s, w, 'msgapp')
  api = await I.channel(s, w, 'api', {
    hours: {
      enabled: true,
      days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: true, from: '08:00', to: '20:00' })),
    },
  })
  const contact = async () => (await I.contact(s, w)).id
  c1 = (await I.conversation(s, w, { channelId: msgapp.id, contactId: await contact() })).id
  c2 = (await I.conversation(s, w, { channelId: api.id, contactId: await contact() })).id
  c3 = (await I.conversation(s, w, { channelId: msgapp.id, contactId: await contact() })).id

  // C1, Friday 7 March 16:30 EST: the customer writes; 16:31 the away message goes out (automatic).
  await customer(c1, '2025-03-07T21:30:00Z')
  await setClock('2025-03-07T21:31:00Z')
  await s.run(
    Effect.flatMap(ConversationActor, (a) =>
      a.ask(c1, {
        _tag: 'Append',
        direction: 'out',
        type: 'text',
        body: 'We are closed',
        sender: { name: 'Channel', user_id: null, auto: true },
        payload: { auto_reply: 'away' },
      }),
    ),
  )
  // 16:35 the owner gives it to team A and agent A.
  await setClock('2025-03-07T21:35:00Z')
  const assigned = await s.fetch(
    `/v1/interactions/${c1}`,
    I.patch({ team_id: teamA, assignee_id: agentA.user.id }, owner.headers()),
  )
  expect(assigned.status).toBe(200)
  // Saturday: a note (never a reply).
  await setClock('2025-03-08T15:00:00Z')
  await send(agentA.session, c1, { type: 'note', text: 'look at this Monday' })
  // C2, Saturday 8 March 19:00 EST (Sunday 00:00 UTC) on the API channel (open 08:00–20:00 daily).
  await customer(c2, '2025-03-09T00:00:00Z')
  // Sunday 9 March 08:30 EDT (after the switch to daylight time): agent B answers C2.
  // First response C2 = Sat 19:00–20:00 (60) + Sun 08:00–08:30 (30) = 90 business minutes.
  await setClock('2025-03-09T12:30:00Z')
  await send(agentB.session, c2, { text: 'Hi from B' })
  // Monday 10 March 09:45 EDT: agent A answers C1.
  // First response C1 = Fri 16:30–17:00 (30) + Mon 09:00–09:45 (45) = 75 (weekend closed).
  await setClock('2025-03-10T13:45:00Z')
  await send(agentA.session, c1, { text: 'Sorry for the wait' })
  // 10:00 EDT agent A solves C1: resolution = Fri 30 + Mon 09:00–10:00 (60) = 90.
  await setClock('2025-03-10T14:00:00Z')
  const solved = await s.fetch(
    `/v1/interactions/${c1}`,
    I.patch({ status: 'solved' }, agentA.session.headers()),
  )
  expect(solved.status).toBe(200)
  // C3, Monday 12:00 EDT: a customer nobody answers (unreplied now).
  await customer(c3, '2025-03-10T16:00:00Z')
  // Tuesday 11 March 11:00 EDT the customer reopens C1 (a new episode, a new reply clock);
  // 11:20 agent A answers (first response 20), 11:30 the customer again, 11:40 A answers (reply 10).
  await customer(c1, '2025-03-11T15:00:00Z', 'Again')
  await setClock('2025-03-11T15:20:00Z')
  await send(agentA.session, c1, { text: 'Answer 1' })
  await customer(c1, '2025-03-11T15:30:00Z', 'One more')
  await setClock('2025-03-11T15:40:00Z')
  await send(agentA.session, c1, { text: 'Answer 2' })
  // Reports are asked "today" = Wednesday 12 March.
  await setClock('2025-03-12T14:00:00Z')
})
afterAll(() => s?.stop())

describe('reports', () => {
  it('summary: counts, first response average/median/within target, replies, resolution, unreplied', async () => {
    const { status, body } = await get(`/v1/reports/summary?${RANGE}`)
    expect(status).toBe(200)
    expect(body.meta).toMatchObject({ from: '2025-03-07', to: '2025-03-11', timezone: ZONE })
    // The workspace's hours the times count in, for readers without the settings permission.
    expect(body.meta.business_hours).toMatchObject({ enabled: true })
    expect(body.meta.business_hours.days.slice(4, 6)).toEqual([
      expect.objectContaining({ day: 5, open: true, from: '09:00', to: '17:00' }),
      expect.objectContaining({ day: 6, open: false }),
    ])
    expect(body.data).toEqual({
      conversations: 3,
      // C1 ×3, C2, C3; out: agent replies only (no away message, no note).
      messages_in: 5,
      messages_out: 4,
      // 75, 90, 20: average 61.7, median 75, within 60 minutes: 1 of 3.
      first_response: { count: 3, average_minutes: 61.7, median_minutes: 75, within_target_percent: 33.3 },
      // 75, 90, 20, 10: average 48.75, within target: 20 and 10.
      reply_time: { count: 4, average_minutes: 48.8, within_target_percent: 50 },
      resolution: { count: 1, average_minutes: 90, within_target_percent: 100 },
      unreplied_now: 1,
      tickets: { created: 0, resolved: 0 },
    })
  })

  it('daily: one row per date of the workspace zone, 0-filled; hourly in the same zone', async () => {
    const daily = await get(`/v1/reports/daily?${RANGE}`)
    expect(daily.body.data).toEqual([
      { date: '2025-03-07', conversations: 1, messages_in: 1, messages_out: 0 },
      { date: '2025-03-08', conversations: 1, messages_in: 1, messages_out: 0 },
      { date: '2025-03-09', conversations: 0, messages_in: 0, messages_out: 1 },
      { date: '2025-03-10', conversations: 1, messages_in: 1, messages_out: 1 },
      { date: '2025-03-11', conversations: 0, messages_in: 2, messages_out: 2 },
    ])
    const hourly = (await get(`/v1/reports/hourly?${RANGE}`)).body.data as Array<{
      hour: number
      messages_in: number
    }>
    expect(hourly).toHaveLength(24)
    expect(hourly.filter((h) => h.messages_in > 0)).toEqual([
      { hour: 11, messages_in: 2 },
      { hour: 12, messages_in: 1 },
      { hour: 16, messages_in: 1 },
      { hour: 19, messages_in: 1 },
    ])
    // Per channel the hours split the same messages: the number's and the API channel's add up.
    const hoursOf = async (q: string) =>
      ((await get(`/v1/reports/hourly?${RANGE}&${q}`)).body.data as typeof hourly).map((h) => h.messages_in)
    const [numberHours, apiHours] = [
      await hoursOf(`channel_id=${msgapp.id}`),
      await hoursOf(`channel_id=${api.id}`),
    ]
    expect(apiHours.reduce((a, n) => a + n, 0)).toBeGreaterThan(0)
    expect(numberHours.map((n, h) => n + apiHours[h]!)).toEqual(hourly.map((h) => h.messages_in))
  })

  it("a caller in another zone gets that zone's days and hours", async () => {
    const utc = await I.agent(s, w, await I.role(s, w, ['reports.view', 'interactions.view']))
    await I.sql(s, (db) => db`UPDATE users SET timezone = 'UTC' WHERE id = ${utc.user.id}`)
    await I.setMember(s, w, utc.user.id, {})
    const daily = await get(`/v1/reports/daily?${RANGE}`, utc.session)
    expect(daily.body.meta.timezone).toBe('UTC')
    // C2's Saturday 19:00 EST is Sunday 00:00 UTC.
    expect(daily.body.data).toEqual([
      { date: '2025-03-07', conversations: 1, messages_in: 1, messages_out: 0 },
      { date: '2025-03-08', conversations: 0, messages_in: 0, messages_out: 0 },
      { date: '2025-03-09', conversations: 1, messages_in: 1, messages_out: 1 },
      { date: '2025-03-10', conversations: 1, messages_in: 1, messages_out: 1 },
      { date: '2025-03-11', conversations: 0, messages_in: 2, messages_out: 2 },
    ])
    const hourly = (await get(`/v1/reports/hourly?${RANGE}`, utc.session)).body.data as Array<{
      hour: number
      messages_in: number
    }>
    expect(hourly.filter((h) => h.messages_in > 0)).toEqual([
      { hour: 0, messages_in: 1 },
      { hour: 15, messages_in: 2 },
      { hour: 16, messages_in: 1 },
      { hour: 21, messages_in: 1 },
    ])
  })

  it('breakdown by channel and team, agents', async () => {
    const channels = (await get(`/v1/reports/breakdown?${RANGE}&type=channel`)).body.data as Array<
      Record<string, any>
    >
    expect(channels.find((r) => r.channel.id === msgapp.id)).toMatchObject({
      conversations: 2,
      messages_in: 4,
      messages_out: 3,
      first_responses: 2,
      avg_first_response_minutes: 47.5,
    })
    expect(channels.find((r) => r.channel.id === api.id)).toMatchObject({
      conversations: 1,
      messages_in: 1,
      messages_out: 1,
      first_responses: 1,
      avg_first_response_minutes: 90,
    })
    const teams = (await get(`/v1/reports/breakdown?${RANGE}&type=team`)).body.data as Array<
      Record<string, any>
    >
    // Team A got C1 once; while with the team, 2 customer messages came and 3 replies went out.
    expect(teams.find((r) => r.team.id === teamA)).toMatchObject({
      conversations: 1,
      messages_in: 2,
      messages_out: 3,
      tickets_created: 0,
      tickets_resolved: 0,
    })
    const agents = (await get(`/v1/reports/agents?${RANGE}`)).body.data as Array<Record<string, any>>
    expect(agents.find((r) => r.user.id === agentA.user.id)).toMatchObject({
      replies: 3,
      conversations: 1,
      first_responses: 2,
      avg_first_response_minutes: 47.5,
      avg_reply_minutes: 35,
      resolutions: 1,
      tickets_resolved: 0,
    })
    expect(agents.find((r) => r.user.id === agentB.user.id)).toMatchObject({
      replies: 1,
      conversations: 0,
      first_responses: 1,
      avg_first_response_minutes: 90,
    })
  })

  it('category breakdown in tree order with subcategories; labels', async () => {
    const post = async (b: unknown) =>
      (await I.body(await s.fetch('/v1/conversation-categories', F.json(b, owner.headers())))).data
    const parent = await post({ name: 'Billing' })
    const child = await post({ name: 'Refunds', parent_id: parent.id })
    for (const [id, cat] of [
      [c1, child.id],
      [c2, parent.id],
    ] as const) {
      expect(
        (await s.fetch(`/v1/interactions/${id}`, I.patch({ category_id: cat }, owner.headers()))).status,
      ).toBe(200)
    }
    const rows = (await get(`/v1/reports/breakdown?${RANGE}&type=category`)).body.data as Array<
      Record<string, any>
    >
    const mine = rows.filter((r) => r.category === null || [parent.id, child.id].includes(r.category.id))
    expect(mine.map((r) => [r.category?.id ?? null, r.conversations, r.conversations_direct])).toEqual([
      [parent.id, 2, 1],
      [child.id, 1, 1],
      [null, 1, 1],
    ])
    const label = (await I.body(await s.fetch('/v1/labels', F.json({ name: 'VIP' }, owner.headers())))).data
    const [{ contact_id }] = await I.sql<{ contact_id: number }>(
      s,
      (db) => db`SELECT contact_id FROM conversations WHERE id = ${c2}`,
    )
    await I.sql(
      s,
      (db) => db`INSERT INTO contact_labels (contact_id, label_id) VALUES (${contact_id}, ${label.id})`,
    )
    const labels = (await get(`/v1/reports/breakdown?${RANGE}&type=label`)).body.data as Array<
      Record<string, any>
    >
    expect(labels.find((r) => r.label.id === label.id)?.conversations).toBe(1)
  })

  it('CSV exports open in a CSV parser: UTF-8 with BOM, one row per date', async () => {
    const res = await s.fetch(`/v1/reports/export?${RANGE}&type=daily`, { headers: owner.headers() })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('text/csv')
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const rows = parse(Buffer.from(bytes), { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows).toHaveLength(5)
    expect(rows[3]).toEqual({ date: '2025-03-10', conversations: '1', messages_in: '1', messages_out: '1' })
    for (const type of ['summary', 'channel', 'label', 'category', 'agents', 'tickets']) {
      const r = await s.fetch(`/v1/reports/export?${RANGE}&type=${type}`, { headers: owner.headers() })
      expect(r.status, type).toBe(200)
      const parsed = parse(Buffer.from(await r.arrayBuffer()), { bom: true, columns: true }) as unknown[]
      expect(parsed.length, type).toBeGreaterThan(0)
    }
    const summary = parse(
      Buffer.from(
        await (
          await s.fetch(`/v1/reports/export?${RANGE}&type=summary`, { headers: owner.headers() })
        ).arrayBuffer(),
      ),
      { bom: true, columns: true },
    ) as Array<{ metric: string; value: string }>
    expect(summary.find((r) => r.metric === 'first_response_median_minutes')?.value).toBe('75')
    // An API key gets 403 on the app-only export.
    const key = await F.apiKey(s, w)
    expect((await s.fetch(`/v1/reports/export?${RANGE}&type=daily`, { headers: F.bearer(key) })).status).toBe(
      403,
    )
  })

  it('refuses a range over 366 days or backwards (422) and needs reports.view (403)', async () => {
    expect((await get('/v1/reports/summary?from=2024-01-01&to=2025-01-01')).status).toBe(422)
    expect((await get('/v1/reports/summary?from=2024-01-02&to=2025-01-01')).status).toBe(200)
    expect((await get('/v1/reports/daily?from=2025-03-11&to=2025-03-07')).status).toBe(422)
    expect((await get('/v1/reports/summary?from=2025-02-30')).status).toBe(422)
    expect((await get(`/v1/reports/summary?${RANGE}`, agentA.session)).status).toBe(403)
  })

  it('a range ending on the last day of 9999 answers its days (the day after is year 10000)', async () => {
    // The dates were compared as text: `10000-01-01` sorts before `9999-12-31`, so the loop
    // making the days never ended and the node stopped answering anyone.
    const end = 'from=9999-12-30&to=9999-12-31'
    const daily = await get(`/v1/reports/daily?${end}`)
    expect(daily.status).toBe(200)
    expect(daily.body.data.map((r: { date: string }) => r.date)).toEqual(['9999-12-30', '9999-12-31'])
    const file = await s.fetch(`/v1/reports/export?${end}&type=daily`, { headers: owner.headers() })
    expect(file.status).toBe(200)
    expect(
      (parse(Buffer.from(await file.arrayBuffer()), { bom: true, columns: true }) as unknown[]).length,
    ).toBe(2)
    const kpi = await get(`/v1/kpi/users/${w.ownerId}?${end}`)
    expect(kpi.status).toBe(200)
    expect(kpi.body.data.daily.map((r: { date: string }) => r.date)).toEqual(['9999-12-30', '9999-12-31'])
  })

  it('year 0000 is no date (PostgreSQL has no year 0): 422 on from, not a 500', async () => {
    const zero = 'from=0000-12-31&to=0001-01-01'
    for (const p of [
      `/v1/reports/summary?${zero}`,
      `/v1/reports/daily?${zero}`,
      `/v1/reports/agents?${zero}`,
      `/v1/reports/export?type=summary&${zero}`,
      `/v1/kpi?${zero}`,
      `/v1/kpi/users/${w.ownerId}?${zero}`,
      `/v1/kpi/export?type=summary&${zero}`,
      `/v1/pipeline/export?type=expenses&${zero}`,
    ]) {
      const res = await get(p)
      expect(res.status, p).toBe(422)
      expect(Object.keys(res.body.error.fields), p).toEqual(['from'])
    }
  })

  it('the rebuild recomputes the roll-ups from the facts with identical figures', async () => {
    const paths = [
      `/v1/reports/summary?${RANGE}`,
      `/v1/reports/daily?${RANGE}`,
      `/v1/reports/hourly?${RANGE}`,
      `/v1/reports/breakdown?${RANGE}&type=channel`,
      `/v1/reports/breakdown?${RANGE}&type=team`,
      `/v1/reports/agents?${RANGE}`,
      `/v1/kpi?${RANGE}`,
    ]
    const before = await Promise.all(paths.map(async (p) => (await get(p)).body))
    // Lose the roll-ups entirely: only the rebuild can bring the figures back.
    await I.sql(s, (db) => db`DELETE FROM report_days WHERE workspace_id = ${w.workspaceId}`)
    await I.sql(s, (db) => db`DELETE FROM report_hours WHERE workspace_id = ${w.workspaceId}`)
    expect((await get(`/v1/reports/summary?${RANGE}`)).body.data.messages_in).toBe(0)
    await s.run(Rollup.rebuild(w.workspaceId))
    const after = await Promise.all(paths.map(async (p) => (await get(p)).body))
    expect(after).toEqual(before)
  })
})

describe('conversation sla and response times follow the same definitions', () => {
  it('the detail shows the first response in business minutes of the channel', async () => {
    const detail = (await get(`/v1/interactions/${c2}`)).body.data
    expect(detail.response_times.first_response_minutes).toBe(90)
    // Wall time, whole seconds: each message took its time a few milliseconds after the clock was
    // set for it, so the span is 750 minutes give or take those (one CI run had the customer's
    // message land later than the reply's: 44,999 s). Exactly the stored span, floored.
    const [row] = await I.sql<{ ms: number }>(
      s,
      (db) => db`SELECT (extract(epoch FROM first_response_at - first_in_at) * 1000)::float8 AS ms
        FROM conversations WHERE id = ${c2}`,
    )
    expect(Math.abs(row!.ms - 750 * 60_000)).toBeLessThan(5_000)
    expect(detail.response_times.first_response_seconds).toBe(Math.floor(row!.ms / 1000))
  })

  it('the sla flag uses the stored target and business hours', async () => {
    // C3 waits since Monday 12:00 EDT; on Wednesday 10:00 EDT that is Mon 12:00–17:00 (300) + Tue
    // 09:00–17:00 (480) + Wed 09:00–10:00 (60) = 840 business minutes, over the 60-minute target.
    const detail = (await get(`/v1/interactions/${c3}`)).body.data
    expect(detail.sla).toEqual({ level: 'breach', minutes: 840, due_at: '2025-03-10T17:00:00Z' })
  })
})

describe('KPIs', () => {
  it('per-person cards in business minutes with targets met', async () => {
    const { status, body } = await get(`/v1/kpi?${RANGE}`)
    expect(status).toBe(200)
    const a = (body.data.frontline as Array<Record<string, any>>).find((r) => r.user.id === agentA.user.id)
    expect(a).toMatchObject({
      replies: 3,
      conversations: 1,
      first_response: { count: 2, average_minutes: 47.5, within_target_percent: 50 },
      reply_time: { count: 3, average_minutes: 35, within_target_percent: 66.7 },
      resolution: { count: 1, average_minutes: 90 },
    })
    const api = await get(`/v1/kpi?${RANGE}&channel_type=api`)
    const b = (api.body.data.frontline as Array<Record<string, any>>).find(
      (r) => r.user.id === agentB.user.id,
    )
    expect(b?.first_response).toMatchObject({ count: 1, average_minutes: 90, average_hours: 1.5 })
  })

  it('a personal override changes the target and its source; past breaches stay as measured then', async () => {
    const put = await s.fetch('/v1/kpi/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...owner.headers() },
      body: JSON.stringify({
        targets: { msgapp_first_response: 30 },
        overrides: [{ scope: 'user', id: agentA.user.id, metric: 'msgapp_first_response', value: 80 }],
      }),
    })
    expect(put.status, await put.clone().text()).toBe(200)
    const config = (await I.body(put)).data
    expect(config.targets.msgapp_first_response).toBe(30)
    expect(config.overrides).toEqual([
      { scope: 'user', id: agentA.user.id, metric: 'msgapp_first_response', value: 80 },
    ])
    const mine = await get(`/v1/kpi/users/${agentA.user.id}?${RANGE}`, agentA.session)
    expect(mine.status).toBe(200)
    const targets = mine.body.data.targets as Array<Record<string, any>>
    expect(targets.find((t) => t.metric === 'msgapp_first_response')).toMatchObject({
      value: 80,
      source: 'personal',
    })
    expect(targets.find((t) => t.metric === 'email_reply')).toMatchObject({
      value: 1,
      unit: 'hours',
      source: 'default',
    })
    expect(mine.body.data.daily).toHaveLength(5)
    expect(mine.body.data.daily[3]).toMatchObject({ date: '2025-03-10', replies: 1, first_responses: 1 })
    // The breach of the 75-minute first response (against the 60 in force then).
    expect(mine.body.data.breaches).toEqual([
      expect.objectContaining({
        kind: 'first_response',
        minutes: 75,
        conversation_id: c1,
        channel_type: 'msgapp',
      }),
    ])
    // Someone else's KPIs need reports.view.
    expect((await get(`/v1/kpi/users/${agentB.user.id}?${RANGE}`, agentA.session)).status).toBe(403)
    expect((await get(`/v1/kpi/users/${agentB.user.id}?${RANGE}`)).status).toBe(200)
    expect((await get('/v1/kpi/users/2147483000')).status).toBe(404)
    const me = await get('/v1/kpi/me', agentA.session)
    expect(me.status).toBe(200)
    expect(me.body.data.last_7_days.frontline.replies).toBe(3)
    expect(me.body.data.today.frontline.replies).toBe(0)
  })

  it('refuses unknown metrics and members (422)', async () => {
    const res = await s.fetch('/v1/kpi/config', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...owner.headers() },
      body: JSON.stringify({
        targets: { nonsense: 5 },
        overrides: [{ scope: 'team', id: 2147483000, metric: 'api_reply', value: 3 }],
      }),
    })
    expect(res.status).toBe(422)
    expect(Object.keys((await I.body(res)).error.fields).sort()).toEqual([
      'overrides.0.id',
      'targets.nonsense',
    ])
  })

  it('the KPI export streams raw rows ending with channel_type, own rows without reports.view', async () => {
    const res = await s.fetch(`/v1/kpi/export?${RANGE}&type=replies`, { headers: owner.headers() })
    expect(res.status).toBe(200)
    const rows = parse(Buffer.from(await res.arrayBuffer()), { bom: true, columns: true }) as Array<
      Record<string, string>
    >
    expect(rows).toHaveLength(4)
    expect(Object.keys(rows[0]!).at(-1)).toBe('channel_type')
    expect(rows.map((r) => [r.business_minutes, r.first_response, r.channel_type])).toEqual([
      ['90', 'yes', 'api'],
      ['75', 'yes', 'msgapp'],
      ['20', 'yes', 'msgapp'],
      ['10', 'no', 'msgapp'],
    ])
    const own = await s.fetch(`/v1/kpi/export?${RANGE}&type=replies&user_id=${agentA.user.id}`, {
      headers: agentA.session.headers(),
    })
    expect(own.status).toBe(200)
    expect(
      (parse(Buffer.from(await own.arrayBuffer()), { bom: true, columns: true }) as unknown[]).length,
    ).toBe(3)
    expect(
      (await s.fetch(`/v1/kpi/export?${RANGE}&type=replies`, { headers: agentA.session.headers() })).status,
    ).toBe(403)
    const resolutions = parse(
      Buffer.from(
        await (
          await s.fetch(`/v1/kpi/export?${RANGE}&type=conversations`, { headers: owner.headers() })
        ).arrayBuffer(),
      ),
      { bom: true, columns: true },
    ) as Array<Record<string, string>>
    expect(resolutions.map((r) => [r.conversation_id, r.business_minutes])).toEqual([[String(c1), '90']])
  })

  it("count only the channels the reader has access to, as the reports do (agent B's API reply is not theirs to see)", async () => {
    const reader = await I.agent(s, w, await I.role(s, w, ['reports.view', 'interactions.view']))
    await I.setMember(s, w, reader.user.id, { channelIds: [msgapp.id] })
    const as = (p: string) => get(p, reader.session)
    // The reports already leave the API channel out: agent B has no reply there for this reader.
    const agents = (await as(`/v1/reports/agents?${RANGE}`)).body.data as Array<Record<string, any>>
    expect(agents.find((r) => r.user.id === agentB.user.id)?.replies).toBe(0)
    const cards = await as(`/v1/kpi?${RANGE}`)
    expect(cards.status).toBe(200)
    const b = (cards.body.data.frontline as Array<Record<string, any>>).find(
      (r) => r.user.id === agentB.user.id,
    )
    expect(b?.replies ?? 0).toBe(0)
    const person = await as(`/v1/kpi/users/${agentB.user.id}?${RANGE}`)
    expect(person.status).toBe(200)
    expect(person.body.data.frontline.replies).toBe(0)
    expect(person.body.data.frontline.first_response.count).toBe(0)
    const file = await s.fetch(`/v1/kpi/export?${RANGE}&type=replies`, { headers: reader.session.headers() })
    expect(file.status).toBe(200)
    const rows = parse(Buffer.from(await file.arrayBuffer()), { bom: true, columns: true }) as Array<
      Record<string, string>
    >
    expect(rows.map((r) => [r.conversation_id, r.channel_type])).toEqual([
      [String(c1), 'msgapp'],
      [String(c1), 'msgapp'],
      [String(c1), 'msgapp'],
    ])
    // The owner (every channel) still sees agent B's reply.
    const all = (await get(`/v1/kpi?${RANGE}`)).body.data.frontline as Array<Record<string, any>>
    expect(all.find((r) => r.user.id === agentB.user.id)?.replies).toBe(1)
  })

  it('Free plan: 402 on every KPI endpoint; reports still answer', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const session = await F.signIn(s, free.ownerEmail)
    for (const p of ['/v1/kpi', `/v1/kpi/users/${free.ownerId}`, '/v1/kpi/me', '/v1/kpi/config']) {
      const res = await s.fetch(p, { headers: session.headers() })
      expect(res.status, p).toBe(402)
      expect((await I.body(res)).error.code).toBe('plan_required')
    }
    expect((await s.fetch('/v1/reports/summary', { headers: session.headers() })).status).toBe(200)
  })
})

describe('a deleted workspace', () => {
  it('takes its report facts with it, and only its own', async () => {
    const gone = await F.workspace(s, { plan: 'pro' })
    for (const ws of [gone, w]) {
      const ch = await I.channel(s, ws, 'msgapp')
      const c = (await I.conversation(s, ws, { channelId: ch.id, contactId: (await I.contact(s, ws)).id })).id
      await customer(c, '2025-03-13T09:00:00Z')
    }
    const facts = (id: number) =>
      I.sql<{ n: number }>(
        s,
        (db) => db`SELECT count(*)::int AS n FROM report_facts WHERE workspace_id = ${id}`,
      )
    expect((await facts(gone.workspaceId))[0]!.n).toBeGreaterThan(0)
    const kept = (await facts(w.workspaceId))[0]!.n
    await I.sql(s, (db) => db`DELETE FROM workspaces WHERE id = ${gone.workspaceId}`)
    expect((await facts(gone.workspaceId))[0]!.n).toBe(0)
    expect((await facts(w.workspaceId))[0]!.n).toBe(kept)
  })
})

describe('the roll-up', () => {
  it('a fact committed late inside a batch: rolled with it without a since, else left for the next catch-up', async () => {
    const ws = await F.workspace(s, { plan: 'pro' })
    const ch = await I.channel(s, ws, 'msgapp')
    const c = (await I.conversation(s, ws, { channelId: ch.id, contactId: (await I.contact(s, ws)).id })).id
    const [{ base }] = (await I.sql<{ base: number }>(
      s,
      (db) => db`SELECT (COALESCE(max(id), 0) + 1000000)::float8 AS base FROM report_facts`,
    )) as [{ base: number }]
    // Ids given by hand: the order in which they commit is what this is about.
    const fact = (id: number, out: boolean) =>
      I.sql(
        s,
        (db) => db`
          INSERT INTO report_facts (id, workspace_id, at, kind, conversation_id, channel_id, channel_type, user_id, since)
          OVERRIDING SYSTEM VALUE
          VALUES (${id}, ${ws.workspaceId}, '2025-03-12T14:00:00Z', ${out ? 'out' : 'in'}, ${c}, ${ch.id}, 'msgapp',
                  ${out ? ws.ownerId : null}::int, ${out ? '2025-03-12T13:00:00Z' : null}::timestamptz)`,
      )
    await fact(base + 1, false)
    await fact(base + 4, true)
    const batch = await s.run(Reports.take(ws.workspaceId, 100))
    expect({ ...batch, measure: batch.measure.map((f) => f.id) }).toEqual({
      taken: 2,
      first: base + 1,
      last: base + 4,
      measure: [base + 4],
    })
    // Two facts inside the batch's range commit after it was taken.
    await fact(base + 2, true)
    await fact(base + 3, false)
    await s.run(
      Reports.roll(ws.workspaceId, 'UTC', batch.first, batch.last, [{ id: base + 4, minutes: 7, met: true }]),
    )
    const facts = () =>
      I.sql<{ id: number; rolled: boolean; minutes: number | null; met: boolean | null }>(
        s,
        (db) => db`
          SELECT id::float8 AS id, rolled, minutes, met FROM report_facts
          WHERE workspace_id = ${ws.workspaceId} ORDER BY id`,
      )
    expect(await facts()).toEqual([
      { id: base + 1, rolled: true, minutes: null, met: null },
      { id: base + 2, rolled: false, minutes: null, met: null },
      { id: base + 3, rolled: true, minutes: null, met: null },
      { id: base + 4, rolled: true, minutes: 7, met: true },
    ])
    const days = () =>
      I.sql<{ inbound: number; out: number; replies: number }>(
        s,
        (db) => db`
          SELECT sum(messages_in)::int AS inbound, sum(messages_out)::int AS out, sum(replies)::int AS replies
          FROM report_days WHERE workspace_id = ${ws.workspaceId}`,
      )
    expect((await days())[0]).toEqual({ inbound: 2, out: 1, replies: 1 })
    // The next catch-up measures the one that waited, and counts it once.
    expect(await s.run(Rollup.catchUp(ws.workspaceId))).toBe(1)
    expect((await facts())[1]).toMatchObject({ id: base + 2, rolled: true })
    expect((await facts())[1]!.minutes).not.toBeNull()
    expect((await days())[0]).toEqual({ inbound: 2, out: 2, replies: 2 })
  })

  it('takes more than one batch: every fact once, each fact with a since measured', async () => {
    const ws = await F.workspace(s, { plan: 'pro' })
    const ch = await I.channel(s, ws, 'msgapp')
    const c = (await I.conversation(s, ws, { channelId: ch.id, contactId: (await I.contact(s, ws)).id })).id
    // More facts than two batches, inbound (nothing to measure) and replies (a measure) mixed, so
    // every batch holds both and the last one is short.
    const n = 2 * Rollup.BATCH + 345
    await I.sql(
      s,
      (db) => db`
        INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, user_id, since)
        SELECT ${ws.workspaceId}, timestamptz '2025-03-12T14:00:00Z' + g * interval '1 second',
               CASE WHEN g % 3 = 0 THEN 'out' ELSE 'in' END, ${c}, ${ch.id}, 'msgapp',
               CASE WHEN g % 3 = 0 THEN ${ws.ownerId}::int END,
               CASE WHEN g % 3 = 0 THEN timestamptz '2025-03-12T13:00:00Z' END
        FROM generate_series(1, ${n}) g`,
    )
    expect(await s.run(Rollup.catchUp(ws.workspaceId))).toBe(n)
    const figures = () =>
      I.sql<{ days_in: number; days_out: number; replies: number; hours_in: number; hours_out: number }>(
        s,
        (db) => db`
          SELECT (SELECT sum(messages_in)::int FROM report_days WHERE workspace_id = ${ws.workspaceId}) AS days_in,
                 (SELECT sum(messages_out)::int FROM report_days WHERE workspace_id = ${ws.workspaceId}) AS days_out,
                 (SELECT sum(replies)::int FROM report_days WHERE workspace_id = ${ws.workspaceId}) AS replies,
                 (SELECT sum(messages_in)::int FROM report_hours WHERE workspace_id = ${ws.workspaceId}) AS hours_in,
                 (SELECT sum(messages_out)::int FROM report_hours WHERE workspace_id = ${ws.workspaceId}) AS hours_out`,
      )
    const out = Math.floor(n / 3)
    const [rolled] = await figures()
    expect(rolled).toEqual({
      days_in: n - out,
      days_out: out,
      replies: out,
      hours_in: n - out,
      hours_out: out,
    })
    const [facts] = await I.sql<{ pending: number; unmeasured: number; measured_plain: number }>(
      s,
      (db) => db`
        SELECT count(*) FILTER (WHERE NOT rolled)::int AS pending,
               count(*) FILTER (WHERE since IS NOT NULL AND minutes IS NULL)::int AS unmeasured,
               count(*) FILTER (WHERE since IS NULL AND minutes IS NOT NULL)::int AS measured_plain
        FROM report_facts WHERE workspace_id = ${ws.workspaceId}`,
    )
    expect(facts).toEqual({ pending: 0, unmeasured: 0, measured_plain: 0 })
    // Added up again from the facts alone, the figures are the same.
    await s.run(Rollup.rebuild(ws.workspaceId))
    expect((await figures())[0]).toEqual(rolled)
  })

  it('on one connection (the embedded database) rolls up 500 facts per transaction, on PostgreSQL 5,000', async () => {
    // Each batch is a transaction holding a connection; with only one, every append and read of
    // the node waits behind it. The transactions that rolled the facts are their rows' xmin.
    const ws = await F.workspace(s, { plan: 'pro' })
    const ch = await I.channel(s, ws, 'msgapp')
    const c = (await I.conversation(s, ws, { channelId: ch.id, contactId: (await I.contact(s, ws)).id })).id
    await I.sql(
      s,
      (db) => db`
        INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type)
        SELECT ${ws.workspaceId}, timestamptz '2025-03-12T14:00:00Z' + g * interval '1 second', 'in', ${c},
               ${ch.id}, 'msgapp'
        FROM generate_series(1, 1200) g`,
    )
    await s.run(Rollup.catchUp(ws.workspaceId))
    const [row] = await I.sql<{ pending: number; transactions: number }>(
      s,
      (db) => db`
        SELECT count(*) FILTER (WHERE NOT rolled)::int AS pending, count(DISTINCT xmin::text)::int AS transactions
        FROM report_facts WHERE workspace_id = ${ws.workspaceId}
          AND at BETWEEN timestamptz '2025-03-12T14:00:01Z' AND timestamptz '2025-03-12T14:20:00Z'`,
    )
    const embedded = process.env.DATABASE_URL === undefined
    expect(Rollup.BATCH_ONE_CONNECTION).toBe(500)
    expect(row).toEqual({ pending: 0, transactions: embedded ? 3 : 1 })
  })

  it('rolls facts up without a report read (the loop every node runs), in every workspace', async () => {
    // Two more workspaces with facts pending, around this one (the loop walks workspaces in order).
    const others = [await F.workspace(s, { plan: 'pro' }), await F.workspace(s, { plan: 'pro' })]
    const c = (await I.conversation(s, w, { channelId: msgapp.id, contactId: (await I.contact(s, w)).id })).id
    await customer(c, '2025-03-12T14:30:00Z')
    for (const o of others) {
      const ch = await I.channel(s, o, 'msgapp')
      const oc = (await I.conversation(s, o, { channelId: ch.id, contactId: (await I.contact(s, o)).id })).id
      await customer(oc, '2025-03-12T15:00:00Z')
    }
    // Whether the loop got there first or this call does it, the day's roll-up holds the message.
    await s.run(Rollup.catchUpAll())
    for (const ws of [w, ...others]) {
      const [row] = await I.sql<{ n: number; pending: number }>(
        s,
        (db) => db`
          SELECT (SELECT COALESCE(sum(messages_in), 0)::int FROM report_days
                  WHERE workspace_id = ${ws.workspaceId} AND day = '2025-03-12') AS n,
                 (SELECT count(*)::int FROM report_facts WHERE workspace_id = ${ws.workspaceId} AND NOT rolled) AS pending`,
      )
      expect(row, `workspace ${ws.workspaceId}`).toEqual({ n: 1, pending: 0 })
    }
  })
})
