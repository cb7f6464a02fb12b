import { Effect } from 'effect'
import { FileStorage } from '../../engine/storage/FileStorage'
import * as Lifecycle from '../../store/contactLifecycle'
import * as Contacts from '../../store/contacts'
import { ConversationActor } from '../inbox/ConversationActor'
import type { Ctx } from './contacts'
import { invalid, missing } from './errors'
import { contactsChanged } from './events'

/**
 * Merge and delete (spec 2 §4.4). Both go in three steps: mark the contact in one short
 * transaction (channels stop matching it: a merging contact answers its target, a deleting one
 * nothing), move or remove each of its conversations through its ConversationActor (serialised
 * with the messages arriving on it), then finish in one transaction that also picks up any
 * conversation attached while the actors worked, for another round. Lock order: contacts, then
 * conversations (store/contactLifecycle.ts).
 */
const MAX_ROUNDS = 10
const PARALLEL = 4

const moveAll = (ids: readonly number[], from: number, to: number) =>
  Effect.flatMap(ConversationActor, (actor) =>
    Effect.forEach(
      ids,
      (id) =>
        actor
          .ask(id, { _tag: 'SetContact', from, to })
          .pipe(Effect.catchTag('ConversationNotFound', () => Effect.succeed(null))),
      { concurrency: PARALLEL, discard: true },
    ),
  )

const removeAll = (ids: readonly number[]) =>
  Effect.gen(function* () {
    const actor = yield* ConversationActor
    const storage = yield* FileStorage
    yield* Effect.forEach(
      ids,
      (id) =>
        actor.ask(id, { _tag: 'Remove' }).pipe(
          Effect.catchTag('ConversationNotFound', () => Effect.succeed([] as readonly string[])),
          // The records are gone with the conversation; the bytes follow (a leftover is only disk).
          Effect.flatMap((keys) =>
            Effect.forEach(keys, (k) => Effect.ignore(storage.remove(k)), { discard: true }),
          ),
        ),
      { concurrency: PARALLEL, discard: true },
    )
  })

/** Merges contact `sourceId` into `targetId`: the source disappears, everything of it moves. */
export const merge = (ctx: Ctx, targetId: number, sourceId: number) =>
  Effect.gen(function* () {
    if (targetId === sourceId)
      return yield* Effect.fail(invalid({ source_id: { key: 'contacts.merge_self' } }))
    const begun = yield* Lifecycle.beginMerge(ctx.workspaceId, targetId, sourceId)
    if (!begun) {
      const target = yield* Contacts.viewById(ctx.workspaceId, targetId)
      return yield* Effect.fail(target ? invalid({ source_id: { key: 'field.unknown' } }) : missing())
    }
    const run = Effect.gen(function* () {
      yield* moveAll(yield* Lifecycle.conversationIds(sourceId), sourceId, targetId)
      for (let round = 0; round < MAX_ROUNDS; round++) {
        const r = yield* Lifecycle.finishMerge(begun.target, begun.source)
        if (r._tag === 'Done') return r.contact
        yield* moveAll(r.ids, sourceId, targetId)
      }
      return yield* Effect.dieMessage(`merge of contact ${sourceId} did not settle`)
    })
    yield* run.pipe(Effect.onError(() => Effect.ignore(Lifecycle.abandonMerge(sourceId))))
    yield* Contacts.recordEvent(
      ctx.workspaceId,
      targetId,
      'merged',
      { source_id: sourceId, source_name: begun.source.name },
      ctx.userId,
    )
    yield* contactsChanged(ctx.workspaceId, sourceId, 'merged', { merged_into: targetId })
    yield* contactsChanged(ctx.workspaceId, targetId, 'merged', { source_id: sourceId })
  })

/**
 * Deletes the contact with its conversations, messages, media (records and bytes), notes and
 * timeline. A delete interrupted half-way is finished by calling it again.
 */
export const remove = (ctx: Ctx, id: number) =>
  Effect.gen(function* () {
    const row = yield* Lifecycle.beginDelete(ctx.workspaceId, id)
    if (!row) return yield* Effect.fail(missing())
    yield* removeAll(yield* Lifecycle.conversationIds(id))
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const r = yield* Lifecycle.finishDelete(id)
      if (r._tag === 'Done') {
        yield* contactsChanged(ctx.workspaceId, id, 'deleted')
        return
      }
      yield* removeAll(r.ids)
    }
    return yield* Effect.dieMessage(`delete of contact ${id} did not settle`)
  })
