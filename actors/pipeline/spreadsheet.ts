import { inflateRawSync } from 'node:zlib'
import { parse } from 'csv-parse/sync'
import { Effect } from 'effect'
import type ExcelJS from 'exceljs'
import { type ApiError, invalid } from '../errors'
import { humanSize, unstorable } from '../fields'
import { addMessages } from '../i18n'

/**
 * Reading an uploaded lead spreadsheet (spec 2 §4.7 imports): `.xlsx` through exceljs, CSV through
 * csv-parse; never parsed by hand. The first worksheet holding data is read; its first non-empty
 * row is the header, and when that row has cells merged across columns (a group title over sub
 * headings) the row below completes it (`Contact` over `Name`, `Phone` gives `Contact Name`,
 * `Contact Phone`). A file that cannot be read is 422 on `file` with a stable message key:
 * `import.encrypted` (password-protected, or the old binary `.xls`), `import.unreadable` (not a
 * workbook or CSV), `import.encoding` (CSV not UTF-8), `import.characters` (a header holding NUL
 * or an unpaired surrogate), `import.empty`, `import.too_many_rows`, `import.unpacked_too_large`
 * (an `.xlsx` whose parts inflate past `MAX_UNPACKED_BYTES`: a zip bomb).
 */
addMessages({
  'import.encrypted': {
    en: 'is password-protected or an old .xls workbook; save it without a password as .xlsx or CSV',
    id: 'dilindungi kata sandi atau buku kerja .xls lama; simpan tanpa kata sandi sebagai .xlsx atau CSV',
  },
  'import.unreadable': {
    en: 'cannot be read as an .xlsx workbook or a CSV file',
    id: 'tidak dapat dibaca sebagai buku kerja .xlsx atau file CSV',
  },
  'import.encoding': {
    en: 'is not UTF-8 text; save it as CSV UTF-8',
    id: 'bukan teks UTF-8; simpan sebagai CSV UTF-8',
  },
  'import.characters': {
    en: 'has a character that is not allowed (NUL or an unpaired UTF-16 surrogate) in its header row',
    id: 'memiliki karakter yang tidak diizinkan (NUL atau surrogate UTF-16 tanpa pasangan) di baris judulnya',
  },
  'import.empty': { en: 'has no header row and data', id: 'tidak memiliki baris judul dan data' },
  'import.unpacked_too_large': {
    en: 'unpacks to more than {size}; split it into several files',
    id: 'berukuran lebih dari {size} setelah diekstrak; bagi menjadi beberapa file',
  },
  'import.too_many_rows': {
    en: 'has more than {max} rows; split it into several files',
    id: 'memiliki lebih dari {max} baris; bagi menjadi beberapa file',
  },
})

export const MAX_ROWS = 10_000

export type Value = string | number | boolean | Date | null

export interface Sheet {
  readonly format: 'xlsx' | 'csv'
  readonly sheet: string | null
  readonly headers: readonly string[]
  /** Data rows with their line (row number) in the file. */
  readonly rows: ReadonlyArray<{ readonly line: number; readonly cells: readonly Value[] }>
}

const refuse = (key: string, params?: Record<string, number>) =>
  invalid({ file: params ? { key, params } : { key } })

const isZip = (b: Uint8Array) => b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04
/** OLE compound file: an encrypted OOXML workbook (or an old .xls). */
const isCfb = (b: Uint8Array) => b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0

export const formatOf = (bytes: Uint8Array, filename: string): 'xlsx' | 'csv' | 'encrypted' =>
  isCfb(bytes) ? 'encrypted' : isZip(bytes) || /\.xlsx$/i.test(filename) ? 'xlsx' : 'csv'

const cellValue = (v: ExcelJS.CellValue): Value => {
  if (v === null || v === undefined) return null
  if (typeof v === 'string') return v.trim() === '' ? null : v.trim()
  if (typeof v === 'number' || typeof v === 'boolean') return v
  if (v instanceof Date) return v
  if (typeof v === 'object') {
    if ('result' in v) return cellValue((v as { result?: ExcelJS.CellValue }).result ?? null)
    if ('richText' in v) return cellValue(v.richText.map((r) => r.text).join(''))
    if ('text' in v) return cellValue(String((v as { text: unknown }).text))
    if ('error' in v) return null
  }
  return null
}

const text = (v: Value) => (v === null ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v))

const uniqueHeaders = (raw: readonly string[]) => {
  const seen = new Map<string, number>()
  return raw.map((h, i) => {
    const base = h.trim() || `Column ${i + 1}`
    const n = (seen.get(base.toLowerCase()) ?? 0) + 1
    seen.set(base.toLowerCase(), n)
    return n === 1 ? base : `${base} (${n})`
  })
}

/**
 * What the parts of an `.xlsx` may inflate to, together: as much as a CSV upload may be (50 MB).
 * exceljs inflates each part whole into memory and builds every row before `MAX_ROWS` is checked,
 * so a few hundred KB of deflated XML (a zip bomb) held the node for minutes and gigabytes. A
 * workbook of `MAX_ROWS` rows of 60 columns unpacks to about 36 MB.
 */
export const MAX_UNPACKED_BYTES = 50 * 1024 * 1024

/**
 * Whether the archive's entries inflate to at most `limit` bytes together: each entry located as
 * JSZip (under exceljs) locates it, from the central directory (ZIP64 fields included), and
 * inflated with a cap, so declared sizes that lie change nothing. `unreadable` when the archive
 * cannot be followed; entries of another compression method are left to exceljs, which refuses
 * them.
 */
export const unpackedSize = (bytes: Uint8Array, limit: number): 'within' | 'too_large' | 'unreadable' => {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const u64 = (at: number) => (at + 8 <= b.length ? Number(b.readBigUInt64LE(at)) : -1)
  // The end of the central directory: 22 bytes and a comment of up to 64 KB, at the end.
  let end = -1
  for (let i = b.length - 22; i >= 0 && i >= b.length - 22 - 0xffff; i--) {
    if (b.readUInt32LE(i) === 0x06054b50) {
      end = i
      break
    }
  }
  if (end < 0) return 'unreadable'
  let count = b.readUInt16LE(end + 10)
  let at = b.readUInt32LE(end + 16)
  if ((count === 0xffff || at === 0xffffffff) && end >= 20 && b.readUInt32LE(end - 20) === 0x07064b50) {
    const z = u64(end - 12)
    if (z < 0 || z + 56 > b.length || b.readUInt32LE(z) !== 0x06064b50) return 'unreadable'
    count = u64(z + 32)
    at = u64(z + 48)
  }
  let left = limit
  for (let n = 0; n < count; n++) {
    if (at < 0 || at + 46 > b.length || b.readUInt32LE(at) !== 0x02014b50) return 'unreadable'
    const method = b.readUInt16LE(at + 10)
    let compressed = b.readUInt32LE(at + 20)
    let size = b.readUInt32LE(at + 24)
    let local = b.readUInt32LE(at + 42)
    const nameLength = b.readUInt16LE(at + 28)
    const extraLength = b.readUInt16LE(at + 30)
    // ZIP64: the sizes and offset that do not fit in 32 bits, in this order, in extra field 1.
    for (let x = at + 46 + nameLength; x + 4 <= at + 46 + nameLength + extraLength; ) {
      const id = b.readUInt16LE(x)
      const length = b.readUInt16LE(x + 2)
      if (id === 0x0001) {
        let f = x + 4
        if (size === 0xffffffff) {
          size = u64(f)
          f += 8
        }
        if (compressed === 0xffffffff) {
          compressed = u64(f)
          f += 8
        }
        if (local === 0xffffffff) local = u64(f)
      }
      x += 4 + length
    }
    at += 46 + nameLength + extraLength + b.readUInt16LE(at + 32)
    if (local < 0 || local + 30 > b.length || b.readUInt32LE(local) !== 0x04034b50) return 'unreadable'
    const start = local + 30 + b.readUInt16LE(local + 26) + b.readUInt16LE(local + 28)
    if (compressed < 0 || start + compressed > b.length) return 'unreadable'
    if (method === 0) left -= compressed
    else if (method === 8) {
      if (size > left) return 'too_large'
      try {
        left -= inflateRawSync(b.subarray(start, start + compressed), {
          maxOutputLength: Math.max(left, 1),
        }).length
      } catch (e) {
        return (e as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE' ? 'too_large' : 'unreadable'
      }
    }
    if (left < 0) return 'too_large'
  }
  return 'within'
}

const readXlsx = (bytes: Uint8Array) =>
  Effect.gen(function* () {
    const unpacked = unpackedSize(bytes, MAX_UNPACKED_BYTES)
    if (unpacked === 'unreadable') return yield* Effect.fail(refuse('import.unreadable'))
    if (unpacked === 'too_large')
      return yield* Effect.fail(
        invalid({
          file: { key: 'import.unpacked_too_large', params: { size: humanSize(MAX_UNPACKED_BYTES) } },
        }),
      )
    // exceljs loads on the first spreadsheet, not at start (docs/decisions.md, footprint).
    const { default: Excel } = yield* Effect.promise(() => import('exceljs'))
    const book = new Excel.Workbook()
    yield* Effect.tryPromise({
      try: () => book.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as never),
      catch: () => refuse('import.unreadable'),
    })
    const ws = book.worksheets.find((w) => w.actualRowCount > 0)
    if (!ws) return yield* Effect.fail(refuse('import.empty'))
    const width = ws.columnCount
    const valuesOf = (r: number) =>
      Array.from({ length: width }, (_, c) => cellValue(ws.getRow(r).getCell(c + 1).value))
    let h = 1
    while (h <= ws.rowCount && valuesOf(h).every((v) => v === null)) h++
    if (h > ws.rowCount) return yield* Effect.fail(refuse('import.empty'))
    const top = valuesOf(h)
    // A cell merged across columns in the header row: a group title over the row below.
    const spans = Array.from({ length: width }, (_, c) => {
      const cell = ws.getRow(h).getCell(c + 1)
      const next = ws.getRow(h).getCell(c + 2)
      return (
        cell.isMerged &&
        (cell.master.col !== cell.col || (next.isMerged && next.master.address === cell.address))
      )
    })
    let first = h + 1
    let headers = top.map(text)
    if (spans.some(Boolean) && h + 1 <= ws.rowCount) {
      const sub = valuesOf(h + 1)
      headers = top.map((t, c) => {
        const group = text(t)
        const below = text(sub[c] ?? null)
        if (below === '' || below === group) return group
        return spans[c] ? `${group} ${below}` : below
      })
      first = h + 2
    }
    const rows: Array<{ line: number; cells: Value[] }> = []
    for (let r = first; r <= ws.rowCount; r++) {
      const cells = valuesOf(r)
      if (cells.every((v) => v === null)) continue
      rows.push({ line: r, cells })
      if (rows.length > MAX_ROWS) return yield* Effect.fail(refuse('import.too_many_rows', { max: MAX_ROWS }))
    }
    return { format: 'xlsx' as const, sheet: ws.name, headers: uniqueHeaders(headers), rows } satisfies Sheet
  })

const delimiterOf = (firstLine: string) => {
  const counts = [',', ';', '\t'].map((d) => [d, firstLine.split(d).length] as const)
  return counts.reduce((a, b) => (b[1] > a[1] ? b : a))[0]
}

const readCsv = (bytes: Uint8Array) =>
  Effect.gen(function* () {
    let input: string
    try {
      input = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    } catch {
      return yield* Effect.fail(refuse('import.encoding'))
    }
    if (input.includes('\u0000')) return yield* Effect.fail(refuse('import.unreadable'))
    const records = yield* Effect.try({
      try: () =>
        parse(input, {
          bom: true,
          delimiter: delimiterOf(input.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? ''),
          relax_column_count: true,
          skip_empty_lines: true,
          max_record_size: 64 * 1024,
          info: true,
        }) as unknown as Array<{ record: string[]; info: { lines: number } }>,
      catch: () => refuse('import.unreadable'),
    })
    const nonEmpty = records.filter((r) => r.record.some((c) => c.trim() !== ''))
    if (nonEmpty.length < 1) return yield* Effect.fail(refuse('import.empty'))
    if (nonEmpty.length - 1 > MAX_ROWS)
      return yield* Effect.fail(refuse('import.too_many_rows', { max: MAX_ROWS }))
    const [head, ...data] = nonEmpty
    const width = Math.max(...nonEmpty.map((r) => r.record.length))
    const headers = uniqueHeaders(Array.from({ length: width }, (_, i) => head!.record[i] ?? ''))
    return {
      format: 'csv' as const,
      sheet: null,
      headers,
      rows: data.map((r) => ({
        line: r.info.lines,
        cells: Array.from({ length: width }, (_, i) => {
          const v = r.record[i]?.trim() ?? ''
          return v === '' ? null : v
        }),
      })),
    } satisfies Sheet
  })

export const readSheet = (bytes: Uint8Array, filename: string): Effect.Effect<Sheet, ApiError> => {
  const format = formatOf(bytes, filename)
  if (format === 'encrypted') return Effect.fail(refuse('import.encrypted'))
  const read: Effect.Effect<Sheet, ApiError> = format === 'xlsx' ? readXlsx(bytes) : readCsv(bytes)
  // Headers name columns and the custom fields made from them: one that no column can store is the
  // file's fault (a cell is its row's: actors/pipeline/imports.ts).
  return Effect.flatMap(read, (sheet) =>
    sheet.headers.some(unstorable) ? Effect.fail(refuse('import.characters')) : Effect.succeed(sheet),
  )
}

/** A cell as text (dates as `YYYY-MM-DD`). */
export const cellText = text
