import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/**
 * Leads (spec 2 §4.7, §3): creation by every kind of contact and client, numbering, the monthly
 * quota, keys, changes, moves and their races, the list, the board, owner candidates, duplicates,
 * deletion, and the contact's and conversation's lead lists; `pipeline.changed` on the socket.
 */
let s: TestServer
let w: F.Seeded
let ownerSession: F.Session
let owner: P.Who
let writeKey: P.Who
let readKey: P.Who
let flow: Awaited<ReturnType<typeof P.workflow>>

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  ownerSession = await F.signIn(s, w.ownerEmail)
  owner = P.session(ownerSession)
  writeKey = P.key(await F.apiKey(s, w, 'write'))
  readKey = P.key(await F.apiKey(s, w, 'read'))
  flow = await P.workflow(s, owner, { name: 'Main' })
}, 60_000)
afterAll(() => s?.stop())

describe('creating leads', () => {
  it('numbers LEAD-<n>, finds or creates contacts by phone then e-mail, and clients by name', async () => {
    const known = await I.contact(s, w, { name: 'Sari', phone: '+6281234500001', email: 'sari@example.com' })
    // Phone written the local way matches the stored E.164 form.
    const a = await P.lead(s, owner, { pipeline_id: flow.id, contact: { phone: '0812-3450-0001' } })
    expect(a.contact.id).toBe(known.id)
    expect(a.identifier).toBe(`LEAD-${a.number}`)
    expect(a.source).toBe('app')
    expect(a.stage.kind).toBe('new')
    // No phone match: the e-mail (any case) finds the same contact.
    const b = await P.lead(s, owner, {
      pipeline_id: flow.id,
      contact: { name: 'X', email: 'SARI@example.com' },
    })
    expect(b.contact.id).toBe(known.id)
    expect(b.number).toBe(a.number + 1)
    // Neither: a new contact.
    const c = await P.lead(s, owner, {
      pipeline_id: flow.id,
      contact: { name: 'Tono', phone: '081298765432' },
    })
    expect(c.contact).toMatchObject({ name: 'Tono', phone: '+6281298765432' })
    const bad = await P.api(s, owner).post('/v1/leads', { title: 'X', contact: { phone: '12' } })
    expect(bad.status).toBe(422)
    expect(bad.error.fields['contact.phone']).toBeDefined()
    // Clients: by name (found regardless of case, else created), by id; unknown id is 422.
    const d = await P.lead(s, owner, { pipeline_id: flow.id, client_name: 'PT Maju Jaya' })
    const e = await P.lead(s, owner, { pipeline_id: flow.id, client_name: 'pt maju jaya' })
    expect(e.client.id).toBe(d.client.id)
    expect((await P.lead(s, owner, { pipeline_id: flow.id, client_id: d.client.id })).client.name).toBe(
      'PT Maju Jaya',
    )
    expect((await P.api(s, owner).post('/v1/leads', { title: 'X', client_id: 999999 })).status).toBe(422)
  })

  it('creates from a conversation (its contact) and answers it on the conversation and the contact', async () => {
    const contact = await I.contact(s, w)
    const channel = await I.channel(s, w, 'msgapp')
    const conv = await I.conversation(s, w, { channelId: channel.id, contactId: contact.id })
    const other = await P.lead(s, owner, {
      pipeline_id: flow.id,
      contact_id: contact.id,
      title: 'Earlier deal',
    })
    const made = await P.lead(s, owner, { pipeline_id: flow.id, interaction_id: conv.id, title: 'From chat' })
    expect(made.contact.id).toBe(contact.id)
    expect(made.interaction_id).toBe(conv.id)
    const onConv = await P.api(s, owner).get(`/v1/interactions/${conv.id}/leads`)
    expect(onConv.data.map((l: { id: number }) => l.id)).toEqual([made.id])
    expect(onConv.meta.other.map((l: { id: number }) => l.id)).toEqual([other.id])
    const onContact = await P.api(s, owner).get(`/v1/contacts/${contact.id}/leads`)
    expect(onContact.data.map((l: { id: number }) => l.id).sort()).toEqual([made.id, other.id].sort())
    expect(onContact.meta.total).toBe(2)
    const profile = await P.api(s, owner).get(`/v1/contacts/${contact.id}`)
    expect(profile.data.statistics.leads).toBe(2)
    expect(profile.data.leads).toHaveLength(2)
    // Someone without any leads permission sees none of them there.
    const noLeads = await P.person(s, w, ['interactions.view', 'contacts.view'])
    await I.setMember(s, w, noLeads.id, { viewAll: true })
    expect((await P.api(s, noLeads.who).get(`/v1/contacts/${contact.id}/leads`)).data).toEqual([])
    expect((await P.api(s, noLeads.who).get(`/v1/interactions/${conv.id}/leads`)).data).toEqual([])
  })

  it('marks leads made through a key `source: api`; a read key may not write', async () => {
    const viaKey = await P.lead(s, writeKey, { pipeline_id: flow.id })
    expect(viaKey.source).toBe('api')
    expect((await P.api(s, readKey).post('/v1/leads', { title: 'X', pipeline_id: flow.id })).status).toBe(403)
    expect((await P.api(s, readKey).patch(`/v1/leads/${viaKey.id}`, { title: 'Y' })).status).toBe(403)
    expect(
      (await P.api(s, readKey).post(`/v1/leads/${viaKey.id}/move`, { stage_id: flow.stages[1]!.id })).status,
    ).toBe(403)
    expect((await P.api(s, readKey).get(`/v1/leads/${viaKey.id}`)).status).toBe(200)
    // Deleting is for the app only.
    expect((await P.api(s, writeKey).del(`/v1/leads/${viaKey.id}`)).status).toBe(403)
  })

  it('numbers without gaps under concurrent creations, across refused ones', async () => {
    const before = (await P.api(s, owner).get('/v1/leads?sort=number&dir=desc&per_page=1')).data[0].number
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        P.api(s, i % 2 ? owner : writeKey).post('/v1/leads', {
          title: `Race ${i}`,
          pipeline_id: flow.id,
          // Every fifth is refused (unknown client) and takes no number.
          ...(i % 5 === 0 ? { client_id: 99_999_999 } : {}),
        }),
      ),
    )
    const made = results.filter((r) => r.status === 201).map((r) => r.data.number)
    expect(results.filter((r) => r.status === 422)).toHaveLength(4)
    expect(made.sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => before + 1 + i))
  })

  it('refuses the create past the monthly quota (402), exactly one winner for the last slot', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const boss = P.session(await F.signIn(s, free.ownerEmail))
    const p = await P.workflow(s, boss)
    const period = new Intl.DateTimeFormat('en-CA', {
      timeZone: 'Asia/Jakarta',
      year: 'numeric',
      month: '2-digit',
    })
      .format(new Date())
      .slice(0, 7)
    await I.sql(
      s,
      (db) => db`INSERT INTO usage_counters (workspace_id, counter, period, used)
        VALUES (${free.workspaceId}, 'leads_per_month', ${period}, 99) RETURNING 1`,
    )
    const [x, y] = await Promise.all([
      P.api(s, boss).post('/v1/leads', { title: 'A', pipeline_id: p.id }),
      P.api(s, boss).post('/v1/leads', { title: 'B', pipeline_id: p.id }),
    ])
    expect([x.status, y.status].sort()).toEqual([201, 402])
    const refused = x.status === 402 ? x : y
    expect(refused.error.code).toBe('plan_required')
    const won = x.status === 201 ? x : y
    expect(won.meta.quota).toMatchObject({ used: 100, limit: 100 })
    expect((await P.api(s, boss).get('/v1/leads')).meta.total).toBe(1)
    const billing = await P.api(s, boss).get('/v1/billing')
    expect(billing.data.usage.leads_per_month).toMatchObject({ used: 100, limit: 100 })
    // Deleting gives nothing back.
    await P.api(s, boss).del(`/v1/leads/${won.data.id}`)
    expect((await P.api(s, boss).post('/v1/leads', { title: 'C', pipeline_id: p.id })).status).toBe(402)
  })
})

describe('changing and moving', () => {
  it('moves to Won (value defaults to the prospect value), to Lost (reason from the list), and reopens', async () => {
    const l = await P.lead(s, owner, { pipeline_id: flow.id, value_estimate: 1500 })
    const won = P.stageOf(flow, 'won')
    const lost = P.stageOf(flow, 'lost')
    const r = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, { stage_id: won })
    expect(r.data).toMatchObject({ status: 'won', value_won: 1500 })
    expect(r.data.closed_at).not.toBeNull()
    // Won to Lost directly: reopen first.
    const direct = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, {
      stage_id: lost,
      lost_reason: 'Other',
    })
    expect(direct.status).toBe(409)
    const reopened = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, {
      stage_id: P.stageOf(flow, 'progress'),
    })
    expect(reopened.data).toMatchObject({ status: 'open', value_won: null, closed_at: null })
    const noReason = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, { stage_id: lost })
    expect(noReason.status).toBe(422)
    expect(noReason.error.fields.lost_reason).toBeDefined()
    const unknownReason = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, {
      stage_id: lost,
      lost_reason: 'Bad luck',
    })
    expect(unknownReason.status).toBe(422)
    const gone = await P.api(s, owner).post(`/v1/leads/${l.id}/move`, {
      stage_id: lost,
      lost_reason: 'no budget',
      lost_note: 'Next year',
    })
    expect(gone.data).toMatchObject({ status: 'lost', lost_reason: 'No budget', lost_note: 'Next year' })
    // Without a prospect value, Won needs value_won.
    const bare = await P.lead(s, owner, { pipeline_id: flow.id })
    const need = await P.api(s, owner).post(`/v1/leads/${bare.id}/move`, { stage_id: won })
    expect(need.status).toBe(422)
    expect(need.error.fields.value_won).toBeDefined()
    expect(
      (await P.api(s, owner).post(`/v1/leads/${bare.id}/move`, { stage_id: won, value_won: 900 })).data
        .value_won,
    ).toBe(900)
    // Every move is in the history.
    const history = await P.api(s, owner).get(`/v1/leads/${l.id}/activities`)
    expect(history.data.map((a: { data: { change?: string } }) => a.data.change)).toEqual([
      'lost',
      'reopened',
      'won',
      'created',
    ])
  })

  it('a lead created while its empty workflow is deleted: either the lead lands and the workflow is archived, or 422 and it is gone (never a 500)', async () => {
    for (let i = 0; i < 6; i++) {
      const doomed = await P.workflow(s, owner, { name: `Doomed ${i}` })
      const [made, removed] = await Promise.all([
        P.api(s, writeKey).post('/v1/leads', { title: 'Race', pipeline_id: doomed.id }),
        P.api(s, owner).del(`/v1/pipelines/${doomed.id}`),
      ])
      expect(removed.status).toBe(200)
      if (made.status === 201) expect(removed.data).toMatchObject({ deleted: false, archived: true })
      else {
        expect(made.status).toBe(422)
        expect(made.error.fields.pipeline_id).toBeDefined()
        expect(removed.data).toMatchObject({ deleted: true, archived: false })
      }
    }
  })

  it('serialises two moves of one lead: one wins, the other 409s, nothing half-applied', async () => {
    for (let i = 0; i < 5; i++) {
      const l = await P.lead(s, owner, { pipeline_id: flow.id, value_estimate: 100 })
      const [a, b] = await Promise.all([
        P.api(s, owner).post(`/v1/leads/${l.id}/move`, { stage_id: P.stageOf(flow, 'won') }),
        P.api(s, writeKey).post(`/v1/leads/${l.id}/move`, {
          stage_id: P.stageOf(flow, 'lost'),
          lost_reason: 'Other',
        }),
      ])
      expect([a.status, b.status].sort()).toEqual([200, 409])
      const now = (await P.api(s, owner).get(`/v1/leads/${l.id}`)).data
      if (now.status === 'won') expect(now).toMatchObject({ value_won: 100, lost_reason: null })
      else expect(now).toMatchObject({ status: 'lost', value_won: null, lost_reason: 'Other' })
      const changes = (await P.api(s, owner).get(`/v1/leads/${l.id}/activities`)).data
      expect(changes.map((c: { data: { change: string } }) => c.data.change)).toEqual([now.status, 'created'])
    }
  })

  it('changes fields, logs them, checks Won/Lost-only fields and answers `{id, visible: false}` when sight is lost', async () => {
    const agent = await P.person(s, w, ['leads.view', 'leads.manage'])
    const colleague = await P.person(s, w, ['leads.view', 'leads.manage'])
    const team = await P.team(s, w, [agent.id, colleague.id])
    const l = await P.lead(s, agent.who, {
      pipeline_id: flow.id,
      team_id: team,
      followup_at: '2030-01-01T03:00:00Z',
      followup_note: 'Call',
    })
    const r = await P.api(s, agent.who).patch(`/v1/leads/${l.id}`, {
      title: 'Bigger deal',
      value_estimate: 2500,
      expected_close: '2030-02-01',
      followup_at: null,
    })
    expect(r.data).toMatchObject({
      title: 'Bigger deal',
      value_estimate: 2500,
      expected_close: '2030-02-01',
      followup_at: null,
      followup_note: null,
    })
    expect((await P.api(s, agent.who).patch(`/v1/leads/${l.id}`, { value_won: 1 })).status).toBe(422)
    expect((await P.api(s, agent.who).patch(`/v1/leads/${l.id}`, { lost_reason: 'Other' })).status).toBe(422)
    // Someone outside the team cannot own it.
    const outsider = await P.person(s, w, ['leads.view'])
    expect((await P.api(s, agent.who).patch(`/v1/leads/${l.id}`, { assignee_id: outsider.id })).status).toBe(
      422,
    )
    const handed = await P.api(s, agent.who).patch(`/v1/leads/${l.id}`, { assignee_id: colleague.id })
    expect(handed.status).toBe(200)
    expect(handed.data).toEqual({ id: l.id, visible: false })
    expect((await P.api(s, agent.who).get(`/v1/leads/${l.id}`)).status).toBe(404)
    const log = (await P.api(s, colleague.who).get(`/v1/leads/${l.id}/activities`)).data
    expect(log[0].data).toMatchObject({ change: 'updated', fields: ['assignee_id'] })
    expect(log[1].data.fields.sort()).toEqual([
      'expected_close',
      'followup_at',
      'followup_note',
      'title',
      'value_estimate',
    ])
  })

  it('keeps the owner in the lead’s team: a team change releases one outside it, and an owner and a team changed at once never leave it outside', async () => {
    const a = await P.person(s, w, ['leads.view', 'leads.manage'])
    const b = await P.person(s, w, ['leads.view', 'leads.manage'])
    const c = await P.person(s, w, ['leads.view', 'leads.manage'])
    const teamA = await P.team(s, w, [a.id, b.id])
    const teamB = await P.team(s, w, [c.id])
    const o = P.api(s, owner)
    const l = await P.lead(s, owner, { pipeline_id: flow.id, team_id: teamA, assignee_id: a.id })
    const moved = await o.patch(`/v1/leads/${l.id}`, { team_id: teamB })
    expect(moved.status).toBe(200)
    expect(moved.data).toMatchObject({ team_id: teamB, assignee_id: null })
    const log = (await o.get(`/v1/leads/${l.id}/activities`)).data
    expect(log[0].data).toMatchObject({ change: 'updated', assignee_id: null, team_id: teamB })
    expect([...log[0].data.fields].sort()).toEqual(['assignee_id', 'team_id'])
    // The new team's member may own it; naming one outside the team is refused, as before.
    expect((await o.patch(`/v1/leads/${l.id}`, { assignee_id: a.id })).status).toBe(422)
    expect((await o.patch(`/v1/leads/${l.id}`, { assignee_id: c.id })).data.assignee_id).toBe(c.id)
    // Team A's member made owner while the lead moves to team B, at once.
    for (let i = 0; i < 8; i++) {
      const x = await P.lead(s, owner, { pipeline_id: flow.id, team_id: teamA })
      const [own, team] = await Promise.all([
        o.patch(`/v1/leads/${x.id}`, { assignee_id: b.id }),
        o.patch(`/v1/leads/${x.id}`, { team_id: teamB }),
      ])
      expect([200, 422]).toContain(own.status)
      expect(team.status).toBe(200)
      const now = (await o.get(`/v1/leads/${x.id}`)).data
      expect(now.team_id).toBe(teamB)
      expect(now.assignee_id).toBeNull()
    }
  })

  it('keeps custom values of lead custom fields', async () => {
    const f = await P.api(s, owner).post('/v1/custom-fields', {
      entity: 'lead',
      label: 'Source campaign',
      type: 'select',
      options: ['Expo', 'Web'],
    })
    expect(f.status).toBe(201)
    const l = await P.lead(s, owner, { pipeline_id: flow.id, custom: { source_campaign: 'expo' } })
    expect(l.custom).toEqual({ source_campaign: 'Expo' })
    const bad = await P.api(s, owner).post('/v1/leads', { title: 'X', custom: { source_campaign: 'TV' } })
    expect(bad.error.fields['custom.source_campaign']).toBeDefined()
    const d = await P.api(s, owner).get(`/v1/leads/${l.id}`)
    expect(d.data.custom_fields.find((x: { key: string }) => x.key === 'source_campaign').value).toBe('Expo')
  })

  it('deletes for an admin, the owner or the creator only', async () => {
    const creator = await P.person(s, w, ['leads.view', 'leads.manage'])
    const other = await P.person(s, w, ['leads.view', 'leads.manage'])
    await I.setMember(s, w, other.id, { viewAll: true })
    const l = await P.lead(s, creator.who, { pipeline_id: flow.id })
    expect((await P.api(s, other.who).del(`/v1/leads/${l.id}`)).status).toBe(403)
    expect((await P.api(s, creator.who).del(`/v1/leads/${l.id}`)).data).toEqual({ id: l.id, deleted: true })
    expect((await P.api(s, owner).get(`/v1/leads/${l.id}`)).status).toBe(404)
  })
})

describe('reading', () => {
  it('filters the list and totals it', async () => {
    const p = await P.workflow(s, owner)
    const contact = await I.contact(s, w)
    const a = await P.lead(s, owner, {
      pipeline_id: p.id,
      title: 'Alpha roof',
      value_estimate: 100,
      contact_id: contact.id,
    })
    const b = await P.lead(s, owner, {
      pipeline_id: p.id,
      title: 'Beta roof',
      value_estimate: 300,
      assignee_id: w.ownerId,
    })
    await P.lead(s, owner, { pipeline_id: p.id, title: 'Gamma', followup_at: '2000-01-01T00:00:00Z' })
    await P.api(s, owner).post(`/v1/leads/${b.id}/move`, { stage_id: P.stageOf(p, 'won'), value_won: 250 })
    const get = (q: string) => P.api(s, owner).get(`/v1/leads?pipeline_id=${p.id}&${q}`)
    const all = await get('')
    expect(all.meta.totals).toEqual({ count: 3, value_estimate: 400, value_won: 250 })
    expect(all.meta.total).toBe(3)
    expect((await get('status=won')).data.map((l: { id: number }) => l.id)).toEqual([b.id])
    expect((await get('q=roof&sort=title&dir=asc')).data.map((l: { id: number }) => l.id)).toEqual([
      a.id,
      b.id,
    ])
    expect((await get(`q=LEAD-${a.number}`)).data.map((l: { id: number }) => l.id)).toEqual([a.id])
    expect((await get('assignee=me')).data.map((l: { id: number }) => l.id)).toEqual([b.id])
    expect((await get('assignee=none')).meta.total).toBe(2)
    expect((await get(`contact_id=${contact.id}`)).data.map((l: { id: number }) => l.id)).toEqual([a.id])
    expect((await get('followup=overdue')).data.map((l: { title: string }) => l.title)).toEqual(['Gamma'])
    expect((await get('followup=none')).meta.total).toBe(2)
    expect((await get('created_from=2000-01-01')).meta.total).toBe(3)
    expect((await get('created_to=2000-01-01')).meta.total).toBe(0)
    expect((await get('sort=nope')).status).toBe(422)
  })

  it('shows the board: open leads and this month’s closed ones, 100 cards a stage at most, figures, summary', async () => {
    const p = await P.workflow(s, owner)
    const newStage = P.stageOf(p, 'new')
    await I.sql(
      s,
      (db) =>
        db`INSERT INTO leads (workspace_id, number, title, pipeline_id, stage_id, status, source, value_estimate)
        SELECT ${w.workspaceId}, 100000 + g, 'Bulk ' || g, ${p.id}, ${newStage}, 'open', 'app', 10
        FROM generate_series(1, 105) g RETURNING 1`,
    )
    const won = await P.lead(s, owner, { pipeline_id: p.id, value_estimate: 500 })
    await P.api(s, owner).post(`/v1/leads/${won.id}/move`, { stage_id: P.stageOf(p, 'won') })
    const old = await P.lead(s, owner, { pipeline_id: p.id, value_estimate: 70 })
    await P.api(s, owner).post(`/v1/leads/${old.id}/move`, {
      stage_id: P.stageOf(p, 'lost'),
      lost_reason: 'Other',
    })
    await I.sql(
      s,
      (db) => db`UPDATE leads SET closed_at = now() - interval '40 days' WHERE id = ${old.id} RETURNING 1`,
    )
    const b = await P.api(s, owner).get(`/v1/leads/board?pipeline_id=${p.id}`)
    expect(b.status).toBe(200)
    const stage = (kind: string) => b.data.stages.find((x: { kind: string }) => x.kind === kind)
    expect(stage('new')).toMatchObject({ count: 105, value: 1050, more: true })
    expect(stage('new').cards).toHaveLength(100)
    expect(stage('won')).toMatchObject({ count: 1, value: 500, more: false })
    expect(stage('lost')).toMatchObject({ count: 0 })
    expect(b.data.summary).toMatchObject({ open: 105, open_value: 1050, won: 1, won_value: 500, lost: 0 })
    expect(b.data.summary.weighted_value).toBe(105)
    expect((await P.api(s, owner).get('/v1/leads/board')).status).toBe(422)
  })

  it('lists owner candidates with Back Office teams, and open duplicates of a contact', async () => {
    const agent = await P.person(s, w, ['leads.view'])
    const none = await P.person(s, w, ['contacts.view'])
    const team = await P.team(s, w, [agent.id])
    const c = await P.api(s, owner).get('/v1/leads/candidates')
    const ids = c.data.map((x: { id: number }) => x.id)
    expect(ids).toContain(agent.id)
    expect(ids).not.toContain(none.id)
    expect(c.data.find((x: { id: number }) => x.id === agent.id).team_ids).toEqual([team])
    expect(c.data.find((x: { id: number }) => x.id === w.ownerId).is_admin).toBe(true)
    const contact = await I.contact(s, w)
    const mine = await P.lead(s, owner, { pipeline_id: flow.id, contact_id: contact.id })
    await P.lead(s, owner, { pipeline_id: flow.id, contact_id: contact.id, team_id: team })
    const d = await P.api(s, owner).get(
      `/v1/leads/duplicates?contact_id=${contact.id}&pipeline_id=${flow.id}`,
    )
    expect(d.data).toHaveLength(2)
    const seer = await P.person(s, w, ['leads.view', 'leads.manage'])
    const e = await P.api(s, seer.who).get(
      `/v1/leads/duplicates?contact_id=${contact.id}&pipeline_id=${flow.id}`,
    )
    expect(e.data.map((x: { id: number }) => x.id)).toEqual([mine.id])
    expect(e.meta).toMatchObject({ total: 2, hidden: 1 })
  })
})

describe('pipeline.changed', () => {
  it('is published after a lead is created, changed and moved', async () => {
    const { c, answer } = await I.socketFor(s, ownerSession, `ws:${w.workspaceId}`)
    expect(answer.op).toBe('subscribed')
    try {
      const l = await P.lead(s, writeKey, { pipeline_id: flow.id, value_estimate: 5 })
      const created = await c.next(
        (f) => f.event === 'pipeline.changed' && (f.data as { lead_id: number }).lead_id === l.id,
      )
      expect(created.data).toEqual({ lead_id: l.id, pipeline_id: flow.id, reason: 'lead_created' })
      await P.api(s, owner).post(`/v1/leads/${l.id}/move`, { stage_id: P.stageOf(flow, 'won') })
      const moved = await c.next(
        (f) => f.event === 'pipeline.changed' && (f.data as { reason: string }).reason === 'lead_moved',
      )
      expect(moved.data).toMatchObject({ lead_id: l.id, pipeline_id: flow.id })
    } finally {
      c.close()
    }
  })
})
