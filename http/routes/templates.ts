import { Effect, Schema } from 'effect'
import type { Caller } from '../../actors/admin/caller'
import { type FieldMessage, invalid, notFound } from '../../actors/errors'
import { BigIdFromString, IdFromString, requireFile, Text, type UploadedFile } from '../../actors/fields'
import * as Inbox from '../../actors/inbox/conversations'
import { MAX_ATTACHMENT_BYTES } from '../../actors/inbox/messages'
import { iso } from '../../engine/time'
import * as Contacts from '../../store/contacts'
import * as Files from '../../store/files'
import * as Templates from '../../store/templates'
import type { WorkspaceRow } from '../../store/workspaces'
import { fileReply } from '../files'
import type { MultipartLimits } from '../multipart'
import { created, ok, type Route, route } from '../route'

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

const IdParam = Schema.Struct({ id: IdFromString })
const Shortcut = Schema.String.pipe(
  Schema.filter((s) => s === '' || /^\/?[\w-]{1,30}$/.test(s), {
    jsonSchema: { pattern: '^/?[\\w-]{1,30}$' },
  }),
)

const TemplateSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  shortcut: Schema.String,
  category: Schema.String,
  body: Schema.String,
  attachment: Schema.NullOr(
    Schema.Struct({ name: Schema.String, mime: Schema.String, size: Schema.Number, url: Schema.String }),
  ),
  rendered: Schema.optional(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
})

const present = (t: Templates.TemplateView, rendered?: string): typeof TemplateSchema.Type => ({
  id: t.id,
  name: t.name,
  shortcut: t.shortcut,
  category: t.category,
  body: t.body,
  attachment:
    t.file_id === null
      ? null
      : {
          name: t.file_name ?? '',
          mime: t.file_mime ?? 'application/octet-stream',
          size: t.file_size ?? 0,
          url: `/v1/templates/${t.id}/attachment`,
        },
  ...(rendered !== undefined ? { rendered } : {}),
  created_at: iso(t.created_at)!,
  updated_at: iso(t.updated_at)!,
})

/** The variables of a conversation the caller may see (404 otherwise). */
const varsFor = (caller: Caller, workspace: WorkspaceRow, interactionId: number) =>
  Effect.gen(function* () {
    const c = yield* Inbox.visibleOr404({ caller, workspace }, interactionId)
    const contact = c.contact_id === null ? null : yield* Contacts.byId(workspace.id, c.contact_id)
    return {
      contact_name: contact?.name,
      contact_phone: contact?.phone,
      contact_email: contact?.email,
      agent_name: caller.user.name,
      workspace_name: workspace.name,
    }
  })

const Fields = {
  name: Text(1, 100),
  shortcut: Schema.optional(Shortcut),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
  body: Text(1, 4096),
}

const checkShortcut = (workspaceId: number, shortcut: string, except: number | null) =>
  Effect.flatMap(Templates.shortcutTaken(workspaceId, shortcut, except), (taken) =>
    taken ? Effect.fail(invalid({ shortcut: { key: 'field.name_taken' } })) : Effect.void,
  )

const saveUpload = (workspaceId: number, file: UploadedFile, userId: number) =>
  Files.save(workspaceId, { name: file.filename, mime: file.mime, bytes: file.bytes }, userId).pipe(
    Effect.orDie,
  )

const onlyFile = (files: readonly UploadedFile[]) => {
  const problems: Record<string, FieldMessage> = {}
  for (const f of files) if (f.field !== 'file') problems[f.field] = { key: 'field.unexpected' }
  return Object.keys(problems).length > 0 ? Effect.fail(invalid(problems)) : Effect.void
}

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/templates',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Templates',
    summary: 'Templates; filters `q`, `category`; with `interaction_id` each has `rendered`',
    query: Schema.Struct({
      q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
      category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
      interaction_id: Schema.optional(BigIdFromString),
    }),
    response: Schema.Array(TemplateSchema),
    handler: ({ caller, workspace, query }) =>
      Effect.gen(function* () {
        const vars =
          query.interaction_id !== undefined ? yield* varsFor(caller, workspace, query.interaction_id) : null
        const rows = yield* Templates.list(workspace.id, {
          ...(query.q?.trim() ? { q: query.q.trim() } : {}),
          ...(query.category !== undefined ? { category: query.category } : {}),
        })
        const categories = [...new Set(rows.map((r) => r.category).filter((c) => c !== ''))].sort()
        return ok(
          rows.map((t) => present(t, vars ? Templates.render(t.body, vars) : undefined)),
          { total: rows.length, categories },
        )
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/templates/{id}',
    access: 'K',
    permission: 'interactions.reply',
    tag: 'Templates',
    summary: 'One template (with `interaction_id`: also `rendered`)',
    params: IdParam,
    query: Schema.Struct({ interaction_id: Schema.optional(BigIdFromString) }),
    response: TemplateSchema,
    handler: ({ caller, workspace, params, query }) =>
      Effect.gen(function* () {
        const t = yield* Templates.byId(workspace.id, params.id)
        if (!t) return yield* Effect.fail(notFound())
        const vars =
          query.interaction_id !== undefined ? yield* varsFor(caller, workspace, query.interaction_id) : null
        return ok(present(t, vars ? Templates.render(t.body, vars) : undefined))
      }),
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
    body: Schema.Struct(Fields),
    multipart: uploads,
    response: TemplateSchema,
    handler: ({ caller, workspace, body, files }) =>
      Effect.gen(function* () {
        yield* onlyFile(files)
        const shortcut = body.shortcut?.trim() ?? ''
        yield* checkShortcut(workspace.id, shortcut, null)
        const upload = files.find((f) => f.field === 'file')
        const file = upload ? yield* saveUpload(workspace.id, upload, caller.user.id) : null
        const id = yield* Templates.insert(
          workspace.id,
          { name: body.name.trim(), shortcut, category: body.category?.trim() ?? '', body: body.body.trim() },
          file?.id ?? null,
          caller.user.id,
        )
        return created(present((yield* Templates.byId(workspace.id, id))!))
      }),
  }),
  route({
    method: 'PATCH',
    path: '/v1/templates/{id}',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Change a template (fields not sent stay)',
    params: IdParam,
    body: Schema.Struct({
      name: Schema.optional(Text(1, 100)),
      shortcut: Schema.optional(Shortcut),
      category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
      body: Schema.optional(Text(1, 4096)),
    }),
    response: TemplateSchema,
    handler: ({ workspace, params, body }) =>
      Effect.gen(function* () {
        const t = yield* Templates.byId(workspace.id, params.id)
        if (!t) return yield* Effect.fail(notFound())
        const shortcut = body.shortcut !== undefined ? body.shortcut.trim() : t.shortcut
        yield* checkShortcut(workspace.id, shortcut, t.id)
        yield* Templates.change(t.id, {
          name: body.name?.trim() ?? t.name,
          shortcut,
          category: body.category !== undefined ? body.category.trim() : t.category,
          body: body.body?.trim() ?? t.body,
        })
        return ok(present((yield* Templates.byId(workspace.id, t.id))!))
      }),
  }),
  route({
    method: 'DELETE',
    path: '/v1/templates/{id}',
    access: 'A',
    permission: 'templates.manage',
    tag: 'Templates',
    summary: 'Delete a template',
    params: IdParam,
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const t = yield* Templates.byId(workspace.id, params.id)
        if (!t) return yield* Effect.fail(notFound())
        yield* Templates.remove(t.id)
        return ok({ id: t.id, deleted: true })
      }),
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
      Effect.gen(function* () {
        const t = yield* Templates.byId(workspace.id, params.id)
        if (!t) return yield* Effect.fail(notFound())
        yield* onlyFile(files)
        const upload = yield* requireFile(files, 'file')
        const file = yield* saveUpload(workspace.id, upload, caller.user.id)
        yield* Templates.setFile(t.id, file.id)
        return ok(present((yield* Templates.byId(workspace.id, t.id))!))
      }),
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
    handler: ({ workspace, params }) =>
      Effect.gen(function* () {
        const t = yield* Templates.byId(workspace.id, params.id)
        if (!t) return yield* Effect.fail(notFound())
        // The file itself stays: messages sent with this template still show it.
        yield* Templates.setFile(t.id, null)
        return ok(present((yield* Templates.byId(workspace.id, t.id))!))
      }),
  }),
]
