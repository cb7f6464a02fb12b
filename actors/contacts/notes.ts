import { Effect } from 'effect'
import * as Notes from '../../store/contactNotes'
import * as Contacts from '../../store/contacts'
import { type Ctx, find } from './contacts'
import { missing, Refused } from './errors'
import { contactsChanged } from './events'

/** Notes on a contact: anyone with `contacts.view` adds; the author alone edits; the author or a
 * holder of `contacts.manage` deletes. */

const note = (contactId: number, id: number) =>
  Effect.flatMap(Notes.byId(contactId, id), (n) => (n ? Effect.succeed(n) : Effect.fail(missing())))

export const list = (ctx: Ctx, contactId: number) =>
  Effect.flatMap(find(ctx.workspaceId, contactId), () => Notes.list(contactId))

export const add = (ctx: Ctx, contactId: number, body: string) =>
  Effect.gen(function* () {
    yield* find(ctx.workspaceId, contactId)
    const id = yield* Notes.insert(ctx.workspaceId, contactId, ctx.userId, body.trim())
    yield* contactsChanged(ctx.workspaceId, contactId, 'notes')
    return yield* note(contactId, id)
  })

export const change = (ctx: Ctx, contactId: number, id: number, body: string) =>
  Effect.gen(function* () {
    yield* find(ctx.workspaceId, contactId)
    const n = yield* note(contactId, id)
    if (n.author_id !== ctx.userId)
      return yield* Effect.fail(new Refused({ message: 'contacts.note_author' }))
    yield* Notes.change(id, body.trim())
    yield* contactsChanged(ctx.workspaceId, contactId, 'notes')
    return yield* note(contactId, id)
  })

export const remove = (ctx: Ctx, contactId: number, id: number, canManage: boolean) =>
  Effect.gen(function* () {
    yield* find(ctx.workspaceId, contactId)
    const n = yield* note(contactId, id)
    if (n.author_id !== ctx.userId && !canManage)
      return yield* Effect.fail(new Refused({ message: 'contacts.note_delete' }))
    yield* Notes.remove(id)
    yield* Contacts.recordEvent(ctx.workspaceId, contactId, 'note_deleted', { note_id: id }, ctx.userId)
    yield* contactsChanged(ctx.workspaceId, contactId, 'notes')
  })
