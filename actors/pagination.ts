import { Schema } from 'effect'

/** Query fields every paginated list accepts (spec 1 §2): `page` from 1, `per_page` 1..100. */
export const pageFields = {
  page: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.greaterThanOrEqualTo(1))),
  per_page: Schema.optional(Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 100))),
}

export interface Page {
  readonly page: number
  readonly perPage: number
  readonly limit: number
  readonly offset: number
}

export const pageOf = (
  q: { readonly page?: number; readonly per_page?: number },
  defaultPerPage = 25,
): Page => {
  const page = q.page ?? 1
  const perPage = q.per_page ?? defaultPerPage
  return { page, perPage, limit: perPage, offset: (page - 1) * perPage }
}

export const pageMeta = (p: Page, total: number) => {
  const pages = Math.ceil(total / p.perPage)
  return { page: p.page, per_page: p.perPage, total, pages, has_more: p.page < pages }
}

/**
 * Where the last row of a page stood in a list ordered by a time (newest first) and then the id:
 * the time in microseconds since 1970 (null for a row without one, which sorts last) and the id.
 */
export interface Keyset {
  readonly us: string | null
  readonly id: number
}

const KEYSET = /^(n|-?\d{1,17})\.(\d{1,15})$/

/** The opaque form of a keyset (`meta.next_cursor`), base64url. */
export const encodeKeyset = (k: Keyset) => Buffer.from(`${k.us ?? 'n'}.${k.id}`).toString('base64url')

/** A cursor read back, or null when it is not one: only digits ever reach SQL. */
export const decodeKeyset = (cursor: string): Keyset | null => {
  const m = KEYSET.exec(Buffer.from(cursor, 'base64url').toString('latin1'))
  if (!m) return null
  return { us: m[1] === 'n' ? null : m[1]!, id: Number(m[2]) }
}

/**
 * The `cursor` query field of a list that pages by keyset: a `meta.next_cursor` given back. A
 * page asked by cursor starts right after the row it names, so rows that arrived or moved on top
 * since never shift what comes next (offsets do).
 */
export const cursorField = Schema.String.pipe(
  Schema.maxLength(64),
  Schema.filter((s) => decodeKeyset(s) !== null, {
    message: () => 'field.invalid',
    description: 'meta.next_cursor of the page before',
  }),
)
