import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { startOfLocalDay } from '../../engine/time'
import * as Channels from '../../store/channels'
import * as CustomFields from '../../store/customFields'
import type * as Segments from '../../store/segments'
import type { WorkspaceRow } from '../../store/workspaces'
import { labelMap } from '../contacts/contacts'
import type { FieldMessage } from '../errors'
import { addMessages } from '../i18n'

/**
 * The segment field catalogue (spec 2 §4.8 `GET /segments/fields`) and the check that turns a
 * rule `{field, op, value, value2}` into a compiled condition (store/segments.ts `Cond`): contact
 * fields, service labels, messaging-app labels, channels, owner, activity dates, opt-out and
 * contact custom fields as `cf:<key>`. Dates are local dates (`YYYY-MM-DD`) of the workspace zone.
 */
addMessages({
  'segments.field_unknown': { en: 'is not a segment field', id: 'bukan kolom segmen' },
  'segments.op_unknown': {
    en: 'is not an operator of this field (use one of: {values})',
    id: 'bukan operator kolom ini (gunakan salah satu dari: {values})',
  },
  'segments.value_date': { en: 'must be a date (YYYY-MM-DD)', id: 'harus tanggal (YYYY-MM-DD)' },
  'segments.value_days': {
    en: 'must be a whole number of days from 1 to 3650',
    id: 'harus jumlah hari bulat dari 1 sampai 3650',
  },
  'segments.value_number': { en: 'must be a number', id: 'harus angka' },
  'segments.value_text': {
    en: 'must be text of 1 to 255 characters',
    id: 'harus teks 1 sampai 255 karakter',
  },
  'segments.value_option': { en: 'must be one of the field’s options', id: 'harus salah satu pilihan kolom' },
  'segments.value_order': {
    en: 'must not be before the first value',
    id: 'tidak boleh sebelum nilai pertama',
  },
  'field.unknown': { en: 'does not exist', id: 'tidak ada' },
})

export const MAX_RULES = 15

export const Rule = Schema.Struct({
  field: Schema.String.pipe(Schema.maxLength(80)),
  op: Schema.String.pipe(Schema.maxLength(40)),
  value: Schema.optional(
    Schema.Union(Schema.String.pipe(Schema.maxLength(255)), Schema.Number, Schema.Boolean, Schema.Null),
  ),
  value2: Schema.optional(
    Schema.Union(Schema.String.pipe(Schema.maxLength(255)), Schema.Number, Schema.Null),
  ),
})
export type Rule = typeof Rule.Type
export const Match = Schema.Literal('all', 'any')
export const Rules = Schema.Array(Rule).pipe(Schema.maxItems(MAX_RULES))

const TEXT_OPS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'is_empty',
  'is_not_empty',
] as const
const NUMBER_OPS = [
  'equals',
  'not_equals',
  'gt',
  'gte',
  'lt',
  'lte',
  'between',
  'is_empty',
  'is_not_empty',
] as const
const DATE_OPS = [
  'before',
  'after',
  'between',
  'in_last_days',
  'not_in_last_days',
  'is_empty',
  'is_not_empty',
] as const
const CUSTOM_DATE_OPS = ['before', 'after', 'between', 'is_empty', 'is_not_empty'] as const
const HAS_OPS = ['has', 'not_has'] as const
const OWNER_OPS = ['is', 'is_not', 'is_empty', 'is_not_empty'] as const
const BOOL_OPS = ['is_true', 'is_false'] as const
const SELECT_OPS = ['equals', 'not_equals', 'is_empty', 'is_not_empty'] as const

/** Operators that need no value. */
const NO_VALUE = new Set(['is_empty', 'is_not_empty', 'is_true', 'is_false'])

const CONTACT_TEXT: ReadonlyArray<readonly [Segments.TextColumn, string]> = [
  ['name', 'Name'],
  ['phone', 'Phone'],
  ['email', 'E-mail'],
  ['company', 'Company'],
  ['job_title', 'Job title'],
  ['address', 'Address'],
  ['city', 'City'],
  ['language', 'Language'],
]
const DATES: ReadonlyArray<readonly [string, Segments.DateColumn, string]> = [
  ['created_at', 'created', 'Created'],
  ['last_activity_at', 'last_activity', 'Last conversation activity'],
  ['last_inbound_at', 'last_inbound', 'Last message from the contact'],
]

export interface FieldValue {
  readonly value: string | number
  readonly label: string
}

export interface CatalogueField {
  readonly field: string
  readonly label: string
  readonly group: 'contact' | 'labels' | 'channels' | 'activity' | 'broadcasts' | 'custom'
  readonly type:
    | 'text'
    | 'number'
    | 'date'
    | 'boolean'
    | 'select'
    | 'label'
    | 'msgapp_label'
    | 'channel'
    | 'owner'
  readonly ops: readonly string[]
  readonly values?: readonly FieldValue[]
}

/** What the checks need to know of the workspace: its zone, labels, numbers, members, fields. */
export interface Catalogue {
  readonly fields: ReadonlyMap<string, CatalogueField>
  readonly customTypes: ReadonlyMap<string, { readonly type: string; readonly options: readonly string[] }>
  readonly zone: string
}

const members = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ user_id: number; name: string }>`
      SELECT m.user_id, u.name FROM members m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = ${workspaceId} AND m.status = 'active' ORDER BY lower(u.name), u.id`,
  )

const msgappLabels = (workspaceId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ channel_id: number; label_id: string; name: string; channel: string }>`
      SELECT l.channel_id, l.label_id, l.name, c.name AS channel FROM msgapp_labels l
      JOIN channels c ON c.id = l.channel_id
      WHERE c.workspace_id = ${workspaceId} AND c.archived_at IS NULL AND NOT l.deleted
      ORDER BY c.id, l.name`,
  )

export const catalogueOf = (workspace: WorkspaceRow) =>
  Effect.gen(function* () {
    const [labels, channels, people, waLabels, customs] = yield* Effect.all([
      labelMap(workspace.id),
      Channels.listLive(workspace.id, null),
      members(workspace.id),
      msgappLabels(workspace.id),
      CustomFields.list(workspace.id, ['contact']),
    ])
    const list: CatalogueField[] = [
      ...CONTACT_TEXT.map(
        ([field, label]): CatalogueField => ({ field, label, group: 'contact', type: 'text', ops: TEXT_OPS }),
      ),
      {
        field: 'label',
        label: 'Label',
        group: 'labels',
        type: 'label',
        ops: HAS_OPS,
        values: [...labels.values()]
          .sort((a, b) => a.position - b.position || a.id - b.id)
          .map((l) => ({ value: l.id, label: l.name })),
      },
      {
        field: 'msgapp_label',
        label: 'Messaging-app label',
        group: 'labels',
        type: 'msgapp_label',
        ops: HAS_OPS,
        values: waLabels.map((l) => ({
          value: `${l.channel_id}:${l.label_id}`,
          label: `${l.channel} · ${l.name}`,
        })),
      },
      {
        field: 'channel',
        label: 'Has a conversation on',
        group: 'channels',
        type: 'channel',
        ops: HAS_OPS,
        values: channels.map((c) => ({ value: c.id, label: c.name })),
      },
      {
        field: 'owner',
        label: 'Owner',
        group: 'contact',
        type: 'owner',
        ops: OWNER_OPS,
        values: people.map((p) => ({ value: p.user_id, label: p.name })),
      },
      ...DATES.map(
        ([field, , label]): CatalogueField => ({
          field,
          label,
          group: 'activity',
          type: 'date',
          ops: DATE_OPS,
        }),
      ),
      {
        field: 'broadcast_opt_out',
        label: 'Opted out of broadcasts',
        group: 'broadcasts',
        type: 'boolean',
        ops: BOOL_OPS,
      },
      ...customs.map((d): CatalogueField => {
        const base = { field: `cf:${d.key}`, label: d.label, group: 'custom' as const }
        switch (d.type) {
          case 'number':
            return { ...base, type: 'number', ops: NUMBER_OPS }
          case 'date':
            return { ...base, type: 'date', ops: CUSTOM_DATE_OPS }
          case 'checkbox':
            return { ...base, type: 'boolean', ops: BOOL_OPS }
          case 'select':
            return {
              ...base,
              type: 'select',
              ops: SELECT_OPS,
              values: d.options.map((o) => ({ value: o, label: o })),
            }
          default:
            return { ...base, type: 'text', ops: TEXT_OPS }
        }
      }),
    ]
    return {
      fields: new Map(list.map((f) => [f.field, f])),
      customTypes: new Map(customs.map((d) => [d.key, { type: d.type, options: d.options }])),
      zone: workspace.timezone,
    } satisfies Catalogue
  })

/** The operators' names as the catalogue shows them. */
export const OPERATORS: Readonly<Record<string, string>> = {
  equals: 'is',
  not_equals: 'is not',
  contains: 'contains',
  not_contains: 'does not contain',
  starts_with: 'starts with',
  is_empty: 'is empty',
  is_not_empty: 'is not empty',
  gt: 'greater than',
  gte: 'at least',
  lt: 'less than',
  lte: 'at most',
  between: 'between',
  before: 'before',
  after: 'after',
  in_last_days: 'in the last N days',
  not_in_last_days: 'not in the last N days',
  has: 'has',
  not_has: 'does not have',
  is: 'is',
  is_not: 'is not',
  is_true: 'yes',
  is_false: 'no',
}

const DAY_MS = 86_400_000
const isDate = (v: unknown): v is string =>
  typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`))
/** The last `YYYY-MM-DD`: the day after it has no such form (`+010000-01-01`). */
const LAST_DATE = '9999-12-31'
const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10)
const localStart = (d: string, zone: string) => {
  const [y, m, day] = d.split('-').map(Number) as [number, number, number]
  return startOfLocalDay(y, m, day, zone)
}
const days = (v: unknown) => {
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v
  return typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= 3650 ? n : null
}
const num = (v: unknown) => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v
  return typeof n === 'number' && Number.isFinite(n) ? n : null
}
const text = (v: unknown) =>
  typeof v === 'string' && v.trim().length >= 1 && v.trim().length <= 255 ? v.trim() : null

type Problems = Record<string, FieldMessage>

/** A date rule as bounds: local dates of `zone` for contact dates, plain dates for custom ones. */
const dateBounds = (
  op: string,
  value: unknown,
  value2: unknown,
  at: string,
  problems: Problems,
): { from: string | null; to: string | null } | null => {
  if (op === 'before' || op === 'after') {
    if (!isDate(value)) {
      problems[`${at}.value`] = { key: 'segments.value_date' }
      return null
    }
    if (op === 'before') return { from: null, to: value }
    // No date of the format follows the last one.
    if (value === LAST_DATE) {
      problems[`${at}.value`] = { key: 'segments.value_date' }
      return null
    }
    return { from: nextDay(value), to: null }
  }
  if (op === 'between') {
    if (!isDate(value)) problems[`${at}.value`] = { key: 'segments.value_date' }
    if (!isDate(value2)) problems[`${at}.value2`] = { key: 'segments.value_date' }
    if (!isDate(value) || !isDate(value2)) return null
    if (value2 < value) {
      problems[`${at}.value2`] = { key: 'segments.value_order' }
      return null
    }
    return { from: value, to: value2 === LAST_DATE ? null : nextDay(value2) }
  }
  return null
}

/**
 * Checks the rules against the catalogue; returns the compiled conditions, or the problems keyed
 * `rules.<i>.field|op|value|value2`.
 */
export const compile = (
  cat: Catalogue,
  rules: readonly Rule[],
  nowMs: number,
): { readonly conds: Segments.Cond[]; readonly problems: Problems } => {
  const problems: Problems = {}
  const conds: Segments.Cond[] = []
  rules.forEach((r, i) => {
    const at = `rules.${i}`
    const f = cat.fields.get(r.field)
    if (!f) {
      problems[`${at}.field`] = { key: 'segments.field_unknown' }
      return
    }
    if (!f.ops.includes(r.op)) {
      problems[`${at}.op`] = { key: 'segments.op_unknown', params: { values: f.ops.join(', ') } }
      return
    }
    const known = (v: unknown) => f.values?.some((x) => String(x.value) === String(v)) ?? false
    if (!NO_VALUE.has(r.op) && (r.value === undefined || r.value === null)) {
      problems[`${at}.value`] = { key: 'field.required' }
      return
    }
    switch (f.type) {
      case 'text': {
        const v = NO_VALUE.has(r.op) ? '' : text(r.value)
        if (v === null) {
          problems[`${at}.value`] = { key: 'segments.value_text' }
          return
        }
        const op = r.op as Segments.TextOp
        if (r.field.startsWith('cf:'))
          conds.push({ kind: 'custom_text', key: r.field.slice(3), op, value: v })
        else conds.push({ kind: 'text', column: r.field as Segments.TextColumn, op, value: v })
        return
      }
      case 'select': {
        const v = NO_VALUE.has(r.op) ? '' : typeof r.value === 'string' && known(r.value) ? r.value : null
        if (v === null) {
          problems[`${at}.value`] = { key: 'segments.value_option' }
          return
        }
        conds.push({ kind: 'custom_text', key: r.field.slice(3), op: r.op as Segments.TextOp, value: v })
        return
      }
      case 'number': {
        const op = r.op as Segments.NumberOp
        const v = NO_VALUE.has(op) ? 0 : num(r.value)
        const v2 = op === 'between' ? num(r.value2) : 0
        if (v === null) problems[`${at}.value`] = { key: 'segments.value_number' }
        if (v2 === null) problems[`${at}.value2`] = { key: 'segments.value_number' }
        if (v === null || v2 === null) return
        if (op === 'between' && v2 < v) {
          problems[`${at}.value2`] = { key: 'segments.value_order' }
          return
        }
        conds.push({ kind: 'custom_number', key: r.field.slice(3), op, value: v, value2: v2 })
        return
      }
      case 'boolean': {
        const value = r.op === 'is_true'
        if (r.field === 'broadcast_opt_out') conds.push({ kind: 'opt_out', value })
        else conds.push({ kind: 'custom_bool', key: r.field.slice(3), value })
        return
      }
      case 'label':
      case 'channel': {
        const id = num(r.value)
        if (id === null || !known(id)) {
          problems[`${at}.value`] = { key: 'field.unknown' }
          return
        }
        const has = r.op === 'has'
        conds.push(
          f.type === 'label' ? { kind: 'label', has, labelId: id } : { kind: 'channel', has, channelId: id },
        )
        return
      }
      case 'msgapp_label': {
        const m = typeof r.value === 'string' ? /^(\d+):(.+)$/.exec(r.value) : null
        if (!m || !known(r.value)) {
          problems[`${at}.value`] = { key: 'field.unknown' }
          return
        }
        conds.push({ kind: 'msgapp_label', has: r.op === 'has', channelId: Number(m[1]), labelId: m[2]! })
        return
      }
      case 'owner': {
        const op = r.op as 'is' | 'is_not' | 'is_empty' | 'is_not_empty'
        const id = NO_VALUE.has(op) ? 0 : num(r.value)
        if (id === null || (!NO_VALUE.has(op) && !known(id))) {
          problems[`${at}.value`] = { key: 'field.unknown' }
          return
        }
        conds.push({ kind: 'owner', op, userId: id })
        return
      }
      case 'date': {
        const custom = r.field.startsWith('cf:')
        if (r.op === 'is_empty' || r.op === 'is_not_empty') {
          const op = r.op
          conds.push(
            custom
              ? { kind: 'custom_date', key: r.field.slice(3), op, from: null, to: null }
              : { kind: 'date', column: columnOf(r.field), op, from: null, to: null },
          )
          return
        }
        if (r.op === 'in_last_days' || r.op === 'not_in_last_days') {
          const n = days(r.value)
          if (n === null) {
            problems[`${at}.value`] = { key: 'segments.value_days' }
            return
          }
          conds.push({
            kind: 'date',
            column: columnOf(r.field),
            op: r.op === 'in_last_days' ? 'range' : 'not_range',
            from: new Date(nowMs - n * DAY_MS),
            to: null,
          })
          return
        }
        const b = dateBounds(r.op, r.value, r.value2, at, problems)
        if (!b) return
        if (custom) conds.push({ kind: 'custom_date', key: r.field.slice(3), op: 'range', ...b })
        else
          conds.push({
            kind: 'date',
            column: columnOf(r.field),
            op: 'range',
            from: b.from === null ? null : localStart(b.from, cat.zone),
            to: b.to === null ? null : localStart(b.to, cat.zone),
          })
        return
      }
    }
  })
  return { conds, problems }
}

const columnOf = (field: string): Segments.DateColumn => DATES.find(([f]) => f === field)?.[1] ?? 'created'

/** The catalogue as `GET /segments/fields` answers it. */
export const presentCatalogue = (cat: Catalogue) => ({
  fields: [...cat.fields.values()],
  operators: OPERATORS,
  max_rules: MAX_RULES,
})
