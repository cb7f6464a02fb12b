import { Effect, Schema } from 'effect'
import * as Categories from '../../store/kbCategories'
import { createdReply, reply } from '../answer'
import { invalid, notFound } from '../errors'
import { IdFromString, Text } from '../fields'
import { categoryChanged } from './events'
import { presentCategory } from './presenters'
import { type KbCtx, viewerFor } from './visibility'

/**
 * Knowledge categories (spec 2 §4.5 `/kb/categories`): by position, each with the count of the
 * published articles the caller may see; names unique per workspace regardless of case; unsent
 * fields stay; a deleted category's articles become uncategorized.
 */
export const IdParam = Schema.Struct({ id: IdFromString })
const Position = Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))
const Description = Schema.String.pipe(Schema.maxLength(1000))

export const CreateBody = Schema.Struct({
  name: Text(1, 100),
  description: Schema.optional(Description),
  position: Schema.optional(Position),
})

export const UpdateBody = Schema.Struct({
  name: Schema.optional(Text(1, 100)),
  description: Schema.optional(Description),
  position: Schema.optional(Position),
})

const nameTaken = () => invalid({ name: { key: 'field.name_taken' } })

const shown = (ctx: KbCtx, id: number) =>
  Effect.flatMap(Categories.view(viewerFor(ctx), id), (c) =>
    c ? Effect.succeed(presentCategory(c)) : Effect.fail(notFound()),
  )

export const list = (ctx: KbCtx) =>
  Effect.map(Categories.list(viewerFor(ctx)), (rows) =>
    reply(rows.map(presentCategory), { total: rows.length }),
  )

export const create = (ctx: KbCtx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const name = body.name.trim()
    if (yield* Categories.nameTaken(ctx.workspace.id, name, null)) return yield* Effect.fail(nameTaken())
    const row = yield* Categories.insert(ctx.workspace.id, {
      name,
      description: body.description?.trim() ?? '',
      position: body.position,
    })
    if (!row) return yield* Effect.fail(nameTaken())
    yield* categoryChanged(ctx.workspace.id, row.id, 'created')
    return createdReply(yield* shown(ctx, row.id))
  })

export const update = (ctx: KbCtx, params: typeof IdParam.Type, body: typeof UpdateBody.Type) =>
  Effect.gen(function* () {
    const current = yield* Categories.byId(ctx.workspace.id, params.id)
    if (!current) return yield* Effect.fail(notFound())
    const name = body.name?.trim() ?? current.name
    if (body.name !== undefined && (yield* Categories.nameTaken(ctx.workspace.id, name, current.id)))
      return yield* Effect.fail(nameTaken())
    // Only the sent fields: another change of the others meanwhile stays.
    const ok = yield* Categories.change(current.id, {
      name: body.name === undefined ? undefined : name,
      description: body.description?.trim(),
      position: body.position,
    })
    if (!ok) return yield* Effect.fail(nameTaken())
    yield* categoryChanged(ctx.workspace.id, current.id, 'updated')
    return reply(yield* shown(ctx, current.id))
  })

export const remove = (ctx: KbCtx, params: typeof IdParam.Type) =>
  Effect.gen(function* () {
    const current = yield* Categories.byId(ctx.workspace.id, params.id)
    if (!current) return yield* Effect.fail(notFound())
    const moved = yield* Categories.remove(current.id)
    yield* categoryChanged(ctx.workspace.id, current.id, 'deleted')
    return reply({ id: current.id, deleted: true, articles_uncategorized: moved.length })
  })
