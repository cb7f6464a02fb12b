import { Effect, Schema } from 'effect'
import { notFound } from '../../actors/errors'
import { MAX_ATTACHMENT_BYTES } from '../../actors/inbox/messages'
import * as TemplateOps from '../../actors/inbox/templates'
import {
  CreateBody,
  DetailQuery,
  IdParam,
  ListQuery,
  TemplateSchema,
  UpdateBody,
} from '../../actors/inbox/templates'
import * as Files from '../../store/files'
import * as Templates from '../../store/templates'
import { fileReply } from '../files'
import type { MultipartLimits } from '../multipart'
import { answer, type Route, route } from '../route'

/**
 * Spec 2 §4.2 reply templates: name, shortcut, category, body and one attachment; with an
 * `interaction_id` each template carries `rendered`, its text filled in for that conversation
 * (variables in store/templates `render`).
 */
const uploads: MultipartLimits = {
  maxBytes: MAX_ATTACHMENT_BYTES + 512 * 1024,
  maxFiles: 1,
  maxFileBytes: MAX_ATTACHMENT_BYTES,
}

/** Spec 2 §4.2 reply templates; their rules are actors/inbox/templates.ts. */
export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/templates',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Templates',
    summary: 'Templates; filters `q`, `category`; with `interaction_id` each has `rendered`',
    query: ListQuery,
    response: Schema.Array(TemplateSchema),
    handler: ({ caller, workspace, query }) => answer(TemplateOps.list({ caller, workspace }, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/templates/{id}',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Templates',
    summary: 'One template (with `interaction_id`: also `rendered`)',
    params: IdParam,
    query: DetailQuery,
    response: TemplateSchema,
    handler: ({ caller, workspace, params, query }) =>
      answer(TemplateOps.detail({ caller, workspace }, params, query)),
  }),
  route({
    method: 'GET',
    path: '/v1/templates/{id}/attachment',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Templates',
    summary: "The template's attachment; `?download=1` downloads",
    params: IdParam,
    query: Schema.Struct({ download: Schema.optional(Schema.Literal('0', '1')) }),
    handler: (req) =>
      Effect.gen(function* () {
        const t = yield* Templates.byId(req.workspace.id, req.params.id)
        if (!t || t.file_id === null) return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.workspace.id, t.file_id)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), req.query.download === '1')
      }),
  }),
  route({
    method: 'POST',
    path: '/v1/templates',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Create a template: JSON, or multipart with `file` as its attachment',
    body: CreateBody,
    multipart: uploads,
    response: TemplateSchema,
    handler: ({ caller, workspace, body, files }) =>
      answer(TemplateOps.create({ caller, workspace }, body, files)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/templates/{id}',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Change a template (fields not sent stay)',
    params: IdParam,
    body: UpdateBody,
    response: TemplateSchema,
    handler: ({ caller, workspace, params, body }) =>
      answer(TemplateOps.update({ caller, workspace }, params, body)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/templates/{id}',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Delete a template',
    params: IdParam,
    handler: ({ caller, workspace, params }) => answer(TemplateOps.remove({ caller, workspace }, params)),
  }),
  route({
    method: 'POST',
    path: '/v1/templates/{id}/attachment',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Set or replace the attachment (multipart `file`, up to 16 MB)',
    params: IdParam,
    multipart: uploads,
    response: TemplateSchema,
    handler: ({ caller, workspace, params, files }) =>
      answer(TemplateOps.attach({ caller, workspace }, params, files)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/templates/{id}/attachment',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Remove the attachment',
    params: IdParam,
    response: TemplateSchema,
    handler: ({ caller, workspace, params }) => answer(TemplateOps.detach({ caller, workspace }, params)),
  }),
]
