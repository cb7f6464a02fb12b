import { SqlClient } from '@effect/sql'
import type { Fragment } from '@effect/sql/Statement'
import { Effect } from 'effect'
import { pgArray } from './arrays'
import { tsQueryOf } from './textSearch'

/**
 * Knowledge articles (spec 2 §2, §4.5) and their keyword search. Keyword search is PostgreSQL full
 * text over `search_vector` (title A, tags B, body C) in the `kb_text` configuration (`simple`
 * with accents folded, migration 0075): every word of the query must match, as a word or the
 * start of one, ranked by `ts_rank_cd`. Measured on 10,000 articles: docs/decisions.md.
 */
export type ArticleStatus = 'draft' | 'published'
export type ArticleVisibility = 'internal' | 'public'
export type EmbeddingStatus = 'none' | 'pending' | 'processing' | 'done' | 'failed'

export interface KbArticleRow {
  readonly id: number
  readonly workspace_id: number
  readonly category_id: number | null
  readonly title: string
  readonly body: string
  readonly visibility: ArticleVisibility
  readonly status: ArticleStatus
  readonly tags: readonly string[]
  readonly team_ids: readonly number[]
  readonly embedding_status: EmbeddingStatus
  readonly embedding_error: string | null
  readonly chunk_count: number
  readonly embedded_at: Date | null
  readonly created_by: number | null
  readonly published_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface KbArticleView extends KbArticleRow {
  readonly category_name: string | null
  readonly teams: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

/**
 * Who is reading, for spec 2 §1 rule 4: `seesAll` = Owner, admin role, `view_all` or an API key;
 * `drafts` = holds `kb.manage` (others see published articles only).
 */
export interface KbViewer {
  readonly workspaceId: number
  readonly userId: number
  readonly seesAll: boolean
  readonly drafts: boolean
}

/**
 * The one visibility rule for articles, as SQL over alias `a`, shared by list, detail, counts,
 * category counts and both searches: drafts only for managers; an article for chosen teams only
 * to their members (no team = every team), unless the viewer sees everything.
 */
export const visibleWhere = (sql: SqlClient.SqlClient, v: KbViewer): Fragment =>
  sql`a.workspace_id = ${v.workspaceId}
    AND ${v.drafts ? sql`true` : sql`a.status = 'published'`}
    AND ${
      v.seesAll
        ? sql`true`
        : sql`(a.team_ids = '{}' OR EXISTS (
            SELECT 1 FROM team_members tm WHERE tm.user_id = ${v.userId} AND tm.team_id = ANY(a.team_ids)))`
    }`

/** An article with its category's name and its teams (`{id, name}`), over alias `a`. */
export const VIEW = `
  SELECT a.*, k.name AS category_name,
    COALESCE((SELECT jsonb_agg(jsonb_build_object('id', t.id, 'name', t.name) ORDER BY lower(t.name), t.id)
              FROM teams t WHERE t.id = ANY(a.team_ids) AND t.workspace_id = a.workspace_id), '[]'::jsonb) AS teams
  FROM kb_articles a LEFT JOIN kb_categories k ON k.id = a.category_id`

/** The article if `v` may see it. */
export const visibleById = (v: KbViewer, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<KbArticleView>`${sql.literal(VIEW)} WHERE a.id = ${id} AND ${visibleWhere(sql, v)}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byId = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<KbArticleRow>`SELECT * FROM kb_articles WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null)),
  )

export { tsQueryOf }

const SEARCH_VECTOR = `setweight(to_tsvector('kb_text', title), 'A')
  || setweight(to_tsvector('kb_text', array_to_string(tags, ' ')), 'B')
  || setweight(to_tsvector('kb_text', body), 'C')`

/** Recomputes the search vector of an article from its current title, tags and body. */
const reindex = (sql: SqlClient.SqlClient, id: number) =>
  sql`UPDATE kb_articles SET search_vector = ${sql.literal(SEARCH_VECTOR)} WHERE id = ${id}`

/** Recomputes every article's search vector of a workspace (after a bulk load or a configuration change). */
export const reindexWorkspace = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE kb_articles SET search_vector = ${sql.literal(SEARCH_VECTOR)} WHERE workspace_id = ${workspaceId}`.pipe(
      Effect.asVoid,
    ),
  )

export interface ArticleFields {
  readonly title: string
  readonly body: string
  readonly categoryId: number | null
  readonly visibility: ArticleVisibility
  readonly status: ArticleStatus
  readonly tags: readonly string[]
  readonly teamIds: readonly number[]
}

export const insert = (workspaceId: number, createdBy: number | null, f: ArticleFields) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* sql<KbArticleRow>`
          INSERT INTO kb_articles (workspace_id, category_id, title, body, visibility, status, tags, team_ids,
                                   created_by, published_at)
          VALUES (${workspaceId}, ${f.categoryId}, ${f.title}, ${f.body}, ${f.visibility}, ${f.status},
                  ${pgArray(f.tags)}::text[], ${pgArray(f.teamIds)}::int[], ${createdBy},
                  ${f.status === 'published' ? sql`now()` : sql`NULL`})
          RETURNING *`
        yield* reindex(sql, row!.id)
        return row!
      }),
    ),
  )

/** What an edit sends: an absent (undefined) field stays as it is; `categoryId: null` clears it. */
export type ArticlePatch = { readonly [K in keyof ArticleFields]?: ArticleFields[K] | undefined }

/**
 * Applies an edit to the article as it is when the edit runs (its row locked meanwhile), so two
 * edits of different fields at once both stay; answers the article before and after, or null
 * when it is gone.
 */
export const update = (id: number, patch: ArticlePatch) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [before] = yield* sql<KbArticleRow>`SELECT * FROM kb_articles WHERE id = ${id} FOR UPDATE`
        if (!before) return null
        const f: ArticleFields = {
          title: patch.title ?? before.title,
          body: patch.body ?? before.body,
          categoryId: patch.categoryId !== undefined ? patch.categoryId : before.category_id,
          visibility: patch.visibility ?? before.visibility,
          status: patch.status ?? before.status,
          tags: patch.tags ?? before.tags,
          teamIds: patch.teamIds ?? before.team_ids,
        }
        const [row] = yield* sql<KbArticleRow>`
          UPDATE kb_articles SET category_id = ${f.categoryId}, title = ${f.title}, body = ${f.body},
            visibility = ${f.visibility}, status = ${f.status}, tags = ${pgArray(f.tags)}::text[],
            team_ids = ${pgArray(f.teamIds)}::int[],
            published_at = CASE WHEN ${f.status} = 'published' THEN COALESCE(published_at, now()) ELSE NULL END,
            updated_at = now()
          WHERE id = ${id} RETURNING *`
        yield* reindex(sql, id)
        return { before, after: row! }
      }),
    ),
  )

export const remove = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DELETE FROM kb_articles WHERE id = ${id}`.pipe(Effect.asVoid),
  )

export interface ListFilter {
  readonly q?: string | undefined
  /** An id, or `none` (uncategorized). */
  readonly categoryId?: number | 'none' | undefined
  readonly visibility?: ArticleVisibility | undefined
  readonly status?: ArticleStatus | undefined
  /** An id (articles chosen for that team), or `none` (articles for every team). */
  readonly teamId?: number | 'none' | undefined
}

const filterWhere = (sql: SqlClient.SqlClient, f: ListFilter, withStatus: boolean): Fragment => {
  const parts: Fragment[] = []
  const tsq = f.q === undefined ? null : tsQueryOf(f.q)
  if (tsq !== null) parts.push(sql`a.search_vector @@ to_tsquery('kb_text', ${tsq})`)
  if (f.categoryId === 'none') parts.push(sql`a.category_id IS NULL`)
  else if (f.categoryId !== undefined) parts.push(sql`a.category_id = ${f.categoryId}`)
  if (f.visibility !== undefined) parts.push(sql`a.visibility = ${f.visibility}`)
  if (withStatus && f.status !== undefined) parts.push(sql`a.status = ${f.status}`)
  if (f.teamId === 'none') parts.push(sql`a.team_ids = '{}'`)
  else if (f.teamId !== undefined) parts.push(sql`${f.teamId} = ANY(a.team_ids)`)
  return parts.length === 0 ? sql`true` : sql.and(parts)
}

/** A page of visible articles: by keyword rank when `q` is given, else most recently updated first. */
export const list = (v: KbViewer, f: ListFilter, page: { readonly limit: number; readonly offset: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const where = sql`${visibleWhere(sql, v)} AND ${filterWhere(sql, f, true)}`
      const tsq = f.q === undefined ? null : tsQueryOf(f.q)
      const order =
        tsq === null
          ? sql`a.updated_at DESC, a.id DESC`
          : sql`ts_rank_cd(a.search_vector, to_tsquery('kb_text', ${tsq})) DESC, a.updated_at DESC, a.id DESC`
      const rows = yield* sql<KbArticleView>`${sql.literal(VIEW)} WHERE ${where}
        ORDER BY ${order} LIMIT ${page.limit} OFFSET ${page.offset}`
      const [{ total }] = (yield* sql<{ total: number }>`
        SELECT count(*)::int AS total FROM kb_articles a WHERE ${where}`) as [{ total: number }]
      return { rows, total }
    }),
  )

/** Published and draft counts of the visible articles under the other filters (`meta.counts`). */
export const counts = (v: KbViewer, f: ListFilter) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ published: number; draft: number }>`
      SELECT count(*) FILTER (WHERE a.status = 'published')::int AS published,
             count(*) FILTER (WHERE a.status = 'draft')::int AS draft
      FROM kb_articles a WHERE ${visibleWhere(sql, v)} AND ${filterWhere(sql, f, false)}`.pipe(
      Effect.map((r) => r[0] ?? { published: 0, draft: 0 }),
    ),
  )

export interface KeywordHit {
  readonly article: KbArticleView
  readonly score: number
  readonly snippet: string
}

/** HTML-escaped text, so a snippet's only markup is the `<mark>` of the highlight. */
const escaped = (col: string) => `replace(replace(replace(${col}, '&', '&amp;'), '<', '&lt;'), '>', '&gt;')`

/**
 * Keyword search over the visible published articles: every word must match; best rank first;
 * the snippet is the best passage of the body (or the title) with the words in `<mark>`.
 */
export const keywordSearch = (
  v: KbViewer,
  q: string,
  opts: { readonly visibility?: ArticleVisibility | undefined; readonly limit: number },
) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.gen(function* () {
      const tsq = tsQueryOf(q)
      if (tsq === null) return [] as KeywordHit[]
      const rows = yield* sql<KbArticleView & { score: number; snippet_body: string; snippet_title: string }>`
        WITH q AS (SELECT to_tsquery('kb_text', ${tsq}) AS query),
        hits AS (
          SELECT a.id, ts_rank_cd(a.search_vector, q.query, 32) AS score
          FROM kb_articles a, q
          WHERE ${visibleWhere(sql, v)} AND a.status = 'published' AND a.search_vector @@ q.query
            AND ${opts.visibility === undefined ? sql`true` : sql`a.visibility = ${opts.visibility}`}
          ORDER BY score DESC, a.updated_at DESC, a.id DESC
          LIMIT ${opts.limit})
        SELECT v.*, hits.score,
          ts_headline('kb_text', ${sql.literal(escaped('v.body'))}, q.query,
            'StartSel=<mark>, StopSel=</mark>, MaxWords=30, MinWords=12, ShortWord=2, MaxFragments=2, FragmentDelimiter=" … "') AS snippet_body,
          ts_headline('kb_text', ${sql.literal(escaped('v.title'))}, q.query,
            'StartSel=<mark>, StopSel=</mark>, HighlightAll=true') AS snippet_title
        FROM hits JOIN (${sql.literal(VIEW)}) v ON v.id = hits.id, q
        ORDER BY hits.score DESC, v.updated_at DESC, v.id DESC`
      return rows.map(
        ({ score, snippet_body, snippet_title, ...article }): KeywordHit => ({
          article,
          score: Math.round(Number(score) * 10_000) / 10_000,
          snippet: snippet_body.includes('<mark>') ? snippet_body : snippet_title,
        }),
      )
    }),
  )
