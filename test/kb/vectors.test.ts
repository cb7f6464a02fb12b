import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { aiEnv, type StandIn, startOpenAiStandIn } from '../support/openai'
import { startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * Embeddings stored and searched with the same answers on the embedded database (PGlite, whose
 * pgvector extension ships with it) and on PostgreSQL (pgvector where installed, else the `real[]`
 * fallback with cosine similarity in SQL). Without DATABASE_URL only the embedded side runs.
 */
let ai: StandIn
const servers: Array<{ name: string; s: TestServer; who: K.Who; ids: Map<number, string> }> = []

/** A test server on the embedded database even where DATABASE_URL is set. */
const startEmbedded = async (env: Record<string, string>) => {
  const saved = process.env.DATABASE_URL
  delete process.env.DATABASE_URL
  try {
    return await startTestServer(env)
  } finally {
    if (saved !== undefined) process.env.DATABASE_URL = saved
  }
}

const ARTICLES = [
  ['Refund policy', 'We reimburse the full amount to your card within 14 days.'],
  ['Refund for cash purchases', 'Cash purchases are refunded at the store, money in hand.'],
  ['Shipping times', 'Couriers deliver every parcel in two to five working days.'],
  ['Pengiriman ke luar kota', 'Kurir kami mengirim paket ke luar kota dalam satu minggu.'],
  ['Lupa kata sandi', 'Gunakan tautan reset untuk masuk ke akun Anda lagi.'],
  ['Invoices', 'Every payment has an invoice; card payments show the last four digits.'],
  ['Opening hours', 'The store opens at nine and closes at five.'],
] as const

const QUERIES = [
  'pengembalian uang',
  'where is my package',
  'I forgot my password',
  'card payment bill',
  'jam buka',
]

beforeAll(async () => {
  ai = await startOpenAiStandIn()
  const env = { CONNECTORS: 'local', ...aiEnv(ai) }
  const sides: Array<[string, TestServer]> = [['embedded', await startEmbedded(env)]]
  if (process.env.DATABASE_URL) sides.push(['postgres', await startTestServer(env)])
  for (const [name, s] of sides) {
    const w = await F.workspace(s, { plan: 'pro' })
    const who = K.session(await F.signIn(s, w.ownerEmail))
    const ids = new Map<number, string>()
    for (const [title, body] of ARTICLES) {
      const a = await K.article(s, who, { title, body, status: 'published' })
      ids.set(a.id, title)
    }
    for (const id of ids.keys()) await K.embedded(s, who, id)
    servers.push({ name, s, who, ids })
  }
}, 120_000)
afterAll(async () => {
  for (const x of servers) await x.s.stop()
  await ai?.close()
})

const answers = async (x: (typeof servers)[number], q: string) => {
  const r = await K.api(x.s, x.who).get(`/v1/kb/search?mode=semantic&limit=20&q=${encodeURIComponent(q)}`)
  expect(r.status).toBe(200)
  return r.data.map((i: { article: { id: number }; score: number; snippet: string }) => ({
    title: x.ids.get(i.article.id),
    score: i.score.toFixed(3),
    snippet: i.snippet,
  }))
}

describe('vector storage', () => {
  it('runs pgvector on the embedded database', async () => {
    expect(await K.vectorMode(servers[0]!.s)).toBe('pgvector')
  })

  it('stores one unit vector per chunk', async () => {
    for (const x of servers) {
      const [first] = x.ids.keys()
      const chunks = await K.chunks(x.s, first!)
      expect(chunks).toHaveLength(1)
      expect(chunks[0]).toMatchObject({ model: 'standin-embed', dims: 64 })
    }
  })

  it('ranks every article by meaning on the embedded database', async () => {
    const embedded = servers[0]!
    for (const q of QUERIES) expect((await answers(embedded, q)).length, q).toBe(ARTICLES.length)
    const top = (await answers(embedded, 'pengembalian uang'))
      .slice(0, 2)
      .map((x: { title: string }) => x.title)
    expect(top.sort()).toEqual(['Refund for cash purchases', 'Refund policy'])
  })

  // Compares the embedded database's answers with PostgreSQL's: without DATABASE_URL there is no
  // PostgreSQL to compare with (the embedded side's own answers are checked above).
  it.skipIf(!process.env.DATABASE_URL)(
    'answers the same articles, order and scores on PostgreSQL',
    async () => {
      const [embedded, postgres] = servers as [(typeof servers)[number], (typeof servers)[number]]
      // The local server may or may not have pgvector; either way the answers are the same.
      expect(['pgvector', 'real[]']).toContain(await K.vectorMode(postgres.s))
      for (const q of QUERIES) {
        const a = await answers(embedded, q)
        expect(a.length).toBe(ARTICLES.length)
        expect(await answers(postgres, q), q).toEqual(a)
      }
    },
  )
})
