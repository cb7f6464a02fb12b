import { Schema } from 'effect'
import { iso } from '../../engine/time'
import type { KbArticleView } from '../../store/kbArticles'
import type { KbCategoryView } from '../../store/kbCategories'
import { type Caller, holds } from '../admin/caller'
import type { Locale } from '../i18n'

/** The knowledge base's resources as the API shows them (spec 2 §2). */

export const CategorySchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  description: Schema.String,
  position: Schema.Number,
  articles_count: Schema.Number,
  created_at: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(Schema.String),
})

export const presentCategory = (c: KbCategoryView): typeof CategorySchema.Type => ({
  id: c.id,
  name: c.name,
  description: c.description,
  position: c.position,
  articles_count: c.articles_count,
  created_at: iso(c.created_at),
  updated_at: iso(c.updated_at),
})

const Named = Schema.Struct({ id: Schema.Number, name: Schema.String })

export const ArticleSchema = Schema.Struct({
  id: Schema.Number,
  title: Schema.String,
  body: Schema.String,
  category_id: Schema.NullOr(Schema.Number),
  category: Schema.NullOr(Named),
  visibility: Schema.Literal('internal', 'public'),
  status: Schema.Literal('draft', 'published'),
  tags: Schema.Array(Schema.String),
  team_ids: Schema.Array(Schema.Number),
  teams: Schema.Array(Named),
  embedding_status: Schema.Literal('none', 'pending', 'processing', 'done', 'failed'),
  embedding_error: Schema.NullOr(Schema.String),
  chunk_count: Schema.Number,
  embedded_at: Schema.NullOr(Schema.String),
  embedded_at_text: Schema.NullOr(Schema.String),
  can: Schema.Struct({ insert: Schema.Boolean, edit: Schema.Boolean }),
  created_by: Schema.NullOr(Schema.Number),
  published_at: Schema.NullOr(Schema.String),
  created_at: Schema.NullOr(Schema.String),
  updated_at: Schema.NullOr(Schema.String),
})

/** How a reader sees times: in their language and zone. */
export interface Reader {
  readonly caller: Caller
  readonly locale: Locale
  readonly zone: string
}

/** `22 Nov 2026, 10:05` (English) or `22 Nov 2026 10.05` (Indonesian), in the reader's zone. */
export const timeText = (d: Date | null, r: Pick<Reader, 'locale' | 'zone'>): string | null =>
  d === null
    ? null
    : new Intl.DateTimeFormat(r.locale === 'id' ? 'id-ID' : 'en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: r.zone,
      }).format(d)

/**
 * An article. `can.insert`: the reader may put it into a reply (published, and they reply to
 * conversations); `can.edit`: they manage the knowledge base.
 */
export const presentArticle = (a: KbArticleView, r: Reader): typeof ArticleSchema.Type => ({
  id: a.id,
  title: a.title,
  body: a.body,
  category_id: a.category_id,
  category: a.category_id === null ? null : { id: a.category_id, name: a.category_name ?? '' },
  visibility: a.visibility,
  status: a.status,
  tags: a.tags,
  team_ids: a.team_ids,
  teams: a.teams,
  embedding_status: a.embedding_status,
  embedding_error: a.embedding_error,
  chunk_count: a.chunk_count,
  embedded_at: iso(a.embedded_at),
  embedded_at_text: timeText(a.embedded_at, r),
  can: {
    insert: a.status === 'published' && holds(r.caller, 'interactions.reply'),
    edit: holds(r.caller, 'kb.manage'),
  },
  created_by: a.created_by,
  published_at: iso(a.published_at),
  created_at: iso(a.created_at),
  updated_at: iso(a.updated_at),
})

export const SearchItemSchema = Schema.Struct({
  article: ArticleSchema,
  match: Schema.Literal('keyword', 'semantic'),
  score: Schema.Number,
  snippet: Schema.String,
})
