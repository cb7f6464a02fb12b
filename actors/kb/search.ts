import { Effect, Schema } from 'effect'
import * as Articles from '../../store/kbArticles'
import * as Embeddings from '../../store/kbEmbeddings'
import { holds } from '../admin/caller'
import { AiProvider } from '../ai/AiProvider'
import { aiRequest, aiUsage } from '../ai/requests'
import { reply } from '../answer'
import { forbidden, invalid } from '../errors'
import { Text } from '../fields'
import { addMessages } from '../i18n'
import { type Ctx, readerOf, Visibility } from './articles'
import { presentArticle } from './presenters'
import { viewerFor } from './visibility'

/**
 * `GET /kb/search` (spec 2 §4.5): published articles the caller may see. `keyword` (all plans):
 * every word must match, best rank first, the snippet with the words in `<mark>` (the rest of the
 * snippet HTML-escaped). `semantic` (Pro/Custom, `ai.use`): one AI request embeds the query and the
 * articles nearest in meaning come first, each with its best passage. `meta.ai` = this month's AI
 * usage.
 */

addMessages({
  'kb.no_words': { en: 'must contain a word', id: 'harus berisi kata' },
})

export const SearchQuery = Schema.Struct({
  q: Text(1, 200),
  mode: Schema.optional(Schema.Literal('keyword', 'semantic')),
  visibility: Schema.optional(Visibility),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 20))),
})

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/** The start of a passage, cut at a word boundary. */
const excerpt = (text: string, max = 240) => {
  const flat = text.replace(/\s+/g, ' ').trim()
  if (flat.length <= max) return escapeHtml(flat)
  const cut = flat.slice(0, max)
  const at = cut.lastIndexOf(' ')
  return `${escapeHtml(at > max / 2 ? cut.slice(0, at) : cut)} …`
}

export const search = (ctx: Ctx, query: typeof SearchQuery.Type) =>
  Effect.gen(function* () {
    const limit = query.limit ?? 10
    const viewer = { ...viewerFor(ctx), drafts: false }
    const reader = readerOf(ctx)
    if (Articles.tsQueryOf(query.q) === null)
      return yield* Effect.fail(invalid({ q: { key: 'kb.no_words' } }))
    if ((query.mode ?? 'keyword') === 'keyword') {
      const hits = yield* Articles.keywordSearch(viewer, query.q, { visibility: query.visibility, limit })
      return reply(
        hits.map((h) => ({
          article: presentArticle(h.article, reader),
          match: 'keyword' as const,
          score: h.score,
          snippet: h.snippet,
        })),
        { mode: 'keyword', ai: yield* aiUsage(ctx.workspace) },
      )
    }
    if (!holds(ctx.caller, 'ai.use')) return yield* Effect.fail(forbidden())
    const provider = yield* AiProvider
    const { value, ai } = yield* aiRequest(
      ctx.workspace,
      'kb.search',
      Effect.map(provider.embed([query.q.trim()]), (v) => v[0]!),
    )
    const hits = yield* Embeddings.semanticSearch(viewer, value, {
      model: provider.embeddingModel ?? '',
      visibility: query.visibility,
      limit,
    })
    return reply(
      hits.map((h) => ({
        article: presentArticle(h.article, reader),
        match: 'semantic' as const,
        score: h.score,
        snippet: excerpt(h.chunk === '' ? h.article.title : h.chunk),
      })),
      { mode: 'semantic', ai },
    )
  })
