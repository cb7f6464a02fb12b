import { Effect, Schema } from 'effect'
import * as Articles from '../../store/kbArticles'
import * as Categories from '../../store/kbCategories'
import * as Embeddings from '../../store/kbEmbeddings'
import * as Teams from '../../store/teams'
import { aiAllowed } from '../ai/requests'
import { createdReply, reply } from '../answer'
import { ApiError, invalid } from '../errors'
import { Id, IdFromString, Text } from '../fields'
import type { Locale } from '../i18n'
import { addMessages } from '../i18n'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { schedule } from './embedding'
import { articleChanged } from './events'
import { presentArticle, type Reader } from './presenters'
import { type KbCtx, seesAllTeams, viewerFor, visibleOr404 } from './visibility'

/**
 * Knowledge articles (spec 2 §4.5 `/kb/articles`): defaults Internal, Draft, all teams; filters
 * and `meta.counts`; the team rule (an article for chosen teams is 404 to the others; a manager
 * without view-all may choose only teams they belong to, else 422); semantic processing asked for
 * when an article is published or a published article's title or body changes.
 */

addMessages({
  'kb.team_outside': {
    en: 'you may choose only teams you belong to',
    id: 'Anda hanya dapat memilih tim tempat Anda bergabung',
  },
  'kb.not_published': {
    en: 'Only a published article is processed for semantic search.',
    id: 'Hanya artikel yang diterbitkan yang diproses untuk pencarian semantik.',
  },
})

export const IdParam = Schema.Struct({ id: IdFromString })
export const Visibility = Schema.Literal('internal', 'public')
export const Status = Schema.Literal('draft', 'published')
const Body = Schema.String.pipe(Schema.maxLength(50_000))
const Tags = Schema.Array(Text(1, 50)).pipe(Schema.maxItems(20))
const TeamIds = Schema.Array(Id).pipe(Schema.maxItems(50))

export const CreateBody = Schema.Struct({
  title: Text(1, 200),
  body: Schema.optional(Body),
  category_id: Schema.optional(Schema.NullOr(Id)),
  visibility: Schema.optional(Visibility),
  status: Schema.optional(Status),
  tags: Schema.optional(Tags),
  team_ids: Schema.optional(TeamIds),
})

export const UpdateBody = Schema.Struct({
  title: Schema.optional(Text(1, 200)),
  body: Schema.optional(Body),
  category_id: Schema.optional(Schema.NullOr(Id)),
  visibility: Schema.optional(Visibility),
  status: Schema.optional(Status),
  tags: Schema.optional(Tags),
  team_ids: Schema.optional(TeamIds),
})

export const ListQuery = Schema.Struct({
  ...pageFields,
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  category_id: Schema.optional(Schema.Union(Schema.Literal('none'), IdFromString)),
  visibility: Schema.optional(Visibility),
  status: Schema.optional(Status),
  team_id: Schema.optional(Schema.Union(Schema.Literal('none'), IdFromString)),
})

/** What an operation needs: the caller, the workspace and how the caller reads times. */
export interface Ctx extends KbCtx {
  readonly locale: Locale
}

export const readerOf = (ctx: Ctx): Reader => ({
  caller: ctx.caller,
  locale: ctx.locale,
  zone: ctx.caller.user.timezone ?? ctx.workspace.timezone,
})

/** Tags trimmed, without repeats (regardless of case), in the order given. */
const cleanTags = (tags: readonly string[]) => {
  const seen = new Set<string>()
  const out: string[] = []
  for (const t of tags.map((x) => x.trim())) {
    if (seen.has(t.toLowerCase())) continue
    seen.add(t.toLowerCase())
    out.push(t)
  }
  return out
}

/** The category exists in the workspace, and the teams too, within the caller's own unless they see all. */
const checkRefs = (ctx: Ctx, categoryId: number | null | undefined, teamIds: readonly number[] | undefined) =>
  Effect.gen(function* () {
    const fields: Record<string, { key: string }> = {}
    if (
      categoryId !== undefined &&
      categoryId !== null &&
      !(yield* Categories.byId(ctx.workspace.id, categoryId))
    )
      fields.category_id = { key: 'field.unknown' }
    if (teamIds !== undefined && teamIds.length > 0) {
      const unique = [...new Set(teamIds)]
      const found = yield* Teams.existing(ctx.workspace.id, unique)
      if (found.length !== unique.length) fields.team_ids = { key: 'field.unknown' }
      else if (!seesAllTeams(ctx.caller)) {
        const own = new Set(yield* Teams.idsOfUser(ctx.workspace.id, ctx.caller.user.id))
        if (unique.some((t) => !own.has(t))) fields.team_ids = { key: 'kb.team_outside' }
      }
    }
    if (Object.keys(fields).length > 0) return yield* Effect.fail(invalid(fields))
  })

const present = (ctx: Ctx, id: number) =>
  Effect.map(visibleOr404(ctx, id), (a) => presentArticle(a, readerOf(ctx)))

export const list = (ctx: Ctx, query: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const viewer = viewerFor(ctx)
    const page = pageOf(query)
    const filter: Articles.ListFilter = {
      q: query.q,
      categoryId: query.category_id,
      visibility: query.visibility,
      status: query.status,
      teamId: query.team_id,
    }
    const [{ rows, total }, counts] = yield* Effect.all([
      Articles.list(viewer, filter, page),
      Articles.counts(viewer, filter),
    ])
    const reader = readerOf(ctx)
    return reply(
      rows.map((a) => presentArticle(a, reader)),
      { ...pageMeta(page, total), counts },
    )
  })

export const detail = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.map(present(ctx, params.id), (a) => reply(a))

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    yield* checkRefs(ctx, body.category_id, body.team_ids)
    const row = yield* Articles.insert(ctx.workspace.id, ctx.caller.user.id, {
      title: body.title.trim(),
      body: body.body ?? '',
      categoryId: body.category_id ?? null,
      visibility: body.visibility ?? 'internal',
      status: body.status ?? 'draft',
      tags: cleanTags(body.tags ?? []),
      teamIds: [...new Set(body.team_ids ?? [])],
    })
    if (row.status === 'published') yield* schedule(ctx.workspace, row.id)
    yield* articleChanged(ctx.workspace.id, row.id, 'created')
    return createdReply(yield* present(ctx, row.id))
  })

export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof UpdateBody.Type) =>
  Effect.gen(function* () {
    const seen = yield* visibleOr404(ctx, params.id)
    yield* checkRefs(ctx, body.category_id, body.team_ids)
    // Only the sent fields: the store applies them to the article as it is then (row locked), so
    // another editor's change of other fields meanwhile stays.
    const changed = yield* Articles.update(seen.id, {
      title: body.title?.trim(),
      body: body.body,
      categoryId: body.category_id,
      visibility: body.visibility,
      status: body.status,
      tags: body.tags ? cleanTags(body.tags) : undefined,
      teamIds: body.team_ids ? [...new Set(body.team_ids)] : undefined,
    })
    if (!changed) return yield* Effect.fail(new ApiError({ code: 'not_found' }))
    const { before, after } = changed
    const textChanged = after.title !== before.title || after.body !== before.body
    if (after.status === 'published' && (before.status !== 'published' || textChanged))
      yield* schedule(ctx.workspace, after.id, textChanged)
    else if (after.status !== 'published' && before.status === 'published') yield* Embeddings.clear(after.id)
    yield* articleChanged(ctx.workspace.id, after.id, 'updated')
    return reply(yield* present(ctx, after.id))
  })

export const remove = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const a = yield* visibleOr404(ctx, params.id)
    yield* Articles.remove(a.id)
    yield* articleChanged(ctx.workspace.id, a.id, 'deleted')
    return reply({ id: a.id, deleted: true })
  })

/** `POST /kb/articles/{id}/embed`: (re)process a published article now; Pro or Custom. */
export const embed = (ctx: Ctx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const a = yield* visibleOr404(ctx, params.id)
    yield* aiAllowed(ctx.workspace)
    if (a.status !== 'published')
      return yield* Effect.fail(
        new ApiError({
          code: 'validation_error',
          message: 'kb.not_published',
          fields: { status: { key: 'kb.not_published' } },
        }),
      )
    yield* Embeddings.enqueue(ctx.workspace.id, a.id)
    yield* articleChanged(ctx.workspace.id, a.id, 'embedding')
    return reply(yield* present(ctx, a.id))
  })
