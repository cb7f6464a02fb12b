import { Schema } from 'effect'
import * as Articles from '../../actors/kb/articles'
import * as Categories from '../../actors/kb/categories'
import { ArticleSchema, CategorySchema, SearchItemSchema } from '../../actors/kb/presenters'
import * as Search from '../../actors/kb/search'
import { answer, type Route, route } from '../route'

/**
 * Spec 2 §4.5 knowledge base: categories, articles, their semantic processing and search. The
 * rules are in actors/kb/ (visibility.ts holds the team rule); the keyword and vector SQL in
 * store/kbArticles.ts and store/kbEmbeddings.ts.
 */
const tag = 'Knowledge base'

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/kb/categories',
    access: 'K',
    permission: 'kb.view',
    tag,
    summary: 'Categories by position, each with the count of published articles the caller may see',
    response: Schema.Array(CategorySchema),
    handler: ({ caller, workspace }) => answer(Categories.list({ caller, workspace })),
  }),
  route({
    method: 'POST',
    path: '/v1/kb/categories',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary: 'Create a category `{name, description, position}`; names unique per workspace',
    body: Categories.CreateBody,
    response: CategorySchema,
    handler: ({ caller, workspace, body }) => answer(Categories.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/kb/categories/{id}',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary: 'Change a category (fields not sent stay)',
    params: Categories.IdParam,
    body: Categories.UpdateBody,
    response: CategorySchema,
    handler: ({ caller, workspace, params, body }) =>
      answer(Categories.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/kb/categories/{id}',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary: 'Delete a category; its articles become uncategorized',
    params: Categories.IdParam,
    handler: ({ caller, workspace, params }) => answer(Categories.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/kb/articles',
    access: 'K',
    permission: 'kb.view',
    tag,
    summary:
      'Articles the caller may see (without `kb.manage`: published only); filters `q` (every word), `category_id` (id or `none`), `visibility`, `status`, `team_id` (id or `none`); `meta.counts`',
    query: Articles.ListQuery,
    response: Schema.Array(ArticleSchema),
    handler: ({ caller, workspace, locale, query }) =>
      answer(Articles.list({ caller, workspace, locale }, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/kb/articles',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary:
      'Create an article (defaults: internal, draft, all teams); a manager without view-all chooses only own teams',
    body: Articles.CreateBody,
    response: ArticleSchema,
    handler: ({ caller, workspace, locale, body }) =>
      answer(Articles.create({ caller, workspace, locale }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/kb/articles/{id}',
    access: 'K',
    permission: 'kb.view',
    tag,
    summary: "One article; another team's team-only article is 404",
    params: Articles.IdParam,
    response: ArticleSchema,
    handler: ({ caller, workspace, locale, params }) =>
      answer(Articles.detail({ caller, workspace, locale }, params)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/kb/articles/{id}',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary:
      'Change an article (fields not sent stay; `team_ids: []` = all teams); a published article whose title or body changes is processed again',
    params: Articles.IdParam,
    body: Articles.UpdateBody,
    response: ArticleSchema,
    handler: ({ caller, workspace, locale, params, body }) =>
      answer(Articles.update({ caller, workspace, locale }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/kb/articles/{id}',
    access: 'K',
    permission: 'kb.manage',
    tag,
    summary: 'Delete an article',
    params: Articles.IdParam,
    handler: ({ caller, workspace, locale, params }) =>
      answer(Articles.remove({ caller, workspace, locale }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/kb/articles/{id}/embed',
    access: 'A',
    permission: 'kb.manage',
    tag,
    summary: '(Re)process a published article for semantic search (Pro or Custom); `kb.changed` when done',
    params: Articles.IdParam,
    response: ArticleSchema,
    handler: ({ caller, workspace, locale, params }) =>
      answer(Articles.embed({ caller, workspace, locale }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/kb/search',
    access: 'K',
    permission: 'kb.view',
    tag,
    summary:
      'Search published articles: `mode=keyword` (default, every word) or `semantic` (Pro/Custom, `ai.use`, one AI request); items `{article, match, score, snippet}`, `meta.ai`',
    query: Search.SearchQuery,
    response: Schema.Array(SearchItemSchema),
    handler: ({ caller, workspace, locale, query }) =>
      answer(Search.search({ caller, workspace, locale }, query)),
  }),
]
