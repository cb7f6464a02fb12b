import { Effect, Stream } from 'effect'
import * as Segments from '../../actors/broadcasts/segments'
import { CreateBody, IdParam, PatchBody, PreviewBody } from '../../actors/broadcasts/segments'
import { answer, type Reply, type Route, route, type Services } from '../route'

/**
 * Spec 2 §4.8, segments: the field catalogue, an unsaved preview, saved segments (list, detail
 * with recalculated members, create, change, delete unless a live broadcast uses it) and the CSV
 * of members. Reads need `broadcasts.view` or `broadcasts.manage`; writes `broadcasts.manage`.
 */
const READ = ['broadcasts.view', 'broadcasts.manage'] as const
const WRITE = 'broadcasts.manage' as const

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/segments',
    access: 'K',
    permission: READ,
    tag: 'Segments',
    summary: 'Saved segments with rules, summary, `last_count` and the number of broadcasts using each',
    handler: ({ caller, workspace }) => answer(Segments.list({ caller, workspace })),
  }),
  route({
    method: 'GET',
    path: '/v1/segments/fields',
    access: 'K',
    permission: READ,
    tag: 'Segments',
    summary: 'The field catalogue: contact fields, labels, numbers, owner, dates, opt-out, `cf:<key>`',
    handler: ({ caller, workspace }) => answer(Segments.fields({ caller, workspace })),
  }),
  route({
    method: 'POST',
    path: '/v1/segments/preview',
    access: 'K',
    permission: READ,
    tag: 'Segments',
    summary: 'Count, with phone, unsubscribed and samples of `{match, rules}` without saving',
    body: PreviewBody,
    handler: ({ caller, workspace, body }) => answer(Segments.preview({ caller, workspace }, body)),
  }),
  route({
    method: 'GET',
    path: '/v1/segments/{id}',
    access: 'K',
    permission: READ,
    tag: 'Segments',
    summary: 'One segment with its members recounted now (`preview`)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Segments.detail({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/segments',
    access: 'A',
    permission: WRITE,
    tag: 'Segments',
    summary: 'Save a segment `{name, description, match, rules}` (at most 15 rules, unique name)',
    body: CreateBody,
    handler: ({ caller, workspace, body }) => answer(Segments.create({ caller, workspace }, body)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/segments/{id}',
    access: 'A',
    permission: WRITE,
    tag: 'Segments',
    summary: 'Change name, description, match or rules',
    params: IdParam,
    body: PatchBody,
    handler: ({ caller, workspace, params, body }) =>
      answer(Segments.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/segments/{id}',
    access: 'A',
    permission: WRITE,
    tag: 'Segments',
    summary: 'Delete a segment (409 while a scheduled, running or paused broadcast uses it)',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(Segments.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'GET',
    path: '/v1/segments/{id}/export',
    access: 'A',
    permission: WRITE,
    tag: 'Segments',
    summary: 'CSV (UTF-8 with BOM) of the segment’s members',
    params: IdParam,
    handler: ({ caller, workspace, params }) =>
      Effect.gen(function* () {
        const { segment, stream } = yield* Segments.exportCsv({ caller, workspace }, params)
        const runtime = yield* Effect.runtime<Services>()
        const name = segment.name.replace(/[^\w-]+/g, '-').slice(0, 60) || 'segment'
        const reply: Reply = {
          _tag: 'Raw',
          status: 200,
          contentType: 'text/csv; charset=utf-8',
          body: '',
          stream: Stream.toAsyncIterableRuntime(stream, runtime),
          headers: { 'Content-Disposition': `attachment; filename="segment-${name}.csv"` },
        }
        return reply
      }),
  }),
]
