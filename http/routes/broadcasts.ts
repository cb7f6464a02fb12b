import { Effect } from 'effect'
import * as Broadcasts from '../../actors/broadcasts/broadcasts'
import { CreateBody, IdParam, ListQuery, PatchBody } from '../../actors/broadcasts/broadcasts'
import * as Lifecycle from '../../actors/broadcasts/lifecycle'
import { PreviewBody, ScheduleBody, TestBody } from '../../actors/broadcasts/lifecycle'
import * as Recipients from '../../actors/broadcasts/recipients'
import { DashboardQuery, ExportQuery, RecipientsQuery } from '../../actors/broadcasts/recipients'
import { LIMITS } from '../../actors/broadcasts/rules'
import { fileReply } from '../files'
import type { MultipartLimits } from '../multipart'
import { answer, type Reply, type Route, route } from '../route'

/**
 * Spec 2 §4.8, broadcasts: drafts, options, dashboard, detail, recipients and their export, the
 * attachment, estimate, preview, test send and the state actions. Reads need `broadcasts.view`
 * or `broadcasts.manage` (K); writes `broadcasts.manage` (A). The rules are in actors/broadcasts.
 */
const READ = ['broadcasts.view', 'broadcasts.manage'] as const
const WRITE = 'broadcasts.manage' as const
const uploads: MultipartLimits = {
  maxBytes: LIMITS.attachment_bytes + 512 * 1024,
  maxFiles: 1,
  maxFileBytes: LIMITS.attachment_bytes,
}

const action = (
  name: 'pause' | 'resume' | 'cancel' | 'retry' | 'unschedule' | 'duplicate',
  summary: string,
): Route =>
  route({
    method: 'POST',
    path: `/v1/broadcasts/{id}/${name}`,
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary,
    params: IdParam,
    handler: ({ caller, workspace, params }) => {
      const ctx = { caller, workspace }
      switch (name) {
        case 'pause':
          return answer(Lifecycle.pause(ctx, params))
        case 'resume':
          return answer(Lifecycle.resume(ctx, params))
        case 'cancel':
          return answer(Lifecycle.cancel(ctx, params))
        case 'retry':
          return answer(Lifecycle.retry(ctx, params))
        case 'unschedule':
          return answer(Lifecycle.unschedule(ctx, params))
        case 'duplicate':
          return answer(Broadcasts.duplicate(ctx, params))
      }
    },
  })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/broadcasts',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary:
      'Broadcasts, newest first; filters `status`, `channel_id`, `q`; per-status counts in `meta.stats`',
    query: ListQuery,
    handler: ({ caller, workspace, query }) => answer(Broadcasts.list({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/broadcasts/options',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary: 'Numbers with their health, segments, default settings and safety limits, quota, variables',
    handler: ({ caller, workspace }) => answer(Broadcasts.options({ caller, workspace })),
  }),
  route({
    method: 'GET',
    path: '/v1/broadcasts/dashboard',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary:
      'Funnel, daily, hourly, reasons, number usage today, latest and best (`from`, `to` ≤ 92 days, `channel_id`)',
    query: DashboardQuery,
    handler: ({ caller, workspace, query }) => answer(Recipients.dashboard({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/broadcasts/{id}',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary:
      'One broadcast: audience, messages, settings, attachment, counts, skip reasons, risk, `wait`, `can`',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Broadcasts.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/broadcasts/{id}/recipients',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary: 'Recipients in send order with the message sent; cumulative `status` filter, `q`',
    params: IdParam,
    query: RecipientsQuery,
    handler: ({ caller, workspace, params, query }) =>
      answer(Recipients.list({ caller, workspace }, params, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/broadcasts/{id}/export',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary: 'The recipients as a spreadsheet: `format` = `xlsx` (default) or `csv`',
    params: IdParam,
    query: ExportQuery,
    handler: ({ caller, workspace, params, query }) =>
      Effect.map(
        Recipients.exportFile({ caller, workspace }, params, query),
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
    method: 'GET',
    path: '/v1/broadcasts/{id}/media',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary: 'The private attachment (Range supported)',
    params: IdParam,
    handler: (req) =>
      Effect.flatMap(Broadcasts.media({ caller: req.caller, workspace: req.workspace }, req.params), (file) =>
        fileReply(file, req.header('range'), false),
      ),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts/{id}/estimate',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary:
      'Recipients after skip reasons, quota, finish time from the pace and warm-up, risk level with reasons',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Lifecycle.estimate({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts/{id}/preview',
    access: 'K',
    permission: READ,
    tag: 'Broadcasts',
    summary: 'Final text for up to 5 sample contacts; `variant`, optional `text`, `footer`',
    params: IdParam,
    body: PreviewBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Lifecycle.preview({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'A draft `{name, channel_id, audience, messages, settings}` (Pro or Custom)',
    body: CreateBody,
    handler: ({ caller, workspace, body }) => answer(Broadcasts.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/broadcasts/{id}',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'Change a draft: only the parts sent (settings merge key by key)',
    params: IdParam,
    body: PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Broadcasts.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/broadcasts/{id}',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'Delete a draft, completed or cancelled broadcast',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Broadcasts.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts/{id}/media',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'Set the attachment: multipart `file` (image, video or document, up to 16 MB)',
    params: IdParam,
    multipart: uploads,
    handler: ({ caller, workspace, params, files }) =>
      answer(Broadcasts.attach({ caller, workspace }, params, files)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/broadcasts/{id}/media',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'Remove the attachment',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Broadcasts.detach({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts/{id}/test',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: 'Send one variant to `phone` (no quota; at most 10 an hour per workspace)',
    params: IdParam,
    body: TestBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Lifecycle.test({ caller, workspace }, params, body)),
  }),
  route({
    method: 'POST',
    path: '/v1/broadcasts/{id}/schedule',
    access: 'A',
    permission: WRITE,
    tag: 'Broadcasts',
    summary: '`{risk_ack: true}`: lock the recipient list and start now or at `settings.send_at`',
    params: IdParam,
    body: ScheduleBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Lifecycle.schedule({ caller, workspace }, params, body)),
  }),
  action('pause', 'Pause a running or scheduled broadcast'),
  action('resume', 'Resume a paused broadcast (the number must be connected)'),
  action('cancel', 'Cancel a scheduled, running or paused broadcast (the unsent are skipped as cancelled)'),
  action('retry', 'Queue the failed recipients again (a new attempt each)'),
  action('unschedule', 'A scheduled broadcast back to draft (the recipient list is unlocked)'),
  action('duplicate', 'A new draft copy'),
]
