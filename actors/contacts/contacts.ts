import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import * as Import from '../../store/contactImport'
import * as Contacts from '../../store/contacts'
import * as CustomFields from '../../store/customFields'
import * as Members from '../../store/members'
import { checkValues } from '../customValues'
import { ProblemSet } from '../errors'
import { invalid, missing } from './errors'
import { contactsChanged } from './events'
import { normalizeEmail, normalizePhone, regionOf } from './phone'

/**
 * Writing contacts (spec 2 §2, §4.4 `POST /contacts`, `PATCH /contacts/{id}`, labels, opt-out):
 * phones to E.164 in the workspace's region, e-mails lower-cased, the owner an active member,
 * labels and custom values the workspace's; one phone or e-mail is one contact. Each change is
 * recorded on the contact's timeline and announced after commit.
 */
export interface Ctx {
  readonly workspaceId: number
  readonly timezone: string
  /** Who acts (the key's creator for API keys). */
  readonly userId: number
}

/** The fields of spec 2 §2 as sent (normalised here), with the labels and custom values. */
export interface ContactInput extends Contacts.ContactFields {
  readonly label_ids?: readonly number[]
  readonly custom?: Readonly<Record<string, unknown>>
}

const OPTIONAL_TEXT = ['company', 'job_title', 'address', 'city', 'language'] as const

export const definitions = (workspaceId: number) => CustomFields.list(workspaceId, ['contact'])

/** Every label of the workspace by id (presenting label names). */
export const labelMap = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Contacts.LabelRow>`SELECT * FROM labels WHERE workspace_id = ${workspaceId}`.pipe(
      Effect.map((rows) => new Map(rows.map((l) => [l.id, l]))),
    ),
  )

/** The live contact of the workspace, or Missing. */
export const find = (workspaceId: number, id: number) =>
  Effect.flatMap(Contacts.viewById(workspaceId, id), (c) => (c ? Effect.succeed(c) : Effect.fail(missing())))

/** Another live contact with this phone or e-mail already (one phone or e-mail is one contact). */
const taken = (workspaceId: number, field: 'phone' | 'email', value: string, except: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{
      id: number
    }>`SELECT id FROM contacts WHERE workspace_id = ${workspaceId} AND ${sql(field)} = ${value}
      AND id <> ${except} AND merged_into IS NULL AND deleting_at IS NULL LIMIT 1`.pipe(
      Effect.map((r) => r[0]?.id ?? null),
    ),
  )

/** The input checked and normalised into the store's fields; problems collected in `problems`. */
const normalise = (ctx: Ctx, input: ContactInput, problems: ProblemSet, except: number) =>
  Effect.gen(function* () {
    const out: { -readonly [K in keyof Contacts.ContactFields]: Contacts.ContactFields[K] } = {}
    if (input.name !== undefined) out.name = input.name.trim()
    if (input.phone !== undefined) {
      if (input.phone === null || input.phone.trim() === '') out.phone = null
      else {
        const p = normalizePhone(input.phone, regionOf(ctx.timezone))
        if (p === null) problems.add('phone', 'contacts.phone_invalid')
        else {
          const other = yield* taken(ctx.workspaceId, 'phone', p, except)
          if (other !== null) problems.add('phone', 'contacts.phone_taken', { id: other })
          out.phone = p
        }
      }
    }
    if (input.email !== undefined) {
      if (input.email === null || input.email.trim() === '') out.email = null
      else {
        const e = normalizeEmail(input.email)
        if (e === null) problems.add('email', 'field.email')
        else {
          const other = yield* taken(ctx.workspaceId, 'email', e, except)
          if (other !== null) problems.add('email', 'contacts.email_taken', { id: other })
          out.email = e
        }
      }
    }
    for (const k of OPTIONAL_TEXT) {
      const v = input[k]
      if (v !== undefined) out[k] = v === null || v.trim() === '' ? null : v.trim()
    }
    if (input.owner_id !== undefined) {
      if (input.owner_id !== null && !(yield* Members.activeMembership(input.owner_id, ctx.workspaceId)))
        problems.add('owner_id', 'contacts.owner')
      out.owner_id = input.owner_id
    }
    if (input.label_ids !== undefined) {
      const found = yield* Contacts.labelsByIds(ctx.workspaceId, [...new Set(input.label_ids)])
      if (found.length !== new Set(input.label_ids).size) problems.add('label_ids', 'field.unknown')
    }
    const custom =
      input.custom === undefined
        ? undefined
        : checkValues(yield* definitions(ctx.workspaceId), input.custom, problems)
    return { fields: out, custom }
  })

/**
 * Takes the locks of the phone and e-mail the input gives (store/contacts `lockAddresses`), so two
 * writes giving contacts one address meet: the second sees the first's contact and answers 422.
 * A CSV import takes no address lock, so such a write first holds imports off (it waits for a
 * running one, which then holds the phone, and one starting waits for it, and matches its contact).
 */
const lockAddresses = (ctx: Ctx, input: ContactInput) => {
  const region = regionOf(ctx.timezone)
  const phone = input.phone?.trim() ? normalizePhone(input.phone, region) : null
  const email = input.email?.trim() ? normalizeEmail(input.email) : null
  const addresses = [phone, email].filter((a): a is string => a !== null)
  if (addresses.length === 0) return Effect.void
  return Effect.andThen(
    Import.holdOffImports(ctx.workspaceId),
    Contacts.lockAddresses(ctx.workspaceId, addresses),
  )
}

export const create = (ctx: Ctx, input: ContactInput) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const row = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* lockAddresses(ctx, input)
        const problems = new ProblemSet()
        const { fields, custom } = yield* normalise(ctx, input, problems, 0)
        const name = fields.name || fields.phone || fields.email || ''
        if (name === '') problems.add('name', 'contacts.name_or_address')
        if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
        const row = yield* Contacts.insert(ctx.workspaceId, { ...fields, name, custom: custom?.set ?? {} })
        if (input.label_ids) yield* Contacts.setLabels(row.id, [...new Set(input.label_ids)])
        yield* Contacts.recordEvent(ctx.workspaceId, row.id, 'created', {}, ctx.userId)
        return row
      }),
    )
    yield* contactsChanged(ctx.workspaceId, row.id, 'created')
    return yield* find(ctx.workspaceId, row.id)
  })

/** Only the sent fields change; `label_ids` replaces every label. */
export const update = (ctx: Ctx, id: number, input: ContactInput) =>
  Effect.gen(function* () {
    const before = yield* find(ctx.workspaceId, id)
    const sql = yield* SqlClient.SqlClient
    yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* lockAddresses(ctx, input)
        const problems = new ProblemSet()
        const { fields, custom } = yield* normalise(ctx, input, problems, id)
        if (fields.name !== undefined && fields.name === '') problems.add('name', 'field.required')
        if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
        const changed = Object.keys(fields).filter(
          (k) => fields[k as keyof typeof fields] !== before[k as keyof typeof fields],
        )
        yield* Contacts.update(id, {
          ...fields,
          ...(custom ? { customSet: custom.set, customClear: custom.clear } : {}),
        })
        if (input.label_ids) yield* Contacts.setLabels(id, [...new Set(input.label_ids)])
        const all = [...changed, ...(custom ? ['custom'] : []), ...(input.label_ids ? ['label_ids'] : [])]
        if (all.length > 0)
          yield* Contacts.recordEvent(ctx.workspaceId, id, 'updated', { fields: all }, ctx.userId)
      }),
    )
    yield* contactsChanged(ctx.workspaceId, id, 'updated')
    return yield* find(ctx.workspaceId, id)
  })

/** Adds or removes one label; adding an unknown label is 422, removing one the contact lacks 404. */
const changeLabel = (ctx: Ctx, id: number, labelId: number, on: boolean) =>
  Effect.gen(function* () {
    yield* find(ctx.workspaceId, id)
    const label = yield* Contacts.labelById(ctx.workspaceId, labelId)
    if (!label) return yield* Effect.fail(on ? invalid({ label_id: { key: 'field.unknown' } }) : missing())
    if (on) yield* Contacts.addLabel(id, labelId)
    else if (!(yield* Contacts.removeLabel(id, labelId))) return yield* Effect.fail(missing())
    const kind = on ? 'label_added' : 'label_removed'
    yield* Contacts.recordEvent(
      ctx.workspaceId,
      id,
      kind,
      { label_id: labelId, name: label.name },
      ctx.userId,
    )
    yield* contactsChanged(ctx.workspaceId, id, 'labels')
    return yield* find(ctx.workspaceId, id)
  })

export const addLabel = (ctx: Ctx, id: number, labelId: number) => changeLabel(ctx, id, labelId, true)
export const removeLabel = (ctx: Ctx, id: number, labelId: number) => changeLabel(ctx, id, labelId, false)

/** The broadcast opt-out flag (honoured by broadcasts when they exist). */
export const setOptOut = (ctx: Ctx, id: number, optOut: boolean) =>
  Effect.gen(function* () {
    const before = yield* find(ctx.workspaceId, id)
    if (before.broadcast_opt_out !== optOut) {
      yield* Contacts.update(id, { broadcast_opt_out: optOut })
      yield* Contacts.recordEvent(ctx.workspaceId, id, 'broadcast_opt_out', { opt_out: optOut }, ctx.userId)
      yield* contactsChanged(ctx.workspaceId, id, 'updated')
    }
    return yield* find(ctx.workspaceId, id)
  })
