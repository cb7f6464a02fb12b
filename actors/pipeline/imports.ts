import { createHash } from 'node:crypto'
import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { FileStorage } from '../../engine/storage/FileStorage'
import { randomToken, SigningKey, signJson, verifyJson } from '../../engine/tokens'
import * as Clients from '../../store/clients'
import * as Contacts from '../../store/contacts'
import type { FieldRow } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import * as Leads from '../../store/leads'
import * as Pipelines from '../../store/pipelines'
import { WorkspaceActor } from '../admin/WorkspaceActor'
import { reply } from '../answer'
import { csv, inertRow } from '../cells'
import { contactsChanged } from '../contacts/events'
import { normalizeEmail, normalizePhone, regionOf } from '../contacts/phone'
import { freeKey, fromText, keyFromLabel, MAX_PER_ENTITY } from '../customValues'
import { type FieldMessage, invalid } from '../errors'
import { Id, type UploadedFile, unstorable } from '../fields'
import { addMessages, type Locale, t } from '../i18n'
import { type Ctx, leadViewerFor, pipelineViewerFor } from './access'
import { dayStart } from './dates'
import { pipelineChanged } from './events'
import { chooseContact } from './leads'
import { statusOf } from './moves'
import { settingsOf } from './settings'
import { cellText, readSheet, type Sheet, type Value } from './spreadsheet'

/**
 * Lead imports (spec 2 §4.7): the template (`xlsx` or `csv`), the preview of an uploaded `.xlsx` or
 * `.csv` (columns, samples, mapping suggestions by header names in English and Indonesian, and a
 * token valid one hour naming the stored upload), and the import itself, checked with `dry_run` or
 * run, with a column mapping; columns mapped to no lead field become text custom fields of leads.
 *
 * One plan decides every row (`plan`), for the dry run and for the run alike, so the dry run
 * reports exactly what the run does on the same data. A row's identity is a digest of its
 * workflow, title, contact phone and e-mail, and client (`import_key`): a row whose identity an
 * earlier import already made updates that lead's given cells (or leaves it unchanged) instead of
 * making it twice. Contacts are matched by phone then e-mail, else created, and clients found by
 * name or created, as lead creation does; numbers are gap-free (`Leads.insert`). Rows past the
 * monthly lead quota are refused with the reason. The run is one transaction (with an advisory
 * lock per workspace so two imports do not interleave): nothing is half-imported.
 */
addMessages({
  'import.token': {
    en: 'is not a valid import token (it lasts one hour); upload the file again',
    id: 'bukan token impor yang valid (berlaku satu jam); unggah file lagi',
  },
  'import.field': { en: 'is not a lead field: {fields}', id: 'bukan kolom prospek: {fields}' },
  'import.field_twice': { en: 'is mapped to {field} twice', id: 'dipetakan ke {field} dua kali' },
  'import.column': { en: 'is not a column of the file', id: 'bukan kolom dari file' },
  'import.too_many_fields': {
    en: 'would need {n} new custom fields; leads may have at most {max}',
    id: 'memerlukan {n} kolom khusus baru; prospek paling banyak {max}',
  },
  'import.duplicate_row': {
    en: 'repeats line {line} of the file',
    id: 'mengulang baris {line} dari file',
  },
  'import.quota': {
    en: 'is past the monthly lead limit of {limit}',
    id: 'melewati batas prospek bulanan {limit}',
  },
  'import.not_visible': {
    en: 'matches a lead you may not see',
    id: 'cocok dengan prospek yang tidak dapat Anda lihat',
  },
  'import.number': { en: 'must be a number', id: 'harus angka' },
  'import.date': { en: 'must be a date', id: 'harus tanggal' },
  'import.stage': { en: 'must be a stage of the workflow', id: 'harus tahap dari alur kerja' },
  'import.assignee': {
    en: 'must be the e-mail of a member with lead access',
    id: 'harus e-mail anggota dengan akses prospek',
  },
})

export const TOKEN_TTL_MS = 60 * 60 * 1000
/** Up to 50 MB uploaded (multipart); a larger file is 422 `file`, a larger body 413. */
export const UPLOAD_LIMITS = {
  maxBytes: 51 * 1024 * 1024,
  maxFiles: 1,
  maxFileBytes: 50 * 1024 * 1024,
} as const
const SAMPLES = 5
const ROWS_LISTED = 1000

/** The lead fields a column may fill. */
export const FIELDS = [
  'title',
  'pipeline',
  'stage',
  'value_estimate',
  'value_won',
  'budget',
  'expected_close',
  'followup_at',
  'followup_note',
  'note',
  'lost_reason',
  'contact_name',
  'contact_phone',
  'contact_email',
  'client',
  'assignee_email',
] as const
export type Field = (typeof FIELDS)[number]

/** Header names (lower-cased, non-letters as `_`) in English and Indonesian. */
const ALIASES: Readonly<Record<Field, readonly string[]>> = {
  title: [
    'title',
    'deal',
    'deal_name',
    'deal_title',
    'lead',
    'lead_title',
    'judul',
    'prospek',
    'nama_prospek',
    'judul_prospek',
    'nama_deal',
  ],
  pipeline: ['pipeline', 'workflow', 'alur_kerja', 'alur', 'pipeline_name'],
  stage: ['stage', 'tahap', 'tahapan', 'stage_name'],
  value_estimate: [
    'value',
    'value_estimate',
    'amount',
    'deal_value',
    'estimated_value',
    'prospect_value',
    'nilai',
    'nilai_perkiraan',
    'perkiraan_nilai',
    'nominal',
    'nilai_prospek',
  ],
  value_won: ['value_won', 'won_value', 'nilai_menang', 'nilai_deal', 'nilai_kesepakatan'],
  budget: ['budget', 'anggaran'],
  expected_close: [
    'expected_close',
    'close_date',
    'expected_close_date',
    'closing_date',
    'tanggal_closing',
    'perkiraan_closing',
    'target_closing',
    'perkiraan_tanggal_closing',
  ],
  followup_at: [
    'followup',
    'follow_up',
    'followup_at',
    'follow_up_date',
    'followup_date',
    'tindak_lanjut',
    'tanggal_tindak_lanjut',
  ],
  followup_note: ['followup_note', 'follow_up_note', 'catatan_tindak_lanjut'],
  note: ['note', 'notes', 'catatan', 'keterangan'],
  lost_reason: ['lost_reason', 'alasan_kalah', 'alasan_gagal'],
  contact_name: [
    'contact',
    'contact_name',
    'name',
    'customer',
    'customer_name',
    'nama',
    'nama_kontak',
    'kontak',
    'kontak_nama',
    'pelanggan',
    'nama_pelanggan',
  ],
  contact_phone: [
    'phone',
    'contact_phone',
    'phone_number',
    'mobile',
    'telepon',
    'no_telepon',
    'no_hp',
    'nomor_hp',
    'hp',
    'whatsapp',
    'no_wa',
    'kontak_telepon',
    'kontak_no_hp',
    'telp',
  ],
  contact_email: ['email', 'e_mail', 'contact_email', 'surel', 'kontak_email', 'kontak_e_mail'],
  client: [
    'client',
    'client_name',
    'company',
    'company_name',
    'klien',
    'perusahaan',
    'nama_perusahaan',
    'nama_klien',
  ],
  assignee_email: [
    'owner',
    'owner_email',
    'assignee',
    'assignee_email',
    'sales',
    'salesperson',
    'pemilik',
    'penanggung_jawab',
    'email_sales',
  ],
}
const BY_ALIAS = new Map(Object.entries(ALIASES).flatMap(([f, names]) => names.map((n) => [n, f as Field])))
const normal = (h: string) =>
  h
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')

export const suggest = (header: string): Field | null => BY_ALIAS.get(normal(header)) ?? null

// ---- Template --------------------------------------------------------------------------------

export const TemplateQuery = Schema.Struct({ format: Schema.optional(Schema.Literal('xlsx', 'csv')) })

const EXAMPLE: Readonly<Record<Field, string | number>> = {
  title: 'Office fit-out',
  pipeline: '',
  stage: 'New',
  value_estimate: 15000000,
  value_won: '',
  budget: 20000000,
  expected_close: '2026-12-31',
  followup_at: '2026-12-01',
  followup_note: 'Send the quotation',
  note: '',
  lost_reason: '',
  contact_name: 'Budi Santoso',
  contact_phone: '081234567890',
  contact_email: 'budi@example.com',
  client: 'PT Contoh Jaya',
  assignee_email: '',
}

export const template = (ctx: Ctx, q: typeof TemplateQuery.Type) =>
  Effect.gen(function* () {
    const defs = yield* CustomFields.list(ctx.workspace.id, ['lead'])
    const header = [...FIELDS, ...defs.map((d) => d.key)]
    const example = [...FIELDS.map((f) => EXAMPLE[f]), ...defs.map(() => '')]
    if (q.format === 'csv')
      return {
        name: 'leads-template.csv',
        mime: 'text/csv; charset=utf-8',
        bytes: new TextEncoder().encode(`\uFEFF${csv([header, example])}`),
      }
    const { default: ExcelJS } = yield* Effect.promise(() => import('exceljs'))
    const book = new ExcelJS.Workbook()
    const sheet = book.addWorksheet('Leads')
    sheet.addRow(inertRow(header)).font = { bold: true }
    sheet.addRow(inertRow(example))
    sheet.columns.forEach((c) => {
      c.width = 20
    })
    const buffer = yield* Effect.promise(() => book.xlsx.writeBuffer())
    return {
      name: 'leads-template.xlsx',
      mime: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      bytes: new Uint8Array(buffer as ArrayBuffer),
    }
  })

// ---- Preview ---------------------------------------------------------------------------------

interface TokenPayload {
  readonly p: 'lead_import'
  readonly w: number
  readonly u: number
  readonly k: string
  readonly n: string
  readonly e: number
  readonly r: string
}

export const preview = (ctx: Ctx, files: readonly UploadedFile[]) =>
  Effect.gen(function* () {
    const upload = files.find((f) => f.field === 'file')
    if (!upload) return yield* Effect.fail(invalid({ file: { key: 'field.file_required' } }))
    const sheet = yield* readSheet(upload.bytes, upload.filename)
    const storage = yield* FileStorage
    const storageKey = yield* storage.put(String(ctx.workspace.id), upload.bytes).pipe(Effect.orDie)
    const now = yield* currentTime
    const key = yield* SigningKey
    const expires = now.getTime() + TOKEN_TTL_MS
    const token = signJson(key, {
      p: 'lead_import',
      w: ctx.workspace.id,
      u: ctx.caller.user.id,
      k: storageKey,
      n: upload.filename.slice(0, 200),
      e: expires,
      r: randomToken(8),
    } satisfies TokenPayload)
    const defs = yield* CustomFields.list(ctx.workspace.id, ['lead'])
    return reply({
      token,
      expires_at: new Date(expires).toISOString(),
      file: { name: upload.filename, format: sheet.format, sheet: sheet.sheet, size: upload.bytes.length },
      rows_total: sheet.rows.length,
      columns: sheet.headers.map((h, i) => ({
        index: i,
        header: h,
        suggestion: suggest(h),
        custom_field: suggest(h) === null ? (defs.find((d) => matchesDef(d, h))?.key ?? null) : null,
        samples: sheet.rows.slice(0, SAMPLES).map((r) => cellText(r.cells[i] ?? null)),
      })),
      samples: sheet.rows
        .slice(0, SAMPLES)
        .map((r) => ({ line: r.line, cells: r.cells.map((c) => cellText(c)) })),
      fields: FIELDS,
    })
  })

const matchesDef = (d: FieldRow, header: string) =>
  d.key === normal(header) || d.label.trim().toLowerCase() === header.trim().toLowerCase()

// ---- Import ----------------------------------------------------------------------------------

export const ImportBody = Schema.Struct({
  token: Schema.String.pipe(Schema.maxLength(4000)),
  /** Header → lead field, or null to leave the column out; headers not named follow the suggestion. */
  mapping: Schema.optional(
    Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.String.pipe(Schema.maxLength(60))) }),
  ),
  dry_run: Schema.optional(Schema.Boolean),
  pipeline_id: Schema.optional(Id),
})

type Problem = {
  readonly field: string
  readonly key: string
  readonly params?: Record<string, string | number>
}

interface LeadData {
  readonly title: string
  readonly pipelineId: number
  readonly stage: Pipelines.StageRow
  readonly value_estimate?: number
  readonly value_won?: number
  readonly budget?: number
  readonly expected_close?: string
  readonly followup_at?: Date
  readonly followup_note?: string
  readonly note?: string
  readonly lost_reason?: string
  readonly contact: {
    readonly name: string
    readonly phone: string | null
    readonly email: string | null
  } | null
  readonly contactId: number | null
  readonly client: string | null
  readonly assigneeId: number | null
  readonly teamId: number | null
  readonly custom: Readonly<Record<string, unknown>>
}

type RowPlan =
  | { readonly line: number; readonly action: 'refuse'; readonly problems: readonly Problem[] }
  | { readonly line: number; readonly action: 'create'; readonly key: string; readonly data: LeadData }
  | {
      readonly line: number
      readonly action: 'update' | 'unchanged'
      readonly key: string
      readonly leadId: number
      readonly number: number
      readonly fields: Leads.LeadFields
      readonly custom: Readonly<Record<string, unknown>>
    }

const money = (v: Value): number | null => {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 && v < 1e15 ? v : null
  if (typeof v !== 'string') return null
  let s = v.replace(/[^\d.,-]/g, '')
  if (s === '' || s.includes('-')) return null
  const dots = (s.match(/\./g) ?? []).length
  const commas = (s.match(/,/g) ?? []).length
  if (dots > 0 && commas > 0) {
    const decimal = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ','
    s = s.replace(decimal === '.' ? /,/g : /\./g, '').replace(',', '.')
  } else if (dots + commas > 0) {
    const sep = dots > 0 ? '.' : ','
    const after = s.length - s.lastIndexOf(sep) - 1
    // `1.500.000`, `1,500` (thousands) against `12.5`, `12,50` (decimals).
    s = dots + commas > 1 || after === 3 ? s.split(sep).join('') : s.replace(sep, '.')
  }
  const n = Number(s)
  return Number.isFinite(n) && n < 1e15 ? n : null
}

const pad = (n: number) => String(n).padStart(2, '0')
const validDate = (y: number, m: number, d: number) => {
  const x = new Date(Date.UTC(y, m - 1, d))
  return x.getUTCFullYear() === y && x.getUTCMonth() === m - 1 && x.getUTCDate() === d
    ? `${y}-${pad(m)}-${pad(d)}`
    : null
}

/** A day: a date cell, an Excel serial number, `YYYY-MM-DD`, or `DD/MM/YYYY` (`-`, `.`) as written in Indonesia. */
const day = (v: Value): string | null => {
  if (v instanceof Date) return validDate(v.getUTCFullYear(), v.getUTCMonth() + 1, v.getUTCDate())
  if (typeof v === 'number' && v > 0 && v < 2_958_466) {
    const d = new Date(Math.round((v - 25569) * 86_400_000))
    return validDate(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate())
  }
  if (typeof v !== 'string') return null
  const iso = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?$/.exec(v.trim())
  if (iso) return validDate(Number(iso[1]), Number(iso[2]), Number(iso[3]))
  const dmy = /^(\d{1,2})[/.-](\d{1,2})[/.-](\d{4})$/.exec(v.trim())
  if (dmy) return validDate(Number(dmy[3]), Number(dmy[2]), Number(dmy[1]))
  return null
}

const identity = (
  pipelineId: number,
  title: string,
  phone: string | null,
  email: string | null,
  client: string | null,
) =>
  createHash('sha256')
    .update(
      [
        pipelineId,
        title.trim().toLowerCase(),
        phone ?? '',
        email ?? '',
        client?.trim().toLowerCase() ?? '',
      ].join('\n'),
    )
    .digest('base64url')

const openToken = (ctx: Ctx, token: string) =>
  Effect.gen(function* () {
    const key = yield* SigningKey
    const now = yield* currentTime
    const p = verifyJson(key, token) as Partial<TokenPayload> | null
    if (
      p?.p !== 'lead_import' ||
      p.w !== ctx.workspace.id ||
      p.u !== ctx.caller.user.id ||
      typeof p.k !== 'string' ||
      typeof p.e !== 'number' ||
      p.e < now.getTime()
    )
      return yield* Effect.fail(invalid({ token: { key: 'import.token' } }))
    const bytes = yield* Effect.flatMap(FileStorage, (s) => s.read(p.k!)).pipe(Effect.orDie)
    if (!bytes) return yield* Effect.fail(invalid({ token: { key: 'import.token' } }))
    return { sheet: yield* readSheet(bytes, p.n ?? ''), storageKey: p.k }
  })

interface Columns {
  readonly field: ReadonlyMap<Field, number>
  /** Column index → custom field key (existing or to be made). */
  readonly custom: ReadonlyMap<
    number,
    { readonly key: string; readonly label: string; readonly def: FieldRow | null }
  >
}

const columnsOf = (
  sheet: Sheet,
  mapping: Readonly<Record<string, string | null>>,
  defs: readonly FieldRow[],
) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    for (const h of Object.keys(mapping))
      if (!sheet.headers.includes(h)) problems[`mapping.${h}`] = { key: 'import.column' }
    const field = new Map<Field, number>()
    const custom = new Map<number, { key: string; label: string; def: FieldRow | null }>()
    const taken = new Set(defs.map((d) => d.key))
    sheet.headers.forEach((h, i) => {
      // Own keys only: a column headed `constructor` or `toString` is not mapped by the prototype.
      const named = Object.hasOwn(mapping, h)
      const chosen = named ? mapping[h] : suggest(h)
      if (chosen === null && named) return
      if (chosen !== null && chosen !== undefined && chosen !== 'custom') {
        if (!(FIELDS as readonly string[]).includes(chosen)) {
          problems[`mapping.${h}`] = { key: 'import.field', params: { fields: FIELDS.join(', ') } }
          return
        }
        if (field.has(chosen as Field)) {
          problems[`mapping.${h}`] = { key: 'import.field_twice', params: { field: chosen } }
          return
        }
        field.set(chosen as Field, i)
        return
      }
      // Unmatched: a custom field of leads (an existing one of that key or label, else a new text one).
      const def = defs.find((d) => matchesDef(d, h)) ?? null
      if (def) custom.set(i, { key: def.key, label: def.label, def })
      else {
        const key = freeKey(keyFromLabel(h), taken)
        taken.add(key)
        custom.set(i, { key, label: h.slice(0, 100), def: null })
      }
    })
    if (!field.has('title') && !field.has('contact_name') && !field.has('client'))
      problems['mapping.title'] = { key: 'field.required' }
    const fresh = [...custom.values()].filter((c) => c.def === null).length
    if (fresh > 0 && defs.length + fresh > MAX_PER_ENTITY)
      problems.mapping = { key: 'import.too_many_fields', params: { n: fresh, max: MAX_PER_ENTITY } }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    return { field, custom } satisfies Columns
  })

/** What the import does with every row, decided on the data as it is now (dry run and run alike). */
const plan = (ctx: Ctx, sheet: Sheet, cols: Columns, defaultPipeline: number | undefined, quota: LeadRoom) =>
  Effect.gen(function* () {
    const pViewer = pipelineViewerFor(ctx.caller, ctx.workspace)
    const visible = (yield* Pipelines.list(pViewer, false)).filter((p) => p.archived_at === null)
    const stages = yield* Pipelines.stagesOf(visible.map((p) => p.id))
    const fallback =
      defaultPipeline !== undefined ? visible.find((p) => p.id === defaultPipeline) : visible[0]
    if (!fallback) return yield* Effect.fail(invalid({ pipeline_id: { key: 'leads.pipeline' } }))
    const settings = yield* settingsOf(ctx.workspace.id)
    const people = yield* Leads.candidates(ctx.workspace.id)
    const zone = ctx.workspace.timezone
    const get = (cells: readonly Value[], f: Field) => {
      const i = cols.field.get(f)
      return i === undefined ? null : (cells[i] ?? null)
    }
    const drafts: Array<{ line: number; problems: Problem[]; data: LeadData | null; key: string | null }> = []
    for (const row of sheet.rows) {
      const problems: Problem[] = []
      // NUL or an unpaired surrogate (an `.xlsx` cell may carry either) fits no column: the row's fault.
      for (const [f, i] of cols.field)
        if (unstorable(row.cells[i])) problems.push({ field: f, key: 'field.characters' })
      for (const [i, c] of cols.custom)
        if (unstorable(row.cells[i])) problems.push({ field: `custom.${c.key}`, key: 'field.characters' })
      if (problems.length > 0) {
        drafts.push({ line: row.line, problems, data: null, key: null })
        continue
      }
      const str = (f: Field) => {
        const v = get(row.cells, f)
        return v === null ? null : cellText(v).trim() || null
      }
      const num = (f: Field) => {
        const v = get(row.cells, f)
        if (v === null) return undefined
        const n = money(v)
        if (n === null) problems.push({ field: f, key: 'import.number' })
        return n ?? undefined
      }
      const pName = str('pipeline')
      const pipeline = pName
        ? visible.find((p) => p.name.trim().toLowerCase() === pName.toLowerCase())
        : fallback
      if (!pipeline) problems.push({ field: 'pipeline', key: 'leads.pipeline' })
      const own = stages.filter((s) => s.pipeline_id === (pipeline ?? fallback).id)
      const sName = str('stage')
      const stage = sName
        ? own.find((s) => s.label.trim().toLowerCase() === sName.toLowerCase())
        : own.find((s) => s.kind === 'new')
      if (!stage) problems.push({ field: 'stage', key: 'import.stage' })
      const contactName = str('contact_name')
      const client = str('client')
      const title = str('title') ?? contactName ?? client
      if (!title) problems.push({ field: 'title', key: 'field.required' })
      const value_estimate = num('value_estimate')
      const value_won = num('value_won')
      const budget = num('budget')
      const closeCell = get(row.cells, 'expected_close')
      const expected_close = closeCell === null ? undefined : (day(closeCell) ?? undefined)
      if (closeCell !== null && expected_close === undefined)
        problems.push({ field: 'expected_close', key: 'import.date' })
      const followCell = get(row.cells, 'followup_at')
      let followup_at: Date | undefined
      if (followCell !== null) {
        const d =
          followCell instanceof Date && (followCell.getUTCHours() || followCell.getUTCMinutes())
            ? followCell
            : null
        const asDay = d ? null : day(followCell)
        if (d) followup_at = d
        else if (asDay) followup_at = dayStart(asDay, zone)
        else problems.push({ field: 'followup_at', key: 'import.date' })
      }
      // The contact as lead creation finds or makes it (phone, then e-mail).
      const cp: Record<string, FieldMessage> = {}
      const phone = str('contact_phone')
      const email = str('contact_email')
      const contactChoice =
        contactName || phone || email
          ? yield* chooseContact(
              ctx,
              {
                title: 'x',
                contact: {
                  ...(contactName ? { name: contactName.slice(0, 200) } : {}),
                  ...(phone ? { phone: phone.slice(0, 40) } : {}),
                  ...(email ? { email: email.slice(0, 320) } : {}),
                },
              },
              cp,
            )
          : ({ _tag: 'None' } as const)
      for (const [f, m] of Object.entries(cp))
        problems.push({
          field: f.replace('contact.', 'contact_'),
          key: m.key,
          ...(m.params ? { params: { ...m.params } } : {}),
        })
      const assigneeMail = str('assignee_email')?.toLowerCase()
      const assignee = assigneeMail ? people.find((p) => p.email.toLowerCase() === assigneeMail) : undefined
      if (assigneeMail && !assignee) problems.push({ field: 'assignee_email', key: 'import.assignee' })
      let lost_reason: string | undefined
      if (stage?.kind === 'lost') {
        const r = str('lost_reason') ?? ''
        lost_reason = settings.lost_reasons.find((x) => x.toLowerCase() === r.toLowerCase())
        if (lost_reason === undefined)
          problems.push({
            field: 'lost_reason',
            key: 'leads.lost_reason',
            params: { reasons: settings.lost_reasons.join(', ') },
          })
      }
      if (stage?.kind === 'won' && value_won === undefined && value_estimate === undefined)
        problems.push({ field: 'value_won', key: 'leads.value_won_required' })
      const custom: Record<string, unknown> = {}
      for (const [i, c] of cols.custom) {
        const v = row.cells[i] ?? null
        if (v === null) continue
        const textValue = cellText(v).slice(0, 2000)
        if (c.def) {
          const r = fromText(c.def, textValue)
          if (r.ok) custom[c.key] = r.value
          else problems.push({ field: `custom.${c.key}`, key: r.key })
        } else custom[c.key] = textValue
      }
      const contact =
        contactChoice._tag === 'New'
          ? { name: contactChoice.name, phone: contactChoice.phone, email: contactChoice.email }
          : null
      if (problems.length > 0 || !pipeline || !stage || !title) {
        drafts.push({ line: row.line, problems, data: null, key: null })
        continue
      }
      const teamId = pipeline.team_ids.length === 1 ? pipeline.team_ids[0]! : null
      drafts.push({
        line: row.line,
        problems,
        key: identity(
          pipeline.id,
          title,
          phone ? (normalizePhone(phone, regionOf(zone)) ?? phone.replace(/\D/g, '')) : null,
          email ? (normalizeEmail(email) ?? email.toLowerCase()) : null,
          client,
        ),
        data: {
          title: title.slice(0, 200),
          pipelineId: pipeline.id,
          stage,
          ...(value_estimate !== undefined ? { value_estimate } : {}),
          ...(value_won !== undefined ? { value_won } : {}),
          ...(budget !== undefined ? { budget } : {}),
          ...(expected_close !== undefined ? { expected_close } : {}),
          ...(followup_at !== undefined ? { followup_at } : {}),
          ...(str('followup_note') ? { followup_note: str('followup_note')!.slice(0, 1000) } : {}),
          ...(str('note') ? { note: str('note')!.slice(0, 10_000) } : {}),
          ...(lost_reason !== undefined ? { lost_reason } : {}),
          contact,
          contactId: contactChoice._tag === 'Existing' ? contactChoice.id : null,
          client: client ? client.slice(0, 200) : null,
          assigneeId: assignee?.id ?? null,
          teamId:
            assignee && teamId !== null && !assignee.is_admin && !assignee.team_ids.includes(teamId)
              ? null
              : teamId,
          custom,
        },
      })
    }
    // Earlier imports' leads of these identities, and repeats within the file.
    const keys = drafts.flatMap((d) => (d.key ? [d.key] : []))
    const existing = new Map(
      (yield* Leads.byImportKeys(ctx.workspace.id, keys)).map((l) => [l.import_key, l]),
    )
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const seesIds = new Set<number>()
    for (const l of existing.values()) if (yield* Leads.sees(viewer, l.id)) seesIds.add(l.id)
    let room = quota.room
    const firstLine = new Map<string, number>()
    const rows: RowPlan[] = []
    for (const d of drafts) {
      if (!d.data || !d.key) {
        rows.push({ line: d.line, action: 'refuse', problems: d.problems })
        continue
      }
      const earlier = firstLine.get(d.key)
      if (earlier !== undefined) {
        rows.push({
          line: d.line,
          action: 'refuse',
          problems: [{ field: 'row', key: 'import.duplicate_row', params: { line: earlier } }],
        })
        continue
      }
      firstLine.set(d.key, d.line)
      const found = existing.get(d.key)
      if (found) {
        if (!seesIds.has(found.id)) {
          rows.push({
            line: d.line,
            action: 'refuse',
            problems: [{ field: 'row', key: 'import.not_visible' }],
          })
          continue
        }
        const x = d.data
        const fields: Record<string, unknown> = {}
        const maybe = (k: keyof Leads.LeadFields, v: unknown, now: unknown) => {
          if (v === undefined) return
          const same = v instanceof Date && now instanceof Date ? v.getTime() === now.getTime() : v === now
          if (!same) fields[k] = v
        }
        maybe('value_estimate', x.value_estimate, found.value_estimate)
        maybe('budget', x.budget, found.budget)
        maybe('expected_close', x.expected_close, found.expected_close)
        maybe('followup_at', x.followup_at, found.followup_at)
        maybe('followup_note', x.followup_note, found.followup_note)
        maybe('note', x.note, found.note)
        const custom = Object.fromEntries(Object.entries(x.custom).filter(([k, v]) => found.custom[k] !== v))
        const changed = Object.keys(fields).length > 0 || Object.keys(custom).length > 0
        rows.push({
          line: d.line,
          action: changed ? 'update' : 'unchanged',
          key: d.key,
          leadId: found.id,
          number: found.number,
          fields: fields as Leads.LeadFields,
          custom,
        })
        continue
      }
      if (room <= 0) {
        rows.push({
          line: d.line,
          action: 'refuse',
          problems: [{ field: 'row', key: 'import.quota', params: { limit: quota.limit } }],
        })
        continue
      }
      room--
      rows.push({ line: d.line, action: 'create', key: d.key, data: d.data })
    }
    return rows
  })

const applyPlan = (ctx: Ctx, rows: readonly RowPlan[], cols: Columns, now: Date) =>
  Effect.gen(function* () {
    const made = new Map<number, { id: number; number: number }>()
    const contactsMade: number[] = []
    // New custom fields first (text), so the values have their definitions.
    for (const c of cols.custom.values()) {
      if (c.def) continue
      const r = yield* CustomFields.insertWithin(
        ctx.workspace.id,
        { entity: 'lead', key: c.key, label: c.label, type: 'text', options: [] },
        MAX_PER_ENTITY,
      )
      if (r._tag !== 'Created')
        return yield* Effect.fail(
          invalid({ mapping: { key: 'import.too_many_fields', params: { n: 1, max: MAX_PER_ENTITY } } }),
        )
    }
    for (const r of rows) {
      if (r.action === 'update') {
        yield* Leads.update(r.leadId, r.fields, now)
        if (Object.keys(r.custom).length > 0) yield* Leads.mergeCustom(r.leadId, r.custom, now)
        yield* Leads.recordChange(
          ctx.workspace.id,
          r.leadId,
          {
            change: 'updated',
            fields: [...Object.keys(r.fields), ...(Object.keys(r.custom).length > 0 ? ['custom'] : [])],
            import: true,
          },
          ctx.caller.user.id,
          now,
        )
      }
      if (r.action !== 'create') continue
      const x = r.data
      let contactId = x.contactId
      if (x.contact) {
        // A contact an earlier row of this file made is matched like any other.
        const again =
          (x.contact.phone ? yield* Leads.liveContactBy(ctx.workspace.id, 'phone', x.contact.phone) : null) ??
          (x.contact.email ? yield* Leads.liveContactBy(ctx.workspace.id, 'email', x.contact.email) : null)
        if (again !== null) contactId = again
        else {
          const c = yield* Contacts.insert(ctx.workspace.id, { ...x.contact, custom: {} })
          yield* Contacts.recordEvent(
            ctx.workspace.id,
            c.id,
            'created',
            { lead: true, import: true },
            ctx.caller.user.id,
          )
          contactId = c.id
          contactsMade.push(c.id)
        }
      }
      const clientId = x.client
        ? (yield* Clients.findOrCreate(ctx.workspace.id, x.client, ctx.caller.user.id)).id
        : null
      const status = statusOf(x.stage.kind)
      const lead = yield* Leads.insert(ctx.workspace.id, {
        title: x.title,
        pipeline_id: x.pipelineId,
        stage_id: x.stage.id,
        status,
        team_id: x.teamId,
        assignee_id: x.assigneeId,
        contact_id: contactId,
        client_id: clientId,
        value_estimate: x.value_estimate ?? null,
        ...(status === 'won' ? { value_won: x.value_won ?? x.value_estimate ?? null, closed_at: now } : {}),
        ...(status === 'lost' ? { lost_reason: x.lost_reason ?? null, closed_at: now } : {}),
        budget: x.budget ?? null,
        expected_close: x.expected_close ?? null,
        followup_at: x.followup_at ?? null,
        followup_note: x.followup_note ?? null,
        note: x.note ?? null,
        custom: x.custom,
        source: 'import',
        created_by: ctx.caller.user.id,
        stage_changed_at: now,
        at: now,
      })
      if (!lead) return yield* Effect.fail(invalid({ pipeline_id: { key: 'leads.pipeline' } }))
      yield* Leads.setImportKey(lead.id, r.key)
      yield* Leads.recordChange(
        ctx.workspace.id,
        lead.id,
        { change: 'created', stage: { id: x.stage.id, label: x.stage.label }, import: true },
        ctx.caller.user.id,
        now,
      )
      made.set(r.line, lead)
    }
    return { made, contactsMade }
  })

/** How many leads this month's quota still allows (`limit` 0: no limit). */
interface LeadRoom {
  readonly limit: number
  readonly room: number
}

const leadRoom = (ctx: Ctx, now: Date) =>
  Effect.map(
    Effect.flatMap(WorkspaceActor, (a) => a.ask(ctx.workspace.id, { _tag: 'Usage', now })),
    (usage): LeadRoom => {
      const q = usage.leads_per_month
      return {
        limit: q.limit,
        room: q.limit === 0 ? Number.POSITIVE_INFINITY : Math.max(0, q.limit - q.used),
      }
    },
  )

/**
 * Reserves `n` leads of the month's quota. Actors are asked outside the run's transaction: on the
 * embedded database (one connection) an actor's query would wait for the connection the
 * transaction holds, forever (docs/decisions.md, "One connection, no waiting on it").
 */
const reserveLeads = (ctx: Ctx, n: number, now: Date) =>
  Effect.flatMap(WorkspaceActor, (a) =>
    a.ask(ctx.workspace.id, { _tag: 'Consume', counter: 'leads_per_month', n, now }),
  )

const releaseLeads = (ctx: Ctx, n: number, now: Date) =>
  n <= 0
    ? Effect.void
    : Effect.flatMap(WorkspaceActor, (a) =>
        a.ask(ctx.workspace.id, { _tag: 'Release', counter: 'leads_per_month', n, now }),
      ).pipe(Effect.asVoid)

export const runImport = (ctx: Ctx, body: typeof ImportBody.Type, locale: Locale) =>
  Effect.gen(function* () {
    const { sheet, storageKey } = yield* openToken(ctx, body.token)
    const defs = yield* CustomFields.list(ctx.workspace.id, ['lead'])
    const cols = yield* columnsOf(sheet, body.mapping ?? {}, defs)
    const pipelineId = body.pipeline_id
    const dry = body.dry_run === true
    const sql = yield* SqlClient.SqlClient
    const now = yield* currentTime
    const quota = yield* leadRoom(ctx, now)
    const first = yield* plan(ctx, sheet, cols, pipelineId, quota)
    const creates = (rows: readonly RowPlan[]) => rows.filter((r) => r.action === 'create').length
    let outcome = {
      rows: first,
      made: new Map<number, { id: number; number: number }>(),
      contactsMade: [] as number[],
    }
    if (!dry) {
      // The quota is reserved for the rows the plan creates, then the plan is made again under
      // the import lock with at most that many creates; what it did not use is given back.
      const reserved = creates(first)
      if (reserved > 0) yield* reserveLeads(ctx, reserved, now)
      outcome = yield* sql
        .withTransaction(
          Effect.gen(function* () {
            yield* Leads.lockImports(ctx.workspace.id)
            const rows = yield* plan(ctx, sheet, cols, pipelineId, { limit: quota.limit, room: reserved })
            const applied = yield* applyPlan(ctx, rows, cols, now)
            return { rows, ...applied }
          }),
        )
        .pipe(Effect.onError(() => releaseLeads(ctx, reserved, now).pipe(Effect.ignore)))
      yield* releaseLeads(ctx, reserved - creates(outcome.rows), now).pipe(Effect.ignore)
    }
    const { rows, made, contactsMade } = outcome
    if (!dry) {
      // The upload served its purpose: a run uses its token once.
      yield* Effect.flatMap(FileStorage, (st) => st.remove(storageKey)).pipe(
        Effect.catchAll(() => Effect.void),
      )
      if (contactsMade.length > 0) yield* contactsChanged(ctx.workspace.id, null, 'imported')
      if (rows.some((r) => r.action === 'create' || r.action === 'update'))
        yield* pipelineChanged(ctx.workspace.id, null, null, 'imported')
    }
    const count = (a: RowPlan['action']) => rows.filter((r) => r.action === a).length
    const newFields = [...cols.custom.values()].filter((c) => c.def === null).map((c) => c.key)
    return reply(
      {
        dry_run: dry,
        created: count('create'),
        updated: count('update'),
        unchanged: count('unchanged'),
        refused: count('refuse'),
        custom_fields_created: newFields,
        rows: rows.slice(0, ROWS_LISTED).map((r) => {
          const lead =
            r.action === 'create'
              ? (made.get(r.line) ?? null)
              : r.action === 'refuse'
                ? null
                : { id: r.leadId, number: r.number }
          return {
            line: r.line,
            action: r.action,
            lead_id: lead?.id ?? null,
            identifier: lead ? `LEAD-${lead.number}` : null,
            problems:
              r.action === 'refuse'
                ? r.problems.map((p) => ({
                    field: p.field,
                    code: p.key,
                    message: t(locale, p.key, p.params),
                  }))
                : [],
          }
        }),
      },
      { rows_total: rows.length, rows_listed: Math.min(rows.length, ROWS_LISTED) },
    )
  })
