import { Chunk, Effect, Option, Schema, Stream } from 'effect'
import { iso } from '../../engine/time'
import * as CustomFields from '../../store/customFields'
import type { ListFilter } from '../../store/leads'
import * as Reports from '../../store/pipelineReports'
import { type Cell, csv } from '../cells'
import { customValue, shownValues, toText } from '../customValues'
import { IdFromString } from '../fields'
import { type Ctx, leadViewerFor } from './access'
import { dayStart, LocalDate } from './dates'
import { identifier } from './presenters'

/**
 * `GET /pipeline/export` (spec 2 §4.7): `leads`, `activities` (logged ones, not the change log)
 * or `expenses` as CSV (UTF-8 with BOM, `csv` of actors/cells.ts: formulas inert), over the leads
 * the caller may see (the lead rule), filtered by `pipeline_id`, `status` and the range
 * `from`..`to` (days in the workspace's zone: leads by creation, activities by when they happened,
 * expenses by the day spent). Read in pages of `PAGE` by keyset and written page by page as the
 * client reads; never held whole.
 */
export const PAGE = 2000
const BOM = new Uint8Array([0xef, 0xbb, 0xbf])
const encoder = new TextEncoder()

export const ExportQuery = Schema.Struct({
  type: Schema.Literal('leads', 'activities', 'expenses'),
  pipeline_id: Schema.optional(IdFromString),
  status: Schema.optional(Schema.Literal('open', 'won', 'lost')),
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
})

const LEAD_COLUMNS = [
  'id',
  'identifier',
  'title',
  'pipeline',
  'stage',
  'status',
  'team',
  'assignee',
  'contact_name',
  'contact_phone',
  'contact_email',
  'client',
  'value_estimate',
  'value_won',
  'budget',
  'expected_close',
  'followup_at',
  'followup_note',
  'lost_reason',
  'lost_note',
  'note',
  'source',
  'created_at',
  'closed_at',
] as const

const cell = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : v)

export const exportCsv = (ctx: Ctx, q: typeof ExportQuery.Type) =>
  Effect.gen(function* () {
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const zone = ctx.workspace.timezone
    const base: ListFilter = {
      ...(q.pipeline_id !== undefined ? { pipelineId: q.pipeline_id } : {}),
      ...(q.status !== undefined ? { status: q.status } : {}),
    }
    const from = q.from ? dayStart(q.from, zone) : undefined
    const to = q.to ? dayStart(q.to, zone, 1) : undefined
    if (q.type === 'leads') {
      const defs = yield* CustomFields.list(ctx.workspace.id, ['lead'])
      const filter: ListFilter = {
        ...base,
        ...(from ? { createdFrom: from } : {}),
        ...(to ? { createdTo: to } : {}),
      }
      return csvStream(
        [...LEAD_COLUMNS, ...defs.map((d) => d.key)],
        (after) => Reports.exportLeads(viewer, filter, after, PAGE),
        (l) => {
          const custom = shownValues(defs, l.custom)
          return [
            l.id,
            identifier(l.number),
            l.title,
            l.pipeline_name,
            l.stage_label,
            l.status,
            cell(l.team_name),
            cell(l.assignee_name),
            cell(l.contact_name),
            cell(l.contact_phone),
            cell(l.contact_email),
            cell(l.client_name),
            cell(l.value_estimate),
            cell(l.value_won),
            cell(l.budget),
            cell(l.expected_close),
            cell(iso(l.followup_at)),
            cell(l.followup_note),
            cell(l.lost_reason),
            cell(l.lost_note),
            cell(l.note),
            l.source,
            iso(l.created_at)!,
            cell(iso(l.closed_at)),
            ...defs.map((d) => toText(customValue(custom, d.key))),
          ]
        },
      )
    }
    if (q.type === 'activities')
      return csvStream(
        ['id', 'lead', 'lead_title', 'kind', 'body', 'happened_at', 'duration_minutes', 'author'],
        (after) =>
          Reports.exportActivities(
            viewer,
            base,
            { ...(from ? { from } : {}), ...(to ? { to } : {}) },
            after,
            PAGE,
          ),
        (a) => [
          a.id,
          identifier(a.lead_number),
          a.lead_title,
          a.kind,
          a.body,
          iso(a.happened_at)!,
          cell(a.duration_minutes),
          cell(a.author_name),
        ],
      )
    return csvStream(
      ['id', 'lead', 'lead_title', 'spent_on', 'category', 'amount', 'note', 'spent_by'],
      (after) =>
        Reports.exportExpenses(
          viewer,
          base,
          { ...(q.from ? { from: q.from } : {}), ...(q.to ? { to: q.to } : {}) },
          after,
          PAGE,
        ),
      (x) => [
        x.id,
        identifier(x.lead_number),
        x.lead_title,
        x.spent_on,
        x.category,
        x.amount,
        cell(x.note),
        cell(x.spent_by_name),
      ],
    )
  })

const csvStream = <R extends { readonly id: number }, E, Rq>(
  header: readonly string[],
  page: (after: number) => Effect.Effect<readonly R[], E, Rq>,
  line: (r: R) => ReadonlyArray<Cell>,
) => {
  const head = Stream.make(BOM, encoder.encode(csv([header])))
  const pages = Stream.paginateChunkEffect(0, (after: number) =>
    Effect.map(page(after), (rows) => {
      const chunk =
        rows.length === 0 ? Chunk.empty<Uint8Array>() : Chunk.of(encoder.encode(csv(rows.map(line))))
      const last = rows[rows.length - 1]
      return [chunk, rows.length === PAGE && last ? Option.some(last.id) : Option.none<number>()] as const
    }),
  )
  return Stream.concat(head, pages)
}
