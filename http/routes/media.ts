import { Effect, Schema } from 'effect'
import { notFound } from '../../actors/errors'
import { BigIdFromString } from '../../actors/fields'
import * as Inbox from '../../actors/inbox/conversations'
import { visibleGroup } from '../../actors/inbox/groups'
import { blockRemoteImages } from '../../connectors/email/remoteImages'
import * as Contacts from '../../store/contacts'
import type { MessageRow } from '../../store/conversations'
import * as Files from '../../store/files'
import * as Messages from '../../store/messages'
import { DownloadQuery, fileReply, wantsDownload } from '../files'
import type { AuthedRequest, Reply } from '../route'
import { type Route, route } from '../route'

/**
 * Spec 2 §4.1 private files: message media, e-mail attachments and the sanitized mail, contact
 * and group photos. Every file is reached through something the caller may see (a visible
 * conversation's message, a contact or group of the workspace); bytes come from the file storage
 * port, whole or as one `Range`, inline or (`?download=1`) as a download.
 */

const IdParam = Schema.Struct({ id: BigIdFromString })
/** A message the caller may see (through its conversation), else 404. */
const visibleMessage = (req: AuthedRequest<unknown, unknown, unknown>, id: number) =>
  Effect.gen(function* () {
    const m = yield* Messages.byId(id)
    if (!m || m.workspace_id !== req.workspace.id) return yield* Effect.fail(notFound())
    yield* Inbox.visibleOr404({ caller: req.caller, workspace: req.workspace }, m.conversation_id)
    return m
  })

const emailOf = (m: MessageRow) => {
  const e = m.payload.email
  return e !== null && typeof e === 'object' && !Array.isArray(e) ? (e as Record<string, unknown>) : null
}

const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/messages/{id}/media',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Media',
    summary: "A message's file; supports Range; `?download=1` downloads",
    params: IdParam,
    query: DownloadQuery,
    handler: (req) =>
      Effect.gen(function* () {
        const m = yield* visibleMessage(req, req.params.id)
        if (m.file_id === null) return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.workspace.id, m.file_id)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), wantsDownload(req.query))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/messages/{id}/email',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Media',
    summary: 'The mail as sanitized, script-free HTML; remote images blocked unless `?images=1`',
    params: IdParam,
    query: Schema.Struct({ images: Schema.optional(Schema.Literal('0', '1')) }),
    handler: (req) =>
      Effect.gen(function* () {
        const m = yield* visibleMessage(req, req.params.id)
        const email = emailOf(m)
        if (!email) return yield* Effect.fail(notFound())
        const inner =
          typeof email.html === 'string' && email.html !== ''
            ? email.html
            : `<div style="white-space:pre-wrap">${escapeHtml(m.body)}</div>`
        // Remote images are removed from the markup too, not only refused by the CSP below.
        const shown = req.query.images === '1' ? inner : blockRemoteImages(inner)
        const images = req.query.images === '1' ? ' https: http:' : ''
        const csp = `default-src 'none'; img-src data: cid:${images}; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`
        return {
          _tag: 'Raw',
          status: 200,
          contentType: 'text/html; charset=utf-8',
          body: `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"></head><body>${shown}</body></html>`,
          headers: { 'Content-Security-Policy': csp, 'X-Content-Type-Options': 'nosniff' },
        } satisfies Reply as Reply
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/messages/{id}/attachments/{index}',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Media',
    summary: 'An e-mail attachment by its zero-based index in `email.attachments`; `?download=1`',
    params: Schema.Struct({
      id: BigIdFromString,
      index: Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 99)),
    }),
    query: DownloadQuery,
    handler: (req) =>
      Effect.gen(function* () {
        const m = yield* visibleMessage(req, req.params.id)
        const list = emailOf(m)?.attachments
        const entry = Array.isArray(list)
          ? (list[req.params.index] as { file_id?: unknown } | undefined)
          : undefined
        if (typeof entry?.file_id !== 'number') return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.workspace.id, entry.file_id)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), wantsDownload(req.query))
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/contacts/{id}/avatar',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Media',
    summary: "A contact's profile photo (404 when there is none)",
    params: IdParam,
    handler: (req) =>
      Effect.gen(function* () {
        const contact = yield* Contacts.byId(req.workspace.id, req.params.id)
        if (!contact || contact.avatar_file_id === null) return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.workspace.id, contact.avatar_file_id)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), false)
      }),
  }),
  route({
    method: 'GET',
    path: '/v1/groups/{id}/avatar',
    access: 'K',
    permission: 'interactions.view',
    tag: 'Media',
    summary: "A group's photo (404 when there is none)",
    params: IdParam,
    handler: (req) =>
      Effect.gen(function* () {
        const group = yield* visibleGroup(req.caller, req.workspace, req.params.id)
        if (group.avatar_file_id === null) return yield* Effect.fail(notFound())
        const file = yield* Files.byId(req.workspace.id, group.avatar_file_id)
        if (!file) return yield* Effect.fail(notFound())
        return yield* fileReply(file, req.header('range'), false)
      }),
  }),
]
