import { Effect, Schema } from 'effect'
import { iso } from '../../engine/time'
import * as Contacts from '../../store/contacts'
import * as Files from '../../store/files'
import * as Templates from '../../store/templates'
import type { WorkspaceRow } from '../../store/workspaces'
import type { Caller } from '../admin/caller'
import { createdReply, reply } from '../answer'
import { type FieldMessage, invalid, notFound } from '../errors'
import { BigIdFromString, IdFromString, requireFile, Text, type UploadedFile } from '../fields'
import type { Ctx } from './conversations'
import * as Inbox from './conversations'

/**
 * Spec 2 §4.2 reply templates: shortcuts unique per workspace, one optional attachment, and the
 * body rendered for a conversation's contact and the agent (store/templates `render`).
 */

export const IdParam = Schema.Struct({ id: IdFromString })
export const Shortcut = Schema.String.pipe(
  Schema.filter((s) => s === '' || /^\/?[\w-]{1,30}$/.test(s), {
    jsonSchema: { pattern: '^/?[\\w-]{1,30}$' },
  }),
)

export const TemplateSchema = Schema.Struct({
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

export const present = (t: Templates.TemplateView, rendered?: string): typeof TemplateSchema.Type => ({
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
export const varsFor = (caller: Caller, workspace: WorkspaceRow, interactionId: number) =>
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

export const Fields = {
  name: Text(1, 100),
  shortcut: Schema.optional(Shortcut),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
  body: Text(1, 4096),
}

const shortcutTaken = () => invalid({ shortcut: { key: 'field.name_taken' } })

export const checkShortcut = (workspaceId: number, shortcut: string, except: number | null) =>
  Effect.flatMap(Templates.shortcutTaken(workspaceId, shortcut, except), (taken) =>
    taken ? Effect.fail(shortcutTaken()) : Effect.void,
  )

export const saveUpload = (workspaceId: number, file: UploadedFile, userId: number) =>
  Files.save(workspaceId, { name: file.filename, mime: file.mime, bytes: file.bytes }, userId).pipe(
    Effect.orDie,
  )

export const onlyFile = (files: readonly UploadedFile[]) => {
  const problems: Record<string, FieldMessage> = {}
  for (const f of files) if (f.field !== 'file') problems[f.field] = { key: 'field.unexpected' }
  return Object.keys(problems).length > 0 ? Effect.fail(invalid(problems)) : Effect.void
}

export const ListQuery = Schema.Struct({
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
  interaction_id: Schema.optional(BigIdFromString),
})

export const DetailQuery = Schema.Struct({ interaction_id: Schema.optional(BigIdFromString) })

export const CreateBody = Schema.Struct(Fields)

export const UpdateBody = Schema.Struct({
  name: Schema.optional(Text(1, 100)),
  shortcut: Schema.optional(Shortcut),
  category: Schema.optional(Schema.String.pipe(Schema.maxLength(50))),
  body: Schema.optional(Text(1, 4096)),
})

export const list = (ctx: Ctx, query: typeof ListQuery.Type) => {
  const { caller, workspace } = ctx
  return Effect.gen(function* () {
    const vars =
      query.interaction_id !== undefined ? yield* varsFor(caller, workspace, query.interaction_id) : null
    const rows = yield* Templates.list(workspace.id, {
      ...(query.q?.trim() ? { q: query.q.trim() } : {}),
      ...(query.category !== undefined ? { category: query.category } : {}),
    })
    const categories = [...new Set(rows.map((r) => r.category).filter((c) => c !== ''))].sort()
    return reply(
      rows.map((t) => present(t, vars ? Templates.render(t.body, vars) : undefined)),
      { total: rows.length, categories },
    )
  })
}

export const detail = (ctx: Ctx, params: typeof IdParam.Type, query: typeof DetailQuery.Type) => {
  const { caller, workspace } = ctx
  return Effect.gen(function* () {
    const t = yield* Templates.byId(workspace.id, params.id)
    if (!t) return yield* Effect.fail(notFound())
    const vars =
      query.interaction_id !== undefined ? yield* varsFor(caller, workspace, query.interaction_id) : null
    return reply(present(t, vars ? Templates.render(t.body, vars) : undefined))
  })
}

export const create = (ctx: Ctx, body: typeof CreateBody.Type, files: readonly UploadedFile[]) => {
  const { caller, workspace } = ctx
  return Effect.gen(function* () {
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
    // Taken between the check and the write (two saves at once): the unique index decided.
    if (id === null) {
      if (file) yield* Effect.orDie(Files.remove(file))
      return yield* Effect.fail(shortcutTaken())
    }
    return createdReply(present((yield* Templates.byId(workspace.id, id))!))
  })
}

export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof UpdateBody.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    const t = yield* Templates.byId(workspace.id, params.id)
    if (!t) return yield* Effect.fail(notFound())
    const shortcut = body.shortcut !== undefined ? body.shortcut.trim() : t.shortcut
    yield* checkShortcut(workspace.id, shortcut, t.id)
    const changed = yield* Templates.change(t.id, {
      name: body.name?.trim() ?? t.name,
      shortcut,
      category: body.category !== undefined ? body.category.trim() : t.category,
      body: body.body?.trim() ?? t.body,
    })
    if (!changed) return yield* Effect.fail(shortcutTaken())
    return reply(present((yield* Templates.byId(workspace.id, t.id))!))
  })
}

export const remove = (ctx: Ctx, params: typeof IdParam.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    const t = yield* Templates.byId(workspace.id, params.id)
    if (!t) return yield* Effect.fail(notFound())
    yield* Templates.remove(t.id)
    return reply({ id: t.id, deleted: true })
  })
}

export const attach = (ctx: Ctx, params: typeof IdParam.Type, files: readonly UploadedFile[]) => {
  const { caller, workspace } = ctx
  return Effect.gen(function* () {
    const t = yield* Templates.byId(workspace.id, params.id)
    if (!t) return yield* Effect.fail(notFound())
    yield* onlyFile(files)
    const upload = yield* requireFile(files, 'file')
    const file = yield* saveUpload(workspace.id, upload, caller.user.id)
    yield* Templates.setFile(t.id, file.id)
    return reply(present((yield* Templates.byId(workspace.id, t.id))!))
  })
}

export const detach = (ctx: Ctx, params: typeof IdParam.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    const t = yield* Templates.byId(workspace.id, params.id)
    if (!t) return yield* Effect.fail(notFound())
    // The file itself stays: messages sent with this template still show it.
    yield* Templates.setFile(t.id, null)
    return reply(present((yield* Templates.byId(workspace.id, t.id))!))
  })
}
