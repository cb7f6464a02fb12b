import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * Spec 2 §4.5 categories and articles, and the team rule of spec 2 §1 rule 4: defaults, filters,
 * `meta.counts`, drafts for managers only, team-only articles 404 to other teams, managers without
 * view-all choosing only their own teams (422), `kb.changed`.
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let o: K.Who
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  o = K.session(owner)
})
afterAll(() => s?.stop())

describe('categories', () => {
  it('creates, lists by position with counts of visible published articles, renames, deletes', async () => {
    const a = K.api(s, o)
    const faq = await a.post('/v1/kb/categories', {
      name: 'FAQ',
      description: 'Common questions',
      position: 5,
    })
    expect(faq.status).toBe(201)
    expect(faq.data).toMatchObject({
      name: 'FAQ',
      description: 'Common questions',
      position: 5,
      articles_count: 0,
    })
    const billing = (await a.post('/v1/kb/categories', { name: 'Billing', position: 1 })).data
    // Name unique per workspace, regardless of case.
    const dup = await a.post('/v1/kb/categories', { name: 'faq' })
    expect(dup.status).toBe(422)
    expect(dup.error.fields.name).toBeDefined()
    expect((await a.patch(`/v1/kb/categories/${billing.id}`, { name: 'FAQ' })).status).toBe(422)

    await K.article(s, o, { title: 'Invoice dates', status: 'published', category_id: billing.id })
    await K.article(s, o, { title: 'Draft one', category_id: billing.id })
    const list = await a.get('/v1/kb/categories')
    expect(list.data.map((c: { name: string }) => c.name)).toEqual(['Billing', 'FAQ'])
    expect(list.data[0].articles_count).toBe(1)

    const renamed = await a.patch(`/v1/kb/categories/${billing.id}`, { description: 'Money matters' })
    expect(renamed.data).toMatchObject({ name: 'Billing', description: 'Money matters', position: 1 })

    const del = await a.del(`/v1/kb/categories/${billing.id}`)
    expect(del.data).toMatchObject({ deleted: true, articles_uncategorized: 2 })
    const none = await a.get('/v1/kb/articles?category_id=none&per_page=100')
    expect(none.data.map((x: { title: string }) => x.title)).toEqual(
      expect.arrayContaining(['Invoice dates', 'Draft one']),
    )
    expect((await a.get(`/v1/kb/categories/${billing.id}`)).status).toBe(405)
    expect((await a.patch(`/v1/kb/categories/${billing.id}`, { name: 'X' })).status).toBe(404)
  })

  it("answers 404 for another workspace's category and needs kb.manage to change", async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const otherKey = await F.apiKey(s, other)
    const mine = (await K.api(s, o).post('/v1/kb/categories', { name: `Mine ${Date.now()}` })).data
    expect(
      (await K.api(s, K.key(otherKey)).patch(`/v1/kb/categories/${mine.id}`, { name: 'Theirs' })).status,
    ).toBe(404)
    const reader = await K.member(s, w, K.READER)
    expect((await K.api(s, reader.who).post('/v1/kb/categories', { name: 'Nope' })).status).toBe(403)
    expect((await K.api(s, reader.who).get('/v1/kb/categories')).status).toBe(200)
    const readKey = await F.apiKey(s, w, 'read')
    expect((await K.api(s, K.key(readKey)).post('/v1/kb/categories', { name: 'Nope' })).status).toBe(403)
  })
})

describe('articles', () => {
  it('creates with the defaults (internal, draft, all teams) and shows every field', async () => {
    const r = await K.api(s, o).post('/v1/kb/articles', {
      title: '  Opening hours ',
      body: 'We open at **9**.',
    })
    expect(r.status).toBe(201)
    expect(r.data).toMatchObject({
      title: 'Opening hours',
      body: 'We open at **9**.',
      category_id: null,
      category: null,
      visibility: 'internal',
      status: 'draft',
      tags: [],
      team_ids: [],
      teams: [],
      embedding_status: 'none',
      chunk_count: 0,
      embedded_at: null,
      embedded_at_text: null,
      can: { insert: false, edit: true },
      created_by: w.ownerId,
      published_at: null,
    })
    const pub = await K.api(s, o).patch(`/v1/kb/articles/${r.data.id}`, {
      status: 'published',
      tags: ['Jam', 'jam', 'Buka'],
    })
    expect(pub.data).toMatchObject({ status: 'published', tags: ['Jam', 'Buka'], can: { insert: true } })
    expect(pub.data.published_at).not.toBeNull()
    // Unsent fields stay.
    expect(pub.data.body).toBe('We open at **9**.')
  })

  it('validates input with 422 and field names', async () => {
    const a = K.api(s, o)
    expect((await a.post('/v1/kb/articles', { title: '' })).status).toBe(422)
    expect((await a.post('/v1/kb/articles', { title: 'x', status: 'archived' })).status).toBe(422)
    expect((await a.post('/v1/kb/articles', { title: 'x', visibility: 'secret' })).status).toBe(422)
    const cat = await a.post('/v1/kb/articles', { title: 'x', category_id: 2147483000 })
    expect(cat.status).toBe(422)
    expect(cat.error.fields.category_id).toBeDefined()
    const team = await a.post('/v1/kb/articles', { title: 'x', team_ids: [2147483000] })
    expect(team.error.fields.team_ids).toBeDefined()
    expect((await a.get('/v1/kb/articles?category_id=abc')).status).toBe(422)
  })

  it('filters by q (every word), category, visibility, status and team, with meta.counts', async () => {
    const ws = await F.workspace(s, { plan: 'pro' })
    const who = K.session(await F.signIn(s, ws.ownerEmail))
    const a = K.api(s, who)
    const cat = (await a.post('/v1/kb/categories', { name: 'Shipping' })).data
    const team = await I.team(s, ws, [])
    await K.article(s, who, {
      title: 'Courier pickup times',
      body: 'Pickup at noon',
      status: 'published',
      category_id: cat.id,
    })
    await K.article(s, who, {
      title: 'Courier contract',
      body: 'Signed yearly',
      status: 'draft',
      category_id: cat.id,
    })
    await K.article(s, who, {
      title: 'Public pickup guide',
      body: 'Customers pick up at noon',
      visibility: 'public',
      status: 'published',
    })
    await K.article(s, who, { title: 'Team noon notes', status: 'published', team_ids: [team] })

    const titles = async (q: string) =>
      (await a.get(`/v1/kb/articles?${q}`)).data.map((x: { title: string }) => x.title).sort()
    expect(await titles('q=courier')).toEqual(['Courier contract', 'Courier pickup times'])
    expect(await titles('q=courier%20noon')).toEqual(['Courier pickup times'])
    expect(await titles(`category_id=${cat.id}`)).toEqual(['Courier contract', 'Courier pickup times'])
    expect(await titles('category_id=none')).toEqual(['Public pickup guide', 'Team noon notes'])
    expect(await titles('visibility=public')).toEqual(['Public pickup guide'])
    expect(await titles('status=draft')).toEqual(['Courier contract'])
    expect(await titles(`team_id=${team}`)).toEqual(['Team noon notes'])
    expect((await titles('team_id=none')).length).toBe(3)

    const page = await a.get('/v1/kb/articles?per_page=2&status=published')
    expect(page.meta).toMatchObject({ page: 1, per_page: 2, total: 3, pages: 2, has_more: true })
    // Counts ignore the status filter and follow the others.
    expect(page.meta.counts).toEqual({ published: 3, draft: 1 })
    expect((await a.get(`/v1/kb/articles?category_id=${cat.id}`)).meta.counts).toEqual({
      published: 1,
      draft: 1,
    })
  })

  it('shows drafts only to kb.manage holders', async () => {
    const draft = await K.article(s, o, { title: `Secret draft ${Date.now()}` })
    const reader = await K.member(s, w, K.READER)
    expect((await K.api(s, reader.who).get(`/v1/kb/articles/${draft.id}`)).status).toBe(404)
    const listed = await K.api(s, reader.who).get('/v1/kb/articles?per_page=100')
    expect(listed.data.every((x: { status: string }) => x.status === 'published')).toBe(true)
    expect(listed.meta.counts.draft).toBe(0)
    const manager = await K.member(s, w, K.MANAGER)
    expect((await K.api(s, manager.who).get(`/v1/kb/articles/${draft.id}`)).status).toBe(200)
  })

  it('deletes, and 404s what is gone or in another workspace', async () => {
    const x = await K.article(s, o, { title: 'To delete' })
    const other = await F.workspace(s, { plan: 'pro' })
    const otherKey = await F.apiKey(s, other)
    expect((await K.api(s, K.key(otherKey)).get(`/v1/kb/articles/${x.id}`)).status).toBe(404)
    expect((await K.api(s, K.key(otherKey)).del(`/v1/kb/articles/${x.id}`)).status).toBe(404)
    expect((await K.api(s, o).del(`/v1/kb/articles/${x.id}`)).data).toEqual({ id: x.id, deleted: true })
    expect((await K.api(s, o).get(`/v1/kb/articles/${x.id}`)).status).toBe(404)
  })

  it('announces changes with kb.changed on ws:{id}', async () => {
    const { c } = await I.socketFor(s, owner, `ws:${w.workspaceId}`)
    const x = await K.article(s, o, { title: 'Evented' })
    expect(
      (
        await c.next(
          (f) => f.event === 'kb.changed' && (f.data as { article_id?: number }).article_id === x.id,
        )
      ).data,
    ).toEqual({
      article_id: x.id,
      reason: 'created',
    })
    const cat = (await K.api(s, o).post('/v1/kb/categories', { name: `Evented ${Date.now()}` })).data
    expect(
      (
        await c.next(
          (f) => f.event === 'kb.changed' && (f.data as { category_id?: number }).category_id === cat.id,
        )
      ).data,
    ).toEqual({
      category_id: cat.id,
      reason: 'created',
    })
    c.close()
  })
})

describe('team rules (spec 2 §1 rule 4)', () => {
  it("hides another team's team-only article (404) and shows articles for every team", async () => {
    const alpha = await I.team(s, w, [])
    const beta = await I.team(s, w, [])
    const inAlpha = await K.member(s, w, K.READER, { teams: [alpha] })
    const inBeta = await K.member(s, w, K.READER, { teams: [beta] })
    const seesAll = await K.member(s, w, K.READER, { viewAll: true })
    const onlyAlpha = await K.article(s, o, {
      title: `Alpha only ${Date.now()}`,
      status: 'published',
      team_ids: [alpha],
    })
    const everyone = await K.article(s, o, { title: `For all ${Date.now()}`, status: 'published' })
    expect(onlyAlpha.teams).toEqual([{ id: alpha, name: expect.any(String) }])
    expect((await K.api(s, inAlpha.who).get(`/v1/kb/articles/${onlyAlpha.id}`)).status).toBe(200)
    expect((await K.api(s, inBeta.who).get(`/v1/kb/articles/${onlyAlpha.id}`)).status).toBe(404)
    expect((await K.api(s, seesAll.who).get(`/v1/kb/articles/${onlyAlpha.id}`)).status).toBe(200)
    expect((await K.api(s, inBeta.who).get(`/v1/kb/articles/${everyone.id}`)).status).toBe(200)
    const betaList = (await K.api(s, inBeta.who).get('/v1/kb/articles?per_page=100')).data.map(
      (x: { id: number }) => x.id,
    )
    expect(betaList).toContain(everyone.id)
    expect(betaList).not.toContain(onlyAlpha.id)
    // `team_ids: []` opens it to every team again.
    await K.api(s, o).patch(`/v1/kb/articles/${onlyAlpha.id}`, { team_ids: [] })
    expect((await K.api(s, inBeta.who).get(`/v1/kb/articles/${onlyAlpha.id}`)).status).toBe(200)
  })

  it('lets a manager without view-all choose only their own teams (422), and one with view-all any', async () => {
    const mine = await I.team(s, w, [])
    const theirs = await I.team(s, w, [])
    const manager = await K.member(s, w, K.MANAGER, { teams: [mine] })
    const a = K.api(s, manager.who)
    const refused = await a.post('/v1/kb/articles', { title: 'Cross team', team_ids: [mine, theirs] })
    expect(refused.status).toBe(422)
    expect(refused.error.fields.team_ids.length).toBeGreaterThan(0)
    const ok = await a.post('/v1/kb/articles', { title: 'Own team', team_ids: [mine] })
    expect(ok.status).toBe(201)
    expect((await a.patch(`/v1/kb/articles/${ok.data.id}`, { team_ids: [theirs] })).status).toBe(422)
    // All teams is not another team's choice.
    expect((await a.post('/v1/kb/articles', { title: 'Everyone' })).status).toBe(201)
    // The manager cannot even see an article made for another team.
    const hidden = await K.article(s, o, { title: 'Theirs', team_ids: [theirs] })
    expect((await a.patch(`/v1/kb/articles/${hidden.id}`, { title: 'Mine now' })).status).toBe(404)
    expect((await a.del(`/v1/kb/articles/${hidden.id}`)).status).toBe(404)
    const boss = await K.member(s, w, K.MANAGER, { teams: [mine], viewAll: true })
    expect(
      (await K.api(s, boss.who).post('/v1/kb/articles', { title: 'Any team', team_ids: [theirs] })).status,
    ).toBe(201)
  })
})
