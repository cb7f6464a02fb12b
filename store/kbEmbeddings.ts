import { SqlClient } from '@effect/sql'
import { Context, Effect, Layer } from 'effect'
import { type ArticleVisibility, type KbArticleView, type KbViewer, VIEW, visibleWhere } from './kbArticles'

/**
 * Semantic search storage (migration 0075): chunks of published articles with unit-length
 * embeddings, and the durable queue that (re)processes articles.
 *
 * The embedding column is pgvector's `vector` where the server has the extension (PGlite ships
 * it), else `real[]`; `vectorMode` reads which one the database has and the queries follow it.
 * Both rank by cosine similarity (a dot product of unit vectors): `1 - (e <=> q)` with pgvector,
 * `sum(e[i] * q[i])` over `unnest` without, so both answer the same articles in the same order.
 */
export type VectorMode = 'pgvector' | 'real[]'

/** The vector mode of the node's database, once read (a service: store/database.ts provides it). */
export class VectorModeMemo extends Context.Tag('kotak/VectorModeMemo')<
  VectorModeMemo,
  { mode: VectorMode | undefined }
>() {}

export const vectorModeLayer: Layer.Layer<VectorModeMemo> = Layer.sync(VectorModeMemo, () => ({
  mode: undefined,
}))

export const vectorMode = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.gen(function* () {
    const memo = yield* VectorModeMemo
    if (memo.mode) return memo.mode
    const [row] = yield* sql<{ t: string }>`
      SELECT format_type(atttypid, atttypmod) AS t FROM pg_attribute
      WHERE attrelid = 'kb_chunks'::regclass AND attname = 'embedding'`
    const mode: VectorMode = row?.t === 'vector' ? 'pgvector' : 'real[]'
    memo.mode = mode
    return mode
  }),
)

const literal = (mode: VectorMode, v: ReadonlyArray<number>) =>
  mode === 'pgvector' ? `[${v.join(',')}]` : `{${v.join(',')}}`

export interface NewChunk {
  readonly content: string
  readonly embedding: ReadonlyArray<number>
}

// ---------------------------------------------------------------------------------------------
// The queue
// ---------------------------------------------------------------------------------------------

export interface EmbedJobRow {
  readonly article_id: number
  readonly workspace_id: number
  readonly revision: number
  readonly attempts: number
}

/**
 * Asks for the article to be (re)processed: a new request, or a newer revision of a waiting one
 * (a node working on the older text will not store its result). The article shows `pending`.
 */
export const enqueue = (workspaceId: number, articleId: number, textChanged = false) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        // The passages of a text that is no longer the article's go at once: an editor who took
        // something out expects search to stop showing it, whether or not the new text is ever
        // processed (a provider that keeps failing left them for good).
        if (textChanged) {
          yield* sql`DELETE FROM kb_chunks WHERE article_id = ${articleId}`
          yield* sql`UPDATE kb_articles SET chunk_count = 0 WHERE id = ${articleId}`
        }
        yield* sql`
          INSERT INTO kb_embed_jobs (article_id, workspace_id) VALUES (${articleId}, ${workspaceId})
          ON CONFLICT (article_id) DO UPDATE SET revision = kb_embed_jobs.revision + 1, attempts = 0,
            due_at = now(), requested_at = now()`
        yield* sql`UPDATE kb_articles SET embedding_status = 'pending', embedding_error = NULL WHERE id = ${articleId}`
      }),
    ),
  )

/** No semantic processing for the article (unpublished, or AI off): job and chunks go. */
export const clear = (articleId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`DELETE FROM kb_embed_jobs WHERE article_id = ${articleId}`
        yield* sql`DELETE FROM kb_chunks WHERE article_id = ${articleId}`
        yield* sql`UPDATE kb_articles SET embedding_status = 'none', embedding_error = NULL, chunk_count = 0,
                     embedded_at = NULL WHERE id = ${articleId}`
      }),
    ),
  )

/**
 * Takes up to `limit` due jobs for `leaseMs` under SKIP LOCKED: two nodes never take the same
 * one, and one that dies mid-article only delays it until the lease runs out. One statement (the
 * articles marked in the same one): no transaction held open between two round trips, which on
 * the embedded database's single connection a busy process stretched past the pool's guard.
 */
export const claim = (limit: number, leaseMs: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<EmbedJobRow>`
      WITH claimed AS (
        UPDATE kb_embed_jobs SET lease_until = now() + make_interval(secs => ${leaseMs / 1000}),
          attempts = attempts + 1
        WHERE article_id IN (
          SELECT article_id FROM kb_embed_jobs
          WHERE due_at <= now() AND (lease_until IS NULL OR lease_until <= now())
          ORDER BY due_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING article_id, workspace_id, revision, attempts),
      marked AS (
        UPDATE kb_articles SET embedding_status = 'processing'
        WHERE id IN (SELECT article_id FROM claimed))
      SELECT * FROM claimed`,
  )

/** The job as claimed is still the latest request (locks it until the transaction ends). */
const current = (sql: SqlClient.SqlClient, job: EmbedJobRow) =>
  Effect.map(
    sql<{
      revision: number
    }>`SELECT revision FROM kb_embed_jobs WHERE article_id = ${job.article_id} FOR UPDATE`,
    (r) => r[0]?.revision === job.revision,
  )

/** Gives a claimed job back at once (a node stopping, or a newer request came in). */
export const release = (job: EmbedJobRow) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE kb_embed_jobs SET lease_until = NULL WHERE article_id = ${job.article_id}`.pipe(Effect.asVoid),
  )

/**
 * Stores the article's chunks and finishes the job, unless a newer request came in meanwhile
 * (then the job is given back for the newer text): `stored` or `stale`.
 */
export const complete = (job: EmbedJobRow, model: string, chunks: readonly NewChunk[]) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const mode = yield* vectorMode
      return yield* sql.withTransaction(
        Effect.gen(function* () {
          if (!(yield* current(sql, job))) {
            yield* sql`UPDATE kb_embed_jobs SET lease_until = NULL WHERE article_id = ${job.article_id}`
            return 'stale' as const
          }
          yield* sql`DELETE FROM kb_chunks WHERE article_id = ${job.article_id}`
          const cast = mode === 'pgvector' ? sql`vector` : sql`real[]`
          for (const [position, c] of chunks.entries()) {
            yield* sql`
              INSERT INTO kb_chunks (workspace_id, article_id, position, content, model, dims, embedding)
              VALUES (${job.workspace_id}, ${job.article_id}, ${position}, ${c.content}, ${model},
                      ${c.embedding.length}, ${literal(mode, c.embedding)}::${cast})`
          }
          yield* sql`UPDATE kb_articles SET embedding_status = 'done', embedding_error = NULL,
                       chunk_count = ${chunks.length}, embedded_at = now() WHERE id = ${job.article_id}`
          yield* sql`DELETE FROM kb_embed_jobs WHERE article_id = ${job.article_id}`
          return 'stored' as const
        }),
      )
    }),
  )

/**
 * A failed attempt: tried again after `retryInMs`, or (null) failed for good with the reason on
 * the article. `stale` when a newer request came in meanwhile (it is tried afresh).
 */
export const fail = (job: EmbedJobRow, reason: string, retryInMs: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        if (!(yield* current(sql, job))) {
          yield* sql`UPDATE kb_embed_jobs SET lease_until = NULL WHERE article_id = ${job.article_id}`
          return 'stale' as const
        }
        if (retryInMs !== null) {
          yield* sql`UPDATE kb_embed_jobs SET lease_until = NULL,
                       due_at = now() + make_interval(secs => ${retryInMs / 1000})
                     WHERE article_id = ${job.article_id}`
          yield* sql`UPDATE kb_articles SET embedding_status = 'pending', embedding_error = ${reason}
                     WHERE id = ${job.article_id}`
          return 'retry' as const
        }
        yield* sql`DELETE FROM kb_embed_jobs WHERE article_id = ${job.article_id}`
        yield* sql`UPDATE kb_articles SET embedding_status = 'failed', embedding_error = ${reason}
                   WHERE id = ${job.article_id}`
        return 'failed' as const
      }),
    ),
  )

/** Jobs waiting or in progress (operator view, tests). */
export const pending = Effect.flatMap(
  SqlClient.SqlClient,
  (sql) => sql<EmbedJobRow & { lease_until: Date | null }>`SELECT * FROM kb_embed_jobs ORDER BY due_at`,
)

export const chunksOf = (articleId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ position: number; content: string; model: string; dims: number }>`
      SELECT position, content, model, dims FROM kb_chunks WHERE article_id = ${articleId} ORDER BY position`,
  )

// ---------------------------------------------------------------------------------------------
// Semantic search
// ---------------------------------------------------------------------------------------------

export interface SemanticHit {
  readonly article: KbArticleView
  readonly score: number
  readonly chunk: string
}

/**
 * The visible published articles nearest in meaning to `query` (a unit vector of `model`): each
 * article's best chunk, best first.
 */
export const semanticSearch = (
  v: KbViewer,
  query: ReadonlyArray<number>,
  opts: {
    readonly model: string
    readonly visibility?: ArticleVisibility | undefined
    readonly limit: number
  },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const mode = yield* vectorMode
      const q = literal(mode, query)
      const similarity =
        mode === 'pgvector'
          ? sql`1 - (c.embedding <=> ${q}::vector)`
          : sql`(SELECT sum(x * y) FROM unnest(c.embedding, ${q}::real[]) AS u(x, y))`
      const rows = yield* sql<KbArticleView & { score: number; chunk: string }>`
        WITH best AS (
          SELECT DISTINCT ON (c.article_id) c.article_id, c.content, ${similarity} AS score
          FROM kb_chunks c JOIN kb_articles a ON a.id = c.article_id
          WHERE c.workspace_id = ${v.workspaceId} AND c.model = ${opts.model} AND c.dims = ${query.length}
            AND a.status = 'published' AND ${visibleWhere(sql, v)}
            AND ${opts.visibility === undefined ? sql`true` : sql`a.visibility = ${opts.visibility}`}
          ORDER BY c.article_id, score DESC, c.position),
        top AS (SELECT * FROM best ORDER BY score DESC, article_id LIMIT ${opts.limit})
        SELECT v.*, top.score, top.content AS chunk
        FROM top JOIN (${sql.literal(VIEW)}) v ON v.id = top.article_id
        ORDER BY top.score DESC, v.id`
      return rows.map(
        ({ score, chunk, ...article }): SemanticHit => ({
          article,
          score: Math.round(Number(score) * 10_000) / 10_000,
          chunk,
        }),
      )
    }),
  )
