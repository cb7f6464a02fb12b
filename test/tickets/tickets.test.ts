import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { startTestServer, type TestServer } from '../support/server'
import { api, type People, people, raise } from './support'

/**
 * Spec 2 §4.3 over HTTP: create (validation, numbers, quota meta), list (filters, counts, teams),
 * detail, changes with their log, assignees and participants, candidates, and read keys.
 */
let s: TestServer
let p: People

beforeAll(async () => {
  s = await startTestServer()
  p = await people(s)
}, 60_000)
afterAll(() => s?.stop())

describe('POST /tickets', () => {
  it('raises a ticket from a conversation with the next human number, the contact and the creator', async () => {
    const r = await api(s, p.agent).post('/v1/tickets', {
      subject: '  Refund not received ',
      description: 'Paid twice',
      team_id: p.team,
      interaction_id: p.conversation,
      priority: 'high',
      due_date: '2030-01-31',
    })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({
      subject: 'Refund not received',
      description: 'Paid twice',
      status: 'open',
      priority: 'high',
      due_date: '2030-01-31',
      overdue: false,
      team: { id: p.team },
      assignees: [],
      interaction_id: p.conversation,
      contact: { id: p.contact },
      creator: { user_id: p.agentId },
      update_request: null,
      interaction: { id: p.conversation, can_open: true },
      can: { manage: false, feedback: true },
    })
    expect(r.data.participants).toEqual([expect.objectContaining({ id: p.agentId, role: 'creator' })])
    expect(r.meta.quota).toEqual({ used: expect.any(Number), limit: 5000 })
    // Pro: an SLA from the priority's target (8 business hours for high).
    expect(r.data.sla).toMatchObject({ level: null, target_minutes: 480 })
    const next = await raise(s, p)
    expect(next.number).toBe(r.data.number + 1)
  })

  it('refuses a Frontline team, assignees outside the team, unknown references and bad values (422)', async () => {
    const r = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.frontline,
      interaction_id: 999_999_999,
      contact_id: 999_999_999,
    })
    expect(r.status).toBe(422)
    expect(Object.keys(r.error.fields).sort()).toEqual(['contact_id', 'interaction_id', 'team_id'])
    const a = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.team,
      assignee_ids: [p.otherId],
    })
    expect(a.status).toBe(422)
    expect(a.error.fields.assignee_ids).toBeDefined()
    const d = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.team,
      due_date: '2030-02-30',
    })
    expect(d.status).toBe(422)
    const m = await api(s, p.agent).post('/v1/tickets', { subject: '', team_id: p.team })
    expect(m.status).toBe(422)
  })

  it('validates custom values against the ticket custom fields', async () => {
    const f = await api(s, p.owner).post('/v1/custom-fields', {
      entity: 'ticket',
      label: 'Order number',
      type: 'number',
    })
    expect(f.status).toBe(201)
    const bad = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.team,
      custom: { order_number: 'abc' },
    })
    expect(bad.status).toBe(422)
    expect(bad.error.fields['custom.order_number']).toBeDefined()
    const unknown = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.team,
      custom: { nope: 1 },
    })
    expect(unknown.status).toBe(422)
    const ok = await api(s, p.agent).post('/v1/tickets', {
      subject: 'x',
      team_id: p.team,
      custom: { order_number: 42 },
    })
    expect(ok.status).toBe(201)
    expect(ok.data.custom).toEqual({ order_number: 42 })
    expect(ok.data.custom_fields).toEqual([expect.objectContaining({ key: 'order_number', value: 42 })])
  })

  it('assigns people of the team (or admins) and tells them', async () => {
    const t = await raise(s, p, { assignee_ids: [p.b1Id] })
    expect(t.assignees).toEqual([expect.objectContaining({ id: p.b1Id })])
    const n = await api(s, p.b1).get('/v1/notifications')
    expect(n.data.some((x: any) => x.kind === 'ticket.assigned' && x.data.ticket_id === t.id)).toBe(true)
  })

  it('a read key gets 403 on every write, a write key creates under its own name', async () => {
    const read = await api(s, p.readKey).post('/v1/tickets', { subject: 'x', team_id: p.team })
    expect(read.status).toBe(403)
    const t = await raise(s, p)
    for (const [m, path] of [
      ['PATCH', `/v1/tickets/${t.id}`],
      ['POST', `/v1/tickets/${t.id}/assignees`],
      ['DELETE', `/v1/tickets/${t.id}/participants/${p.agentId}`],
      ['POST', `/v1/tickets/${t.id}/messages`],
      ['POST', `/v1/tickets/${t.id}/conclusion`],
    ] as const) {
      const res = await s.fetch(path, {
        method: m,
        headers: { ...p.readKey, 'content-type': 'application/json' },
        body: '{}',
      })
      expect(res.status, `${m} ${path}`).toBe(403)
    }
    expect((await api(s, p.readKey).get(`/v1/tickets/${t.id}`)).status).toBe(200)
    const k = await api(s, p.writeKey).post('/v1/tickets', { subject: 'From a key', team_id: p.team })
    expect(k.status).toBe(201)
    expect(k.data.creator).toMatchObject({ user_id: null, key_id: expect.any(Number) })
    expect(k.data.participants).toEqual([])
  })
})

describe('GET /tickets', () => {
  it('filters, searches, counts per status and lists Back Office teams', async () => {
    const t = await raise(s, p, {
      subject: 'Unique zebra subject',
      priority: 'urgent',
      due_date: '2020-01-01',
    })
    const all = await api(s, p.owner).get('/v1/tickets?per_page=100')
    expect(all.status).toBe(200)
    expect(all.meta.counts).toMatchObject({ open: expect.any(Number), active: expect.any(Number) })
    expect(all.meta.teams.map((x: any) => x.id).sort()).toEqual([p.team, p.otherTeam].sort())
    const q = await api(s, p.owner).get('/v1/tickets?q=zebra')
    expect(q.data.map((x: any) => x.id)).toEqual([t.id])
    const byNumber = await api(s, p.owner).get(`/v1/tickets?q=${t.number}`)
    expect(byNumber.data.map((x: any) => x.id)).toContain(t.id)
    const urgent = await api(s, p.owner).get('/v1/tickets?priority=urgent')
    expect(urgent.data.map((x: any) => x.id)).toEqual([t.id])
    const overdue = await api(s, p.owner).get('/v1/tickets?overdue=1')
    expect(overdue.data.map((x: any) => x.id)).toEqual([t.id])
    expect(overdue.data[0].overdue).toBe(true)
    const byConversation = await api(s, p.owner).get(
      `/v1/tickets?interaction_id=${p.conversation}&per_page=100`,
    )
    expect(byConversation.data.length).toBe(byConversation.meta.total)
    expect(byConversation.data.every((x: any) => x.interaction_id === p.conversation)).toBe(true)
    const byContact = await api(s, p.owner).get(`/v1/tickets?contact_id=${p.contact}&per_page=100`)
    expect(byContact.meta.total).toBe(byConversation.meta.total)
    const unassigned = await api(s, p.owner).get('/v1/tickets?assignee=none&per_page=100')
    expect(unassigned.data.every((x: any) => x.assignees.length === 0)).toBe(true)
    const bad = await api(s, p.owner).get('/v1/tickets?status=nope')
    expect(bad.status).toBe(422)
  })

  it('meta.counts follows the other filters and `status=active` groups the unfinished', async () => {
    const t = await raise(s, p, { subject: 'Counted walrus' })
    await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'waiting' })
    const r = await api(s, p.owner).get('/v1/tickets?q=walrus')
    expect(r.meta.counts).toMatchObject({ open: 0, waiting: 1, active: 1, resolved: 0 })
    const active = await api(s, p.owner).get('/v1/tickets?q=walrus&status=active')
    expect(active.data.map((x: any) => x.id)).toEqual([t.id])
    const open = await api(s, p.owner).get('/v1/tickets?q=walrus&status=open')
    expect(open.data).toEqual([])
  })
})

describe('PATCH /tickets/{id} and the log', () => {
  it('changes fields, logs who changed what (old and new), and follows the state table', async () => {
    const t = await raise(s, p)
    const r = await api(s, p.b1).patch(`/v1/tickets/${t.id}`, {
      status: 'in_progress',
      priority: 'urgent',
      subject: 'Refund (urgent)',
      due_date: null,
    })
    expect(r.status).toBe(200)
    expect(r.data).toMatchObject({ status: 'in_progress', priority: 'urgent', subject: 'Refund (urgent)' })
    const log = (await api(s, p.b1).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.map((e: any) => [e.kind, e.field, e.old, e.new])).toEqual([
      ['created', null, null, { number: t.number }],
      ['field', 'subject', 'Refund not received', 'Refund (urgent)'],
      ['status', 'status', 'open', 'in_progress'],
      ['field', 'priority', 'normal', 'urgent'],
    ])
    expect(log[1].actor).toMatchObject({ user_id: p.b1Id })
    // resolved → closed → (not resolved directly) → open
    expect(
      (await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'resolved' })).data.resolved_at,
    ).not.toBeNull()
    expect(
      (await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'closed' })).data.closed_at,
    ).not.toBeNull()
    const refused = await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'resolved' })
    expect(refused.status).toBe(422)
    expect(refused.error.fields.status).toBeDefined()
    const reopened = await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'open' })
    expect(reopened.data).toMatchObject({ status: 'open', resolved_at: null, closed_at: null })
  })

  it('needs tickets.manage (403 for an agent)', async () => {
    const t = await raise(s, p)
    expect((await api(s, p.agent).patch(`/v1/tickets/${t.id}`, { status: 'closed' })).status).toBe(403)
  })

  it('moving to another team releases assignees outside it; the caller may lose sight', async () => {
    const t = await raise(s, p, { assignee_ids: [p.b1Id] })
    const r = await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { team_id: p.otherTeam })
    expect(r.status).toBe(200)
    expect(r.data).toEqual({ id: t.id, visible: false })
    const d = await api(s, p.owner).get(`/v1/tickets/${t.id}`)
    expect(d.data.team.id).toBe(p.otherTeam)
    expect(d.data.assignees).toEqual([])
    const log = (await api(s, p.owner).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.map((e: any) => e.kind)).toEqual(['created', 'field', 'unassigned'])
    expect((await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { team_id: p.frontline })).status).toBe(404)
    expect((await api(s, p.owner).patch(`/v1/tickets/${t.id}`, { team_id: p.frontline })).status).toBe(422)
  })
})

describe('assignees, participants and candidates', () => {
  it('assigns a team member or an admin; others are 422; removing the last assignee hands it back', async () => {
    const t = await raise(s, p)
    expect((await api(s, p.b1).post(`/v1/tickets/${t.id}/assignees`, { user_id: p.otherId })).status).toBe(
      422,
    )
    const a = await api(s, p.b1).post(`/v1/tickets/${t.id}/assignees`, { user_id: p.b2Id })
    expect(a.status).toBe(200)
    expect(a.data).toEqual({ id: t.id, visible: false })
    expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).status).toBe(404)
    const removed = await api(s, p.b2).del(`/v1/tickets/${t.id}/participants/${p.b2Id}`)
    expect(removed.status).toBe(200)
    expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).status).toBe(200)
    expect((await api(s, p.b2).del(`/v1/tickets/${t.id}/participants/${p.b2Id}`)).status).toBe(404)
    const log = (await api(s, p.owner).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.map((e: any) => e.kind)).toEqual(['created', 'assigned', 'unassigned'])
  })

  it('an assignment and a team change at once never leave an assignee outside the ticket’s team', async () => {
    for (let i = 0; i < 10; i++) {
      const t = await raise(s, p)
      const [moved, assigned] = await Promise.all([
        api(s, p.owner).patch(`/v1/tickets/${t.id}`, { team_id: p.otherTeam }),
        api(s, p.owner).post(`/v1/tickets/${t.id}/assignees`, { user_id: p.b2Id }),
      ])
      expect(moved.status).toBe(200)
      expect([200, 422]).toContain(assigned.status)
      if (assigned.status === 422) {
        expect(assigned.error.fields.user_id).toBe(
          "must be an active member of the ticket's team who can view tickets, or an admin",
        )
      }
      const d = (await api(s, p.owner).get(`/v1/tickets/${t.id}`)).data
      expect(d.team.id).toBe(p.otherTeam)
      expect(d.assignees).toEqual([])
    }
  })

  it('does not assign a team member who cannot view tickets (told the subject, hiding it from the team)', async () => {
    // A salesperson in the Back Office team: leads, no tickets.
    const sales = await I.agent(s, p.w, await I.role(s, p.w, ['leads.view', 'leads.manage']))
    await I.sql(
      s,
      (db) => db`INSERT INTO team_members (team_id, user_id) VALUES (${p.team}, ${sales.user.id})`,
    )
    const cands = await api(s, p.b1).get('/v1/tickets/candidates')
    expect(cands.data.find((x: any) => x.id === sales.user.id)).toMatchObject({
      team_ids: [p.team],
      is_admin: false,
      can_view: false,
    })
    const t = await raise(s, p)
    const refused = await api(s, p.b1).post(`/v1/tickets/${t.id}/assignees`, { user_id: sales.user.id })
    expect(refused.status).toBe(422)
    expect(refused.error.fields.user_id).toBe(
      "must be an active member of the ticket's team who can view tickets, or an admin",
    )
    const raised = await api(s, p.b1).post('/v1/tickets', {
      subject: 'Refund for order 4411',
      team_id: p.team,
      assignee_ids: [sales.user.id],
    })
    expect(raised.status).toBe(422)
    expect(raised.error.fields.assignee_ids).toBeDefined()
    // Nothing told, and the team still sees the ticket.
    const notes = await api(s, sales.session.headers()).get('/v1/notifications')
    expect(notes.data.some((x: any) => String(x.kind).startsWith('ticket.'))).toBe(false)
    expect((await api(s, p.b2).get(`/v1/tickets/${t.id}`)).status).toBe(200)
  })

  it('lets a follower without tickets.manage unfollow themselves, and nothing else', async () => {
    // The agent (tickets.view, no tickets.manage) raised it; the outsider (the same role) is
    // mentioned; b1 is assigned, so only participants see it.
    const t = await raise(s, p, { assignee_ids: [p.b1Id] })
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, {
      body: 'FYI',
      mention_ids: [p.outsiderId],
    })
    expect(m.status).toBe(201)
    expect((await api(s, p.outsider).get(`/v1/tickets/${t.id}`)).status).toBe(200)
    // Not someone else, assignee or follower.
    for (const [who, target] of [
      [p.outsider, p.b1Id],
      [p.outsider, p.agentId],
      [p.agent, p.outsiderId],
    ] as const) {
      const r = await api(s, who).del(`/v1/tickets/${t.id}/participants/${target}`)
      expect(r.status).toBe(403)
      expect(r.error.code).toBe('forbidden')
    }
    const left = await api(s, p.outsider).del(`/v1/tickets/${t.id}/participants/${p.outsiderId}`)
    expect(left.status).toBe(200)
    expect(left.data).toEqual({ id: t.id, visible: false })
    expect((await api(s, p.outsider).get(`/v1/tickets/${t.id}`)).status).toBe(404)
    // The creator follows too and may stop.
    const creator = await api(s, p.agent).del(`/v1/tickets/${t.id}/participants/${p.agentId}`)
    expect(creator.status).toBe(200)
    const d = await api(s, p.owner).get(`/v1/tickets/${t.id}`)
    expect(d.data.participants.map((x: any) => [x.id, x.role])).toEqual([[p.b1Id, 'assignee']])
    const log = (await api(s, p.owner).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.map((e: any) => e.kind)).toEqual([
      'created',
      'mentioned',
      'participant_removed',
      'participant_removed',
    ])
    // Without tickets.view nothing at all.
    const none = await api(s, p.readKey).del(`/v1/tickets/${t.id}/participants/${p.b1Id}`)
    expect(none.status).toBe(403)
  })

  it('lists candidates with Back Office team_ids and is_admin', async () => {
    const r = await api(s, p.agent).get('/v1/tickets/candidates')
    expect(r.status).toBe(200)
    expect(r.data.find((x: any) => x.id === p.b1Id)).toMatchObject({ team_ids: [p.team], is_admin: false })
    expect(r.data.find((x: any) => x.id === p.w.ownerId)).toMatchObject({ is_admin: true })
    expect(r.meta.teams.map((x: any) => x.id).sort()).toEqual([p.team, p.otherTeam].sort())
    expect((await api(s, p.outsider).get('/v1/tickets/candidates')).status).toBe(200)
  })
})
