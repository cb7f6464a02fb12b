import * as Embeddings from '../../store/kbEmbeddings'
import { api, type Who } from '../contacts/support'
import * as I from '../inbox/support'
import type * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

/** Knowledge base test helpers: JSON calls, members with chosen permissions, waiting for the queue. */
export { api, key, session, type Who } from '../contacts/support'

/** A signed-in member whose role holds `permissions`, optionally in teams and with view-all. */
export const member = async (
  s: TestServer,
  w: F.Seeded,
  permissions: readonly string[],
  o: { teams?: readonly number[]; viewAll?: boolean } = {},
) => {
  const role = await I.role(s, w, permissions)
  const a = await I.agent(s, w, role)
  for (const t of o.teams ?? [])
    await I.sql(s, (db) => db`INSERT INTO team_members (team_id, user_id) VALUES (${t}, ${a.user.id})`)
  if (o.viewAll) await I.setMember(s, w, a.user.id, { viewAll: true })
  return { ...a, who: a.session.headers() as Who }
}

export const MANAGER = ['kb.view', 'kb.manage', 'ai.use', 'interactions.reply'] as const
export const READER = ['kb.view'] as const

export const article = async (s: TestServer, who: Who, body: Record<string, unknown>) => {
  const r = await api(s, who).post('/v1/kb/articles', body)
  if (r.status !== 201) throw new Error(`article: ${r.status} ${JSON.stringify(r.error)}`)
  return r.data
}

/** Polls an article until `done` holds (the embedding queue runs in the background). */
export const until = async (
  s: TestServer,
  who: Who,
  id: number,
  done: (a: Record<string, any>) => boolean,
  what = 'article state',
) => {
  for (let i = 0; i < 400; i++) {
    const r = await api(s, who).get(`/v1/kb/articles/${id}`)
    if (r.status === 200 && done(r.data)) return r.data
    await new Promise((res) => setTimeout(res, 25))
  }
  throw new Error(`timed out waiting for ${what} of article ${id}`)
}

export const embedded = (s: TestServer, who: Who, id: number) =>
  until(s, who, id, (a) => a.embedding_status === 'done', 'embedding')

export const jobs = (s: TestServer) => s.run(Embeddings.pending)

export const chunks = (s: TestServer, id: number) => s.run(Embeddings.chunksOf(id))

export const vectorMode = (s: TestServer) => s.run(Embeddings.vectorMode)
