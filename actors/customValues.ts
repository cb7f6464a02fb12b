import { Schema } from 'effect'
import type { Entity, FieldRow } from '../store/customFields'
import type { ProblemSet } from './errors'

/**
 * Custom fields (spec 2 §2): the types a definition may have, the rules of a definition, and the
 * check of values against the definitions wherever values are written (contacts, the CSV import,
 * `PATCH /interactions/{id}` `custom`). Pure functions of plain values.
 */
export const FIELD_TYPES = ['text', 'textarea', 'number', 'date', 'select', 'checkbox'] as const
export type FieldType = (typeof FIELD_TYPES)[number]
/** Spec 2 §8. */
export const MAX_PER_ENTITY = 30
export const MAX_OPTIONS = 50
export const KEY_PATTERN = /^[a-z][a-z0-9_]{0,49}$/
const MAX_TEXT = 255
const MAX_TEXTAREA = 2000

/** Which permission lets a caller read the definitions of each entity (`GET /custom-fields`). */
export const READ_PERMISSION: Readonly<Record<Entity, string>> = {
  contact: 'contacts.view',
  interaction: 'interactions.view',
  ticket: 'tickets.view',
  lead: 'leads.view',
  client: 'leads.view',
}

/** A key made from a label: `Nomor Pelanggan` → `nomor_pelanggan`. */
export const keyFromLabel = (label: string): string => {
  const base = label
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 40)
  if (base === '') return 'field'
  return /^[a-z]/.test(base) ? base : `f_${base}`
}

/** The first free key of `base`, `base_2`, `base_3`… */
export const freeKey = (base: string, taken: ReadonlySet<string>): string => {
  if (!taken.has(base)) return base
  for (let i = 2; ; i++) if (!taken.has(`${base}_${i}`)) return `${base}_${i}`
}

/** Options of a `select` (trimmed, non-empty, unique, at most 50); other types take none. */
export const checkOptions = (
  type: FieldType,
  options: readonly string[] | undefined,
  problems: ProblemSet,
): readonly string[] => {
  if (type !== 'select') {
    if (options !== undefined && options.length > 0)
      problems.add('options', 'custom_fields.options_select_only')
    return []
  }
  const list = (options ?? []).map((o) => o.trim())
  if (list.length === 0) problems.add('options', 'custom_fields.options_required')
  else if (list.length > MAX_OPTIONS) problems.add('options', 'field.max_items', { n: MAX_OPTIONS })
  else if (list.some((o) => o === '' || o.length > 100)) problems.add('options', 'custom_fields.option_text')
  else if (new Set(list.map((o) => o.toLowerCase())).size !== list.length)
    problems.add('options', 'custom_fields.options_unique')
  return list
}

const isDate = (s: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}

/** One value against its definition: the value to store, or a problem key. */
export const checkValue = (
  def: Pick<FieldRow, 'type' | 'options'>,
  v: unknown,
): { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly key: string } => {
  switch (def.type) {
    case 'text':
    case 'textarea': {
      if (typeof v !== 'string') return { ok: false, key: 'custom.text' }
      const s = v.trim()
      return s.length > (def.type === 'text' ? MAX_TEXT : MAX_TEXTAREA)
        ? { ok: false, key: 'custom.too_long' }
        : { ok: true, value: s }
    }
    case 'number':
      return typeof v === 'number' && Number.isFinite(v)
        ? { ok: true, value: v }
        : { ok: false, key: 'custom.number' }
    case 'date':
      return typeof v === 'string' && isDate(v) ? { ok: true, value: v } : { ok: false, key: 'custom.date' }
    case 'select': {
      const match =
        typeof v === 'string'
          ? def.options.find((o) => o.toLowerCase() === v.trim().toLowerCase())
          : undefined
      return match !== undefined ? { ok: true, value: match } : { ok: false, key: 'custom.option' }
    }
    case 'checkbox':
      return typeof v === 'boolean' ? { ok: true, value: v } : { ok: false, key: 'custom.checkbox' }
    default:
      return { ok: false, key: 'custom.text' }
  }
}

const TRUE = new Set(['true', '1', 'yes', 'ya', 'y'])
const FALSE = new Set(['false', '0', 'no', 'tidak', 'n'])

/** A value written as text (a CSV cell) in its definition's type. */
export const fromText = (def: Pick<FieldRow, 'type' | 'options'>, text: string) => {
  const s = text.trim()
  if (def.type === 'number') {
    const n = Number(s.replace(',', '.'))
    return checkValue(def, s === '' ? Number.NaN : n)
  }
  if (def.type === 'checkbox') {
    const l = s.toLowerCase()
    return checkValue(def, TRUE.has(l) ? true : FALSE.has(l) ? false : s)
  }
  return checkValue(def, s)
}

/** A value as text (a CSV cell). */
export const toText = (v: unknown): string =>
  v === null || v === undefined
    ? ''
    : typeof v === 'string'
      ? v
      : typeof v === 'boolean'
        ? v
          ? 'true'
          : 'false'
        : String(v)

export interface CustomChange {
  readonly set: Readonly<Record<string, unknown>>
  readonly clear: readonly string[]
}

/**
 * Values sent for an entity, against its definitions: an unknown key or a wrong value is a
 * problem on `<prefix>.<key>`; null or an empty string clears the value.
 */
export const checkValues = (
  defs: readonly Pick<FieldRow, 'key' | 'type' | 'options'>[],
  input: Readonly<Record<string, unknown>>,
  problems: ProblemSet,
  prefix = 'custom',
): CustomChange => {
  const byKey = new Map(defs.map((d) => [d.key, d]))
  const set: Record<string, unknown> = {}
  const clear: string[] = []
  for (const [key, v] of Object.entries(input)) {
    const def = byKey.get(key)
    if (!def) {
      problems.add(`${prefix}.${key}`, 'custom.unknown')
      continue
    }
    if (v === null || v === '') {
      clear.push(key)
      continue
    }
    const r = checkValue(def, v)
    if (r.ok) set[key] = r.value
    else
      problems.add(
        `${prefix}.${key}`,
        r.key,
        def.type === 'select' ? { options: def.options.join(', ') } : undefined,
      )
  }
  return { set, clear }
}

/**
 * The value stored under a definition's key, or undefined: the record's own value only. A key may
 * be a name every object inherits (`constructor`, made from the label "Constructor"), which a plain
 * `custom[key]` reads as a function where the record has no value.
 */
export const customValue = (custom: Readonly<Record<string, unknown>>, key: string): unknown =>
  Object.hasOwn(custom, key) ? custom[key] : undefined

/** The values shown: only those of current definitions, in the definitions' order. */
export const shownValues = (
  defs: readonly Pick<FieldRow, 'key'>[],
  custom: Readonly<Record<string, unknown>>,
): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const d of defs) {
    const v = customValue(custom, d.key)
    if (v !== undefined) out[d.key] = v
  }
  return out
}

/** Definitions with their values (`custom_fields` of a conversation's or contact's detail). */
export const withValues = (defs: readonly FieldRow[], custom: Readonly<Record<string, unknown>>) =>
  defs.map((d) => ({
    id: d.id,
    key: d.key,
    label: d.label,
    type: d.type,
    options: d.options,
    value: customValue(custom, d.key) ?? null,
  }))

/** One entry of `withValues` as answers carry it (a field with its value), for response schemas. */
export const FieldValueSchema = Schema.Struct({
  id: Schema.Number,
  key: Schema.String,
  label: Schema.String,
  type: Schema.String,
  options: Schema.Array(Schema.String),
  value: Schema.Unknown,
})
