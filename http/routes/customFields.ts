import { Effect, Schema } from 'effect'
import * as Fields from '../../actors/contacts/customFields'
import { presentField } from '../../actors/contacts/presenters'
import { FIELD_TYPES, MAX_PER_ENTITY } from '../../actors/customValues'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import type { Entity } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 2 §4.4 custom fields of the five entities (`/custom-fields`) and the contact view of the
 * same definitions (`/contact-fields`, entity fixed to `contact`).
 */
addMessages({
  'custom_fields.options_select_only': {
    en: 'only select fields have options',
    id: 'hanya kolom pilihan yang memiliki opsi',
  },
  'custom_fields.options_required': {
    en: 'a select field needs options',
    id: 'kolom pilihan memerlukan opsi',
  },
  'custom_fields.option_text': {
    en: 'each option is 1 to 100 characters',
    id: 'setiap opsi berisi 1 sampai 100 karakter',
  },
  'custom_fields.options_unique': { en: 'options must differ', id: 'opsi tidak boleh sama' },
  'custom_fields.key': {
    en: 'keys are a lowercase letter then up to 49 lowercase letters, digits or underscores',
    id: 'kunci diawali huruf kecil lalu sampai 49 huruf kecil, angka atau garis bawah',
  },
  'custom_fields.key_taken': {
    en: 'is already the key of another field of this entity',
    id: 'sudah menjadi kunci kolom lain pada entitas ini',
  },
  'custom_fields.full': { en: 'has {n} custom fields already', id: 'sudah memiliki {n} kolom kustom' },
  'custom_fields.fixed': {
    en: 'cannot change once the field exists',
    id: 'tidak dapat diubah setelah kolom dibuat',
  },
  'custom_fields.entity_forbidden': {
    en: "You may not read this entity's custom fields.",
    id: 'Anda tidak boleh membaca kolom kustom entitas ini.',
  },
})

const IdParam = Schema.Struct({ id: IdFromString })
const EntityField = Schema.Literal(...CustomFields.ENTITIES)
const TypeField = Schema.Literal(...FIELD_TYPES)
const Options = Schema.Array(Schema.String.pipe(Schema.maxLength(200))).pipe(Schema.maxItems(100))
const FieldSchema = Schema.Struct({
  id: Schema.Number,
  entity: Schema.String,
  key: Schema.String,
  label: Schema.String,
  type: Schema.String,
  options: Schema.Array(Schema.String),
  position: Schema.Number,
  created_at: Schema.String,
  updated_at: Schema.String,
})
const PatchBody = Schema.Struct({
  label: Schema.optional(Text(1, 100)),
  options: Schema.optional(Options),
  position: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 1000))),
  // Sent only to be refused when they differ: entity, type and key never change.
  entity: Schema.optional(Schema.String.pipe(Schema.maxLength(20))),
  type: Schema.optional(Schema.String.pipe(Schema.maxLength(20))),
  key: Schema.optional(Schema.String.pipe(Schema.maxLength(60))),
})
const NewBody = {
  label: Text(1, 100),
  type: TypeField,
  key: Schema.optional(Schema.String.pipe(Schema.maxLength(60))),
  options: Schema.optional(Options),
}

const createAnswer = (workspaceId: number, input: Fields.NewFieldInput) =>
  Effect.map(Fields.create(workspaceId, input), (f) => created(presentField(f)))

/** The four routes of one path family; `/contact-fields` passes its fixed entity. */
const family = (base: string, tag: string, fixed: Entity | undefined): Route[] => [
  route({
    method: 'GET',
    path: base,
    access: 'K',
    permission: fixed
      ? 'contacts.view'
      : ['contacts.view', 'interactions.view', 'tickets.view', 'leads.view'],
    tag,
    summary: fixed
      ? 'Contact custom fields in order; `meta.max_per_entity` = 30'
      : 'Custom fields, `entity` or all the caller may read, in order; `meta.max_per_entity` = 30',
    query: Schema.Struct({ entity: Schema.optional(EntityField) }),
    response: Schema.Array(FieldSchema),
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const entities = yield* Fields.readable(caller.permissions, fixed ?? query.entity)
        const rows = yield* CustomFields.list(workspace.id, entities)
        return ok(rows.map(presentField), {
          total: rows.length,
          max_per_entity: MAX_PER_ENTITY,
          types: FIELD_TYPES,
        })
      }),
  }),
  fixed
    ? route({
        method: 'POST',
        path: base,
        access: 'A',
        permission: 'contacts.manage',
        tag,
        summary: 'Create a contact field `{label, type, options}`',
        body: Schema.Struct(NewBody),
        response: FieldSchema,
        handler: ({ workspace, body }) => createAnswer(workspace.id, { ...body, entity: fixed }),
      })
    : route({
        method: 'POST',
        path: base,
        access: 'A',
        permission: 'contacts.manage',
        tag,
        summary:
          'Create a field `{entity, label, type, options, key?}` (key made from the label when absent)',
        body: Schema.Struct({ entity: EntityField, ...NewBody }),
        response: FieldSchema,
        handler: ({ workspace, body }) => createAnswer(workspace.id, body),
      }),
  route({
    method: 'PATCH',
    path: `${base}/{id}`,
    access: 'A',
    permission: 'contacts.manage',
    tag,
    summary: 'Change label, options or order (`position`, from 0); entity, type and key are fixed',
    params: IdParam,
    body: PatchBody,
    response: FieldSchema,
    handler: ({ workspace, params, body }) =>
      Effect.map(Fields.change(workspace.id, params.id, body, fixed), (f) => ok(presentField(f))),
  }),
  route({
    method: 'DELETE',
    path: `${base}/{id}`,
    access: 'A',
    permission: 'contacts.manage',
    tag,
    summary: 'Delete a field; its values are no longer shown (and are removed)',
    params: IdParam,
    handler: ({ workspace, params }) =>
      Effect.as(Fields.remove(workspace.id, params.id, fixed), ok({ id: params.id, deleted: true })),
  }),
]

export const routes: readonly Route[] = [
  ...family('/v1/custom-fields', 'Custom fields', undefined),
  ...family('/v1/contact-fields', 'Custom fields', 'contact'),
]
