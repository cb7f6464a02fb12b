import { Effect } from 'effect'
import type { Entity, FieldRow } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import {
  checkOptions,
  type FieldType,
  freeKey,
  KEY_PATTERN,
  keyFromLabel,
  MAX_PER_ENTITY,
  READ_PERMISSION,
} from '../customValues'
import { ProblemSet } from '../errors'
import { invalid, missing, Refused } from './errors'
import { contactsSettings } from './events'

/**
 * Custom field definitions (spec 2 §4.4 `/custom-fields`, `/contact-fields`): at most 30 per
 * entity, keys unique per entity (made from the label when not given), entity, type and key fixed
 * once created; label, options and order change. Deleting one removes its values.
 */

/** The entities whose definitions the caller may read; asking for another one is refused. */
export const readable = (permissions: ReadonlySet<string>, entity: Entity | undefined) => {
  const allowed = CustomFields.ENTITIES.filter((e) => permissions.has(READ_PERMISSION[e]))
  if (entity === undefined) return Effect.succeed(allowed)
  return allowed.includes(entity)
    ? Effect.succeed([entity])
    : Effect.fail(new Refused({ message: 'custom_fields.entity_forbidden' }))
}

export const find = (workspaceId: number, id: number, entity?: Entity) =>
  Effect.flatMap(CustomFields.byId(workspaceId, id), (f) =>
    f && (entity === undefined || f.entity === entity) ? Effect.succeed(f) : Effect.fail(missing()),
  )

export interface NewFieldInput {
  readonly entity: Entity
  readonly label: string
  readonly type: FieldType
  readonly key?: string
  readonly options?: readonly string[]
}

export const create = (workspaceId: number, input: NewFieldInput) =>
  Effect.gen(function* () {
    const problems = new ProblemSet()
    const label = input.label.trim()
    const options = checkOptions(input.type, input.options, problems)
    if (input.key !== undefined && !KEY_PATTERN.test(input.key)) problems.add('key', 'custom_fields.key')
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    const key =
      input.key ?? freeKey(keyFromLabel(label), yield* CustomFields.keysOf(workspaceId, input.entity))
    const r = yield* CustomFields.insertWithin(
      workspaceId,
      { entity: input.entity, key, label, type: input.type, options },
      MAX_PER_ENTITY,
    )
    if (r._tag === 'Full')
      return yield* Effect.fail(
        invalid({ entity: { key: 'custom_fields.full', params: { n: MAX_PER_ENTITY } } }),
      )
    if (r._tag === 'KeyTaken') return yield* Effect.fail(invalid({ key: { key: 'custom_fields.key_taken' } }))
    yield* contactsSettings(workspaceId, 'custom_fields', { field_id: r.row.id, entity: r.row.entity })
    return r.row
  })

/** Fields that can never change once the definition exists. */
const FIXED = ['entity', 'type', 'key'] as const

export const change = (
  workspaceId: number,
  id: number,
  input: {
    readonly label?: string
    readonly options?: readonly string[]
    readonly position?: number
    readonly entity?: string
    readonly type?: string
    readonly key?: string
  },
  entity?: Entity,
) =>
  Effect.gen(function* () {
    const f = yield* find(workspaceId, id, entity)
    const problems = new ProblemSet()
    for (const k of FIXED)
      if (input[k] !== undefined && input[k] !== f[k]) problems.add(k, 'custom_fields.fixed')
    const options =
      input.options !== undefined ? checkOptions(f.type as FieldType, input.options, problems) : f.options
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    yield* CustomFields.change(id, {
      ...(input.label !== undefined ? { label: input.label.trim() } : {}),
      ...(input.options !== undefined ? { options } : {}),
    })
    if (input.position !== undefined) yield* CustomFields.move(workspaceId, f.entity, id, input.position)
    yield* contactsSettings(workspaceId, 'custom_fields', { field_id: id, entity: f.entity })
    return yield* find(workspaceId, id)
  })

export const remove = (workspaceId: number, id: number, entity?: Entity) =>
  Effect.gen(function* () {
    const f: FieldRow = yield* find(workspaceId, id, entity)
    yield* CustomFields.remove(f)
    yield* contactsSettings(workspaceId, 'custom_fields', { field_id: id, entity: f.entity, deleted: true })
  })
