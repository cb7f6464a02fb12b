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
