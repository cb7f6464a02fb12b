import { Effect, Schema, Stream } from 'effect'
import type { PermissionRule } from '../../actors/admin/caller'
import { BigIdFromString, IdFromString } from '../../actors/fields'
import * as Bulk from '../../actors/pipeline/bulk'
import * as Dashboard from '../../actors/pipeline/dashboard'
import * as Export from '../../actors/pipeline/export'
import * as Imports from '../../actors/pipeline/imports'
import * as Leads from '../../actors/pipeline/leads'
import * as Pipelines from '../../actors/pipeline/pipelines'
import * as Settings from '../../actors/pipeline/settings'
import * as Work from '../../actors/pipeline/work'
import { currentTime } from '../../engine/clock'
import { DownloadQuery, fileReply, wantsDownload } from '../files'
import { answer, type Reply, type Route, route, type Services } from '../route'

/**
 * Spec 2 §4.7, the first half: workflows and their stages, pipeline settings, leads (list, board,
 * owner candidates, duplicates, detail, create, change, move, delete) and the work on a lead
 * (timeline, files, checklist, events, expenses with receipts). Every lead route finds its lead
 * through the one lead rule (actors/pipeline/access.ts); what the caller may not see is 404. The
 * rules are in actors/pipeline; this module is schema, access and the call.
 */

const IdParam = Schema.Struct({ id: BigIdFromString })
const PipelineParam = Schema.Struct({ id: IdFromString })
/** Reading leads and workflows: either leads permission (spec: `leads.view or leads.manage`). */
const VIEW: PermissionRule = ['leads.view', 'leads.manage']

export const routes: readonly Route[] = [
  // ---- Workflows and settings ----------------------------------------------------------------
  route({
    method: 'GET',
    path: '/v1/pipelines',
    access: 'K',
    permission: VIEW,
    tag: 'Pipeline',
    summary:
      'Visible workflows with their stages; `meta` has lost reasons, expense categories and the palette',
    query: Pipelines.ListQuery,
    handler: ({ caller, workspace, query }) => answer(Pipelines.list({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/pipelines/{id}',
    access: 'K',
    permission: VIEW,
    tag: 'Pipeline',
    summary: 'One workflow; `pipeline.manage` holders also get `leads_count` per stage',
    params: PipelineParam,
    handler: ({ caller, workspace, params }) => answer(Pipelines.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/pipeline/settings',
    access: 'K',
    permission: VIEW,
    tag: 'Pipeline',
    summary: 'Lost reasons, expense categories, colour palette, In-progress stage limit',
    handler: ({ caller, workspace }) => answer(Settings.get({ caller, workspace })),
  }),
  route({
    method: 'PUT',
    path: '/v1/pipeline/settings',
    access: 'A',
    permission: 'pipeline.manage',
    tag: 'Pipeline',
    summary: 'Set `lost_reasons` and/or `expense_categories` (1 to 50 entries each, no repeats)',
    body: Settings.SettingsBody,
    handler: ({ caller, workspace, body }) => answer(Settings.put({ caller, workspace }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/pipeline/dashboard',
    access: 'K',
    // Spec 2 §4.7 "same": read as the list's, since the figures are over the leads the caller
    // sees (docs/decisions.md, Clients, dashboard…).
    permission: ['leads.view', 'leads.manage'],
    tag: 'Pipeline',
    summary:
      '`tiles`, `funnel`, `weekly` (8 weeks), `by_assignee`, `expenses`, `agenda`, `quota` over the leads you may see; `pipeline_id`, `from`, `to` (default this month), `team_id`, `assignee_id`',
    query: Dashboard.DashboardQuery,
    handler: ({ caller, workspace, query }) => answer(Dashboard.dashboard({ caller, workspace }, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/pipelines',
    access: 'A',
    permission: 'pipeline.manage',
    tag: 'Pipeline',
    summary: 'Create a workflow `{name, description, team_ids, stages?}`; default stages without `stages`',
    body: Pipelines.CreateBody,
    handler: ({ caller, workspace, body }) => answer(Pipelines.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/pipelines/{id}',
    access: 'A',
    permission: 'pipeline.manage',
    tag: 'Pipeline',
    summary: 'Name, description, teams, `position`; `{archived: false}` restores an archived workflow',
    params: PipelineParam,
    body: Pipelines.PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Pipelines.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'PUT',
    path: '/v1/pipelines/{id}/stages',
    access: 'A',
    permission: 'pipeline.manage',
    tag: 'Pipeline',
    summary:
      'The full stage layout: one New, 0 to 10 In progress, one Won, one Lost; leads of removed stages move (see docs)',
    params: PipelineParam,
    body: Pipelines.StagesBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Pipelines.setStages({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/pipelines/{id}',
    access: 'A',
    permission: 'pipeline.manage',
    tag: 'Pipeline',
    summary: 'Delete a workflow without leads; one with leads is archived instead',
    params: PipelineParam,
    handler: ({ caller, workspace, params }) => answer(Pipelines.remove({ caller, workspace }, params)),
  }),
  // ---- Leads ---------------------------------------------------------------------------------
  route({
    method: 'GET',
    path: '/v1/leads',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: 'Visible leads with the filters of the spec; `meta.totals` = count, prospect value, deal value',
    query: Leads.ListQuery,
    handler: ({ caller, workspace, query }) => answer(Leads.list({ caller, workspace }, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/leads',
    access: 'K',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'Create a lead `LEAD-<n>`: contact by `contact_id`, `contact {name, phone, email}` or `interaction_id`; client by id or name; monthly quota (402)',
    body: Leads.CreateBody,
    handler: ({ caller, workspace, body }) => answer(Leads.create({ caller, workspace }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/leads/board',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: "A workflow's board: open leads and this month's Won and Lost, at most 100 cards per stage",
    query: Leads.BoardQuery,
    handler: ({ caller, workspace, query }) => answer(Leads.board({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/leads/candidates',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: 'Possible owners with their Back Office `team_ids` and `is_admin`',
    query: Schema.Struct({ team_id: Schema.optional(IdFromString) }),
    handler: ({ caller, workspace, query }) => answer(Leads.candidates({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/leads/duplicates',
    access: 'K',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Open leads of a contact in a workflow (those you may not see are counted in `meta.hidden`)',
    query: Leads.DuplicatesQuery,
    handler: ({ caller, workspace, query }) => answer(Leads.duplicates({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/leads/{id}',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: 'One lead with its 30 latest activities, checklist, events, files and expenses',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Leads.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/leads/{id}',
    access: 'K',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'Change the sent fields (`value_won` on Won, `lost_reason`/`lost_note` on Lost, `followup_at: null` clears); may answer `{id, visible: false}`',
    params: IdParam,
    body: Leads.PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Leads.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/leads/{id}/move',
    access: 'K',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'Move to `stage_id`: Won needs `value_won` (default the prospect value), Lost a `lost_reason`; Won or Lost to open reopens',
    params: IdParam,
    body: Leads.MoveBody,
    handler: ({ caller, workspace, params, body }) => answer(Leads.move({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/leads/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Delete a lead (admin, owner or creator); the monthly quota is not given back',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Leads.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/leads/bulk',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'Up to 100 leads: `move` (move rules apply), `assign` (owner and/or team) or `followup`; one result per lead, `meta.done`/`failed`',
    body: Bulk.BulkBody,
    handler: ({ caller, workspace, body, locale }) => answer(Bulk.bulk({ caller, workspace }, body, locale)),
  }),
  route({
    method: 'GET',
    path: '/v1/leads/import/template',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'The import template, `format` = `xlsx` (default) or `csv`: the lead fields and your lead custom fields',
    query: Imports.TemplateQuery,
    handler: ({ caller, workspace, query }) =>
      Effect.map(
        Imports.template({ caller, workspace }, query),
        (f): Reply => ({
          _tag: 'Raw',
          status: 200,
          contentType: f.mime,
          body: f.bytes,
          headers: { 'Content-Disposition': `attachment; filename="${f.name}"` },
        }),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/leads/import/preview',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      'Multipart `file` (.xlsx or .csv, up to 50 MB): columns, samples, mapping suggestions and a token valid one hour',
    multipart: Imports.UPLOAD_LIMITS,
    handler: ({ caller, workspace, files }) => answer(Imports.preview({ caller, workspace }, files)),
  }),
  route({
    method: 'POST',
    path: '/v1/leads/import',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary:
      '`{token, mapping, dry_run, pipeline_id}`: what is (or would be) created, updated, unchanged or refused per row; unmatched columns become lead custom fields',
    body: Imports.ImportBody,
    handler: ({ caller, workspace, body, locale }) =>
      answer(Imports.runImport({ caller, workspace }, body, locale)),
  }),
  route({
    method: 'GET',
    path: '/v1/pipeline/export',
    access: 'A',
    permission: 'reports.view',
    tag: 'Pipeline',
    summary:
      'CSV (UTF-8 with BOM) of `type` = `leads`, `activities` or `expenses` over the leads you may see; `pipeline_id`, `status`, `from`, `to`',
    query: Export.ExportQuery,
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const stream = yield* Export.exportCsv({ caller, workspace }, query)
        const runtime = yield* Effect.runtime<Services>()
        const day = (yield* currentTime).toISOString().slice(0, 10)
        const reply: Reply = {
          _tag: 'Raw',
          status: 200,
          contentType: 'text/csv; charset=utf-8',
          body: '',
          stream: Stream.toAsyncIterableRuntime(stream, runtime),
          headers: { 'Content-Disposition': `attachment; filename="${query.type}-${day}.csv"` },
        }
        return reply
      }),
  }),
  // ---- Timeline ------------------------------------------------------------------------------
  route({
    method: 'GET',
    path: '/v1/leads/{id}/activities',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: 'Timeline newest first: activities and changes; `before` = last id, `kind=note` notes only',
    params: IdParam,
    query: Work.ActivityQuery,
    handler: ({ caller, workspace, params, query }) =>
      answer(Work.activities({ caller, workspace }, params, query)),
  }),
  route({
    method: 'POST',
    path: '/v1/leads/{id}/activities',
    access: 'K',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Log an activity (call, chat, email, meeting, visit, note, other); `@Name` notifies that member',
    params: IdParam,
    body: Work.ActivityBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.addActivity({ caller, workspace }, params, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/lead-activities/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Change a logged activity (its author or an admin)',
    params: IdParam,
    body: Work.ActivityPatch,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.changeActivity({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/lead-activities/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Delete a logged activity (its author or an admin)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Work.removeActivity({ caller, workspace }, params)),
  }),
  // ---- Files ---------------------------------------------------------------------------------
  route({
    method: 'POST',
    path: '/v1/leads/{id}/files',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Attach a file (multipart `file`, up to 16 MB), private to those who see the lead',
    params: IdParam,
    multipart: Work.FILE_LIMITS,
    handler: ({ caller, workspace, params, files }) =>
      answer(Work.addFile({ caller, workspace }, params, files)),
  }),
  route({
    method: 'GET',
    path: '/v1/lead-files/{id}',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: "A lead's file; supports Range; `?download=1` downloads",
    params: IdParam,
    query: DownloadQuery,
    handler: ({ caller, workspace, params, query, header }) =>
      Effect.flatMap(Work.visibleFile({ caller, workspace }, params.id), ({ file }) =>
        fileReply(file, header('range'), wantsDownload(query)),
      ),
  }),
  route({
    method: 'DELETE',
    path: '/v1/lead-files/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: "Delete a file (its uploader, the lead's owner or an admin)",
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Work.removeFile({ caller, workspace }, params)),
  }),
  // ---- Checklist -----------------------------------------------------------------------------
  route({
    method: 'POST',
    path: '/v1/leads/{id}/checklist',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Add a checklist item `{text}` at the end',
    params: IdParam,
    body: Work.ChecklistBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.addChecklist({ caller, workspace }, params, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/lead-checklist/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Change `text`, `done` or `position`',
    params: IdParam,
    body: Work.ChecklistPatch,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.changeChecklist({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/lead-checklist/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Delete a checklist item',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Work.removeChecklist({ caller, workspace }, params)),
  }),
  // ---- Events --------------------------------------------------------------------------------
  route({
    method: 'POST',
    path: '/v1/leads/{id}/events',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Plan an event; `remind_minutes` before `starts_at` its owner and planner are notified, once',
    params: IdParam,
    body: Work.EventBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.addEvent({ caller, workspace }, params, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/lead-events/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Change an event; a new start (or reminder time) resets the reminder',
    params: IdParam,
    body: Work.EventPatch,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.changeEvent({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/lead-events/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Delete an event',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Work.removeEvent({ caller, workspace }, params)),
  }),
  // ---- Expenses ------------------------------------------------------------------------------
  route({
    method: 'POST',
    path: '/v1/leads/{id}/expenses',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Record an expense (multipart with an optional `receipt` file, or JSON)',
    params: IdParam,
    body: Work.ExpenseBody,
    multipart: Work.RECEIPT_LIMITS,
    handler: ({ caller, workspace, params, body, files }) =>
      answer(Work.addExpense({ caller, workspace }, params, body, files)),
  }),
  route({
    method: 'GET',
    path: '/v1/lead-expenses/{id}/receipt',
    access: 'K',
    permission: VIEW,
    tag: 'Leads',
    summary: "An expense's receipt; supports Range; `?download=1` downloads",
    params: IdParam,
    query: DownloadQuery,
    handler: ({ caller, workspace, params, query, header }) =>
      Effect.flatMap(Work.receipt({ caller, workspace }, params.id), (file) =>
        fileReply(file, header('range'), wantsDownload(query)),
      ),
  }),
  route({
    method: 'PATCH',
    path: '/v1/lead-expenses/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Change an expense (whoever recorded or paid it, or an admin)',
    params: IdParam,
    body: Work.ExpensePatch,
    handler: ({ caller, workspace, params, body }) =>
      answer(Work.changeExpense({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/lead-expenses/{id}',
    access: 'A',
    permission: 'leads.manage',
    tag: 'Leads',
    summary: 'Delete an expense and its receipt (whoever recorded or paid it, or an admin)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Work.removeExpense({ caller, workspace }, params)),
  }),
]
