import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * Knowledge articles keep what people wrote: two editors changing different fields of one
 * article (or category) at the same time both keep their change (spec 2 §4.5 "unsent fields
 * unchanged"), and a deleted team's team-only articles move to its replacement with its members
 * (spec 1 §4.3 `DELETE /teams/{id}`: "data (including team-only articles)").
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

describe('concurrent edits', () => {
  it('keeps both changes when two editors change different fields of one article at once', async () => {
    const a = K.api(s, o)
    const articles = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        K.article(s, o, { title: `Title ${i}`, body: `Body ${i}`, tags: ['start'] }),
      ),
    )
    // Each article gets three edits at once, each sending only its own field.
    await Promise.all(
      articles.flatMap((x) => [
        a.patch(`/v1/kb/articles/${x.id}`, { title: `New title ${x.id}` }),
        a.patch(`/v1/kb/articles/${x.id}`, { body: `New body ${x.id}` }),
        a.patch(`/v1/kb/articles/${x.id}`, { tags: ['edited'] }),
      ]),
    )
    for (const x of articles) {
      const now = (await a.get(`/v1/kb/articles/${x.id}`)).data
      expect({ title: now.title, body: now.body, tags: now.tags }).toEqual({
        title: `New title ${x.id}`,
        body: `New body ${x.id}`,
        tags: ['edited'],
      })
    }
  })

  it('keeps both changes when two managers change different fields of one category at once', async () => {
    const a = K.api(s, o)
    const cats = await Promise.all(
      Array.from(
        { length: 12 },
        async (_, i) =>
          (await a.post('/v1/kb/categories', { name: `Cat ${i} ${Date.now()}`, position: i })).data,
      ),
    )
    await Promise.all(
      cats.flatMap((c) => [
        a.patch(`/v1/kb/categories/${c.id}`, { name: `Renamed ${c.id}` }),
        a.patch(`/v1/kb/categories/${c.id}`, { description: `About ${c.id}` }),
        a.patch(`/v1/kb/categories/${c.id}`, { position: 1000 + c.id }),
      ]),
    )
    const now = (await a.get('/v1/kb/categories')).data as Array<Record<string, unknown>>
    for (const c of cats) {
      const x = now.find((y) => y.id === c.id)!
      expect({ name: x.name, description: x.description, position: x.position }).toEqual({
        name: `Renamed ${c.id}`,
        description: `About ${c.id}`,
        position: 1000 + c.id,
      })
    }
  })
})

describe('deleting a team', () => {
  it("moves the team's team-only articles to the replacement, whose members keep seeing them", async () => {
    const old = await I.team(s, w, [])
    const next = await I.team(s, w, [])
    const reader = await K.member(s, w, K.READER, { teams: [old] })
    const only = await K.article(s, o, {
      title: `Old team only ${Date.now()}`,
      status: 'published',
      team_ids: [old],
    })
    expect((await K.api(s, reader.who).get(`/v1/kb/articles/${only.id}`)).status).toBe(200)

    const gone = await s.fetch(`/v1/teams/${old}?replacement_id=${next}`, I.del(owner.headers()))
    expect(gone.status).toBe(200)
    // The member moved to the replacement with the team, and so did the article.
    const after = await K.api(s, reader.who).get(`/v1/kb/articles/${only.id}`)
    expect(after.status).toBe(200)
    expect(after.data.team_ids).toEqual([next])
  })

  it('needs a replacement for a team whose only data is team-only articles', async () => {
    const old = await I.team(s, w, [])
    const next = await I.team(s, w, [])
    const only = await K.article(s, o, {
      title: `Memberless team ${Date.now()}`,
      status: 'published',
      team_ids: [old],
    })
    const refused = await s.fetch(`/v1/teams/${old}`, I.del(owner.headers()))
    expect(refused.status).toBe(422)
    expect((await I.body(refused)).error.fields).toHaveProperty('replacement_id')
    expect((await s.fetch(`/v1/teams/${old}?replacement_id=${next}`, I.del(owner.headers()))).status).toBe(
      200,
    )
    expect((await K.api(s, o).get(`/v1/kb/articles/${only.id}`)).data.team_ids).toEqual([next])
  })
})
