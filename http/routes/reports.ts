import { Effect, Schema, Stream } from 'effect'
import { IdFromString } from '../../actors/fields'
import * as Kpi from '../../actors/reports/kpi'
import * as Reports from '../../actors/reports/reports'
import { answer, type Reply, type Route, route, type Services } from '../route'

/**
 * Spec 2 §4.6, reports and KPIs. The rules are in actors/reports (definitions of every metric in
 * actors/metrics.ts); this module is schema, access and the CSV replies.
 */

const csv = (filename: string, body: string, stream?: AsyncIterable<Uint8Array>): Reply => ({
  _tag: 'Raw',
  status: 200,
  contentType: 'text/csv; charset=utf-8',
  body,
  headers: { 'Content-Disposition': `attachment; filename="${filename}"` },
  ...(stream ? { stream } : {}),
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/reports/summary',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary:
      'Cards over `from`–`to` (your zone, inclusive, default 30 days, at most 366): conversations, messages, first response, reply time, resolution, unreplied now, tickets',
    query: Reports.ReportQuery,
    handler: ({ caller, workspace, query }) => answer(Reports.summary({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/daily',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary: 'One row per date `{date, conversations, messages_in, messages_out}` (0 when empty)',
    query: Reports.ReportQuery,
    handler: ({ caller, workspace, query }) => answer(Reports.daily({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/hourly',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary: '24 rows `{hour, messages_in}`, hours of your zone',
    query: Reports.ReportQuery,
    handler: ({ caller, workspace, query }) => answer(Reports.hourly({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/breakdown',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary: 'One row per channel, label, category (tree order, with subcategories) or team',
    query: Reports.BreakdownQuery,
    handler: ({ caller, workspace, query }) => answer(Reports.breakdown({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/agents',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary:
      'Per active member: replies, conversations, first responses, average first response, tickets resolved',
    query: Reports.ReportQuery,
    handler: ({ caller, workspace, query }) => answer(Reports.agents({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/reports/export',
    access: 'A',
    permission: 'reports.view',
    tag: 'Reports',
    summary: 'CSV (UTF-8 with BOM) of a report `type`, same range and filters',
    query: Reports.ExportQuery,
    handler: ({ caller, workspace, query }) =>
      Effect.map(Reports.exportCsv({ caller, workspace }, query), (f) => csv(f.filename, f.body)),
  }),
  route({
    method: 'GET',
    path: '/v1/kpi',
    access: 'K',
    permission: 'reports.view',
    tag: 'Reports',
    summary: 'Per-person `frontline` and `backoffice` cards (Pro or Custom; workspace zone, at most 93 days)',
    query: Kpi.KpiQuery,
    handler: ({ caller, workspace, query }) => answer(Kpi.cards({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/kpi/users/{id}',
    access: 'K',
    tag: 'Reports',
    summary:
      "One person's KPIs with `daily`, `breaches` and `targets` (yourself always; others need reports.view)",
    params: Schema.Struct({ id: IdFromString }),
    query: Kpi.KpiQuery,
    handler: ({ caller, workspace, params, query }) =>
      answer(Kpi.person({ caller, workspace }, params, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/kpi/me',
    access: 'K',
    tag: 'Reports',
    summary: 'Your own KPIs today and over the last 7 days',
    handler: ({ caller, workspace }) => answer(Kpi.me({ caller, workspace })),
  }),
  route({
    method: 'GET',
    path: '/v1/kpi/config',
    access: 'K',
    permission: 'settings.workspace',
    tag: 'Reports',
    summary: 'Workspace, team and personal targets of every KPI metric; the workspace business hours',
    handler: ({ caller, workspace }) => answer(Kpi.config({ caller, workspace })),
  }),
  route({
    method: 'PUT',
    path: '/v1/kpi/config',
    access: 'A',
    permission: 'settings.workspace',
    tag: 'Reports',
    summary:
      '`targets` (workspace, per metric; null = default) and/or `overrides` (team and personal; replaces all)',
    body: Kpi.ConfigBody,
    handler: ({ caller, workspace, body, ip }) => answer(Kpi.saveConfig({ caller, workspace, ip }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/kpi/export',
    access: 'A',
    // `user_id` = yourself needs no reports.view (spec 2 §4.6): checked in actors/reports/kpi.ts.
    tag: 'Reports',
    summary:
      'CSV of KPI `summary` or raw `conversations`, `replies`, `tickets` rows (ending with `channel_type`)',
    query: Kpi.KpiExportQuery,
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const file = yield* Kpi.exportCsv({ caller, workspace }, query)
        // Written page by page as the client reads (http/server.ts streams a Raw reply's `stream`).
        const runtime = yield* Effect.runtime<Services>()
        return csv(file.filename, '', Stream.toAsyncIterableRuntime(file.stream, runtime))
      }),
  }),
]
