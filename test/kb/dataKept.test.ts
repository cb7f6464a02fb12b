import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * Knowledge articles keep what people wrote: two editors changing different fields of one
 * article at the same time both keep their change (spec 2 §4.5 "unsent fields unchanged").
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
})
