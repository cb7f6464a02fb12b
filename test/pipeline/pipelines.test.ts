import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as P from './support'

/** Workflows, their stage layout and the pipeline settings (spec 2 §4.7, §3, §8). */
let s: TestServer
let w: F.Seeded
let owner: P.Who
let writeKey: P.Who

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = P.session(await F.signIn(s, w.ownerEmail))
  writeKey = P.key(await F.apiKey(s, w, 'write'))
}, 60_000)
afterAll(() => s?.stop())

describe('workflows', () => {
  it('creates default stages without `stages`, and lists what each caller may see', async () => {
    const agent = await P.person(s, w, ['leads.view'])
    const manager = await P.person(s, w, ['leads.view', 'pipeline.manage'])
    const mine = await P.team(s, w, [agent.id])
    const other = await P.team(s, w, [])
    const open = await P.workflow(s, owner, { name: 'Open to all' })
    expect(open.stages.map((x) => x.kind)).toEqual(['new', 'progress', 'progress', 'progress', 'won', 'lost'])
    const ours = await P.workflow(s, owner, { name: 'Ours', team_ids: [mine] })
    const theirs = await P.workflow(s, owner, { name: 'Theirs', team_ids: [other] })
    const ids = async (who: P.Who) =>
      (await P.api(s, who).get('/v1/pipelines')).data.map((p: { id: number }) => p.id)
    expect(await ids(agent.who)).toEqual(expect.arrayContaining([open.id, ours.id]))
    expect(await ids(agent.who)).not.toContain(theirs.id)
    expect(await ids(manager.who)).toEqual(expect.arrayContaining([open.id, ours.id, theirs.id]))
    expect(await ids(writeKey)).toEqual(expect.arrayContaining([open.id, ours.id, theirs.id]))
    expect((await P.api(s, agent.who).get(`/v1/pipelines/${theirs.id}`)).status).toBe(404)
    // Lead counts per stage for pipeline.manage holders only.
    const seen = await P.api(s, agent.who).get(`/v1/pipelines/${ours.id}`)
    expect(seen.data.stages[0].leads_count).toBeUndefined()
    const managed = await P.api(s, manager.who).get(`/v1/pipelines/${ours.id}`)
    expect(managed.data.stages[0].leads_count).toBe(0)
    expect(managed.meta.lost_reasons.length).toBeGreaterThan(0)
    expect(managed.meta.colors).toHaveLength(13)
  })

  it('refuses a non-Back-Office team and keys (app only)', async () => {
    const frontline = await I.team(s, w, [])
    const r = await P.api(s, owner).post('/v1/pipelines', { name: 'X', team_ids: [frontline] })
    expect(r.status).toBe(422)
    expect(r.error.fields.team_ids).toBeDefined()
    expect((await P.api(s, writeKey).post('/v1/pipelines', { name: 'X' })).status).toBe(403)
  })

  it('enforces the stage layout rule on creation and on every PUT', async () => {
    const p = await P.workflow(s, owner)
    const put = (stages: unknown[]) => P.call(s, 'PUT', `/v1/pipelines/${p.id}/stages`, owner, { stages })
    const bad: Array<Array<{ kind: string; label: string }>> = [
      [
        { kind: 'progress', label: 'A' },
        { kind: 'won', label: 'W' },
        { kind: 'lost', label: 'L' },
      ],
      [
        { kind: 'new', label: 'N' },
        { kind: 'won', label: 'W' },
      ],
      [
        { kind: 'new', label: 'N' },
        { kind: 'new', label: 'N2' },
        { kind: 'won', label: 'W' },
        { kind: 'lost', label: 'L' },
      ],
      [
        { kind: 'new', label: 'N' },
        { kind: 'won', label: 'W' },
        { kind: 'progress', label: 'P' },
        { kind: 'lost', label: 'L' },
      ],
      [
        { kind: 'new', label: 'N' },
        ...Array.from({ length: 11 }, (_, i) => ({ kind: 'progress', label: `P${i}` })),
        { kind: 'won', label: 'W' },
        { kind: 'lost', label: 'L' },
      ],
    ]
    for (const stages of bad) {
      const r = await put(stages)
      expect(r.status, JSON.stringify(stages)).toBe(422)
      expect(r.error.fields.stages).toBeDefined()
    }
    const created = await P.api(s, owner).post('/v1/pipelines', { name: 'Bad', stages: bad[1] })
    expect(created.status).toBe(422)
    // Ten In progress stages are fine, as is none.
    const ten = [
      { kind: 'new', label: 'N' },
      ...Array.from({ length: 10 }, (_, i) => ({ kind: 'progress', label: `P${i}` })),
      { kind: 'lost', label: 'L' },
      { kind: 'won', label: 'W' },
    ]
    expect((await put(ten)).status).toBe(200)
    const none = await put([
      { kind: 'new', label: 'N' },
      { kind: 'won', label: 'W' },
      { kind: 'lost', label: 'L' },
    ])
    expect(none.status).toBe(200)
    expect(none.data.stages.map((x: { kind: string }) => x.kind)).toEqual(['new', 'won', 'lost'])
    // An existing stage keeps its kind; a stage of another workflow is unknown.
    const other = await P.workflow(s, owner)
    const wrong = await put([
      { id: none.data.stages[0].id, kind: 'progress', label: 'X' },
      { kind: 'new', label: 'N' },
      { id: other.stages[4]!.id, kind: 'won', label: 'W' },
      { kind: 'lost', label: 'L' },
    ])
    expect(wrong.status).toBe(422)
    expect(wrong.error.fields['stages.0.kind']).toBeDefined()
    expect(wrong.error.fields['stages.2.id']).toBeDefined()
  })

  it('moves the leads of a removed stage to the nearest earlier kept stage, logged in their history', async () => {
    const p = await P.workflow(s, owner)
    const [n, q, prop, neg, won, lost] = p.stages
    const a = await P.lead(s, owner, { pipeline_id: p.id, stage_id: neg!.id })
    const b = await P.lead(s, owner, { pipeline_id: p.id, stage_id: q!.id })
    // Drop Qualified and Negotiation: Negotiation's lead goes to Proposal, Qualified's to New.
    const r = await P.call(s, 'PUT', `/v1/pipelines/${p.id}/stages`, owner, {
      stages: [n, prop, won, lost].map((x) => ({ id: x!.id, kind: x!.kind, label: x!.label })),
    })
    expect(r.status).toBe(200)
    expect(r.meta.moved_leads).toBe(2)
    expect((await P.api(s, owner).get(`/v1/leads/${a.id}`)).data.stage_id).toBe(prop!.id)
    expect((await P.api(s, owner).get(`/v1/leads/${b.id}`)).data.stage_id).toBe(n!.id)
    const history = await P.api(s, owner).get(`/v1/leads/${a.id}/activities`)
    expect(history.data[0].data.change).toBe('stage_removed')
    // Replacing the Won stage by a new one keeps won leads won.
    const c = await P.lead(s, owner, { pipeline_id: p.id, value_estimate: 10 })
    expect((await P.api(s, owner).post(`/v1/leads/${c.id}/move`, { stage_id: won!.id })).status).toBe(200)
    const again = await P.call(s, 'PUT', `/v1/pipelines/${p.id}/stages`, owner, {
      stages: [
        { id: n!.id, kind: 'new', label: 'New' },
        { kind: 'won', label: 'Closed won', color: '#22c55e', probability: 100 },
        { id: lost!.id, kind: 'lost', label: 'Lost' },
      ],
    })
    expect(again.status).toBe(200)
    const moved = await P.api(s, owner).get(`/v1/leads/${c.id}`)
    expect(moved.data.status).toBe('won')
    expect(moved.data.stage.label).toBe('Closed won')
  })

  it('decides a layout on the stages as they are when it is applied, not as they were read', async () => {
    // Two managers edit one workflow at once: one replaces the New stage, the other renames the
    // stages it read (the old New among them). Whichever is applied second must be judged on the
    // first one's result: the second layout names a stage that is gone (422), or is applied to
    // stages that all still exist. Before, the second was checked on the stages read before the
    // first was applied: with a lead on the replaced stage it failed on the database (500); without
    // one it deleted the new New stage and left the workflow with none.
    const rounds = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const p = await P.workflow(s, owner)
        const l = i % 2 === 0 ? await P.lead(s, owner, { pipeline_id: p.id }) : null
        const replaceNew = p.stages.map((x, j) =>
          j === 0 ? { kind: 'new', label: 'Fresh' } : { id: x.id, kind: x.kind, label: x.label },
        )
        const rename = p.stages.map((x) => ({ id: x.id, kind: x.kind, label: `${x.label} (2)` }))
        const put = (stages: unknown[]) => P.call(s, 'PUT', `/v1/pipelines/${p.id}/stages`, owner, { stages })
        const answers = await Promise.all([put(replaceNew), put(rename)])
        const after = await P.api(s, owner).get(`/v1/pipelines/${p.id}`)
        const lead = l === null ? null : await P.api(s, owner).get(`/v1/leads/${l.id}`)
        return { answers, after, lead }
      }),
    )
    for (const { answers, after, lead } of rounds) {
      for (const a of answers) expect([200, 422], JSON.stringify(a.error)).toContain(a.status)
      if (answers[1]!.status === 422) expect(answers[1]!.error.fields['stages.0.id']).toBeDefined()
      const kinds = after.data.stages.map((x: { kind: string }) => x.kind)
      expect(kinds).toEqual(['new', 'progress', 'progress', 'progress', 'won', 'lost'])
      if (lead !== null) {
        expect(lead.status).toBe(200)
        expect(lead.data.stage_id).toBe(after.data.stages[0].id)
      }
    }
  })

  it('deletes a workflow without leads, archives one with leads, and restores it', async () => {
    const empty = await P.workflow(s, owner)
    const d = await P.api(s, owner).del(`/v1/pipelines/${empty.id}`)
    expect(d.data).toMatchObject({ deleted: true })
    expect((await P.api(s, owner).get(`/v1/pipelines/${empty.id}`)).status).toBe(404)
    const used = await P.workflow(s, owner)
    await P.lead(s, owner, { pipeline_id: used.id })
    const a = await P.api(s, owner).del(`/v1/pipelines/${used.id}`)
    expect(a.data).toMatchObject({ deleted: false, archived: true })
    const list = await P.api(s, owner).get('/v1/pipelines')
    expect(list.data.map((p: { id: number }) => p.id)).not.toContain(used.id)
    const all = await P.api(s, owner).get('/v1/pipelines?include_archived=1')
    expect(all.data.find((p: { id: number }) => p.id === used.id).archived).toBe(true)
    // No new lead in an archived workflow.
    expect((await P.api(s, owner).post('/v1/leads', { title: 'X', pipeline_id: used.id })).status).toBe(422)
    const back = await P.api(s, owner).patch(`/v1/pipelines/${used.id}`, { archived: false })
    expect(back.data.archived).toBe(false)
    const renamed = await P.api(s, owner).patch(`/v1/pipelines/${used.id}`, { name: 'Renamed', position: 0 })
    expect(renamed.data).toMatchObject({ name: 'Renamed', position: 0 })
  })

  it('reorders workflows moved by several managers at once, without failing any of them', async () => {
    // Each move changed its own workflow, then locked the workspace's others: two moves at once
    // each held a row the other waited for, and PostgreSQL ended one of them (answered 500).
    const flows = [await P.workflow(s, owner), await P.workflow(s, owner), await P.workflow(s, owner)]
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(
        flows.map((p, i) => P.api(s, owner).patch(`/v1/pipelines/${p.id}`, { position: (i + round) % 3 })),
      )
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    }
    const all = await P.api(s, owner).get('/v1/pipelines?include_archived=1')
    const positions = all.data.map((p: { position: number }) => p.position)
    expect(positions).toEqual([...positions.keys()])
  })

  it('reads and saves the settings (app only for saving)', async () => {
    const agent = await P.person(s, w, ['leads.view'])
    const got = await P.api(s, agent.who).get('/v1/pipeline/settings')
    expect(got.data).toMatchObject({ max_progress_stages: 10 })
    expect(got.data.colors).toHaveLength(13)
    const put = await P.call(s, 'PUT', '/v1/pipeline/settings', owner, {
      lost_reasons: ['Too expensive', 'Went quiet'],
    })
    expect(put.status).toBe(200)
    expect(put.data.lost_reasons).toEqual(['Too expensive', 'Went quiet'])
    expect(put.data.expense_categories).toEqual(got.data.expense_categories)
    expect(
      (await P.call(s, 'PUT', '/v1/pipeline/settings', owner, { lost_reasons: ['A', 'a'] })).status,
    ).toBe(422)
    expect((await P.call(s, 'PUT', '/v1/pipeline/settings', owner, { lost_reasons: [] })).status).toBe(422)
    expect((await P.call(s, 'PUT', '/v1/pipeline/settings', writeKey, { lost_reasons: ['A'] })).status).toBe(
      403,
    )
    expect((await P.call(s, 'PUT', '/v1/pipeline/settings', agent.who, { lost_reasons: ['A'] })).status).toBe(
      403,
    )
    await P.call(s, 'PUT', '/v1/pipeline/settings', owner, {
      lost_reasons: ['Price too high', 'Chose a competitor', 'No budget', 'Other'],
    })
  })
})
