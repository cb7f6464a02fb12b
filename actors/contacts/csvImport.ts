import { pipeline, Readable } from 'node:stream'
import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { spool } from '../../engine/spool'
import * as Import from '../../store/contactImport'
import * as Labels from '../../store/contactLabels'
import type { LabelRow } from '../../store/contacts'
import type { FieldRow } from '../../store/customFields'
import * as CustomFields from '../../store/customFields'
import { fromText } from '../customValues'
import type { FieldMessage } from '../errors'
import { unstorable } from '../fields'
import type { Ctx } from './contacts'
import { CsvRejected } from './errors'
import { contactsChanged } from './events'
import { COLORS } from './labels'
import { normalizeEmail, normalizePhone, regionOf } from './phone'

/**
 * The CSV import (spec 2 §4.4 `POST /contacts/import`). The file arrives as a stream of chunks
 * (the route streams the upload), is copied to a temporary file as it comes (engine/spool.ts),
 * then read back and parsed as a stream of records (csv-parse) in batches of `BATCH` rows, each
 * batch written with a handful of set-based statements; neither the file nor a list of its rows
 * is ever held in memory. UTF-8 with or without BOM; `,` or `;` as the
 * header line uses. Rows match a live contact by phone (E.164), then by e-mail (lower-cased);
 * matched rows update given cells only, so importing the same file again changes nothing and
 * creates nothing. A file that cannot be read as CSV (quotes, encoding, a record over 64 KB)
 * is refused whole (422 naming the line) and nothing of it is written: everything runs in one
 * transaction. Rows with bad values are listed in `errors` with their line and skipped.
 */
export const BATCH = 1000
export const MAX_RECORD_BYTES = 64 * 1024
export const MAX_ERRORS_LISTED = 1000

type Column =
  | 'name'
  | 'phone'
  | 'email'
  | 'company'
  | 'job_title'
  | 'address'
  | 'city'
  | 'language'
  | 'labels'
  | 'broadcast_opt_out'

/** Header names (lower-cased, spaces as underscores) and their English and Indonesian aliases. */
const ALIASES: Readonly<Record<string, Column>> = {
  name: 'name',
  nama: 'name',
  phone: 'phone',
  telepon: 'phone',
  no_hp: 'phone',
  whatsapp: 'phone',
  email: 'email',
  e_mail: 'email',
  company: 'company',
  perusahaan: 'company',
  job_title: 'job_title',
  jabatan: 'job_title',
  address: 'address',
  alamat: 'address',
  city: 'city',
  kota: 'city',
  language: 'language',
  bahasa: 'language',
  labels: 'labels',
  label: 'labels',
  broadcast_opt_out: 'broadcast_opt_out',
}
/** Columns the export writes that the import reads past. */
const IGNORED = new Set(['id', 'created_at', 'updated_at', 'owner_id'])

export interface RowError {
  readonly line: number
  readonly field: string | null
  readonly problem: FieldMessage
}

export interface ImportResult {
  readonly created: number
  readonly updated: number
  readonly skipped: number
  readonly errors: readonly RowError[]
  readonly errors_total: number
  readonly ignored_columns: readonly string[]
}

/** The offset of the first byte that is not valid UTF-8 (the file is known to hold one). */
const firstInvalidUtf8 = (b: Uint8Array) => {
  let i = 0
  while (i < b.length) {
    const x = b[i]!
    const n =
      x < 0x80 ? 0 : x >= 0xc2 && x <= 0xdf ? 1 : x >= 0xe0 && x <= 0xef ? 2 : x >= 0xf0 && x <= 0xf4 ? 3 : -1
    if (n < 0) return i
    for (let k = 1; k <= n; k++) if (i + k >= b.length || (b[i + k]! & 0xc0) !== 0x80) return i
    i += n + 1
  }
  return b.length
}

/** `,` or `;`, whichever the header line uses more (outside quotes). */
const delimiterOf = (bytes: Uint8Array) => {
  let commas = 0
  let semis = 0
  let quoted = false
  for (let i = 0; i < bytes.length && i < MAX_RECORD_BYTES; i++) {
    const x = bytes[i]
    if (x === 0x22) quoted = !quoted
    else if (!quoted && x === 0x0a) break
    else if (!quoted && x === 0x2c) commas++
    else if (!quoted && x === 0x3b) semis++
  }
  return semis > commas ? ';' : ','
}

const rejectionOf = (e: unknown): CsvRejected => {
  const err = e as { code?: string; lines?: number }
  const line = typeof err.lines === 'number' ? Math.max(1, err.lines) : 1
  const reason =
    err.code === 'KOTAK_ENCODING'
      ? 'encoding'
      : err.code === 'CSV_MAX_RECORD_SIZE'
        ? 'too_long'
        : err.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH'
          ? 'columns'
          : 'quotes'
  return new CsvRejected({ reason, line })
}

interface Parsed {
  readonly line: number
  readonly cells: readonly string[]
}

type Records = AsyncIterator<{ record: string[]; info: { bytes: number } }>

/** A fault of the input below the CSV grammar (its encoding), named like csv-parse's own errors. */
class InputError extends Error {
  constructor(
    readonly code: 'KOTAK_ENCODING',
    readonly lines: number,
  ) {
    super(code)
  }
}

const newlines = (b: Uint8Array, from: number, to: number) => {
  let n = 0
  for (let i = from; i < to; i++) if (b[i] === 0x0a) n++
  return n
}

/**
 * The file's chunks on their way to the parser: checked to be UTF-8 (a bad byte ends the stream
 * with the line it is on), and kept in a short window until the parser's records have passed
 * them, so a record's line is counted from the file's own bytes (csv-parse's count drifts on CRLF
 * inside quoted fields). Each byte is counted once; the window holds the chunks the parser has
 * not finished, not the file.
 */
const inspect = (first: Uint8Array, rest: AsyncIterator<Uint8Array>) => {
  const window: { start: number; bytes: Uint8Array }[] = []
  let pos = 0
  let line = 1
  /** The line of the byte before offset `end` (a record's last byte). */
  const lineOf = (end: number) => {
    const stop = end - 1
    while (window.length > 0) {
      const w = window[0]!
      const to = Math.min(stop, w.start + w.bytes.length)
      if (to > pos) {
        line += newlines(w.bytes, pos - w.start, to - w.start)
        pos = to
      }
      if (pos < w.start + w.bytes.length) break
      window.shift()
    }
    return line
  }
  async function* chunks() {
    const decoder = new TextDecoder('utf-8', { fatal: true })
    let offset = 0
    let seen = 1
    let next: Uint8Array | null = first
    while (next) {
      const chunk = next
      try {
        decoder.decode(chunk, { stream: true })
      } catch {
        throw new InputError('KOTAK_ENCODING', seen + newlines(chunk, 0, firstInvalidUtf8(chunk)))
      }
      window.push({ start: offset, bytes: chunk })
      offset += chunk.length
      seen += newlines(chunk, 0, chunk.length)
      yield chunk
      const r = await rest.next()
      next = r.done ? null : r.value
    }
    try {
      decoder.decode()
    } catch {
      throw new InputError('KOTAK_ENCODING', seen)
    }
  }
  return { chunks, lineOf }
}

/** Pulls up to `n` records from the parser (the parser's own errors become a rejection). */
const nextBatch = (it: Records, lineOf: (end: number) => number, n: number) =>
  Effect.tryPromise({
    try: async () => {
      const out: Parsed[] = []
      while (out.length < n) {
        const r = await it.next()
        if (r.done) break
        out.push({ line: lineOf(r.value.info.bytes), cells: r.value.record })
      }
      return out
    },
    catch: rejectionOf,
  })

interface Header {
  readonly columns: ReadonlyArray<Column | { readonly field: FieldRow } | null>
  readonly ignored: readonly string[]
}

const headerOf = (cells: readonly string[], defs: readonly FieldRow[]): Header | null => {
  const byKey = new Map<string, FieldRow>()
  for (const d of defs) {
    byKey.set(d.key, d)
    byKey.set(d.label.trim().toLowerCase(), d)
  }
  const ignored: string[] = []
  const columns = cells.map((raw) => {
    const name = raw.trim().toLowerCase()
    const norm = name.replace(/[\s-]+/g, '_')
    const known = ALIASES[norm]
    if (known) return known
    const field = byKey.get(norm) ?? byKey.get(name)
    if (field) return { field }
    if (!IGNORED.has(norm) && name !== '') ignored.push(raw.trim())
    return null
  })
  return columns.some((c) => c === 'name' || c === 'phone' || c === 'email') ? { columns, ignored } : null
}

interface RowValues extends Import.ImportValues {
  readonly line: number
  readonly labels: readonly string[]
}

const TRUE = new Set(['true', '1', 'yes', 'ya', 'y'])
const FALSE = new Set(['false', '0', 'no', 'tidak', 'n', ''])

/** One record into values, or its problems. */
const rowOf = (
  p: Parsed,
  header: Header,
  region: ReturnType<typeof regionOf>,
): { readonly ok: true; readonly row: RowValues } | { readonly ok: false; readonly errors: RowError[] } => {
  const errors: RowError[] = []
  const text: Partial<Record<Column, string>> = {}
  const custom: Record<string, unknown> = {}
  if (p.cells.length !== header.columns.length)
    return {
      ok: false,
      errors: [
        {
          line: p.line,
          field: null,
          problem: {
            key: 'contacts.csv_row_columns',
            params: { n: p.cells.length, m: header.columns.length },
          },
        },
      ],
    }
  header.columns.forEach((col, i) => {
    const cell = (p.cells[i] ?? '').trim()
    if (col === null) return
    // The file is UTF-8 (checked on the way in), but a cell may still hold NUL, which no column
    // can store: the row's fault, not the file's.
    if (unstorable(cell)) {
      const field = typeof col === 'string' ? col : col.field.key
      errors.push({ line: p.line, field, problem: { key: 'field.characters' } })
      return
    }
    if (typeof col === 'string') {
      if (cell !== '') text[col] = cell
      return
    }
    if (cell === '') return
    const r = fromText(col.field, cell)
    if (r.ok) custom[col.field.key] = r.value
    else
      errors.push({
        line: p.line,
        field: col.field.key,
        problem: { key: r.key, params: { options: col.field.options.join(', ') } },
      })
  })
  const phone = text.phone === undefined ? null : normalizePhone(text.phone, region)
  if (text.phone !== undefined && phone === null)
    errors.push({ line: p.line, field: 'phone', problem: { key: 'contacts.phone_invalid' } })
  const email = text.email === undefined ? null : normalizeEmail(text.email)
  if (text.email !== undefined && email === null)
    errors.push({ line: p.line, field: 'email', problem: { key: 'field.email' } })
  if (text.phone === undefined && text.email === undefined)
    errors.push({ line: p.line, field: null, problem: { key: 'contacts.csv_row_address' } })
  let optOut: boolean | null = null
  if (text.broadcast_opt_out !== undefined) {
    const l = text.broadcast_opt_out.toLowerCase()
    if (TRUE.has(l)) optOut = true
    else if (FALSE.has(l)) optOut = false
    else errors.push({ line: p.line, field: 'broadcast_opt_out', problem: { key: 'custom.checkbox' } })
  }
  for (const k of ['name', 'company', 'job_title', 'address', 'city'] as const)
    if ((text[k]?.length ?? 0) > 500)
      errors.push({ line: p.line, field: k, problem: { key: 'custom.too_long' } })
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    row: {
      line: p.line,
      name: text.name ?? null,
      phone,
      email,
      company: text.company ?? null,
      job_title: text.job_title ?? null,
      address: text.address ?? null,
      city: text.city ?? null,
      language: text.language ?? null,
      broadcast_opt_out: optOut,
      custom,
      labels: (text.labels ?? '')
        .split(/[,|]/)
        .map((x) => x.trim())
        .filter((x) => x !== '' && x.length <= 50),
    },
  }
}

const stripRow = ({ line: _line, labels: _labels, ...values }: RowValues): Import.ImportValues => values

/** Writes one batch: match, create, update, labels, timeline. */
const writeBatch = (
  ctx: Ctx,
  rows: readonly RowValues[],
  labels: Map<string, LabelRow>,
  totals: { created: number; updated: number; skipped: number },
) =>
  Effect.gen(function* () {
    if (rows.length === 0) return
    const phones = [...new Set(rows.flatMap((r) => (r.phone ? [r.phone] : [])))]
    const emails = [...new Set(rows.flatMap((r) => (r.email ? [r.email] : [])))]
    const found = yield* Import.matches(ctx.workspaceId, phones, emails)
    // Who each phone and e-mail of the batch names: an existing contact, or a group of this
    // batch's rows that will create one. One value names one target, so no two contacts end up
    // holding it ("one phone or one e-mail is one live contact"). The phone decides first; an
    // e-mail that names another target stays where it is (the row goes without it).
    type Target = { readonly id: number } | { readonly rows: RowValues[] }
    const phoneOwner = new Map<string, Target>()
    const emailOwner = new Map<string, Target>()
    const existing = new Map<number, Target>()
    const targetOf = (id: number) => {
      let t = existing.get(id)
      if (!t) {
        t = { id }
        existing.set(id, t)
      }
      return t
    }
    for (const f of found) {
      if (f.phone && !phoneOwner.has(f.phone)) phoneOwner.set(f.phone, targetOf(f.id))
      if (f.email && !emailOwner.has(f.email.toLowerCase()))
        emailOwner.set(f.email.toLowerCase(), targetOf(f.id))
    }
    const creates: RowValues[][] = []
    const updates = new Map<number, RowValues[]>()
    for (const r of rows) {
      let target =
        (r.phone ? phoneOwner.get(r.phone) : undefined) ?? (r.email ? emailOwner.get(r.email) : undefined)
      if (!target) {
        const fresh: RowValues[] = []
        creates.push(fresh)
        target = { rows: fresh }
      }
      const emailElsewhere = r.email ? emailOwner.get(r.email) : undefined
      const row = emailElsewhere !== undefined && emailElsewhere !== target ? { ...r, email: null } : r
      if ('rows' in target) target.rows.push(row)
      else updates.set(target.id, [...(updates.get(target.id) ?? []), row])
      if (row.phone && !phoneOwner.has(row.phone)) phoneOwner.set(row.phone, target)
      if (row.email && !emailOwner.has(row.email)) emailOwner.set(row.email, target)
    }
    /** Later rows of a group fill in over earlier ones, as separate imports would. */
    const fold = (group: readonly RowValues[]): RowValues =>
      group.reduce((a, b) => ({
        line: a.line,
        name: b.name ?? a.name,
        phone: b.phone ?? a.phone,
        email: b.email ?? a.email,
        company: b.company ?? a.company,
        job_title: b.job_title ?? a.job_title,
        address: b.address ?? a.address,
        city: b.city ?? a.city,
        language: b.language ?? a.language,
        broadcast_opt_out: b.broadcast_opt_out ?? a.broadcast_opt_out,
        custom: { ...a.custom, ...b.custom },
        labels: [...a.labels, ...b.labels],
      }))
    const newRows = creates.map(fold)
    const made = yield* Import.insertMany(ctx.workspaceId, newRows.map(stripRow))
    const madeId = new Map<string, number>()
    for (const m of made) {
      if (m.phone) madeId.set(`p:${m.phone}`, m.id)
      if (m.email) madeId.set(`e:${m.email}`, m.id)
    }
    // A created contact is found by its folded phone or e-mail (each names one target).
    const idOfNew = (r: RowValues) => madeId.get(`p:${r.phone}`) ?? madeId.get(`e:${r.email}`)!
    const changedRows = [...updates].map(([id, group]) => ({ id, row: fold(group) }))
    const changed = new Set(
      yield* Import.updateMany(changedRows.map(({ id, row }) => ({ ...stripRow(row), id }))),
    )
    // Labels by name, created on first use.
    const pairs: { contact_id: number; label_id: number }[] = []
    const labelId = (name: string) =>
      Effect.gen(function* () {
        const known = labels.get(name.toLowerCase())
        if (known) return known.id
        // Made meanwhile by someone else: that one.
        const made =
          (yield* Labels.insert(ctx.workspaceId, name, COLORS[0])) ??
          (yield* Labels.byNameOf(ctx.workspaceId, name))
        if (!made) return yield* Effect.dieMessage(`label ${name} neither made nor found`)
        labels.set(name.toLowerCase(), made)
        return made.id
      })
    for (const r of newRows)
      for (const l of r.labels) pairs.push({ contact_id: idOfNew(r), label_id: yield* labelId(l) })
    for (const { id, row } of changedRows)
      for (const l of row.labels) pairs.push({ contact_id: id, label_id: yield* labelId(l) })
    const relabelled = yield* Import.addLabels(pairs)
    for (const id of relabelled) changed.add(id)
    yield* Import.recordImported(
      ctx.workspaceId,
      [
        ...made.map((m) => ({ contact_id: m.id, created: true })),
        ...[...changed].filter((id) => updates.has(id)).map((id) => ({ contact_id: id, created: false })),
      ],
      ctx.userId,
    )
    const createdRows = creates.reduce((n, g) => n + g.length, 0)
    const updatedIds = [...changed].filter((id) => updates.has(id))
    const updatedRows = updatedIds.reduce((n, id) => n + (updates.get(id)?.length ?? 0), 0)
    totals.created += made.length
    // Rows folded into a contact this batch created count as updates of it.
    totals.updated += updatedRows + (createdRows - made.length)
    totals.skipped += rows.length - createdRows - updatedRows
  })

/** Imports a CSV file arriving as a stream of bytes; see the module comment for the rules. */
export const importCsv = (ctx: Ctx, upload: AsyncIterable<Uint8Array>) =>
  Effect.gen(function* () {
    // The whole upload first, to a temporary file, and only then the transaction, which reads it
    // at the disk's pace: a transaction that waited on the client held the embedded database's
    // only connection for as long as the upload took, and every other request of every workspace
    // answered 503 meanwhile (docs/decisions.md, "One connection, no waiting on it").
    const source = yield* spool(upload, 'kotak-import-').pipe(
      Effect.catchTag('SourceFailed', (e) => Effect.fail(rejectionOf(e.cause))),
    )
    const input = source[Symbol.asyncIterator]()
    const head = yield* Effect.tryPromise({ try: () => input.next(), catch: rejectionOf })
    if (head.done || head.value.length === 0)
      return yield* Effect.fail(new CsvRejected({ reason: 'empty', line: 1 }))
    const firstChunk = head.value
    const defs = yield* CustomFields.list(ctx.workspaceId, ['contact'])
    const region = regionOf(ctx.timezone)
    const { chunks, lineOf } = inspect(firstChunk, input)
    // csv-parse loads with the first import, not at start.
    const { parse } = yield* Effect.promise(() => import('csv-parse'))
    const parser = parse({
      bom: true,
      delimiter: delimiterOf(firstChunk[0] === 0xef ? firstChunk.subarray(3) : firstChunk),
      info: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_BYTES,
    })
    // Errors of either side (encoding, grammar, the client going away) end the parser's iterator.
    pipeline(Readable.from(chunks()), parser, () => {})
    const it = parser[Symbol.asyncIterator]() as Records
    const sql = yield* SqlClient.SqlClient
    const result = yield* sql
      .withTransaction(
        Effect.gen(function* () {
          yield* Import.lockWorkspace(ctx.workspaceId)
          const [first] = yield* nextBatch(it, lineOf, 1)
          if (!first) return yield* Effect.fail(new CsvRejected({ reason: 'empty', line: 1 }))
          const header = headerOf(first.cells, defs)
          if (!header) return yield* Effect.fail(new CsvRejected({ reason: 'header', line: first.line }))
          const labels = yield* Labels.byName(ctx.workspaceId)
          const totals = { created: 0, updated: 0, skipped: 0 }
          const errors: RowError[] = []
          let errorsTotal = 0
          for (;;) {
            const batch = yield* nextBatch(it, lineOf, BATCH)
            if (batch.length === 0) break
            const good: RowValues[] = []
            for (const p of batch) {
              const r = rowOf(p, header, region)
              if (r.ok) good.push(r.row)
              else {
                errorsTotal += 1
                for (const e of r.errors) if (errors.length < MAX_ERRORS_LISTED) errors.push(e)
              }
            }
            yield* writeBatch(ctx, good, labels, totals)
          }
          return { ...totals, errors, errors_total: errorsTotal, ignored_columns: header.ignored }
        }),
      )
      .pipe(Effect.ensuring(Effect.sync(() => parser.destroy())))
    if (result.created + result.updated > 0)
      yield* contactsChanged(ctx.workspaceId, null, 'imported', {
        created: result.created,
        updated: result.updated,
      })
    return result satisfies ImportResult
  }).pipe(Effect.scoped)
