import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Reminders from '../../actors/pipeline/reminders'
import { currentTime } from '../../engine/clock'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * Visibility rule 5 (spec 2 §1) over every way to a lead, and the work on a lead: timeline with
 * mentions, files, checklist, events and their reminders (once, also after a restart), expenses
 * with receipts (spec 2 §4.7).
 */
let s: TestServer
let w: F.Seeded
let ownerSession: F.Session
let owner: P.Who
let writeKey: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer({}, { durable: true })
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = P.session(ownerSession)
  writeKey = P.key(await F.apiKey(s, w, 'write'))
  flow = await P.workflow(s, owner, { name: 'Main' })
}, 60_000)
afterAll(() => s?.stop())

const MANAGE = ['leads.view', 'leads.manage']

describe('visibility rule 5', () => {
  it('lets the owner alone see an owned lead, the team an unowned one, and admins, view-all and keys all', async () => {
    const ani = await P.person(s, w, MANAGE)
    const budi = await P.person(s, w, MANAGE)
    const cici = await P.person(s, w, MANAGE)
    const viewAll = await P.person(s, w, ['leads.view'])
    await I.setMember(s, w, viewAll.id, { viewAll: true })
    const admin = await I.agent(s, w, 'Admin')
    const team = await P.team(s, w, [ani.id, budi.id])
    const teamLead = await P.lead(s, owner, { pipeline_id: flow.id, team_id: team })
    const owned = await P.lead(s, owner, { pipeline_id: flow.id, team_id: team, assignee_id: budi.id })
    const loose = await P.lead(s, owner, { pipeline_id: flow.id })
    const f = await P.api(s, owner).post(`/v1/leads/${owned.id}/checklist`, { text: 'Send offer' })
    expect(f.status).toBe(201)
    const sees = async (who: P.Who, id: number) => (await P.api(s, who).get(`/v1/leads/${id}`)).status === 200
    const matrix = {
      ani: [await sees(ani.who, teamLead.id), await sees(ani.who, owned.id), await sees(ani.who, loose.id)],
      budi: [
        await sees(budi.who, teamLead.id),
        await sees(budi.who, owned.id),
        await sees(budi.who, loose.id),
      ],
      cici: [
        await sees(cici.who, teamLead.id),
        await sees(cici.who, owned.id),
        await sees(cici.who, loose.id),
      ],
      viewAll: [
        await sees(viewAll.who, teamLead.id),
        await sees(viewAll.who, owned.id),
        await sees(viewAll.who, loose.id),
      ],
      admin: [
        await sees(P.session(admin.session), teamLead.id),
        await sees(P.session(admin.session), owned.id),
        await sees(P.session(admin.session), loose.id),
      ],
      key: [
        await sees(writeKey, teamLead.id),
        await sees(writeKey, owned.id),
        await sees(writeKey, loose.id),
      ],
    }
    // The unowned lead without a team is seen by whoever sees its workflow (open to all here).
    expect(matrix).toEqual({
      ani: [true, false, true],
      budi: [true, true, true],
      cici: [false, false, true],
      viewAll: [true, true, true],
      admin: [true, true, true],
      key: [true, true, true],
    })
    // The same rule on the list, the board, the sub-resources and a write.
    const listed = async (who: P.Who) =>
      (await P.api(s, who).get(`/v1/leads?pipeline_id=${flow.id}&per_page=100`)).data.map(
        (l: { id: number }) => l.id,
      )
    expect(await listed(ani.who)).toContain(teamLead.id)
    expect(await listed(ani.who)).not.toContain(owned.id)
    const board = await P.api(s, ani.who).get(`/v1/leads/board?pipeline_id=${flow.id}`)
    const cards = board.data.stages.flatMap((x: { cards: Array<{ id: number }> }) => x.cards.map((c) => c.id))
    expect(cards).toContain(teamLead.id)
    expect(cards).not.toContain(owned.id)
    expect((await P.api(s, ani.who).get(`/v1/leads/${owned.id}/activities`)).status).toBe(404)
    expect(
      (await P.api(s, ani.who).post(`/v1/leads/${owned.id}/activities`, { kind: 'note', body: 'x' })).status,
    ).toBe(404)
    expect((await P.api(s, ani.who).patch(`/v1/lead-checklist/${f.data.id}`, { done: true })).status).toBe(
      404,
    )
    expect((await P.api(s, ani.who).patch(`/v1/leads/${owned.id}`, { title: 'x' })).status).toBe(404)
    expect(
      (await P.api(s, ani.who).post(`/v1/leads/${owned.id}/move`, { stage_id: flow.stages[1]!.id })).status,
    ).toBe(404)
    // Another workspace's key: 404 as for an id of nothing.
    const other = await F.workspace(s, { plan: 'pro' })
    expect((await P.api(s, P.key(await F.apiKey(s, other))).get(`/v1/leads/${loose.id}`)).status).toBe(404)
  })
})

describe('the work on a lead', () => {
  it('logs activities (paged, notes only), notifies `@Name` mentions who see the lead, edits by author or admin', async () => {
    const ani = await P.person(s, w, MANAGE)
    const budi = await P.person(s, w, MANAGE)
    const cici = await P.person(s, w, MANAGE)
    await I.sql(s, (db) => db`UPDATE users SET name = 'Budi Santoso' WHERE id = ${budi.id} RETURNING 1`)
    await I.sql(s, (db) => db`UPDATE users SET name = 'Cici' WHERE id = ${cici.id} RETURNING 1`)
    const team = await P.team(s, w, [ani.id, budi.id])
    const l = await P.lead(s, owner, { pipeline_id: flow.id, team_id: team })
    const a = await P.api(s, ani.who).post(`/v1/leads/${l.id}/activities`, {
      kind: 'call',
      body: 'Called them, @budi santoso please follow up; @Cici FYI',
      duration_minutes: 12,
    })
    expect(a.status).toBe(201)
    expect(a.data).toMatchObject({ kind: 'call', duration_minutes: 12, manual: true, mine: true })
    expect(a.data.data.mention_ids).toEqual([budi.id])
    const notes = async (who: P.Who) => (await P.api(s, who).get('/v1/notifications')).data
    expect((await notes(budi.who)).map((n: { kind: string }) => n.kind)).toContain('lead.mention')
    // Cici cannot see the lead: no notification reaches her.
    expect((await notes(cici.who)).map((n: { kind: string }) => n.kind)).not.toContain('lead.mention')
    await P.api(s, ani.who).post(`/v1/leads/${l.id}/activities`, { kind: 'note', body: 'A note' })
    expect((await P.api(s, ani.who).post(`/v1/leads/${l.id}/activities`, { kind: 'note' })).status).toBe(422)
    const onlyNotes = await P.api(s, ani.who).get(`/v1/leads/${l.id}/activities?kind=note`)
    expect(onlyNotes.data.map((x: { body: string }) => x.body)).toEqual(['A note'])
    const page = await P.api(s, ani.who).get(`/v1/leads/${l.id}/activities?limit=1`)
    expect(page.meta.has_more).toBe(true)
    const next = await P.api(s, ani.who).get(
      `/v1/leads/${l.id}/activities?limit=5&before=${page.meta.next_before}`,
    )
    expect(next.data.map((x: { kind: string }) => x.kind)).toEqual(['call', 'change'])
    // Edit: the author or an admin; the change log never.
    expect((await P.api(s, budi.who).patch(`/v1/lead-activities/${a.data.id}`, { body: 'x' })).status).toBe(
      403,
    )
    expect(
      (await P.api(s, ani.who).patch(`/v1/lead-activities/${a.data.id}`, { body: 'Edited' })).data.body,
    ).toBe('Edited')
    const change = next.data.find((x: { kind: string }) => x.kind === 'change')
    expect((await P.api(s, owner).del(`/v1/lead-activities/${change.id}`)).status).toBe(403)
    expect((await P.api(s, owner).del(`/v1/lead-activities/${a.data.id}`)).status).toBe(200)
    expect(
      (await P.api(s, writeKey).post(`/v1/leads/${l.id}/activities`, { kind: 'email', body: 'Sent' })).status,
    ).toBe(201)
  })

  it('keeps files private to those who see the lead; delete by uploader, owner or admin', async () => {
    const ani = await P.person(s, w, MANAGE)
    const budi = await P.person(s, w, MANAGE)
    const cici = await P.person(s, w, MANAGE)
    const team = await P.team(s, w, [ani.id, budi.id])
    const l = await P.lead(s, owner, { pipeline_id: flow.id, team_id: team })
    const bytes = I.bytes(3000)
    const up = await s.fetch(`/v1/leads/${l.id}/files`, {
      method: 'POST',
      headers: ani.session.headers(),
      body: I.form({}, [{ field: 'file', name: 'offer.pdf', type: 'application/pdf', bytes }]),
    })
    expect(up.status).toBe(201)
    const file = (await I.body(up)).data
    expect(file).toMatchObject({ name: 'offer.pdf', size: 3000, url: `/v1/lead-files/${file.id}` })
    const got = await s.fetch(`/v1/lead-files/${file.id}?download=1`, { headers: budi.session.headers() })
    expect(got.status).toBe(200)
    expect(got.headers.get('content-disposition')).toMatch(/^attachment/)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes)
    expect((await s.fetch(`/v1/lead-files/${file.id}`, { headers: cici.session.headers() })).status).toBe(404)
    expect(
      (
        await s.fetch(`/v1/lead-files/${file.id}`, {
          headers: F.bearer((writeKey as { authorization: string }).authorization.slice(7)),
        })
      ).status,
    ).toBe(200)
    expect((await P.api(s, budi.who).del(`/v1/lead-files/${file.id}`)).status).toBe(403)
    expect((await P.api(s, ani.who).del(`/v1/lead-files/${file.id}`)).data).toEqual({
      id: file.id,
      deleted: true,
    })
    expect((await s.fetch(`/v1/lead-files/${file.id}`, { headers: ani.session.headers() })).status).toBe(404)
    const noFile = await s.fetch(`/v1/leads/${l.id}/files`, {
      method: 'POST',
      headers: ani.session.headers(),
      body: I.form({}),
    })
    expect(noFile.status).toBe(422)
  })

  it('keeps a checklist in order', async () => {
    const l = await P.lead(s, owner, { pipeline_id: flow.id })
    const a = (await P.api(s, owner).post(`/v1/leads/${l.id}/checklist`, { text: 'One' })).data
    const b = (await P.api(s, owner).post(`/v1/leads/${l.id}/checklist`, { text: 'Two' })).data
    expect([a.position, b.position]).toEqual([0, 1])
    const done = await P.api(s, owner).patch(`/v1/lead-checklist/${a.id}`, { done: true, text: 'One!' })
    expect(done.data).toMatchObject({ done: true, text: 'One!' })
    expect(done.data.done_at).not.toBeNull()
    await P.api(s, owner).patch(`/v1/lead-checklist/${b.id}`, { position: 0 })
    const d = await P.api(s, owner).get(`/v1/leads/${l.id}`)
    expect(d.data.checklist.map((c: { text: string }) => c.text)).toEqual(['Two', 'One!'])
    expect((await P.api(s, owner).del(`/v1/lead-checklist/${a.id}`)).status).toBe(200)
    expect((await P.api(s, writeKey).post(`/v1/leads/${l.id}/checklist`, { text: 'X' })).status).toBe(403)
  })

  it('reorders a checklist that several people drag at once, without failing any of them', async () => {
    // Each move changed its own item, then locked the lead's others: two moves at once each held
    // an item the other waited for, and PostgreSQL ended one of them (a deadlock, answered 500).
    const l = await P.lead(s, owner, { pipeline_id: flow.id })
    const ids: number[] = []
    for (const text of ['A', 'B', 'C', 'D'])
      ids.push((await P.api(s, owner).post(`/v1/leads/${l.id}/checklist`, { text })).data.id)
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        ids.map((id, i) =>
          P.api(s, owner).patch(`/v1/lead-checklist/${id}`, {
            done: round % 2 === 0,
            position: (i + round + 1) % 4,
          }),
        ),
      )
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200])
    }
    const d = await P.api(s, owner).get(`/v1/leads/${l.id}`)
    expect(d.data.checklist.map((c: { position: number }) => c.position)).toEqual([0, 1, 2, 3])
    expect(d.data.checklist.every((c: { done: boolean }) => c.done)).toBe(true)
  })

  it('records expenses with receipts; edit by recorder, payer or admin; delete removes the receipt', async () => {
    const ani = await P.person(s, w, MANAGE)
    const budi = await P.person(s, w, MANAGE)
    const cici = await P.person(s, w, MANAGE)
    const team = await P.team(s, w, [ani.id, budi.id, cici.id])
    const l = await P.lead(s, owner, { pipeline_id: flow.id, team_id: team })
    const receipt = I.bytes(500, 3)
    const res = await s.fetch(`/v1/leads/${l.id}/expenses`, {
      method: 'POST',
      headers: ani.session.headers(),
      body: I.form(
        {
          spent_on: '2026-11-20',
          category: 'meals',
          amount: '125000.5',
          note: 'Lunch',
          spent_by: String(budi.id),
        },
        [{ field: 'receipt', name: 'r.jpg', type: 'image/jpeg', bytes: receipt }],
      ),
    })
    expect(res.status).toBe(201)
    const x = (await I.body(res)).data
    expect(x).toMatchObject({
      spent_on: '2026-11-20',
      category: 'Meals',
      amount: 125000.5,
      spent_by: { id: budi.id },
    })
    const r = await s.fetch(x.receipt.url, { headers: cici.session.headers() })
    expect(new Uint8Array(await r.arrayBuffer())).toEqual(receipt)
    const json = await P.api(s, ani.who).post(`/v1/leads/${l.id}/expenses`, {
      category: 'Transport',
      amount: 20,
    })
    expect(json.status).toBe(201)
    expect(json.data.receipt).toBeNull()
    expect(
      (await P.api(s, ani.who).post(`/v1/leads/${l.id}/expenses`, { category: 'Yacht', amount: 1 })).status,
    ).toBe(422)
    expect((await P.api(s, cici.who).patch(`/v1/lead-expenses/${x.id}`, { amount: 1 })).status).toBe(403)
    expect(
      (await P.api(s, budi.who).patch(`/v1/lead-expenses/${x.id}`, { amount: 130000 })).data.amount,
    ).toBe(130000)
    expect((await P.api(s, owner).get(`/v1/leads/${l.id}`)).data.expenses_total).toBe(130020)
    expect((await P.api(s, ani.who).del(`/v1/lead-expenses/${x.id}`)).status).toBe(200)
    expect((await s.fetch(x.receipt.url, { headers: ani.session.headers() })).status).toBe(404)
  })
})

describe('event reminders', () => {
  it('notify once, remind_minutes before the start; a changed start re-arms; validated ends', async () => {
    const ani = await P.person(s, w, MANAGE)
    const l = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: ani.id })
    const now = await I.clockNow(s)
    const start = new Date(now + 3 * 3_600_000).toISOString()
    const e = await P.api(s, owner).post(`/v1/leads/${l.id}/events`, {
      title: 'Demo',
      starts_at: start,
      remind_minutes: 60,
      location: 'Their office',
    })
    expect(e.status).toBe(201)
    expect(e.data).toMatchObject({ kind: 'meeting', remind_minutes: 60, reminded: false })
    const bad = await P.api(s, owner).post(`/v1/leads/${l.id}/events`, {
      title: 'X',
      starts_at: start,
      ends_at: new Date(now).toISOString(),
    })
    expect(bad.status).toBe(422)
    const reminders = async (who: P.Who) =>
      (await P.api(s, who).get('/v1/notifications')).data.filter(
        (n: { kind: string; data: { event_id: number } }) =>
          n.kind === 'lead.reminder' && n.data.event_id === e.data.id,
      )
    // Two hours later the reminder (due at +2 h) fires, to the owner of the lead and the planner.
    await I.advance(s, 2 * 3_600_000 + 1000)
    await P.eventually(
      () => reminders(ani.who),
      (r) => r.length === 1,
    )
    await P.eventually(
      () => reminders(owner),
      (r) => r.length === 1,
    )
    // Moving the start re-arms it once.
    const moved = await P.api(s, owner).patch(`/v1/lead-events/${e.data.id}`, {
      starts_at: new Date(now + 2 * 3_600_000 + 30 * 60_000).toISOString(),
    })
    expect(moved.data.reminded).toBe(false)
    await P.eventually(
      () => reminders(ani.who),
      (r) => r.length === 2,
    )
    // A title change does not.
    await P.api(s, owner).patch(`/v1/lead-events/${e.data.id}`, { title: 'Demo day' })
    expect((await P.api(s, owner).get(`/v1/leads/${l.id}`)).data.events[0]).toMatchObject({
      reminded: true,
      title: 'Demo day',
    })
    expect((await P.api(s, owner).del(`/v1/lead-events/${e.data.id}`)).status).toBe(200)
  })

  it('fires a reminder due across a restart exactly once', async () => {
    const ani = await P.person(s, w, MANAGE)
    const l = await P.lead(s, owner, { pipeline_id: flow.id, assignee_id: ani.id })
    // Far enough ahead that no clock of a restarted node reaches it without being moved.
    const start = new Date(Date.now() + 30 * 86_400_000).toISOString()
    const e = await P.api(s, owner).post(`/v1/leads/${l.id}/events`, {
      title: 'Visit',
      starts_at: start,
      remind_minutes: 15,
    })
    await s.restart()
    await I.advance(s, 30 * 86_400_000)
    const reminders = async () =>
      (await P.api(s, ani.who).get('/v1/notifications')).data.filter(
        (n: { kind: string; data: { event_id: number } }) =>
          n.kind === 'lead.reminder' && n.data.event_id === e.data.id,
      )
    await P.eventually(reminders, (r) => r.length === 1)
    // Another restart and a sweep of its own, later still: nothing is due twice.
    await s.restart()
    await I.advance(s, 31 * 86_400_000)
    expect(await s.run(Effect.flatMap(currentTime, Reminders.fireDue))).toBe(0)
    const [row] = await I.sql<{ n: number }>(
      s,
      (db) =>
        db`SELECT count(*)::int AS n FROM notifications WHERE kind = 'lead.reminder' AND (data->>'event_id')::bigint = ${e.data.id}`,
    )
    // One for the lead's owner, one for whoever planned the event.
    expect(row!.n).toBe(2)
    expect(await reminders()).toHaveLength(1)
  })
})
