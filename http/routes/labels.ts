import { Effect, Schema } from 'effect'
import * as LabelRules from '../../actors/contacts/labels'
import { presentLabel, presentLabelWithCount } from '../../actors/contacts/presenters'
import { IdFromString, Text } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import * as Labels from '../../store/contactLabels'
import { created, ok, type Route, route } from '../route'

/** Spec 2 §4.4 labels: list with contact counts and the palette, create, change, order, delete. */
addMessages({
  'labels.color': {
    en: 'must be one of the palette colours (meta.colors of GET /labels)',
    id: 'harus salah satu warna palet (meta.colors dari GET /labels)',
  },
})

const IdParam = Schema.Struct({ id: IdFromString })
const Color = Schema.String.pipe(Schema.maxLength(20))
const LabelSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  color: Schema.String,
  position: Schema.Number,
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/labels',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Labels',
    summary: 'Labels in order with `contacts_count`; `meta.colors` is the palette',
    response: Schema.Array(Schema.extend(LabelSchema, Schema.Struct({ contacts_count: Schema.Number }))),
    handler: ({ workspace }) =>
      Effect.map(Labels.list(workspace.id), (rows) =>
        ok(rows.map(presentLabelWithCount), { total: rows.length, colors: LabelRules.COLORS }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/labels',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Labels',
    summary: 'Create a label `{name, color}` (colour from the palette; the first one by default)',
    body: Schema.Struct({ name: Text(1, 50), color: Schema.optional(Color) }),
    response: LabelSchema,
    handler: ({ workspace, body }) =>
      Effect.map(LabelRules.create(workspace.id, body), (l) => created(presentLabel(l))),
  }),
  route({
    method: 'PATCH',
    path: '/v1/labels/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Labels',
    summary: 'Change name, colour or order (`position`, from 0)',
    params: IdParam,
    body: Schema.Struct({
      name: Schema.optional(Text(1, 50)),
      color: Schema.optional(Color),
      position: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 10_000))),
    }),
    response: LabelSchema,
    handler: ({ workspace, params, body }) =>
      Effect.map(LabelRules.change(workspace.id, params.id, body), (l) => ok(presentLabel(l))),
  }),
  route({
    method: 'DELETE',
    path: '/v1/labels/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Labels',
    summary: 'Delete a label; it is removed from every contact',
    params: IdParam,
    handler: ({ workspace, params }) =>
      Effect.as(LabelRules.remove(workspace.id, params.id), ok({ id: params.id, deleted: true })),
  }),
]
