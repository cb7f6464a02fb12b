import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * `GET /kb/search` in keyword mode (all plans): every word must match, English and Indonesian
 * text, accents folded, words or their beginnings, ranked (title before tags before body), a
 * snippet with the words in `<mark>` and the rest escaped, published and visible articles only.
 */
let s: TestServer
let w: F.Seeded
let o: K.Who
const ids: Record<string, number> = {}
beforeAll(async () => {
  s = await startTestServer({ CONNECTORS: 'local' })
  w = await F.workspace(s, { plan: 'pro' })
  o = K.session(await F.signIn(s, w.ownerEmail))
  const team = await I.team(s, w, [])
  const put = async (name: string, body: Record<string, unknown>) => {
    ids[name] = (await K.article(s, o, { status: 'published', ...body })).id
  }
  await put('refundTitle', {
    title: 'Refund policy',
    body: 'Customers may ask for their money within 30 days of purchase.',
  })
  await put('refundBody', {
    title: 'Payments overview',
    body: 'Cards, transfers and e-wallets. A refund goes back to the card used for the payment.',
  })
  await put('refundTag', { title: 'Returns desk', body: 'Bring the receipt.', tags: ['refund'] })
  await put('indonesian', {
    title: 'Pengembalian dana',
    body: 'Pelanggan dapat meminta pengembalian dana dalam 30 hari setelah pembelian. Hubungi <b>tim</b> kami.',
  })
  await put('accents', { title: 'Café opening', body: 'The café opens at nine.' })
  await put('teamOnly', {
    title: 'Refund exceptions',
    body: 'Only for the escalation team.',
    team_ids: [team],
  })
  ids.draft = (await K.article(s, o, { title: 'Refund draft', body: 'not yet' })).id
})
afterAll(() => s?.stop())

const search = (q: string, who: K.Who = o, extra = '') =>
  K.api(s, who).get(`/v1/kb/search?q=${encodeURIComponent(q)}${extra}`)
const found = async (q: string, who: K.Who = o, extra = '') =>
  (await search(q, who, extra)).data.map((i: { article: { id: number } }) => i.article.id)

describe('keyword search', () => {
  it('ranks a title match above a tag match above a body match, published only', async () => {
    const r = await search('refund')
    expect(r.status).toBe(200)
    const order: number[] = r.data.map((i: { article: { id: number } }) => i.article.id)
    expect(order.indexOf(ids.refundTitle!)).toBeLessThan(order.indexOf(ids.refundTag!))
    expect(order.indexOf(ids.refundTag!)).toBeLessThan(order.indexOf(ids.refundBody!))
    expect(order).not.toContain(ids.draft)
    for (const item of r.data) {
      expect(item.match).toBe('keyword')
      expect(item.score).toBeGreaterThan(0)
      expect(item.article.status).toBe('published')
    }
    const scores = r.data.map((i: { score: number }) => i.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    expect(r.meta.mode).toBe('keyword')
    expect(r.meta.ai).toMatchObject({ used: 0, limit: 2000 })
  })

  it('requires every word, matching words by their beginning', async () => {
    expect(await found('refund card')).toEqual([ids.refundBody])
    expect(await found('refund nonexistentword')).toEqual([])
    expect(await found('purch')).toEqual([ids.refundTitle])
    expect(await found('REFUND POLICY')).toEqual([ids.refundTitle])
  })

  it('finds Indonesian text and folds accents', async () => {
    expect(await found('pengembalian dana')).toEqual([ids.indonesian])
    expect(await found('hari pembelian')).toEqual([ids.indonesian])
    expect(await found('cafe')).toEqual([ids.accents])
    expect(await found('café opens')).toEqual([ids.accents])
  })

  it('highlights the words in an escaped snippet', async () => {
    const [item] = (await search('pengembalian dana')).data
    expect(item.snippet).toContain('<mark>pengembalian</mark> <mark>dana</mark>')
    expect(item.snippet).toContain('&lt;b&gt;tim&lt;/b&gt;')
    expect(item.snippet).not.toContain('<b>')
    // A title-only match shows the title highlighted.
    const [title] = (await search('opening')).data
    expect(title.snippet).toBe('Café <mark>opening</mark>')
  })

  it('applies the team rule and the visibility filter', async () => {
    const outsider = await K.member(s, w, K.READER)
    expect(await found('refund exceptions')).toEqual([ids.teamOnly])
    expect(await found('refund exceptions', outsider.who)).toEqual([])
    expect(await found('refund', o, '&visibility=public')).toEqual([])
  })

  it('takes limit 1 to 20 and refuses a query without words (422)', async () => {
    expect((await search('refund', o, '&limit=1')).data).toHaveLength(1)
    expect((await search('refund', o, '&limit=0')).status).toBe(422)
    expect((await search('refund', o, '&limit=21')).status).toBe(422)
    expect((await search('refund', o, '&mode=fuzzy')).status).toBe(422)
    expect((await search('!!! ???')).status).toBe(422)
    expect((await K.api(s, o).get('/v1/kb/search')).status).toBe(422)
    // Query syntax of the text search parser is not syntax here.
    expect((await search("refund & | ! ( ) :* '")).status).toBe(200)
  })

  it('works on the Free plan (keyword search is for all plans)', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const who = K.session(await F.signIn(s, free.ownerEmail))
    const x = await K.article(s, who, { title: 'Free plan article', status: 'published' })
    expect(x.embedding_status).toBe('none')
    expect(await found('free plan', who)).toEqual([x.id])
  })
})
