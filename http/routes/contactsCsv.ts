import { Effect, Schema, Stream } from 'effect'
import { exportCsv } from '../../actors/contacts/csvExport'
import { importCsv } from '../../actors/contacts/csvImport'
import { ctxOf, FilterFields, filterOf } from '../../actors/contacts/requests'
import { addMessages, t } from '../../actors/i18n'
import { currentTime } from '../../engine/clock'
import { fileStream } from '../multipart'
import { ok, type Reply, type Route, route, type Services } from '../route'

/**
 * Spec 2 §4.4 `POST /contacts/import` (multipart `file`, CSV) and `GET /contacts/export` (CSV
 * with the list's filters). The rules are in actors/contacts/csvImport.ts and csvExport.ts.
 */
addMessages({
  'contacts.csv_quotes': {
    en: 'is not valid CSV: a quote is not closed or not followed by a delimiter (line {line})',
    id: 'bukan CSV yang valid: tanda kutip tidak ditutup atau tidak diikuti pemisah (baris {line})',
  },
  'contacts.csv_encoding': {
    en: 'is not UTF-8 text (line {line}); save it as CSV UTF-8',
    id: 'bukan teks UTF-8 (baris {line}); simpan sebagai CSV UTF-8',
  },
  'contacts.csv_too_long': {
    en: 'has a row longer than 64 KB (line {line})',
    id: 'memiliki baris lebih dari 64 KB (baris {line})',
  },
  'contacts.csv_header': {
    en: 'needs a header line with a name, phone or email column (line {line})',
    id: 'memerlukan baris judul dengan kolom name, phone atau email (baris {line})',
  },
  'contacts.csv_columns': {
    en: 'has a row with another number of columns than the header (line {line})',
    id: 'memiliki baris dengan jumlah kolom berbeda dari judul (baris {line})',
  },
  'contacts.csv_empty': { en: 'is empty', id: 'kosong' },
  'contacts.csv_row_columns': {
    en: 'has {n} columns, the header has {m}',
    id: 'memiliki {n} kolom, judul memiliki {m}',
  },
  'contacts.csv_row_address': {
    en: 'needs a phone number or an e-mail address',
    id: 'memerlukan nomor telepon atau alamat e-mail',
  },
})

/** Up to 50 MB of CSV (about 500,000 rows of a typical export); 413 beyond. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024

const ImportResult = Schema.Struct({
  created: Schema.Number,
  updated: Schema.Number,
  skipped: Schema.Number,
  errors: Schema.Array(
    Schema.Struct({
      line: Schema.Number,
      field: Schema.NullOr(Schema.String),
      code: Schema.String,
      message: Schema.String,
    }),
  ),
  errors_total: Schema.Number,
  ignored_columns: Schema.Array(Schema.String),
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/contacts/export',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary: 'CSV (UTF-8 with BOM) of the contacts the list filters select; custom fields as columns',
    query: Schema.Struct(FilterFields),
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const stream = yield* exportCsv(workspace.id, filterOf(caller, query))
        // Written page by page as the client reads (http/server.ts streams a Raw reply's `stream`).
        const runtime = yield* Effect.runtime<Services>()
        const day = (yield* currentTime).toISOString().slice(0, 10)
        const reply: Reply = {
          _tag: 'Raw',
          status: 200,
          contentType: 'text/csv; charset=utf-8',
          body: '',
          stream: Stream.toAsyncIterableRuntime(stream, runtime),
          headers: { 'Content-Disposition': `attachment; filename="contacts-${day}.csv"` },
        }
        return reply
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/contacts/import',
    access: 'A',
    permission: 'contacts.manage',
    tag: 'Contacts',
    summary:
      'Import a CSV `file` (UTF-8, `,` or `;`): match by phone then e-mail; `created`, `updated`, `skipped`, per-row `errors`',
    // The upload is read as it arrives (to a temporary file, then imported), never whole in memory.
    streamBody: { maxBytes: MAX_UPLOAD_BYTES },
    response: ImportResult,
    handler: ({ caller, workspace, bodyStream, header, locale }) =>
      Effect.gen(function* () {
        const file = yield* fileStream(bodyStream, header('content-type'), 'file')
        const r = yield* importCsv(ctxOf(caller, workspace), file)
        return ok({
          created: r.created,
          updated: r.updated,
          skipped: r.skipped,
          errors: r.errors.map((e) => ({
            line: e.line,
            field: e.field,
            code: e.problem.key,
            message: t(locale, e.problem.key, e.problem.params),
          })),
          errors_total: r.errors_total,
          ignored_columns: r.ignored_columns,
        })
      }),
  }),
]
