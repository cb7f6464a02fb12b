import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { FileStorage } from '../../engine/storage/FileStorage'
import { iso, localParts, startOfLocalDay } from '../../engine/time'
import * as Clients from '../../store/clients'
import * as Contacts from '../../store/contacts'
import * as Conversations from '../../store/conversations'
import * as CustomFields from '../../store/customFields'
import * as Leads from '../../store/leads'
import * as Work from '../../store/leadWork'
import * as Pipelines from '../../store/pipelines'
import { isAdminCaller } from '../admin/caller'
import { WorkspaceActor } from '../admin/WorkspaceActor'
import { createdReply, reply } from '../answer'
import { contactsChanged } from '../contacts/events'
import { normalizeEmail, normalizePhone, regionOf } from '../contacts/phone'
import { checkValues, withValues } from '../customValues'
import { conflict, type FieldMessage, forbidden, invalid, notFound, ProblemSet } from '../errors'
import { BigId, BigIdFromString, Id, IdFromString, IsoDateTime, Text } from '../fields'
import { addMessages } from '../i18n'
import * as Inbox from '../inbox/conversations'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { type Ctx, leadOr404, leadViewerFor, pipelineViewerFor, sourceOf } from './access'
import { dayStart, LocalDate } from './dates'
import { pipelineChanged } from './events'
import { decideMove, statusOf } from './moves'
import {
  type LeadCan,
  presentActivity,
  presentChecklist,
  presentEvent,
  presentExpense,
  presentFile,
  presentLead,
  presentStage,
} from './presenters'
import { settingsOf } from './settings'

/**
 * Leads (spec 2 §4.7): the list with its filters and totals, the board, owner candidates, the
 * duplicates check, the detail, creation (contact by id, by `{name, phone, email}` or from a
 * conversation; client by id or name; `LEAD-<n>`; monthly quota), changes, moves and deletion.
 * Every write locks the lead's row (store/leads `lockForChange`) and decides on what it finds
 * there, so two people changing one lead at once are serialised by the database on any node.
 */
addMessages({
  'leads.quota': {
    en: 'The monthly lead limit of {limit} is reached; it resets at {reset}.',
    id: 'Batas prospek bulanan {limit} sudah tercapai; direset pada {reset}.',
  },
  'leads.value_won_required': {
    en: 'is required to win a lead without a prospect value',
    id: 'wajib diisi untuk memenangkan prospek tanpa nilai perkiraan',
  },
  'leads.lost_reason': {
    en: 'must be one of the lost reasons: {reasons}',
    id: 'harus salah satu alasan kalah: {reasons}',
  },
  'leads.reopen_first': {
    en: 'This lead is already closed; move it back to an open stage first.',
    id: 'Prospek ini sudah ditutup; pindahkan kembali ke tahap terbuka terlebih dahulu.',
  },
  'leads.won_only': { en: 'applies to Won leads only', id: 'hanya untuk prospek yang Menang' },
  'leads.lost_only': { en: 'applies to Lost leads only', id: 'hanya untuk prospek yang Kalah' },
  'leads.open_stage': {
    en: 'must be a New or In progress stage of an active workflow',
    id: 'harus tahap Baru atau Berjalan dari alur kerja yang aktif',
  },
  'leads.stage': {
    en: 'must be a stage of an active workflow you see',
    id: 'harus tahap alur kerja aktif yang Anda lihat',
  },
  'leads.pipeline': {
    en: 'must be an active workflow you see',
    id: 'harus alur kerja aktif yang Anda lihat',
  },
  'leads.team': {
    en: "must be a Back Office team of the lead's workflow",
    id: 'harus tim Back Office dari alur kerja prospek',
  },
  'leads.assignee': {
    en: "must be an active member with lead access (and in the lead's team)",
    id: 'harus anggota aktif dengan akses prospek (dan di tim prospek)',
  },
  'leads.contact_one': {
    en: 'give a name, a phone number or an e-mail address',
    id: 'isi nama, nomor telepon atau alamat e-mail',
  },
  'leads.delete': {
    en: 'Only an admin, the owner or the creator of a lead can delete it.',
    id: 'Hanya admin, pemilik atau pembuat prospek yang dapat menghapusnya.',
  },
  'leads.amount': { en: 'must be a number from 0', id: 'harus angka mulai 0' },
})

// ---- Schemas ---------------------------------------------------------------------------------

export const Money = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) && n >= 0 && n < 1e15, { message: () => 'leads.amount' }),
)
export { LocalDate }

const Optional = (max: number) => Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(max))))
const CustomInput = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String.pipe(Schema.maxLength(2000)), Schema.Number, Schema.Boolean, Schema.Null),
})

const Editable = {
  title: Schema.optional(Text(1, 200)),
  team_id: Schema.optional(Schema.NullOr(Id)),
  assignee_id: Schema.optional(Schema.NullOr(Id)),
  contact_id: Schema.optional(Schema.NullOr(BigId)),
  client_id: Schema.optional(Schema.NullOr(BigId)),
  client_name: Schema.optional(Text(1, 200)),
  value_estimate: Schema.optional(Schema.NullOr(Money)),
  budget: Schema.optional(Schema.NullOr(Money)),
  expected_close: Schema.optional(Schema.NullOr(LocalDate)),
  followup_at: Schema.optional(Schema.NullOr(IsoDateTime)),
  followup_note: Optional(1000),
  note: Optional(10_000),
  custom: Schema.optional(CustomInput),
}

export const CreateBody = Schema.Struct({
  ...Editable,
  title: Text(1, 200),
  pipeline_id: Schema.optional(Id),
  stage_id: Schema.optional(Id),
  contact: Schema.optional(
    Schema.Struct({
      name: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
      phone: Schema.optional(Schema.String.pipe(Schema.maxLength(40))),
      email: Schema.optional(Schema.String.pipe(Schema.maxLength(320))),
    }),
  ),
  interaction_id: Schema.optional(BigId),
})

export const PatchBody = Schema.Struct({
  ...Editable,
  value_won: Schema.optional(Money),
  lost_reason: Schema.optional(Text(1, 100)),
  lost_note: Optional(2000),
})

export const MoveBody = Schema.Struct({
  stage_id: Id,
  value_won: Schema.optional(Money),
  lost_reason: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
  lost_note: Optional(2000),
})

const Assignee = Schema.optional(Schema.Union(Schema.Literal('me', 'none'), IdFromString))

export const ListQuery = Schema.Struct({
  ...pageFields,
  pipeline_id: Schema.optional(IdFromString),
  stage_id: Schema.optional(IdFromString),
  status: Schema.optional(Schema.Literal('open', 'won', 'lost')),
  team_id: Schema.optional(IdFromString),
  assignee: Assignee,
  client_id: Schema.optional(BigIdFromString),
  contact_id: Schema.optional(BigIdFromString),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  followup: Schema.optional(Schema.Literal('overdue', 'today', 'upcoming', 'none')),
  created_from: Schema.optional(LocalDate),
  created_to: Schema.optional(LocalDate),
  sort: Schema.optional(Schema.Literal(...Leads.SORTS)),
  dir: Schema.optional(Schema.Literal('asc', 'desc')),
})

export const BoardQuery = Schema.Struct({
  pipeline_id: IdFromString,
  team_id: Schema.optional(IdFromString),
  assignee: Assignee,
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
})

export const DuplicatesQuery = Schema.Struct({ contact_id: BigIdFromString, pipeline_id: IdFromString })

type ById = { readonly id: number }

// ---- Reading ---------------------------------------------------------------------------------

export const BOARD_MAX = 100
export const DETAIL_ACTIVITIES = 30

const zoneOf = (ctx: Ctx) => ctx.caller.user.timezone ?? ctx.workspace.timezone

const todayBounds = (now: Date, zone: string) => {
  const l = localParts(now, zone)
  return {
    start: startOfLocalDay(l.year, l.month, l.day, zone),
    end: startOfLocalDay(l.year, l.month, l.day + 1, zone),
  }
}

/** What the caller may do with a lead it sees. */
export const canOf = (ctx: Ctx, l: Pick<Leads.LeadView, 'assignee_id' | 'created_by'>): LeadCan => {
  const { caller } = ctx
  const writes = caller.permissions.has('leads.manage') && !(caller.via === 'key' && caller.scope === 'read')
  return {
    update: writes,
    move: writes,
    delete:
      writes &&
      caller.via === 'session' &&
      (isAdminCaller(caller) || l.assignee_id === caller.user.id || l.created_by === caller.user.id),
  }
}

const leadDefs = (workspaceId: number) => CustomFields.list(workspaceId, ['lead'])

const presentMany = (ctx: Ctx, rows: readonly Leads.LeadView[]) =>
  Effect.map(leadDefs(ctx.workspace.id), (defs) => rows.map((l) => presentLead(l, defs, canOf(ctx, l))))

export const list = (ctx: Ctx, q: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const zone = zoneOf(ctx)
    const now = yield* currentTime
    const today = todayBounds(now, zone)
    const filter: Leads.ListFilter = {
      ...(q.pipeline_id !== undefined ? { pipelineId: q.pipeline_id } : {}),
      ...(q.stage_id !== undefined ? { stageId: q.stage_id } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
      ...(q.team_id !== undefined ? { teamId: q.team_id } : {}),
      ...(q.assignee !== undefined
        ? { assignee: q.assignee === 'me' ? ctx.caller.user.id : q.assignee }
        : {}),
      ...(q.client_id !== undefined ? { clientId: q.client_id } : {}),
      ...(q.contact_id !== undefined ? { contactId: q.contact_id } : {}),
      ...(q.q?.trim() ? { q: q.q.trim() } : {}),
      ...(q.followup === 'none' ? { followup: { kind: 'none' as const } } : {}),
      ...(q.followup === 'overdue' ? { followup: { kind: 'before' as const, at: now } } : {}),
      ...(q.followup === 'today'
        ? { followup: { kind: 'between' as const, from: today.start, to: today.end } }
        : {}),
      ...(q.followup === 'upcoming'
        ? { followup: { kind: 'between' as const, from: today.end, to: null } }
        : {}),
      ...(q.created_from ? { createdFrom: dayStart(q.created_from, zone) } : {}),
      ...(q.created_to ? { createdTo: dayStart(q.created_to, zone, 1) } : {}),
    }
    const page = pageOf(q)
    const [rows, totals] = yield* Effect.all(
      [Leads.list(viewer, filter, q.sort ?? 'created', q.dir ?? 'desc', page), Leads.totals(viewer, filter)],
      { concurrency: 'unbounded' },
    )
    return reply(yield* presentMany(ctx, rows), {
      ...pageMeta(page, totals.count),
      totals: { count: totals.count, value_estimate: totals.value_estimate, value_won: totals.value_won },
    })
  })

export const board = (ctx: Ctx, q: typeof BoardQuery.Type) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const p = yield* Pipelines.visibleById(pipelineViewerFor(ctx.caller, ctx.workspace), q.pipeline_id)
    if (!p) return yield* Effect.fail(invalid({ pipeline_id: { key: 'field.unknown' } }))
    const stages = yield* Pipelines.stagesOf([p.id])
    const now = yield* currentTime
    // This month's Won and Lost, in the workspace's zone (the quota's month).
    const l = localParts(now, ctx.workspace.timezone)
    const monthStart = startOfLocalDay(l.year, l.month, 1, ctx.workspace.timezone)
    const filter: Leads.ListFilter = {
      pipelineId: p.id,
      ...(q.team_id !== undefined ? { teamId: q.team_id } : {}),
      ...(q.assignee !== undefined
        ? { assignee: q.assignee === 'me' ? ctx.caller.user.id : q.assignee }
        : {}),
      ...(q.q?.trim() ? { q: q.q.trim() } : {}),
    }
    const [cards, figures, defs] = yield* Effect.all(
      [
        Leads.boardCards(viewer, filter, monthStart, BOARD_MAX),
        Leads.boardFigures(viewer, filter, monthStart),
        leadDefs(ctx.workspace.id),
      ],
      { concurrency: 'unbounded' },
    )
    const byStage = new Map(figures.map((f) => [f.stage_id, f]))
    const summary = {
      open: 0,
      open_value: 0,
      weighted_value: 0,
      won: 0,
      won_value: 0,
      lost: 0,
      lost_value: 0,
    }
    for (const s of stages) {
      const f = byStage.get(s.id)
      if (!f) continue
      const status = statusOf(s.kind)
      if (status === 'open') {
        summary.open += f.count
        summary.open_value += f.value
        summary.weighted_value += (f.value * s.probability) / 100
      } else if (status === 'won') {
        summary.won += f.count
        summary.won_value += f.value
      } else {
        summary.lost += f.count
        summary.lost_value += f.value
      }
    }
    return reply({
      pipeline: { id: p.id, name: p.name, archived: p.archived_at !== null },
      stages: stages.map((s) => {
        const mine = cards.filter((c) => c.stage_id === s.id)
        return {
          ...presentStage(s),
          count: byStage.get(s.id)?.count ?? 0,
          value: byStage.get(s.id)?.value ?? 0,
          more: mine.length > BOARD_MAX,
          cards: mine.slice(0, BOARD_MAX).map((c) => presentLead(c, defs, canOf(ctx, c))),
        }
      }),
      summary: { ...summary, weighted_value: Math.round(summary.weighted_value * 100) / 100 },
    })
  })

export const candidates = (ctx: Ctx, q: { readonly team_id?: number | undefined }) =>
  Effect.gen(function* () {
    const people = yield* Leads.candidates(ctx.workspace.id)
    const shown =
      q.team_id === undefined ? people : people.filter((p) => p.is_admin || p.team_ids.includes(q.team_id!))
    return reply(
      shown.map((p) => ({
        id: p.id,
        name: p.name,
        email: p.email,
        avatar_url: p.avatar_url,
        is_admin: p.is_admin,
        team_ids: p.team_ids,
      })),
    )
  })

export const duplicates = (ctx: Ctx, q: typeof DuplicatesQuery.Type) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const all = yield* Leads.openOfContact(ctx.workspace.id, q.contact_id, q.pipeline_id)
    const rows = yield* Leads.list(
      viewer,
      { contactId: q.contact_id, pipelineId: q.pipeline_id, status: 'open' },
      'created',
      'desc',
      { limit: 100, offset: 0 },
    )
    // Leads the caller may not see are counted, never shown.
    return reply(yield* presentMany(ctx, rows), { total: all.length, hidden: all.length - rows.length })
  })

/** The lead as answered after a write: in full, or `{id, visible: false}` out of the caller's sight. */
export const presentOrHidden = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const l = yield* Leads.visibleById(leadViewerFor(ctx.caller, ctx.workspace), id)
    if (!l) return { id, visible: false as const }
    return presentLead(l, yield* leadDefs(ctx.workspace.id), canOf(ctx, l))
  })

export const detail = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const [defs, activities, checklist, events, files, expenses] = yield* Effect.all(
      [
        leadDefs(ctx.workspace.id),
        Work.activities(l.id, { limit: DETAIL_ACTIVITIES }),
        Work.checklist(l.id),
        Work.events(l.id),
        Work.files(l.id),
        Work.expenses(l.id),
      ],
      { concurrency: 'unbounded' },
    )
    return reply({
      ...presentLead(l, defs, canOf(ctx, l)),
      custom_fields: withValues(defs, l.custom),
      activities: activities.map((a) => presentActivity(a, ctx.caller.user.id)),
      checklist: checklist.map(presentChecklist),
      events: events.map(presentEvent),
      files: files.map(presentFile),
      expenses: expenses.map(presentExpense),
      expenses_total: expenses.reduce((s, x) => s + x.amount, 0),
    })
  })

/** Leads of a contact the caller may see (`GET /contacts/{id}/leads`, the profile's `leads`). */
export const ofContact = (ctx: Ctx, contactId: number, limit = 100) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const filter = { contactId }
    const [rows, totals] = yield* Effect.all([
      Leads.list(viewer, filter, 'created', 'desc', { limit, offset: 0 }),
      Leads.totals(viewer, filter),
    ])
    return { items: yield* presentMany(ctx, rows), total: totals.count }
  })

/**
 * `GET /interactions/{id}/leads`: leads made from the conversation, and (`meta.other`) the
 * contact's other open leads, each as the caller may see them.
 */
export const ofInteraction = (
  ctx: Ctx,
  conversation: { readonly id: number; readonly contact_id: number | null },
) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const page = { limit: 100, offset: 0 }
    const from = yield* Leads.list(viewer, { interactionId: conversation.id }, 'created', 'desc', page)
    const others =
      conversation.contact_id === null
        ? []
        : (yield* Leads.list(
            viewer,
            { contactId: conversation.contact_id, status: 'open' },
            'created',
            'desc',
            page,
          )).filter((l) => l.interaction_id !== conversation.id)
    return reply(yield* presentMany(ctx, from), { other: yield* presentMany(ctx, others) })
  })

/** `GET /interactions/{id}/leads`, for a caller who sees the conversation (else 404). */
export const interactionLeads = (ctx: Ctx, params: { readonly id: number }) =>
  Effect.flatMap(Inbox.visibleOr404(ctx, params.id), (c) => ofInteraction(ctx, c))

// ---- Writing ---------------------------------------------------------------------------------

interface Checked {
  readonly team_id?: number | null
  readonly assignee_id?: number | null
  readonly customSet?: Readonly<Record<string, unknown>>
  readonly customClear?: readonly string[]
}

/** Team, owner and custom values of a create or change, checked against the workflow. */
const checkPeople = (
  ctx: Ctx,
  pipeline: Pipelines.PipelineRow,
  body: {
    readonly team_id?: number | null | undefined
    readonly assignee_id?: number | null | undefined
    readonly custom?: Readonly<Record<string, unknown>> | undefined
  },
  current: { readonly team_id: number | null },
  problems: Record<string, FieldMessage>,
) =>
  Effect.gen(function* () {
    const out: { -readonly [K in keyof Checked]: Checked[K] } = {}
    if (body.team_id !== undefined && body.team_id !== null) {
      const ok = yield* Pipelines.backofficeTeams(ctx.workspace.id, [body.team_id])
      if (ok.length === 0 || (pipeline.team_ids.length > 0 && !pipeline.team_ids.includes(body.team_id)))
        problems.team_id = { key: 'leads.team' }
    }
    if (body.team_id !== undefined) out.team_id = body.team_id
    const team = body.team_id !== undefined ? body.team_id : current.team_id
    if (body.assignee_id !== undefined && body.assignee_id !== null) {
      const who = yield* Leads.candidate(ctx.workspace.id, body.assignee_id)
      if (!who || (team !== null && !who.is_admin && !who.team_ids.includes(team)))
        problems.assignee_id = { key: 'leads.assignee' }
    }
    if (body.assignee_id !== undefined) out.assignee_id = body.assignee_id
    if (body.custom !== undefined) {
      const set = new ProblemSet()
      const c = checkValues(yield* leadDefs(ctx.workspace.id), body.custom, set)
      Object.assign(problems, set.fields)
      out.customSet = c.set
      out.customClear = c.clear
    }
    return out
  })

const text = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null ? null : v.trim() || null

/** The contact a new lead names (an id, `{name, phone, email}` matched by phone then e-mail, or a conversation's). */
export type ContactChoice =
  | { readonly _tag: 'None' }
  | { readonly _tag: 'Existing'; readonly id: number }
  | {
      readonly _tag: 'New'
      readonly name: string
      readonly phone: string | null
      readonly email: string | null
    }

export const chooseContact = (
  ctx: Ctx,
  body: typeof CreateBody.Type,
  problems: Record<string, FieldMessage>,
) =>
  Effect.gen(function* () {
    let interactionContact: number | null = null
    if (body.interaction_id !== undefined) {
      const c = yield* Conversations.visibleById(
        Inbox.viewerFor(ctx.caller, ctx.workspace),
        body.interaction_id,
      )
      if (!c) problems.interaction_id = { key: 'field.unknown' }
      else interactionContact = c.contact_id
    }
    if (body.contact_id !== undefined && body.contact_id !== null) {
      const c = yield* Contacts.viewById(ctx.workspace.id, body.contact_id)
      if (!c) problems.contact_id = { key: 'field.unknown' }
      return { _tag: 'Existing', id: body.contact_id } as ContactChoice
    }
    if (body.contact !== undefined) {
      const name = body.contact.name?.trim() ?? ''
      let phone: string | null = null
      let email: string | null = null
      if (body.contact.phone?.trim()) {
        phone = normalizePhone(body.contact.phone, regionOf(ctx.workspace.timezone))
        if (phone === null) problems['contact.phone'] = { key: 'contacts.phone_invalid' }
      }
      if (body.contact.email?.trim()) {
        email = normalizeEmail(body.contact.email)
        if (email === null) problems['contact.email'] = { key: 'field.email' }
      }
      if (name === '' && phone === null && email === null) {
        if (!problems['contact.phone'] && !problems['contact.email'])
          problems.contact = { key: 'leads.contact_one' }
        return { _tag: 'None' } as ContactChoice
      }
      // Matched by phone, then by e-mail (both normalised as the contact book stores them).
      const byPhone = phone === null ? null : yield* Leads.liveContactBy(ctx.workspace.id, 'phone', phone)
      if (byPhone !== null) return { _tag: 'Existing', id: byPhone } as ContactChoice
      const byEmail = email === null ? null : yield* Leads.liveContactBy(ctx.workspace.id, 'email', email)
      if (byEmail !== null) return { _tag: 'Existing', id: byEmail } as ContactChoice
      return { _tag: 'New', name: name || phone || email || '', phone, email } as ContactChoice
    }
    if (interactionContact !== null) return { _tag: 'Existing', id: interactionContact } as ContactChoice
    return { _tag: 'None' } as ContactChoice
  })

const clientChoice = (
  ctx: Ctx,
  body: { readonly client_id?: number | null | undefined; readonly client_name?: string | undefined },
  problems: Record<string, FieldMessage>,
) =>
  Effect.gen(function* () {
    if (body.client_id !== undefined && body.client_id !== null) {
      if (!(yield* Clients.byId(ctx.workspace.id, body.client_id)))
        problems.client_id = { key: 'field.unknown' }
      return { _tag: 'Id' as const, id: body.client_id }
    }
    if (body.client_id === null) return { _tag: 'Id' as const, id: null }
    if (body.client_name !== undefined) return { _tag: 'Name' as const, name: body.client_name.trim() }
    return { _tag: 'Keep' as const }
  })

const consumeLead = (ctx: Ctx, now: Date) =>
  Effect.flatMap(WorkspaceActor, (a) =>
    a.ask(ctx.workspace.id, { _tag: 'Consume', counter: 'leads_per_month', now }),
  )

/** The workflow a new lead goes to (the one named, else the first active one the caller sees). */
const targetPipeline = (ctx: Ctx, body: typeof CreateBody.Type, problems: Record<string, FieldMessage>) =>
  Effect.gen(function* () {
    const viewer = pipelineViewerFor(ctx.caller, ctx.workspace)
    let stage: Pipelines.StageRow | null = null
    if (body.stage_id !== undefined) {
      stage = yield* Pipelines.stageById(ctx.workspace.id, body.stage_id)
      if (!stage || stage.kind === 'won' || stage.kind === 'lost') {
        problems.stage_id = { key: 'leads.open_stage' }
        stage = null
      }
    }
    const pipelineId = body.pipeline_id ?? stage?.pipeline_id
    const p =
      pipelineId !== undefined
        ? yield* Pipelines.visibleById(viewer, pipelineId)
        : ((yield* Pipelines.list(viewer, false))[0] ?? null)
    if (!p || p.archived_at !== null) {
      problems.pipeline_id = { key: pipelineId === undefined ? 'field.required' : 'leads.pipeline' }
      return null
    }
    if (stage && stage.pipeline_id !== p.id) problems.stage_id = { key: 'leads.open_stage' }
    const first = stage ?? (yield* Pipelines.stagesOf([p.id])).find((s) => s.kind === 'new')
    // No stages: the workflow was deleted (its stages with it) between the two reads.
    if (!first) {
      problems.pipeline_id = { key: 'leads.pipeline' }
      return null
    }
    return { pipeline: p, stage: first }
  })

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const target = yield* targetPipeline(ctx, body, problems)
    const contact = yield* chooseContact(ctx, body, problems)
    const client = yield* clientChoice(ctx, body, problems)
    // A workflow with one team gives new leads that team unless another is named.
    const teamId =
      body.team_id !== undefined
        ? body.team_id
        : target?.pipeline.team_ids.length === 1
          ? target.pipeline.team_ids[0]!
          : null
    const checked = target
      ? yield* checkPeople(ctx, target.pipeline, { ...body, team_id: teamId }, { team_id: null }, problems)
      : {}
    if (Object.keys(problems).length > 0 || !target) return yield* Effect.fail(invalid(problems))
    const now = yield* currentTime
    // The quota last: a refused create uses none, and a used slot always gets its lead.
    const used = yield* consumeLead(ctx, now)
    const sql = yield* SqlClient.SqlClient
    const made = yield* sql.withTransaction(
      Effect.gen(function* () {
        let contactId: number | null = null
        let contactCreated = false
        if (contact._tag === 'Existing') contactId = contact.id
        if (contact._tag === 'New') {
          const row = yield* Contacts.insert(ctx.workspace.id, {
            name: contact.name,
            phone: contact.phone,
            email: contact.email,
            custom: {},
          })
          yield* Contacts.recordEvent(ctx.workspace.id, row.id, 'created', { lead: true }, ctx.caller.user.id)
          contactId = row.id
          contactCreated = true
        }
        const clientId =
          client._tag === 'Id'
            ? client.id
            : client._tag === 'Name'
              ? (yield* Clients.findOrCreate(ctx.workspace.id, client.name, ctx.caller.user.id)).id
              : null
        const lead = yield* Leads.insert(ctx.workspace.id, {
          title: body.title.trim(),
          pipeline_id: target.pipeline.id,
          stage_id: target.stage.id,
          status: 'open',
          team_id: checked.team_id ?? null,
          assignee_id: checked.assignee_id ?? null,
          contact_id: contactId,
          client_id: clientId,
          interaction_id: body.interaction_id ?? null,
          value_estimate: body.value_estimate ?? null,
          budget: body.budget ?? null,
          expected_close: body.expected_close ?? null,
          followup_at: body.followup_at ? new Date(body.followup_at) : null,
          followup_note: text(body.followup_note) ?? null,
          note: text(body.note) ?? null,
          custom: checked.customSet ?? {},
          source: sourceOf(ctx.caller),
          created_by: ctx.caller.user.id,
          stage_changed_at: now,
          at: now,
        })
        // The workflow was deleted or archived, or the stage removed, since it was read.
        if (!lead) return yield* Effect.fail(invalid({ pipeline_id: { key: 'leads.pipeline' } }))
        yield* Leads.recordChange(
          ctx.workspace.id,
          lead.id,
          { change: 'created', stage: { id: target.stage.id, label: target.stage.label } },
          ctx.caller.user.id,
          now,
        )
        return { ...lead, contactId, contactCreated }
      }),
    )
    if (made.contactCreated && made.contactId !== null)
      yield* contactsChanged(ctx.workspace.id, made.contactId, 'created')
    yield* pipelineChanged(ctx.workspace.id, made.id, target.pipeline.id, 'lead_created')
    return createdReply(yield* presentOrHidden(ctx, made.id), {
      quota: { used: used.used, limit: used.limit, resets_at: iso(used.endsAt) },
    })
  })

/** Fields whose change the history names (the stage, status and closing ones are moves'). */
const FIELD_NAMES = Leads.COLUMNS.filter(
  (k) =>
    !['pipeline_id', 'stage_id', 'status', 'interaction_id', 'closed_at', 'stage_changed_at'].includes(k),
)

const same = (a: unknown, b: unknown) =>
  a instanceof Date || b instanceof Date
    ? (a instanceof Date ? a.getTime() : a) === (b instanceof Date ? b.getTime() : b)
    : a === b

export const update = (ctx: Ctx, params: ById, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const problems: Record<string, FieldMessage> = {}
    const pipeline = (yield* Pipelines.byId(ctx.workspace.id, l.pipeline_id))!
    const checked = yield* checkPeople(ctx, pipeline, body, l, problems)
    const client = yield* clientChoice(ctx, body, problems)
    if (body.contact_id !== undefined && body.contact_id !== null) {
      if (!(yield* Contacts.viewById(ctx.workspace.id, body.contact_id)))
        problems.contact_id = { key: 'field.unknown' }
    }
    if (body.value_won !== undefined && l.status !== 'won') problems.value_won = { key: 'leads.won_only' }
    if ((body.lost_reason !== undefined || body.lost_note !== undefined) && l.status !== 'lost') {
      problems[body.lost_reason !== undefined ? 'lost_reason' : 'lost_note'] = { key: 'leads.lost_only' }
    }
    let lostReason: string | undefined
    if (body.lost_reason !== undefined && l.status === 'lost') {
      const reasons = (yield* settingsOf(ctx.workspace.id)).lost_reasons
      lostReason = reasons.find((r) => r.toLowerCase() === body.lost_reason!.trim().toLowerCase())
      if (lostReason === undefined)
        problems.lost_reason = { key: 'leads.lost_reason', params: { reasons: reasons.join(', ') } }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const now = yield* currentTime
    const fields: Leads.LeadFields = {
      ...(body.title !== undefined ? { title: body.title.trim() } : {}),
      ...(checked.team_id !== undefined ? { team_id: checked.team_id } : {}),
      ...(checked.assignee_id !== undefined ? { assignee_id: checked.assignee_id } : {}),
      ...(body.contact_id !== undefined ? { contact_id: body.contact_id } : {}),
      ...(body.value_estimate !== undefined ? { value_estimate: body.value_estimate } : {}),
      ...(body.value_won !== undefined ? { value_won: body.value_won } : {}),
      ...(body.budget !== undefined ? { budget: body.budget } : {}),
      ...(body.expected_close !== undefined ? { expected_close: body.expected_close } : {}),
      // `followup_at: null` clears the follow-up, its note with it.
      ...(body.followup_at !== undefined
        ? body.followup_at === null
          ? { followup_at: null, followup_note: null }
          : { followup_at: new Date(body.followup_at) }
        : {}),
      ...(body.followup_note !== undefined && body.followup_at !== null
        ? { followup_note: text(body.followup_note) }
        : {}),
      ...(lostReason !== undefined ? { lost_reason: lostReason } : {}),
      ...(body.lost_note !== undefined ? { lost_note: text(body.lost_note) } : {}),
      ...(body.note !== undefined ? { note: text(body.note) } : {}),
    }
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        if (!(yield* Leads.lockForChange(ctx.workspace.id, l.id))) return yield* Effect.fail(notFound())
        const before = (yield* Leads.rawById(ctx.workspace.id, l.id))!
        const clientId =
          client._tag === 'Id'
            ? client.id
            : client._tag === 'Name'
              ? (yield* Clients.findOrCreate(ctx.workspace.id, client.name, ctx.caller.user.id)).id
              : undefined
        let all: Leads.LeadFields = {
          ...fields,
          ...(clientId !== undefined ? { client_id: clientId } : {}),
        }
        // The owner stays in the lead's team, decided on the row under the lock (the check above
        // read it before): a team change releases an owner outside the new team, as a ticket's
        // assignees are, and an owner chosen against a team changed meanwhile is refused.
        const team = all.team_id !== undefined ? all.team_id : before.team_id
        const ownerId = all.assignee_id !== undefined ? all.assignee_id : before.assignee_id
        if (
          ownerId !== null &&
          team !== null &&
          (body.team_id !== undefined || body.assignee_id !== undefined)
        ) {
          const who = yield* Leads.candidate(ctx.workspace.id, ownerId)
          if (!who || (!who.is_admin && !who.team_ids.includes(team))) {
            if (body.assignee_id !== undefined)
              return yield* Effect.fail(invalid({ assignee_id: { key: 'leads.assignee' } }))
            all = { ...all, assignee_id: null }
          }
        }
        const changed = FIELD_NAMES.filter((k) => all[k] !== undefined && !same(all[k], before[k]))
        const customChanged = checked.customSet !== undefined
        yield* Leads.update(
          l.id,
          {
            ...all,
            ...(customChanged
              ? { customSet: checked.customSet!, customClear: checked.customClear ?? [] }
              : {}),
          },
          now,
        )
        const names = [...changed, ...(customChanged ? ['custom'] : [])]
        if (names.length > 0)
          yield* Leads.recordChange(
            ctx.workspace.id,
            l.id,
            {
              change: 'updated',
              fields: names,
              ...(changed.includes('assignee_id') ? { assignee_id: all.assignee_id } : {}),
              ...(changed.includes('team_id') ? { team_id: all.team_id } : {}),
            },
            ctx.caller.user.id,
            now,
          )
      }),
    )
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'lead_updated')
    return reply(yield* presentOrHidden(ctx, l.id))
  })

export const move = (ctx: Ctx, params: ById, body: typeof MoveBody.Type) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    const target = yield* Pipelines.stageById(ctx.workspace.id, body.stage_id)
    const p = target
      ? yield* Pipelines.visibleById(pipelineViewerFor(ctx.caller, ctx.workspace), target.pipeline_id)
      : null
    if (!target || !p || p.archived_at !== null)
      return yield* Effect.fail(invalid({ stage_id: { key: 'leads.stage' } }))
    const reasons = (yield* settingsOf(ctx.workspace.id)).lost_reasons
    const now = yield* currentTime
    const sql = yield* SqlClient.SqlClient
    const moved = yield* sql.withTransaction(
      Effect.gen(function* () {
        // Decided on the row as it is under the lock: a concurrent move already applied is seen.
        const locked = yield* Leads.lockForChange(ctx.workspace.id, l.id)
        if (!locked) return yield* Effect.fail(notFound())
        const d = decideMove(locked, target, body, reasons, now)
        if (d._tag === 'Unchanged') return false
        if (d._tag === 'Conflict') return yield* Effect.fail(conflict('leads.reopen_first'))
        if (d._tag === 'Invalid') return yield* Effect.fail(invalid(d.fields))
        const from = (yield* Pipelines.stageById(ctx.workspace.id, locked.stage_id))!
        yield* Leads.update(l.id, d.fields, now)
        yield* Leads.recordChange(
          ctx.workspace.id,
          l.id,
          {
            change: d.change,
            from_stage: { id: from.id, label: from.label, kind: from.kind },
            to_stage: { id: target.id, label: target.label, kind: target.kind },
            ...(d.change === 'won' ? { value_won: d.fields.value_won } : {}),
            ...(d.change === 'lost'
              ? { lost_reason: d.fields.lost_reason, lost_note: d.fields.lost_note }
              : {}),
          },
          ctx.caller.user.id,
          now,
        )
        return true
      }),
    )
    if (moved) yield* pipelineChanged(ctx.workspace.id, l.id, target.pipeline_id, 'lead_moved')
    return reply(yield* presentOrHidden(ctx, l.id))
  })

export const remove = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const l = yield* leadOr404(ctx, params.id)
    if (!canOf(ctx, l).delete) return yield* Effect.fail(forbidden('leads.delete'))
    // The month's quota is not given back (spec 2 §4.7).
    const files = yield* Leads.remove(l.id)
    yield* Effect.forEach(files, (f) => removeBytes(f.storage_key), { discard: true })
    yield* pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'lead_deleted')
    return reply({ id: l.id, deleted: true })
  })

const removeBytes = (key: string) =>
  Effect.flatMap(FileStorage, (s) => s.remove(key)).pipe(Effect.catchAll(() => Effect.void))
