import { Effect, Schema } from 'effect'
import * as ContactWrites from '../../actors/contacts/contacts'
import * as Lifecycle from '../../actors/contacts/lifecycle'
import * as Notes from '../../actors/contacts/notes'
import { presentContact, presentNote } from '../../actors/contacts/presenters'
import * as Profile from '../../actors/contacts/profile'
import { ctxOf, FilterFields, filterOf } from '../../actors/contacts/requests'
import { invalid } from '../../actors/errors'
import { BigIdFromString, Id, IdFromString, Text, unstorable } from '../../actors/fields'
import { addMessages } from '../../actors/i18n'
import * as Inbox from '../../actors/inbox/conversations'
import { pageFields, pageMeta, pageOf } from '../../actors/pagination'
import * as Pipeline from '../../actors/pipeline/leads'
import * as ContactTickets from '../../actors/tickets/contactSide'
import { currentTime } from '../../engine/clock'
import * as Contacts from '../../store/contacts'
import { created, ok, type Route, route } from '../route'

/**
 * Spec 2 §4.4, the contact side: list (filters, orders, page or cursor pagination), create,
 * profile, changes, labels, timeline, tickets, leads, notes,
 * merge, delete, broadcast opt-out; the CSV import and export are in ./contactsCsv.ts. The rules
 * are in actors/contacts; this module is schema, access and presentation.
 */
addMessages({
  'contacts.phone_invalid': {
    en: 'is not a valid phone number',
    id: 'bukan nomor telepon yang valid',
  },
  'contacts.phone_taken': {
    en: 'is already the phone of contact {id}',
    id: 'sudah menjadi nomor telepon kontak {id}',
  },
  'contacts.email_taken': {
    en: 'is already the e-mail address of contact {id}',
    id: 'sudah menjadi alamat e-mail kontak {id}',
  },
  'contacts.name_or_address': {
    en: 'give a name, a phone number or an e-mail address',
    id: 'isi nama, nomor telepon atau alamat e-mail',
  },
  'contacts.owner': {
    en: 'must be an active member of this workspace',
    id: 'harus anggota aktif workspace ini',
  },
  'contacts.merge_self': { en: 'cannot be the contact itself', id: 'tidak boleh kontak itu sendiri' },
  'contacts.note_author': {
    en: 'Only the author of a note can change it.',
    id: 'Hanya penulis catatan yang dapat mengubahnya.',
  },
  'contacts.note_delete': {
    en: 'Only the author of a note or someone with contacts.manage can delete it.',
    id: 'Hanya penulis catatan atau pemilik izin contacts.manage yang dapat menghapusnya.',
  },
  'contacts.cursor': { en: 'is not a cursor of this list', id: 'bukan kursor daftar ini' },
  'custom.unknown': { en: 'is not a custom field of this workspace', id: 'bukan kolom kustom workspace ini' },
  'custom.text': { en: 'must be text', id: 'harus berupa teks' },
  'custom.too_long': { en: 'is too long', id: 'terlalu panjang' },
  'custom.number': { en: 'must be a number', id: 'harus berupa angka' },
  'custom.date': { en: 'must be a date YYYY-MM-DD', id: 'harus tanggal YYYY-MM-DD' },
  'custom.option': { en: 'must be one of: {options}', id: 'harus salah satu dari: {options}' },
  'custom.checkbox': { en: 'must be true or false', id: 'harus true atau false' },
})

const IdParam = Schema.Struct({ id: BigIdFromString })
/** Leads shown on a profile (all of them: `GET /contacts/{id}/leads`). */
const PROFILE_LEADS = 10
const NoteParam = Schema.Struct({ id: BigIdFromString, note: BigIdFromString })

const Optional = (max: number) => Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(max))))
const CustomInput = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String.pipe(Schema.maxLength(2000)), Schema.Number, Schema.Boolean, Schema.Null),
})
const ContactFields = {
  phone: Optional(40),
  email: Optional(320),
  company: Optional(200),
  job_title: Optional(200),
  address: Optional(500),
  city: Optional(100),
  language: Optional(35),
  owner_id: Schema.optional(Schema.NullOr(Id)),
  label_ids: Schema.optional(Schema.Array(Id).pipe(Schema.maxItems(100))),
  custom: Schema.optional(CustomInput),
}
const CreateBody = Schema.Struct({
  name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  ...ContactFields,
})
const PatchBody = Schema.Struct({ name: Schema.optional(Text(1, 200)), ...ContactFields })

const LabelRef = Schema.Struct({ id: Schema.Number, name: Schema.String, color: Schema.String })
export const ContactSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  phone: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  company: Schema.NullOr(Schema.String),
  job_title: Schema.NullOr(Schema.String),
  address: Schema.NullOr(Schema.String),
  city: Schema.NullOr(Schema.String),
  language: Schema.NullOr(Schema.String),
  owner_id: Schema.NullOr(Schema.Number),
  label_ids: Schema.Array(Schema.Number),
  labels: Schema.Array(LabelRef),
  custom: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  broadcast_opt_out: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
})
const NoteSchema = Schema.Struct({
  id: Schema.Number,
  contact_id: Schema.Number,
  body: Schema.String,
  author: Schema.NullOr(Schema.Struct({ id: Schema.Number, name: Schema.NullOr(Schema.String) })),
  mine: Schema.Boolean,
  created_at: Schema.String,
  updated_at: Schema.String,
})

const ListQuery = Schema.Struct({
  ...pageFields,
  ...FilterFields,
  cursor: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
})

/**
 * A timestamp as PostgreSQL writes `timestamptz::text` (ISO DateStyle), with every part in range,
 * so a cursor's value casts without an error (a forged or mangled cursor is 422, not 500).
 */
const isTimestampText = (v: string) => {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?[+-]\d{2}(:\d{2}){0,2}$/.exec(v)
  if (!m) return false
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const day = new Date(Date.UTC(2000, mo - 1, d))
  day.setUTCFullYear(y)
  return mo >= 1 && mo <= 12 && day.getUTCDate() === d && h < 24 && mi < 60 && se < 60
}

/** Cursors are opaque to clients: the last row's sort value and id. */
const encodeCursor = (sort: Contacts.Sort, v: string, id: number) =>
  Buffer.from(JSON.stringify([sort, v, id])).toString('base64url')
const decodeCursor = (sort: Contacts.Sort, raw: string): Contacts.Cursor | null => {
  try {
    const x: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'))
    if (
      Array.isArray(x) &&
      x.length === 3 &&
      x[0] === sort &&
      typeof x[1] === 'string' &&
      (sort === 'name' ? !unstorable(x[1]) : isTimestampText(x[1])) &&
      Number.isSafeInteger(x[2])
    )
      return { v: x[1], id: x[2] as number }
  } catch {
    // not JSON: not ours
  }
  return null
}

/** The contact as the writes answer it. */
const presentOne = (workspaceId: number, c: Contacts.ContactView) =>
  Effect.map(
    Effect.all([ContactWrites.labelMap(workspaceId), ContactWrites.definitions(workspaceId)]),
    ([labels, defs]) => presentContact(c, labels, defs),
  )

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/contacts',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary:
      'Contacts; filters `q`, `label_id`, `msgapp_label_id`, `owner`, `channel_id`; `sort`; `page` or `cursor` (`meta.next_cursor`)',
    query: ListQuery,
    response: Schema.Array(ContactSchema),
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const sort = query.sort ?? 'recent'
        const after = query.cursor === undefined ? undefined : decodeCursor(sort, query.cursor)
        if (after === null) return yield* Effect.fail(invalid({ cursor: { key: 'contacts.cursor' } }))
        const filter = filterOf(caller, query)
        const page = pageOf(query)
        const [rows, total, labels, defs] = yield* Effect.all(
          [
            Contacts.list(workspace.id, filter, sort, {
              limit: page.limit + 1,
              offset: page.offset,
              ...(after ? { after } : {}),
            }),
            Contacts.count(workspace.id, filter),
            ContactWrites.labelMap(workspace.id),
            ContactWrites.definitions(workspace.id),
          ],
          { concurrency: 'unbounded' },
        )
        const shown = rows.slice(0, page.limit)
        const last = shown[shown.length - 1]
        const more = rows.length > page.limit
        return ok(
          shown.map((c) => presentContact(c, labels, defs)),
          {
            ...pageMeta(page, total),
            has_more: more,
            next_cursor: more && last ? encodeCursor(sort, last.sort_key, last.id) : null,
            sort,
          },
        )
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts',
    access: 'K',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'Create a contact; phone to E.164, e-mail lower-cased; one phone or e-mail is one contact',
    body: CreateBody,
    response: ContactSchema,
    handler: ({ caller, workspace, body }) =>
      Effect.gen(function* () {
        const c = yield* ContactWrites.create(ctxOf(caller, workspace), body)
        return created(yield* presentOne(workspace.id, c))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary:
      'The full profile: identities, service and messaging-app labels, custom fields, statistics, 12-month activity',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      Effect.map(
        Effect.flatMap(currentTime, (at) =>
          Profile.profile(
            { caller, workspace },
            params.id,
            at,
            Pipeline.ofContact({ caller, workspace }, params.id, PROFILE_LEADS),
          ),
        ),
        (p) => ok(p),
      ),
  }),
  route({
    method: 'PATCH',
    path: '/v1/contacts/{id}',
    access: 'K',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'Change the sent fields only; `label_ids` replaces every label',
    params: IdParam,
    body: PatchBody,
    response: ContactSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.gen(function* () {
        const c = yield* ContactWrites.update(ctxOf(caller, workspace), params.id, body)
        return ok(yield* presentOne(workspace.id, c))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/{id}/labels',
    access: 'K',
    permission: ['contacts.manage', 'interactions.reply'],
    tag: 'Contacts',
    summary: 'Add a label `{label_id}`',
    params: IdParam,
    body: Schema.Struct({ label_id: Id }),
    response: ContactSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.gen(function* () {
        const c = yield* ContactWrites.addLabel(ctxOf(caller, workspace), params.id, body.label_id)
        return ok(yield* presentOne(workspace.id, c))
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/contacts/{id}/labels/{label}',
    access: 'K',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'Remove a label',
    params: Schema.Struct({ id: BigIdFromString, label: IdFromString }),
    response: ContactSchema,
    handler: ({ caller, workspace, params }) =>
      Effect.gen(function* () {
        const c = yield* ContactWrites.removeLabel(ctxOf(caller, workspace), params.id, params.label)
        return ok(yield* presentOne(workspace.id, c))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}/timeline',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Newest first across visible conversations, notes and changes; `before` = the last item `id`',
    params: IdParam,
    query: Schema.Struct({
      before: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
      limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))),
    }),
    handler: ({ caller, workspace, params, query }) =>
      Effect.gen(function* () {
        const limit = query.limit ?? Profile.TIMELINE_PAGE
        const r = yield* Profile.timeline(
          workspace.id,
          params.id,
          Inbox.viewerFor(caller, workspace),
          limit,
          query.before,
        )
        const last = r.items[r.items.length - 1]
        return ok(r.items, { has_more: r.hasMore, next_before: r.hasMore && last ? last.id : null })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}/tickets',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Tickets of the contact the caller may see, newest first, each with its status log',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      Effect.gen(function* () {
        yield* ContactWrites.find(workspace.id, params.id)
        const items = yield* ContactTickets.ofContact({ caller, workspace }, params.id, yield* currentTime)
        return ok(items, { total: items.length })
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}/leads',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Leads of the contact the caller may see by the lead rule (none without a leads permission)',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      Effect.flatMap(ContactWrites.find(workspace.id, params.id), () =>
        Effect.map(Pipeline.ofContact({ caller, workspace }, params.id), (r) =>
          ok(r.items, { total: r.total }),
        ),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}/notes',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Notes, newest first (up to 200)',
    params: IdParam,
    response: Schema.Array(NoteSchema),
    handler: ({ caller, workspace, params }) =>
      Effect.map(Notes.list(ctxOf(caller, workspace), params.id), (rows) =>
        ok(
          rows.map((n) => presentNote(n, caller.user.id)),
          { total: rows.length },
        ),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/{id}/notes',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Add a note `{body}`',
    params: IdParam,
    body: Schema.Struct({ body: Text(1, 10_000) }),
    response: NoteSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.map(Notes.add(ctxOf(caller, workspace), params.id, body.body), (n) =>
        created(presentNote(n, caller.user.id)),
      ),
  }),
  route({
    method: 'PATCH',
    path: '/v1/contacts/{id}/notes/{note}',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Change a note (its author only)',
    params: NoteParam,
    body: Schema.Struct({ body: Text(1, 10_000) }),
    response: NoteSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.map(Notes.change(ctxOf(caller, workspace), params.id, params.note, body.body), (n) =>
        ok(presentNote(n, caller.user.id)),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/contacts/{id}/notes/{note}',
    access: 'K',
    permission: 'contacts.view',
    tag: 'Contacts',
    summary: 'Delete a note (its author, or with contacts.manage)',
    params: NoteParam,
    handler: ({ caller, workspace, params }) =>
      Effect.as(
        Notes.remove(
          ctxOf(caller, workspace),
          params.id,
          params.note,
          caller.permissions.has('contacts.manage'),
        ),
        ok({ id: params.note, deleted: true }),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/contacts/{id}',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'Delete the contact with its conversations, messages, media, notes and timeline',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      Effect.as(Lifecycle.remove(ctxOf(caller, workspace), params.id), ok({ id: params.id, deleted: true })),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/{id}/merge',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'Merge contact `{source_id}` into this one; the source disappears',
    params: IdParam,
    body: Schema.Struct({
      source_id: Schema.Number.pipe(Schema.int(), Schema.between(1, Number.MAX_SAFE_INTEGER)),
    }),
    response: ContactSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.gen(function* () {
        yield* Lifecycle.merge(ctxOf(caller, workspace), params.id, body.source_id)
        return ok(yield* presentOne(workspace.id, yield* ContactWrites.find(workspace.id, params.id)))
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/{id}/broadcast-opt-out',
    access: 'A',
    permission: ['contacts.manage', 'broadcasts.manage'],
    tag: 'Contacts',
    summary: 'Set or clear the broadcast opt-out `{opt_out}`',
    params: IdParam,
    body: Schema.Struct({ opt_out: Schema.Boolean }),
    response: ContactSchema,
    handler: ({ caller, workspace, params, body }) =>
      Effect.gen(function* () {
        const c = yield* ContactWrites.setOptOut(ctxOf(caller, workspace), params.id, body.opt_out)
        return ok(yield* presentOne(workspace.id, c))
      }),
  }),
]
