import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { FileStorage } from '../../engine/storage/FileStorage'
import { localDate } from '../../engine/time'
import * as Files from '../../store/files'
import * as Leads from '../../store/leads'
import * as Work from '../../store/leadWork'
import * as Members from '../../store/members'
import * as Notifications from '../../store/notifications'
import { isAdminCaller } from '../admin/caller'
import { createdReply, reply } from '../answer'
import { type FieldMessage, forbidden, invalid, notFound } from '../errors'
import { BigIdFromString, Id, IsoDateTime, requireFile, Text, type UploadedFile } from '../fields'
import { addMessages, t } from '../i18n'
import { announce } from '../notifications'
import { type Ctx, leadOr404 } from './access'
import { pipelineChanged } from './events'
import { LocalDate, Money } from './leads'
import {
  identifier,
  presentActivity,
  presentChecklist,
  presentEvent,
  presentExpense,
  presentFile,
} from './presenters'
import { settingsOf } from './settings'

/**
 * The work on a lead (spec 2 §4.7): the timeline (activities people log, `@Name` mentions
 * notified, and the change log), files, checklist, calendar events (reminders: reminders.ts) and
 * expenses with receipts. Each finds its lead through the lead rule first (access.ts
 * `leadOr404`), so a row of a lead the caller may not see is 404, files included.
 */
addMessages({
  'leads.activity_author': {
    en: 'Only the author of an activity or an admin can change it.',
    id: 'Hanya penulis aktivitas atau admin yang dapat mengubahnya.',
  },
  'leads.activity_manual': {
    en: 'Entries the service recorded cannot be changed.',
    id: 'Catatan yang dibuat oleh sistem tidak dapat diubah.',
  },
  'leads.file_delete': {
    en: "Only the uploader, the lead's owner or an admin can delete a file.",
    id: 'Hanya pengunggah, pemilik prospek atau admin yang dapat menghapus berkas.',
  },
  'leads.expense_edit': {
    en: 'Only whoever recorded or paid an expense, or an admin, can change it.',
    id: 'Hanya pencatat atau pembayar biaya, atau admin, yang dapat mengubahnya.',
  },
  'leads.expense_category': {
    en: 'must be one of the expense categories: {categories}',
    id: 'harus salah satu kategori biaya: {categories}',
  },
  'leads.member': {
    en: 'must be an active member of this workspace',
    id: 'harus anggota aktif workspace ini',
  },
  'leads.ends_before': { en: 'must not be before the start', id: 'tidak boleh sebelum waktu mulai' },
  'leads.mention.title': {
    en: '{name} mentioned you on {lead}: {title}',
    id: '{name} menyebut Anda di {lead}: {title}',
  },
})

type ById = { readonly id: number }

// ---- Activities ------------------------------------------------------------------------------

export const ActivityQuery = Schema.Struct({
  before: Schema.optional(BigIdFromString),
  kind: Schema.optional(Schema.Literal('note')),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))),
})

const Minutes = Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))

export const ActivityBody = Schema.Struct({
  kind: Schema.Literal(...Work.ACTIVITY_KINDS),
  body: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
  happened_at: Schema.optional(IsoDateTime),
  duration_minutes: Schema.optional(Schema.NullOr(Minutes)),
})

export const ActivityPatch = Schema.Struct({
  kind: Schema.optional(Schema.Literal(...Work.ACTIVITY_KINDS)),
  body: Schema.optional(Schema.String.pipe(Schema.maxLength(10_000))),
  happened_at: Schema.optional(IsoDateTime),
  duration_minutes: Schema.optional(Schema.NullOr(Minutes)),
})

export const ACTIVITY_PAGE = 30

export const activities = (ctx: Ctx, params: ById, q: typeof ActivityQuery.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const limit = q.limit ?? ACTIVITY_PAGE
    const rows = yield* Work.activities(l.id, {
      ...(q.before !== undefined ? { before: q.before } : {}),
      notes: q.kind === 'note',
      limit: limit + 1,
    })
    const items = rows.slice(0, limit).map((a) => presentActivity(a, ctx.caller.user.id))
    const more = rows.length > limit
    return reply(items, { has_more: more, next_before: more ? (items[items.length - 1]?.id ?? null) : null })
  })

/**
 * Members named `@Name` in a text who may see the lead, the author aside: a mention reaches only
 * those who can open what it points at. Longer names are matched first (`@Ani Wijaya` over `@Ani`).
 */
const mentioned = (workspaceId: number, leadId: number, body: string, authorId: number) =>
  Effect.gen(function* () {
    if (!body.includes('@')) return []
    const lower = body.toLowerCase()
    const people = [...(yield* Leads.candidates(workspaceId))].sort((a, b) => b.name.length - a.name.length)
    let rest = lower
    const hit: Leads.Candidate[] = []
    for (const p of people) {
      const tag = `@${p.name.toLowerCase()}`
      if (p.name.trim() === '' || !rest.includes(tag)) continue
      rest = rest.split(tag).join(' ')
      if (p.id !== authorId && (yield* Leads.sees(Leads.viewerOfCandidate(workspaceId, p), leadId)))
        hit.push(p)
    }
    return hit
  })

export const addActivity = (ctx: Ctx, params: ById, b: typeof ActivityBody.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const body = b.body?.trim() ?? ''
    if (b.kind === 'note' && body === '')
      return yield* Effect.fail(invalid({ body: { key: 'field.required' } }))
    const now = yield* currentTime
    const people = yield* mentioned(ctx.workspace.id, l.id, body, ctx.caller.user.id)
    const sql = yield* SqlClient.SqlClient
    const { id, notes } = yield* sql.withTransaction(
      Effect.gen(function* () {
        const id = yield* Work.insertActivity(
          ctx.workspace.id,
          l.id,
          {
            kind: b.kind,
            body,
            happened_at: b.happened_at ? new Date(b.happened_at) : now,
            duration_minutes: b.duration_minutes ?? null,
          },
          ctx.caller.user.id,
          people.length > 0 ? { mention_ids: people.map((p) => p.id) } : {},
        )
        const notes = yield* Effect.forEach(people, (p) =>
          Notifications.insert({
            workspaceId: ctx.workspace.id,
            userId: p.id,
            kind: 'lead.mention',
            title: t(p.locale, 'leads.mention.title', {
              name: ctx.caller.user.name,
              lead: identifier(l.number),
              title: l.title,
            }),
            body: body.slice(0, 500),
            link: `/pipeline/leads/${l.id}`,
            data: { lead_id: l.id, activity_id: id },
          }),
        )
        return { id, notes }
      }),
    )
    yield* Effect.forEach(notes, announce, { discard: true })
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'activity')
    const row = (yield* Work.activityById(ctx.workspace.id, id))!
    return createdReply(presentActivity(row, ctx.caller.user.id))
  })

/** A manual activity of a visible lead that the caller wrote (or any, for an admin). */
const ownActivity = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const a = yield* Work.activityById(ctx.workspace.id, id)
    if (!a) return yield* Effect.fail(notFound())
    const l = yield* leadOr404(ctx, a.lead_id)
    if (a.kind === 'change') return yield* Effect.fail(forbidden('leads.activity_manual'))
    if (a.author_id !== ctx.caller.user.id && !isAdminCaller(ctx.caller))
      return yield* Effect.fail(forbidden('leads.activity_author'))
    return { a, l }
  })

export const changeActivity = (ctx: Ctx, params: ById, b: typeof ActivityPatch.Type) =>
  Effect.gen(function* () {
    const { a, l } = yield* ownActivity(ctx, params.id)
    const kind = b.kind ?? a.kind
    const body = b.body !== undefined ? b.body.trim() : a.body
    if (kind === 'note' && body === '')
      return yield* Effect.fail(invalid({ body: { key: 'field.required' } }))
    yield* Work.updateActivity(a.id, {
      ...(b.kind !== undefined ? { kind: b.kind } : {}),
      ...(b.body !== undefined ? { body } : {}),
      ...(b.happened_at !== undefined ? { happened_at: new Date(b.happened_at) } : {}),
      ...(b.duration_minutes !== undefined ? { duration_minutes: b.duration_minutes } : {}),
    })
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'activity')
    return reply(presentActivity((yield* Work.activityById(ctx.workspace.id, a.id))!, ctx.caller.user.id))
  })

export const removeActivity = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { a, l } = yield* ownActivity(ctx, params.id)
    yield* Work.removeActivity(a.id)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'activity')
    return reply({ id: a.id, deleted: true })
  })

// ---- Files -----------------------------------------------------------------------------------

export const FILE_LIMITS = {
  maxBytes: 17 * 1024 * 1024,
  maxFiles: 1,
  maxFileBytes: 16 * 1024 * 1024,
} as const

const saveFile = (ctx: Ctx, f: UploadedFile) =>
  Files.save(
    ctx.workspace.id,
    { name: f.filename || 'file', mime: f.mime, bytes: f.bytes },
    ctx.caller.user.id,
  ).pipe(Effect.orDie)

export const addFile = (ctx: Ctx, params: ById, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const upload = yield* requireFile(files, 'file')
    const file = yield* saveFile(ctx, upload)
    const id = yield* Work.insertFile(ctx.workspace.id, l.id, file.id, ctx.caller.user.id)
    yield* Leads.recordChange(
      ctx.workspace.id,
      l.id,
      { change: 'file_added', name: file.name },
      ctx.caller.user.id,
      yield* currentTime,
    )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'file')
    return createdReply(presentFile((yield* Work.fileById(ctx.workspace.id, id))!))
  })

/** A lead file the caller may see (through its lead), and the stored file behind it. */
export const visibleFile = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const lf = yield* Work.fileById(ctx.workspace.id, id)
    if (!lf) return yield* Effect.fail(notFound())
    const l = yield* leadOr404(ctx, lf.lead_id)
    const file = yield* Files.byId(ctx.workspace.id, lf.file_id)
    if (!file) return yield* Effect.fail(notFound())
    return { lf, l, file }
  })

export const removeFile = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { lf, l, file } = yield* visibleFile(ctx, params.id)
    const me = ctx.caller.user.id
    if (lf.uploaded_by !== me && l.assignee_id !== me && !isAdminCaller(ctx.caller))
      return yield* Effect.fail(forbidden('leads.file_delete'))
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* Work.removeFileLink(lf.id)
        yield* Work.removeFileRow(file.id)
        yield* Leads.recordChange(
          ctx.workspace.id,
          l.id,
          { change: 'file_removed', name: file.name },
          me,
          yield* currentTime,
        )
      }),
    )
    yield* Effect.flatMap(FileStorage, (s) => s.remove(file.storage_key)).pipe(
      Effect.catchAll(() => Effect.void),
    )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'file')
    return reply({ id: lf.id, deleted: true })
  })

// ---- Checklist -------------------------------------------------------------------------------

export const ChecklistBody = Schema.Struct({ text: Text(1, 500) })
export const ChecklistPatch = Schema.Struct({
  text: Schema.optional(Text(1, 500)),
  done: Schema.optional(Schema.Boolean),
  position: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, 10_000))),
})

export const addChecklist = (ctx: Ctx, params: ById, b: typeof ChecklistBody.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const id = yield* Work.insertChecklist(ctx.workspace.id, l.id, b.text.trim(), ctx.caller.user.id)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'checklist')
    return createdReply(presentChecklist((yield* Work.checklistItem(ctx.workspace.id, id))!))
  })

const checklistOf = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const item = yield* Work.checklistItem(ctx.workspace.id, id)
    if (!item) return yield* Effect.fail(notFound())
    const l = yield* leadOr404(ctx, item.lead_id)
    return { item, l }
  })

export const changeChecklist = (ctx: Ctx, params: ById, b: typeof ChecklistPatch.Type) =>
  Effect.gen(function* () {
    const { item, l } = yield* checklistOf(ctx, params.id)
    yield* Work.updateChecklist(
      item,
      {
        ...(b.text !== undefined ? { text: b.text.trim() } : {}),
        ...(b.done !== undefined ? { done: b.done } : {}),
        ...(b.position !== undefined ? { position: b.position } : {}),
      },
      ctx.caller.user.id,
      yield* currentTime,
    )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'checklist')
    return reply(presentChecklist((yield* Work.checklistItem(ctx.workspace.id, item.id))!))
  })

export const removeChecklist = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { item, l } = yield* checklistOf(ctx, params.id)
    yield* Work.removeChecklist(item.id)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'checklist')
    return reply({ id: item.id, deleted: true })
  })

// ---- Events ----------------------------------------------------------------------------------

export const EVENT_KINDS = ['meeting', 'call', 'visit', 'demo', 'deadline', 'other'] as const
const RemindMinutes = Schema.Number.pipe(Schema.int(), Schema.between(0, 40_320))
const EventFields = {
  kind: Schema.optional(Schema.Literal(...EVENT_KINDS)),
  title: Text(1, 200),
  starts_at: IsoDateTime,
  ends_at: Schema.optional(Schema.NullOr(IsoDateTime)),
  location: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(500)))),
  notes: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(5000)))),
  remind_minutes: Schema.optional(Schema.NullOr(RemindMinutes)),
}
export const EventBody = Schema.Struct(EventFields)
export const EventPatch = Schema.Struct({
  ...EventFields,
  title: Schema.optional(Text(1, 200)),
  starts_at: Schema.optional(IsoDateTime),
})

const eventFields = (
  base: Work.EventFields,
  b: typeof EventPatch.Type,
): { readonly fields: Work.EventFields; readonly problems: Record<string, FieldMessage> } => {
  const opt = (v: string | null | undefined, was: string | null) =>
    v === undefined ? was : v === null ? null : v.trim() || null
  const fields: Work.EventFields = {
    kind: b.kind ?? base.kind,
    title: b.title?.trim() ?? base.title,
    starts_at: b.starts_at ? new Date(b.starts_at) : base.starts_at,
    ends_at: b.ends_at === undefined ? base.ends_at : b.ends_at === null ? null : new Date(b.ends_at),
    location: opt(b.location, base.location),
    notes: opt(b.notes, base.notes),
    remind_minutes: b.remind_minutes === undefined ? base.remind_minutes : b.remind_minutes,
  }
  const problems: Record<string, FieldMessage> = {}
  if (fields.ends_at && fields.ends_at.getTime() < fields.starts_at.getTime())
    problems.ends_at = { key: 'leads.ends_before' }
  return { fields, problems }
}

export const addEvent = (ctx: Ctx, params: ById, b: typeof EventBody.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const { fields, problems } = eventFields(
      {
        kind: 'meeting',
        title: '',
        starts_at: new Date(b.starts_at),
        ends_at: null,
        location: null,
        notes: null,
        remind_minutes: null,
      },
      b,
    )
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const id = yield* Work.insertEvent(ctx.workspace.id, l.id, fields, ctx.caller.user.id)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'event')
    return createdReply(presentEvent((yield* Work.eventById(ctx.workspace.id, id))!))
  })

const eventOf = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const e = yield* Work.eventById(ctx.workspace.id, id)
    if (!e) return yield* Effect.fail(notFound())
    const l = yield* leadOr404(ctx, e.lead_id)
    return { e, l }
  })

export const changeEvent = (ctx: Ctx, params: ById, b: typeof EventPatch.Type) =>
  Effect.gen(function* () {
    const { e, l } = yield* eventOf(ctx, params.id)
    const { fields, problems } = eventFields(e, b)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    yield* Work.updateEvent(e, fields)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'event')
    return reply(presentEvent((yield* Work.eventById(ctx.workspace.id, e.id))!))
  })

export const removeEvent = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { e, l } = yield* eventOf(ctx, params.id)
    yield* Work.removeEvent(e.id)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'event')
    return reply({ id: e.id, deleted: true })
  })

// ---- Expenses --------------------------------------------------------------------------------

/** Numbers arrive as text in a multipart form, as numbers in JSON. */
const Amount = Schema.Union(Money, Schema.NumberFromString.pipe(Schema.compose(Money)))
const Payer = Schema.Union(Id, Schema.NumberFromString.pipe(Schema.compose(Id)))

export const ExpenseBody = Schema.Struct({
  spent_on: Schema.optional(LocalDate),
  category: Text(1, 100),
  amount: Amount,
  note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  spent_by: Schema.optional(Payer),
})
export const ExpensePatch = Schema.Struct({
  spent_on: Schema.optional(LocalDate),
  category: Schema.optional(Text(1, 100)),
  amount: Schema.optional(Amount),
  note: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(2000)))),
  spent_by: Schema.optional(Payer),
})

export const RECEIPT_LIMITS = {
  maxBytes: 11 * 1024 * 1024,
  maxFiles: 1,
  maxFileBytes: 10 * 1024 * 1024,
} as const

const checkExpense = (ctx: Ctx, x: Work.ExpenseFields) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const categories = (yield* settingsOf(ctx.workspace.id)).expense_categories
    const category = categories.find((c) => c.toLowerCase() === x.category.trim().toLowerCase())
    if (category === undefined)
      problems.category = { key: 'leads.expense_category', params: { categories: categories.join(', ') } }
    if (x.spent_by !== null && !(yield* Members.activeMembership(x.spent_by, ctx.workspace.id)))
      problems.spent_by = { key: 'leads.member' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    return { ...x, category: category! }
  })

export const addExpense = (
  ctx: Ctx,
  params: ById,
  b: typeof ExpenseBody.Type,
  files: readonly UploadedFile[],
) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const now = yield* currentTime
    const x = yield* checkExpense(ctx, {
      spent_on: b.spent_on ?? localDate(now, ctx.workspace.timezone),
      category: b.category,
      amount: b.amount,
      note: b.note?.trim() || null,
      spent_by: b.spent_by ?? ctx.caller.user.id,
    })
    const upload = files.find((f) => f.field === 'receipt')
    const receipt = upload ? yield* saveFile(ctx, upload) : null
    const id = yield* Work.insertExpense(ctx.workspace.id, l.id, x, receipt?.id ?? null, ctx.caller.user.id)
    yield* Leads.recordChange(
      ctx.workspace.id,
      l.id,
      { change: 'expense_added', category: x.category, amount: x.amount },
      ctx.caller.user.id,
      now,
    )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'expense')
    return createdReply(presentExpense((yield* Work.expenseById(ctx.workspace.id, id))!))
  })

/** An expense of a visible lead; `edit` also demands its recorder, its payer or an admin. */
const expenseOf = (ctx: Ctx, id: number, edit: boolean) =>
  Effect.gen(function* () {
    const x = yield* Work.expenseById(ctx.workspace.id, id)
    if (!x) return yield* Effect.fail(notFound())
    const l = yield* leadOr404(ctx, x.lead_id)
    const me = ctx.caller.user.id
    if (edit && x.recorded_by !== me && x.spent_by !== me && !isAdminCaller(ctx.caller))
      return yield* Effect.fail(forbidden('leads.expense_edit'))
    return { x, l }
  })

export const receipt = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const { x } = yield* expenseOf(ctx, id, false)
    if (x.receipt_file_id === null) return yield* Effect.fail(notFound())
    const file = yield* Files.byId(ctx.workspace.id, x.receipt_file_id)
    if (!file) return yield* Effect.fail(notFound())
    return file
  })

export const changeExpense = (ctx: Ctx, params: ById, b: typeof ExpensePatch.Type) =>
  Effect.gen(function* () {
    const { x: before, l } = yield* expenseOf(ctx, params.id, true)
    const x = yield* checkExpense(ctx, {
      spent_on: b.spent_on ?? before.spent_on,
      category: b.category ?? before.category,
      amount: b.amount ?? before.amount,
      note: b.note === undefined ? before.note : b.note?.trim() || null,
      spent_by: b.spent_by ?? before.spent_by,
    })
    yield* Work.updateExpense(before.id, x)
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'expense')
    return reply(presentExpense((yield* Work.expenseById(ctx.workspace.id, before.id))!))
  })

export const removeExpense = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const { x, l } = yield* expenseOf(ctx, params.id, true)
    const file = x.receipt_file_id === null ? null : yield* Files.byId(ctx.workspace.id, x.receipt_file_id)
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* Work.removeExpense(x.id)
        if (file) yield* Work.removeFileRow(file.id)
        yield* Leads.recordChange(
          ctx.workspace.id,
          l.id,
          { change: 'expense_removed', category: x.category, amount: x.amount },
          ctx.caller.user.id,
          yield* currentTime,
        )
      }),
    )
    // The receipt goes with it: the bytes once the rows are gone.
    if (file)
      yield* Effect.flatMap(FileStorage, (s) => s.remove(file.storage_key)).pipe(
        Effect.catchAll(() => Effect.void),
      )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'expense')
    return reply({ id: x.id, deleted: true })
  })
