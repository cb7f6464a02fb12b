import { Effect, Schema } from 'effect'
import { iso } from '../../engine/time'
import * as Clients from '../../store/clients'
import type { FieldRow } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import * as Leads from '../../store/leads'
import { createdReply, reply } from '../answer'
import { contactsChanged } from '../contacts/events'
import { normalizeEmail } from '../contacts/phone'
import { checkValues, shownValues, withValues } from '../customValues'
import { type FieldMessage, invalid, notFound, ProblemSet } from '../errors'
import { publish, topics } from '../events'
import { BigId, BigIdFromString, Text, WebUrl } from '../fields'
import { addMessages } from '../i18n'
import { pageFields, pageMeta, pageOf } from '../pagination'
import { type Ctx, leadViewerFor } from './access'
import { pipelineChanged } from './events'
import { canOf } from './leads'
import { presentLead } from './presenters'

/**
 * Clients (spec 2 §2, §4.7): the companies behind contacts and leads. The list is not limited by
 * team (spec); the profile shows the linked contacts, only the leads the caller may see (the lead
 * rule) and a deal summary over those. Names are unique per workspace regardless of case (422
 * `name`). Deleting keeps contacts and leads, unlinked. Linking a contact also gives that
 * contact's leads without a client this one. `clients.changed {client_id}` after each commit.
 */
addMessages({
  'clients.name_taken': { en: 'is already used by another client', id: 'sudah dipakai klien lain' },
})

const Optional = (max: number) => Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(max))))
const CustomInput = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String.pipe(Schema.maxLength(2000)), Schema.Number, Schema.Boolean, Schema.Null),
})

const Editable = {
  industry: Optional(100),
  phone: Optional(40),
  email: Optional(320),
  website: Schema.optional(Schema.NullOr(WebUrl(500))),
  address: Optional(1000),
  city: Optional(100),
  notes: Optional(10_000),
  custom: Schema.optional(CustomInput),
}

export const CreateBody = Schema.Struct({ name: Text(1, 200), ...Editable })
export const PatchBody = Schema.Struct({ name: Schema.optional(Text(1, 200)), ...Editable })
export const ListQuery = Schema.Struct({
  ...pageFields,
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  industry: Schema.optional(Schema.String.pipe(Schema.maxLength(100))),
})
export const SearchQuery = Schema.Struct({
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  limit: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 50))),
})
export const LinkBody = Schema.Struct({ contact_id: BigId, link: Schema.optional(Schema.Boolean) })
export const IdParam = Schema.Struct({ id: BigIdFromString })

type ById = { readonly id: number }

export const clientsChanged = (workspaceId: number, clientId: number) =>
  publish(topics.workspace(workspaceId), 'clients.changed', { client_id: clientId })

const clientDefs = (workspaceId: number) => CustomFields.list(workspaceId, ['client'])

export const presentClient = (k: Clients.ClientListRow, defs: readonly FieldRow[]) => ({
  id: k.id,
  name: k.name,
  industry: k.industry,
  phone: k.phone,
  email: k.email,
  website: k.website,
  address: k.address,
  city: k.city,
  notes: k.notes,
  custom: shownValues(defs, k.custom),
  contacts_count: k.contacts_count,
  created_at: iso(k.created_at)!,
  updated_at: iso(k.updated_at)!,
})

const clientOr404 = (ctx: Ctx, id: number) =>
  Effect.flatMap(Clients.detailById(ctx.workspace.id, id), (k) =>
    k ? Effect.succeed(k) : Effect.fail(notFound()),
  )

export const list = (ctx: Ctx, q: typeof ListQuery.Type) =>
  Effect.gen(function* () {
    const page = pageOf(q)
    const filter: Clients.ClientFilter = {
      ...(q.q?.trim() ? { q: q.q.trim() } : {}),
      ...(q.industry?.trim() ? { industry: q.industry.trim() } : {}),
    }
    const [rows, total, industries, defs] = yield* Effect.all(
      [
        Clients.list(ctx.workspace.id, filter, page),
        Clients.count(ctx.workspace.id, filter),
        Clients.industries(ctx.workspace.id),
        clientDefs(ctx.workspace.id),
      ],
      { concurrency: 'unbounded' },
    )
    return reply(
      rows.map((k) => presentClient(k, defs)),
      { ...pageMeta(page, total), industries },
    )
  })

export const search = (ctx: Ctx, q: typeof SearchQuery.Type) =>
  Effect.gen(function* () {
    const text = q.q?.trim() ?? ''
    const rows = yield* Clients.search(ctx.workspace.id, text, q.limit ?? 20)
    return reply(
      rows.map((k) => ({ id: k.id, name: k.name, industry: k.industry, contacts_count: k.contacts_count })),
    )
  })

const PROFILE_CONTACTS = 100
const PROFILE_LEADS = 100

export const detail = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    const k = yield* clientOr404(ctx, params.id)
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const [defs, leadDefs, contacts, leads, open, won, lost] = yield* Effect.all(
      [
        clientDefs(ctx.workspace.id),
        CustomFields.list(ctx.workspace.id, ['lead']),
        Clients.contactsOf(k.id, PROFILE_CONTACTS),
        Leads.list(viewer, { clientId: k.id }, 'created', 'desc', { limit: PROFILE_LEADS, offset: 0 }),
        Leads.totals(viewer, { clientId: k.id, status: 'open' }),
        Leads.totals(viewer, { clientId: k.id, status: 'won' }),
        Leads.totals(viewer, { clientId: k.id, status: 'lost' }),
      ],
      { concurrency: 'unbounded' },
    )
    return reply({
      ...presentClient(k, defs),
      custom_fields: withValues(defs, k.custom),
      contacts: contacts.map((c) => ({
        id: c.id,
        name: c.name,
        phone: c.phone,
        email: c.email,
        job_title: c.job_title,
      })),
      leads: leads.map((l) => presentLead(l, leadDefs, canOf(ctx, l))),
      leads_total: open.count + won.count + lost.count,
      // Over the leads the caller may see only.
      deals: {
        open: open.count,
        open_value: open.value_estimate,
        won: won.count,
        won_value: won.value_won,
        lost: lost.count,
        lost_value: lost.value_estimate,
      },
    })
  })

const trimmed = (v: string | null | undefined) =>
  v === undefined ? undefined : v === null ? null : v.trim() || null

const checkFields = (
  ctx: Ctx,
  body: typeof PatchBody.Type,
  except: number | null,
  problems: Record<string, FieldMessage>,
) =>
  Effect.gen(function* () {
    const name = body.name?.trim()
    if (name !== undefined && (yield* Clients.nameTaken(ctx.workspace.id, name, except)))
      problems.name = { key: 'clients.name_taken' }
    let email = trimmed(body.email)
    if (email) {
      const e = normalizeEmail(email)
      if (e === null) problems.email = { key: 'field.email' }
      else email = e
    }
    let custom: ReturnType<typeof checkValues> | undefined
    if (body.custom !== undefined) {
      const set = new ProblemSet()
      custom = checkValues(yield* clientDefs(ctx.workspace.id), body.custom, set)
      Object.assign(problems, set.fields)
    }
    const fields: Clients.ClientFields = {
      ...(name !== undefined ? { name } : {}),
      ...Object.fromEntries(
        Clients.TEXT_FIELDS.flatMap((f) => {
          const v = f === 'email' ? email : trimmed(body[f])
          return v === undefined ? [] : [[f, v]]
        }),
      ),
    }
    return { fields, custom }
  })

export const create = (ctx: Ctx, body: typeof CreateBody.Type) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const { fields, custom } = yield* checkFields(ctx, body, null, problems)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const id = yield* Clients.insert(
      ctx.workspace.id,
      { ...fields, name: body.name.trim(), custom: custom?.set ?? {} },
      ctx.caller.user.id,
    )
    // Taken between the check and the insert: the unique index decided.
    if (id === null) return yield* Effect.fail(invalid({ name: { key: 'clients.name_taken' } }))
    yield* clientsChanged(ctx.workspace.id, id)
    const k = yield* clientOr404(ctx, id)
    return createdReply(presentClient(k, yield* clientDefs(ctx.workspace.id)))
  })

export const update = (ctx: Ctx, params: ById, body: typeof PatchBody.Type) =>
  Effect.gen(function* () {
    const k = yield* clientOr404(ctx, params.id)
    const problems: Record<string, FieldMessage> = {}
    const { fields, custom } = yield* checkFields(ctx, body, k.id, problems)
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    const done = yield* Clients.update(k.id, {
      ...fields,
      ...(custom ? { customSet: custom.set, customClear: custom.clear } : {}),
    })
    if (!done) return yield* Effect.fail(invalid({ name: { key: 'clients.name_taken' } }))
    yield* clientsChanged(ctx.workspace.id, k.id)
    return reply(presentClient(yield* clientOr404(ctx, k.id), yield* clientDefs(ctx.workspace.id)))
  })

export const remove = (ctx: Ctx, params: ById) =>
  Effect.gen(function* () {
    if (!(yield* Clients.remove(ctx.workspace.id, params.id))) return yield* Effect.fail(notFound())
    yield* clientsChanged(ctx.workspace.id, params.id)
    return reply({ id: params.id, deleted: true })
  })

export const linkContact = (ctx: Ctx, params: ById, body: typeof LinkBody.Type) =>
  Effect.gen(function* () {
    const k = yield* clientOr404(ctx, params.id)
    const link = body.link ?? true
    const r = yield* Clients.linkContact(ctx.workspace.id, k.id, body.contact_id, link)
    if (r === null) return yield* Effect.fail(invalid({ contact_id: { key: 'field.unknown' } }))
    yield* clientsChanged(ctx.workspace.id, k.id)
    yield* contactsChanged(ctx.workspace.id, body.contact_id, 'updated')
    yield* Effect.forEach(
      r.leads,
      (l) => pipelineChanged(ctx.workspace.id, l.id, l.pipeline_id, 'lead_updated'),
      {
        discard: true,
      },
    )
    return reply({
      client_id: k.id,
      contact_id: body.contact_id,
      linked: link,
      leads_linked: r.leads.map((l) => l.id),
      contacts_count: (yield* clientOr404(ctx, k.id)).contacts_count,
    })
  })
