import { Effect, Schema } from 'effect'
import * as AuditLog from '../../actors/admin/audit'
import { IdFromString } from '../../actors/fields'
import { pageFields, pageMeta, pageOf } from '../../actors/pagination'
import * as Audit from '../../store/audit'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.2 audit log. Entries are written by the changes themselves (actors/admin/audit.ts). */

const LocalDate = Schema.String.pipe(
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), {
    jsonSchema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$' },
  }),
)

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/audit-logs',
    access: 'K',
    permission: 'settings.audit',
    tag: 'Audit log',
    summary: 'Administration changes, newest first; filters category, user, from, to (your zone), q',
    query: Schema.Struct({
      ...pageFields,
      category: Schema.optional(Schema.Literal(...Audit.categories)),
      user: Schema.optional(IdFromString),
      from: Schema.optional(LocalDate),
      to: Schema.optional(LocalDate),
      q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
    }),
    response: Schema.Array(AuditLog.EntrySchema),
    handler: (req) =>
      Effect.gen(function* () {
        const { query, locale } = req
        const page = pageOf(query, 50)
        const found = yield* AuditLog.search(req, query, page, locale)
        return ok(found.entries, {
          ...pageMeta(page, found.total),
          categories: found.categories,
          users: found.users,
          timezone: found.timezone,
        })
      }),
  }),
]
