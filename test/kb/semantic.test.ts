import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { aiEnv, type StandIn, startOpenAiStandIn } from '../support/openai'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * Semantic processing and search (spec 2 §4.5): published articles are cut into chunks, embedded
 * in the background and stored; `mode=semantic` finds them by meaning (one AI request); changes of
 * a published article's title or body process it again, other changes do not; failures end in
 * `failed` with `kb.changed`; `POST …/embed` forces it.
 */
let ai: StandIn
let s: TestServer
let w: F.Seeded
let owner: F.Session
let o: K.Who
beforeAll(async () => {
  ai = await startOpenAiStandIn()
  s = await startTestServer({ CONNECTORS: 'local', ...aiEnv(ai) })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  o = K.session(owner)
})
afterAll(async () => {
  await s?.stop()
  await ai?.close()
})

const embeddingCalls = (text: string) =>
  ai.requests.filter(
    (r) => r.path === '/v1/embeddings' && (r.body.input as string[]).some((i) => i.includes(text)),
  ).length

const semantic = (q: string, who: K.Who = o, extra = '') =>
  K.api(s, who).get(`/v1/kb/search?mode=semantic&q=${encodeURIComponent(q)}${extra}`)

describe('semantic processing', () => {
  it('embeds a published article in chunks, shows its state and announces kb.changed', async () => {
    const { c } = await I.socketFor(s, owner, `ws:${w.workspaceId}`)
    const paragraphs = Array.from(
      { length: 6 },
      (_, i) =>
        `Paragraph ${i}: refunds are paid back to the card within fourteen days. ${'More detail. '.repeat(20)}`,
    )
    const x = await K.article(s, o, {
      title: 'Refund handbook',
      body: paragraphs.join('\n\n'),
      status: 'published',
    })
    expect(['pending', 'processing', 'done']).toContain(x.embedding_status)
    const done = await K.embedded(s, o, x.id)
    expect(done.chunk_count).toBeGreaterThan(1)
    expect(done.embedded_at).not.toBeNull()
    expect(done.embedded_at_text).toEqual(expect.any(String))
    const chunks = await K.chunks(s, x.id)
    expect(chunks).toHaveLength(done.chunk_count)
    expect(
      chunks.every((ch) => ch.model === 'standin-embed' && ch.dims === 64 && ch.content.length <= 1000),
    ).toBe(true)
    expect(chunks.map((ch) => ch.content).join('\n\n')).toBe(paragraphs.map((p) => p.trim()).join('\n\n'))
    // Every chunk was embedded with the title before it.
    const sent = ai.requests.filter((r) => r.path === '/v1/embeddings').at(-1)!.body.input as string[]
    expect(sent.every((i) => i.startsWith('Refund handbook\n\n'))).toBe(true)
    const event = await c.next(
      (f) => f.event === 'kb.changed' && (f.data as { reason?: string }).reason === 'embedded',
    )
    expect(event.data).toEqual({ article_id: x.id, reason: 'embedded' })
    c.close()
  })

  it('leaves drafts alone, and clears an unpublished article', async () => {
    const draft = await K.article(s, o, { title: 'Draft never embedded' })
    expect(draft.embedding_status).toBe('none')
    const pub = await K.article(s, o, { title: 'Soon unpublished', status: 'published' })
    await K.embedded(s, o, pub.id)
    const back = await K.api(s, o).patch(`/v1/kb/articles/${pub.id}`, { status: 'draft' })
    expect(back.data).toMatchObject({ embedding_status: 'none', chunk_count: 0, embedded_at: null })
    expect(await K.chunks(s, pub.id)).toHaveLength(0)
    expect(embeddingCalls('Draft never embedded')).toBe(0)
  })

  it('processes again when the title or body of a published article changes, not for other fields', async () => {
    const x = await K.article(s, o, {
      title: 'Shipping zones',
      body: 'Couriers deliver parcels.',
      status: 'published',
    })
    await K.embedded(s, o, x.id)
    expect(embeddingCalls('Shipping zones')).toBe(1)
    await K.api(s, o).patch(`/v1/kb/articles/${x.id}`, { tags: ['logistics'], visibility: 'public' })
    await K.api(s, o).patch(`/v1/kb/articles/${x.id}`, { body: 'Couriers deliver parcels on Saturdays too.' })
    await K.until(s, o, x.id, (a) => a.embedding_status === 'done' && embeddingCalls('Saturdays') === 1)
    expect((await K.chunks(s, x.id))[0]!.content).toBe('Couriers deliver parcels on Saturdays too.')
    await K.api(s, o).patch(`/v1/kb/articles/${x.id}`, { title: 'Shipping zones and days' })
    await K.until(
      s,
      o,
      x.id,
      (a) => a.embedding_status === 'done' && embeddingCalls('Shipping zones and days') === 1,
    )
    // Only the tag change went by without a request: 3 in all.
    expect(embeddingCalls('Shipping zones')).toBe(3)
  })

  it('ends in failed with the reason and kb.changed after the last attempt; …/embed forces it again', async () => {
    const { c } = await I.socketFor(s, owner, `ws:${w.workspaceId}`)
    // 3 attempts of the queue, each tried twice by the adapter (AI_RETRIES=1).
    ai.script('embeddings', ...Array.from({ length: 6 }, () => ({ kind: 'status' as const, status: 500 })))
    const x = await K.article(s, o, { title: 'Doomed at first', status: 'published' })
    const failed = await K.until(s, o, x.id, (a) => a.embedding_status === 'failed', 'failure')
    expect(failed.embedding_error).toMatch(/HTTP 500/)
    expect(
      (
        await c.next(
          (f) => f.event === 'kb.changed' && (f.data as { reason?: string }).reason === 'embedding_failed',
        )
      ).data,
    ).toEqual({ article_id: x.id, reason: 'embedding_failed' })
    const forced = await K.api(s, o).post(`/v1/kb/articles/${x.id}/embed`, {})
    expect(forced.status).toBe(200)
    expect(['pending', 'processing', 'done']).toContain(forced.data.embedding_status)
    await K.embedded(s, o, x.id)
    c.close()
  })

  it('drops the passages of a text taken out at once, whether or not the new text is processed', async () => {
    const x = await K.article(s, o, {
      title: 'Vault access',
      body: 'Staff open the vault at 9. The door code is 4417-2209.',
      status: 'published',
    })
    await K.embedded(s, o, x.id)
    expect((await K.chunks(s, x.id))[0]!.content).toContain('4417-2209')
    // The provider fails for good from now on (3 attempts of the queue, each tried twice).
    ai.script('embeddings', ...Array.from({ length: 6 }, () => ({ kind: 'status' as const, status: 500 })))
    await K.api(s, o).patch(`/v1/kb/articles/${x.id}`, { body: 'Staff open the vault at 9.' })
    expect(await K.chunks(s, x.id)).toEqual([])
    const failed = await K.until(s, o, x.id, (a) => a.embedding_status === 'failed', 'failure')
    expect(failed.chunk_count).toBe(0)
    expect(await K.chunks(s, x.id)).toEqual([])
  })

  it('takes an answer whose list holds null as malformed: failed, not stuck in processing', async () => {
    // Not retried by the adapter: one answer per attempt of the queue.
    ai.script(
      'embeddings',
      ...Array.from({ length: 3 }, () => ({ kind: 'malformed' as const, body: '{"data": [null]}' })),
    )
    const x = await K.article(s, o, { title: 'Null from the provider', status: 'published' })
    const failed = await K.until(s, o, x.id, (a) => a.embedding_status === 'failed', 'failure')
    expect(failed.embedding_error).toMatch(/not a list of numbers/)
  })

  it('refuses …/embed to keys (403), for drafts (422), on the Free plan (402)', async () => {
    const key = await F.apiKey(s, w)
    const x = await K.article(s, o, { title: 'Embed rules', status: 'published' })
    expect((await K.api(s, K.key(key)).post(`/v1/kb/articles/${x.id}/embed`, {})).status).toBe(403)
    const draft = await K.article(s, o, { title: 'Embed draft' })
    expect((await K.api(s, o).post(`/v1/kb/articles/${draft.id}/embed`, {})).status).toBe(422)
    const free = await F.workspace(s, { plan: 'free' })
    const fo = K.session(await F.signIn(s, free.ownerEmail))
    const fx = await K.article(s, fo, { title: 'Free article', status: 'published' })
    expect(fx.embedding_status).toBe('none')
    expect((await K.api(s, fo).post(`/v1/kb/articles/${fx.id}/embed`, {})).status).toBe(402)
  })
})

describe('semantic search', () => {
  let ids: Record<string, number>
  let ws: F.Seeded
  let who: K.Who
  beforeAll(async () => {
    ws = await F.workspace(s, { plan: 'pro' })
    who = K.session(await F.signIn(s, ws.ownerEmail))
    const team = await I.team(s, ws, [])
    const make = async (title: string, body: string, extra: Record<string, unknown> = {}) =>
      (await K.article(s, who, { title, body, status: 'published', ...extra })).id
    ids = {
      refund: await make('Refund policy', 'We reimburse the full amount to your card within 14 days.'),
      shipping: await make('Shipping times', 'Couriers deliver every parcel in two to five working days.'),
      password: await make('Lupa kata sandi', 'Gunakan tautan reset untuk masuk ke akun Anda lagi.'),
      secret: await make('Payment disputes', 'Chargebacks on a card are handled by finance.', {
        team_ids: [team],
      }),
    }
    for (const id of Object.values(ids)) await K.embedded(s, who, id)
  })

  it('finds articles by meaning, in either language, with one AI request per search', async () => {
    const before = (await K.api(s, who).get('/v1/kb/search?q=x')).meta.ai.used
    const r = await semantic('pengembalian uang', who)
    expect(r.status).toBe(200)
    expect(r.data[0].article.id).toBe(ids.refund)
    expect(r.data[0]).toMatchObject({ match: 'semantic', snippet: expect.stringContaining('reimburse') })
    expect(r.data[0].score).toBeGreaterThan(r.data[1].score)
    expect(r.data[0].score).toBeLessThanOrEqual(1)
    expect(r.meta).toMatchObject({ mode: 'semantic', ai: { used: before + 1, limit: 2000 } })
    // The same words find nothing by keyword: the match is by meaning.
    expect((await K.api(s, who).get('/v1/kb/search?q=pengembalian%20uang')).data).toEqual([])
    expect((await semantic('where is my package', who)).data[0].article.id).toBe(ids.shipping)
    expect((await semantic('I forgot my password', who)).data[0].article.id).toBe(ids.password)
    expect((await semantic('where is my package', who, '&limit=2')).data).toHaveLength(2)
  })

  it('applies the team rule and needs ai.use', async () => {
    const outsider = await K.member(s, ws, ['kb.view', 'ai.use'])
    const seen = (await semantic('card payment', outsider.who)).data.map(
      (i: { article: { id: number } }) => i.article.id,
    )
    expect(seen).not.toContain(ids.secret)
    expect((await semantic('card payment', who)).data[0].article.id).toBe(ids.secret)
    const noAi = await K.member(s, ws, ['kb.view'])
    expect((await semantic('card payment', noAi.who)).status).toBe(403)
  })

  it('answers 502 and uses nothing when the provider fails', async () => {
    const before = (await K.api(s, who).get('/v1/kb/search?q=x')).meta.ai.used
    ai.script('embeddings', { kind: 'status', status: 503 }, { kind: 'status', status: 503 })
    const r = await semantic('refund', who)
    expect(r.status).toBe(502)
    ai.script('embeddings', { kind: 'malformed', body: '{"data": [{"embedding": ["a"]}]}' })
    expect((await semantic('refund', who)).status).toBe(502)
    ai.script('embeddings', { kind: 'malformed', body: '{"data": [null]}' })
    expect((await semantic('refund', who)).status).toBe(502)
    expect((await K.api(s, who).get('/v1/kb/search?q=x')).meta.ai.used).toBe(before)
  })
})
