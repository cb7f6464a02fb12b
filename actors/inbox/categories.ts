import { Effect, Schema } from 'effect'
import * as Categories from '../../store/categories'
import { createdReply, reply } from '../answer'
import { ApiError, invalid, notFound } from '../errors'
import { publish, topics } from '../events'
import { Id, IdFromString, Text } from '../fields'
import { addMessages } from '../i18n'
import type { Ctx } from './conversations'

/**
 * Spec 2 §4.2 conversation categories: a tree in tree order, at most 3 levels and 200
 * categories, names unique within one parent, moves without cycles, deletes that hand
 * subcategories and conversations to the parent.
 */

addMessages({
  'field.category_depth': {
    en: 'categories can be at most 3 levels deep',
    id: 'kategori maksimal 3 tingkat',
  },
  'field.category_cycle': {
    en: 'cannot move a category into itself or its subcategories',
    id: 'kategori tidak dapat dipindah ke dirinya sendiri atau subkategorinya',
  },
  'field.name_taken': {
    en: 'is already used here',
    id: 'sudah dipakai di sini',
  },
  'categories.limit': {
    en: 'A workspace can have at most 200 conversation categories.',
    id: 'Satu workspace maksimal memiliki 200 kategori percakapan.',
  },
})

export const Color = Schema.String.pipe(
  Schema.filter((s) => s === '' || /^#[0-9a-fA-F]{6}$/.test(s), {
    jsonSchema: { pattern: '^(#[0-9a-fA-F]{6})?$' },
  }),
)
export const Position = Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))
export const IdParam = Schema.Struct({ id: IdFromString })

export const CategorySchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  color: Schema.String,
  position: Schema.Number,
  parent_id: Schema.NullOr(Schema.Number),
  depth: Schema.Number,
  path_text: Schema.String,
  children_count: Schema.Number,
})

export const present = (n: Categories.CategoryNode): typeof CategorySchema.Type => ({
  id: n.id,
  name: n.name,
  color: n.color,
  position: n.position,
  parent_id: n.parent_id,
  depth: n.depth,
  path_text: n.path_text,
  children_count: n.children_count,
})

export const nodeOf = (workspaceId: number, id: number) =>
  Effect.map(Categories.all(workspaceId), (rows) => Categories.treeOf(rows).find((n) => n.id === id)!)

export const CreateBody = Schema.Struct({
  name: Text(1, 100),
  color: Schema.optional(Color),
  parent_id: Schema.optional(Schema.NullOr(Id)),
  position: Schema.optional(Position),
})

export const UpdateBody = Schema.Struct({
  name: Schema.optional(Text(1, 100)),
  color: Schema.optional(Color),
  position: Schema.optional(Position),
  parent_id: Schema.optional(Schema.NullOr(Id)),
})

export const list = (ctx: Ctx) => {
  const { workspace } = ctx
  return Effect.map(Categories.all(workspace.id), (rows) =>
    reply(Categories.treeOf(rows).map(present), {
      total: rows.length,
      limit: Categories.MAX_CATEGORIES,
      max_depth: Categories.MAX_DEPTH,
    }),
  )
}

export const create = (ctx: Ctx, body: typeof CreateBody.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    const name = body.name.trim()
    const parentId = body.parent_id ?? null
    const row = yield* Categories.locked(workspace.id, (rows) =>
      Effect.gen(function* () {
        if (rows.length >= Categories.MAX_CATEGORIES) {
          return yield* Effect.fail(new ApiError({ code: 'conflict', message: 'categories.limit' }))
        }
        if (parentId !== null) {
          if (!rows.some((r) => r.id === parentId))
            return yield* Effect.fail(invalid({ parent_id: { key: 'field.unknown' } }))
          if (Categories.depthOf(rows, parentId) + 1 >= Categories.MAX_DEPTH) {
            return yield* Effect.fail(invalid({ parent_id: { key: 'field.category_depth' } }))
          }
        }
        if (Categories.nameTaken(rows, parentId, name))
          return yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } }))
        const position =
          body.position ??
          Math.max(-1, ...rows.filter((r) => r.parent_id === parentId).map((r) => r.position)) + 1
        // The index lowers names as PostgreSQL does (not as JavaScript): a name equal only
        // there is refused by it, and answered as the duplicate it is.
        const row = yield* Categories.insert(workspace.id, {
          name,
          color: body.color ?? '',
          parentId,
          position,
        })
        return row ?? (yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } })))
      }),
    )
    return createdReply(present(yield* nodeOf(workspace.id, row.id)))
  })
}

export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof UpdateBody.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    yield* Categories.locked(workspace.id, (rows) =>
      Effect.gen(function* () {
        const current = rows.find((r) => r.id === params.id)
        if (!current) return yield* Effect.fail(notFound())
        const parentId = body.parent_id !== undefined ? body.parent_id : current.parent_id
        const name = body.name?.trim() ?? current.name
        if (parentId !== current.parent_id && parentId !== null) {
          if (!rows.some((r) => r.id === parentId))
            return yield* Effect.fail(invalid({ parent_id: { key: 'field.unknown' } }))
          if (Categories.subtreeIds(rows, current.id).includes(parentId)) {
            return yield* Effect.fail(invalid({ parent_id: { key: 'field.category_cycle' } }))
          }
        }
        // The moved category's own subtree comes along: all of it must still fit in 3 levels.
        const depth = parentId === null ? 0 : Categories.depthOf(rows, parentId) + 1
        if (depth + Categories.heightOf(rows, current.id) >= Categories.MAX_DEPTH) {
          return yield* Effect.fail(invalid({ parent_id: { key: 'field.category_depth' } }))
        }
        if (Categories.nameTaken(rows, parentId, name, current.id)) {
          return yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } }))
        }
        const row = yield* Categories.change(current.id, {
          name,
          color: body.color ?? current.color,
          parentId,
          position: body.position ?? current.position,
        })
        return row ?? (yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } })))
      }),
    )
    return reply(present(yield* nodeOf(workspace.id, params.id)))
  })
}

export const remove = (ctx: Ctx, params: typeof IdParam.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    const moved = yield* Categories.locked(workspace.id, (rows) =>
      Effect.gen(function* () {
        const target = rows.find((r) => r.id === params.id)
        if (!target) return yield* Effect.fail(notFound())
        return { target, ids: yield* Categories.removeInto(rows, target) }
      }),
    )
    if (moved.ids.length > 0) {
      yield* publish(topics.workspace(workspace.id), 'inbox.changed', {
        interaction_id: null,
        channel_id: null,
        reason: 'category_deleted',
      })
    }
    return reply({
      id: params.id,
      deleted: true,
      moved_to: moved.target.parent_id,
      conversations_moved: moved.ids.length,
    })
  })
}
