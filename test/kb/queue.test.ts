import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../engine/config'
import { makeLogger } from '../../engine/log'
import { type RunningApp, start } from '../../http/app'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { aiEnv, type StandIn, startOpenAiStandIn } from '../support/openai'
import { freePort, startTestServer, type TestServer } from '../support/server'
import * as K from './support'

/**
 * The durable embedding queue: an article a node was processing when it stopped is finished by
 * the next node; one whose node died (its lease still running) is taken once the lease runs out;
 * two nodes on one database process each article once.
 */
let ai: StandIn
let s: TestServer
let w: F.Seeded
let o: K.Who
beforeAll(async () => {
  ai = await startOpenAiStandIn()
  s = await startTestServer(
    { CONNECTORS: 'local', ...aiEnv(ai, { AI_TIMEOUT_MS: '60000' }) },
    { durable: true },
  )
  w = await F.workspace(s, { plan: 'pro' })
  o = K.session(await F.signIn(s, w.ownerEmail))
})
afterAll(async () => {
  await s?.stop()
  await ai?.close()
})

const requestsFor = (title: string) =>
  ai.requests.filter(
    (r) =>
      r.path === '/v1/embeddings' &&
      (r.body.input as string[]).some((i) => i.startsWith(`${title}\n`) || i === title),
  ).length

describe('embedding queue', () => {
  it('takes over an article whose node died mid-article once its lease runs out', async () => {
    const x = await K.article(s, o, { title: 'Orphaned article', body: 'Taken by a node that died.' })
    // As a node that claimed the job and died would leave it: leased, attempted once, never finished.
    await I.sql(
      s,
      (
        db,
      ) => db`WITH a AS (UPDATE kb_articles SET status = 'published', embedding_status = 'processing' WHERE id = ${x.id})
        INSERT INTO kb_embed_jobs (article_id, workspace_id, attempts, lease_until)
        VALUES (${x.id}, ${w.workspaceId}, 1, now() + interval '1 second') RETURNING article_id`,
    )
    const done = await K.embedded(s, o, x.id)
    expect(done.chunk_count).toBe(1)
    expect(requestsFor('Orphaned article')).toBe(1)
    expect(await K.jobs(s)).toEqual([])
  })

  it('survives a restart in the middle of an article', async () => {
    ai.script('embeddings', { kind: 'hang' })
    const x = await K.article(s, o, {
      title: 'Mid-restart article',
      body: 'Half processed.',
      status: 'published',
    })
    for (let i = 0; i < 400 && ai.hanging() === 0; i++) await new Promise((r) => setTimeout(r, 25))
    expect(ai.hanging()).toBe(1)
    expect((await K.jobs(s)).map((j) => j.article_id)).toEqual([x.id])
    await s.restart()
    const done = await K.embedded(s, o, x.id)
    expect(done.chunk_count).toBe(1)
    expect(await K.chunks(s, x.id)).toHaveLength(1)
    expect(requestsFor('Mid-restart article')).toBe(2)
    expect(await K.jobs(s)).toEqual([])
  })

  // PostgreSQL only: the embedded database is one node's (its data directory is locked by the node
  // that opened it), so two nodes share a database only on PostgreSQL.
  it.skipIf(!process.env.DATABASE_URL)(
    'lets two nodes on one database process each article once',
    async () => {
      const port = await freePort()
      const cfg = loadConfig({ ...s.env, PORT: String(port) })
      let second: RunningApp | undefined
      try {
        second = await start(cfg, { logger: makeLogger('error') })
        const titles = Array.from({ length: 12 }, (_, i) => `Twin node article ${i}`)
        const made = await Promise.all(titles.map((title) => K.article(s, o, { title, status: 'published' })))
        for (const a of made) await K.embedded(s, o, a.id)
        for (const t of titles) expect(requestsFor(t), t).toBe(1)
      } finally {
        await second?.stop()
      }
    },
  )
})
