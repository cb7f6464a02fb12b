import { Duration, Effect, Schedule } from 'effect'
import type { AppConfig } from '../../engine/config'
import { Log } from '../../engine/log'
import * as Articles from '../../store/kbArticles'
import * as Embeddings from '../../store/kbEmbeddings'
import type { WorkspaceRow } from '../../store/workspaces'
import { AiProvider } from '../ai/AiProvider'
import { aiReady } from '../ai/requests'
import { articleChanged } from './events'

/**
 * Semantic processing of published articles (spec 2 §4.5): an article's title and body are cut
 * into chunks, each embedded with the title before it, and stored (store/kbEmbeddings.ts). The
 * work goes through a durable queue (table `kb_embed_jobs`): requested when an article is
 * published, when a published article's title or body changes, or by `POST /kb/articles/{id}/embed`;
 * every node runs `worker` and takes due jobs under SKIP LOCKED with a lease, so one node
 * processes each article, a restart loses nothing, and a node that dies mid-article only delays
 * it until its lease runs out. Completion and final failure are announced with `kb.changed`.
 * Background processing uses no AI requests of the workspace's quota (docs/decisions.md).
 */

/** Characters per chunk (about 250 tokens), and chunks per article at most. */
export const CHUNK_CHARS = 1000
export const MAX_CHUNKS = 100
const MAX_ATTEMPTS = 3

const hardSplit = (text: string, max: number): string[] => {
  const out: string[] = []
  let rest = text
  while (rest.length > max) {
    // Cut at the last sentence end or space before the limit, else at the limit.
    const window = rest.slice(0, max)
    const at = Math.max(window.lastIndexOf('. '), window.lastIndexOf('\n'), window.lastIndexOf(' '))
    const cut = at > max / 2 ? at + 1 : max
    out.push(rest.slice(0, cut).trim())
    rest = rest.slice(cut)
  }
  if (rest.trim() !== '') out.push(rest.trim())
  return out
}

/** The body's pieces: paragraphs packed up to `max` characters, long ones cut at sentence ends. */
export const piecesOf = (body: string, max = CHUNK_CHARS): string[] => {
  const paragraphs = body
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '')
    .flatMap((p) => hardSplit(p, max))
  const pieces: string[] = []
  let current = ''
  for (const p of paragraphs) {
    if (current !== '' && current.length + 2 + p.length > max) {
      pieces.push(current)
      current = p
    } else current = current === '' ? p : `${current}\n\n${p}`
  }
  if (current !== '') pieces.push(current)
  return pieces.slice(0, MAX_CHUNKS)
}

/** What is embedded for each piece: the title gives every chunk its context. */
export const embedInput = (title: string, piece: string) => (piece === '' ? title : `${title}\n\n${piece}`)

/**
 * Asks for the article's processing when the workspace may use AI and the server has a provider;
 * otherwise it shows `none` (a later `POST …/embed` asks again).
 */
export const schedule = (workspace: WorkspaceRow, articleId: number, textChanged = false) =>
  Effect.gen(function* () {
    if (yield* aiReady(workspace)) yield* Embeddings.enqueue(workspace.id, articleId, textChanged)
    else yield* Embeddings.clear(articleId)
  })

/** One claimed job: embed the article as it is now and store it, or record the failure. */
export const processJob = (job: Embeddings.EmbedJobRow, cfg: Pick<AppConfig, 'kbEmbedRetryBaseMs'>) =>
  Effect.gen(function* () {
    const provider = yield* AiProvider
    const log = yield* Log
    const article = yield* Articles.byId(job.article_id)
    if (article?.status !== 'published' || !provider.configured || !provider.embeddingModel) {
      if (article) yield* Embeddings.clear(article.id)
      return
    }
    const pieces = piecesOf(article.body)
    const inputs = pieces.length === 0 ? [article.title] : pieces.map((p) => embedInput(article.title, p))
    const outcome = yield* Effect.either(provider.embed(inputs))
    if (outcome._tag === 'Right') {
      const vectors = outcome.right
      const stored = yield* Embeddings.complete(
        job,
        provider.embeddingModel,
        inputs.map((_, i) => ({ content: pieces[i] ?? '', embedding: vectors[i]! })),
      )
      if (stored === 'stored') yield* articleChanged(job.workspace_id, job.article_id, 'embedded')
      return
    }
    const reason = outcome.left._tag === 'AiError' ? outcome.left.reason : 'no AI provider'
    const retry = job.attempts < MAX_ATTEMPTS ? cfg.kbEmbedRetryBaseMs * 3 ** (job.attempts - 1) : null
    log.warn('kb embedding failed', {
      workspace_id: job.workspace_id,
      article_id: job.article_id,
      attempt: job.attempts,
      retry_in_ms: retry,
      reason,
    })
    const result = yield* Embeddings.fail(job, reason, retry)
    if (result === 'failed') yield* articleChanged(job.workspace_id, job.article_id, 'embedding_failed')
  }).pipe(
    // A node stopping mid-article gives it back at once rather than when its lease runs out.
    Effect.onInterrupt(() => Embeddings.release(job).pipe(Effect.ignore)),
  )

/** Takes due jobs and processes them, one after another; answers how many it took. */
export const runDue = (cfg: Pick<AppConfig, 'kbEmbedLeaseMs' | 'kbEmbedRetryBaseMs'>) =>
  Effect.gen(function* () {
    const jobs = yield* Embeddings.claim(4, cfg.kbEmbedLeaseMs)
    yield* Effect.forEach(jobs, (j) => processJob(j, cfg), { discard: true })
    return jobs.length
  })

/** The loop every server node runs; says at start which vector storage the database has. */
export const worker = (cfg: Pick<AppConfig, 'kbEmbedLeaseMs' | 'kbEmbedPollMs' | 'kbEmbedRetryBaseMs'>) =>
  Effect.gen(function* () {
    const log = yield* Log
    const mode = yield* Embeddings.vectorMode
    log.info('kb semantic search storage', {
      vectors:
        mode === 'pgvector'
          ? 'pgvector'
          : 'real[] with cosine similarity in SQL (no pgvector on this server)',
    })
    const tick = runDue(cfg).pipe(
      Effect.catchAllCause((cause) =>
        Effect.sync(() => log.warn('kb embedding tick failed', { cause: String(cause) })),
      ),
    )
    return yield* Effect.repeat(tick, Schedule.spaced(Duration.millis(cfg.kbEmbedPollMs)))
  })
