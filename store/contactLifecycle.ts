import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import type { ContactRow } from './contacts'

/**
 * The two steps around a contact's merge or delete (spec 2 §4.4). Between them the domain moves or
 * removes each conversation through its ConversationActor (actors/contacts/lifecycle.ts).
 *
 * Lock order, everywhere: contact rows first (both of a merge in id order), then conversation
 * rows. A channel attaching a new conversation to a contact holds a key-share lock on it
 * (store/contacts `matchOrCreate`), which the `FOR UPDATE` here waits for; once `merged_into` or
 * `deleting_at` is set no channel matches the contact any more.
 */

/**
 * Locks the contacts in id order without blocking channels' key-share locks (`FOR NO KEY
 * UPDATE`), then the one that goes away `FOR UPDATE`, which waits for channels attaching to it.
 */
const lockLive = (
  sql: SqlClient.SqlClient,
  workspaceId: number,
  ids: readonly number[],
  leaving: number,
  resume = false,
) =>
  Effect.gen(function* () {
    const rows = yield* sql<ContactRow>`SELECT * FROM contacts WHERE workspace_id = ${workspaceId}
      AND id IN ${sql.in(ids)} AND merged_into IS NULL AND (deleting_at IS NULL OR ${resume})
      ORDER BY id FOR NO KEY UPDATE`
    if (rows.length === ids.length) yield* sql`SELECT id FROM contacts WHERE id = ${leaving} FOR UPDATE`
    return rows
  })

/** Marks `sourceId` as merging into `targetId`; null when either is not a live contact of the workspace. */
export const beginMerge = (workspaceId: number, targetId: number, sourceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const rows = yield* lockLive(sql, workspaceId, [targetId, sourceId], sourceId)
        const target = rows.find((r) => r.id === targetId)
        const source = rows.find((r) => r.id === sourceId)
        if (!target || !source) return null
        yield* sql`UPDATE contacts SET merged_into = ${targetId} WHERE id = ${sourceId}`
        return { target, source }
      }),
    ),
  )

/** Undoes `beginMerge` (the moves failed): the source is matched and listed again. */
export const abandonMerge = (sourceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`UPDATE contacts SET merged_into = NULL WHERE id = ${sourceId}`.pipe(Effect.asVoid),
  )

export const conversationIds = (contactId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ id: number }>`SELECT id FROM conversations WHERE contact_id = ${contactId} ORDER BY id`.pipe(
      Effect.map((r) => r.map((x) => x.id)),
    ),
  )

/**
 * Takes over what is left of the source and deletes it, in one transaction with both contacts
 * locked: labels, messaging-app labels, notes, timeline, live-chat visitors, leads; empty fields and
 * custom values the target lacks; the opt-out if either had it. Answers the conversation ids
 * still on the source instead (attached while the actors moved the others), for another round.
 */
export const finishMerge = (target: ContactRow, source: ContactRow) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM contacts WHERE id IN ${sql.in([target.id, source.id])} ORDER BY id FOR NO KEY UPDATE`
        yield* sql`SELECT id FROM contacts WHERE id = ${source.id} FOR UPDATE`
        const left = yield* sql<{ id: number }>`SELECT id FROM conversations WHERE contact_id = ${source.id}`
        if (left.length > 0) return { _tag: 'Again' as const, ids: left.map((r) => r.id) }
        yield* sql`INSERT INTO contact_labels (contact_id, label_id)
          SELECT ${target.id}, label_id FROM contact_labels WHERE contact_id = ${source.id} ON CONFLICT DO NOTHING`
        yield* sql`INSERT INTO contact_msgapp_labels (contact_id, channel_id, label_id)
          SELECT ${target.id}, channel_id, label_id FROM contact_msgapp_labels WHERE contact_id = ${source.id}
          ON CONFLICT DO NOTHING`
        yield* sql`UPDATE contact_notes SET contact_id = ${target.id} WHERE contact_id = ${source.id}`
        yield* sql`UPDATE contact_events SET contact_id = ${target.id} WHERE contact_id = ${source.id}`
        yield* sql`UPDATE livechat_visitors SET contact_id = ${target.id} WHERE contact_id = ${source.id}`
        yield* sql`UPDATE leads SET contact_id = ${target.id} WHERE contact_id = ${source.id}`
        yield* sql`UPDATE tickets SET contact_id = ${target.id} WHERE contact_id = ${source.id}`
        const [merged] = yield* sql<ContactRow>`
          UPDATE contacts t SET
            name = CASE WHEN t.name = '' THEN s.name ELSE t.name END,
            phone = COALESCE(t.phone, s.phone), email = COALESCE(t.email, s.email),
            company = COALESCE(t.company, s.company), job_title = COALESCE(t.job_title, s.job_title),
            address = COALESCE(t.address, s.address), city = COALESCE(t.city, s.city),
            language = COALESCE(t.language, s.language), owner_id = COALESCE(t.owner_id, s.owner_id),
            avatar_file_id = COALESCE(t.avatar_file_id, s.avatar_file_id),
            client_id = COALESCE(t.client_id, s.client_id),
            custom = s.custom || t.custom, broadcast_opt_out = t.broadcast_opt_out OR s.broadcast_opt_out,
            created_at = LEAST(t.created_at, s.created_at), updated_at = now()
          FROM contacts s WHERE t.id = ${target.id} AND s.id = ${source.id} RETURNING t.*`
        yield* sql`DELETE FROM contacts WHERE id = ${source.id}`
        return { _tag: 'Done' as const, contact: merged! }
      }),
    ),
  )

/**
 * Marks the contact as being deleted; null when it is not a contact of the workspace. A contact
 * whose delete was interrupted is taken up again.
 */
export const beginDelete = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        const [row] = yield* lockLive(sql, workspaceId, [id], id, true)
        if (!row) return null
        yield* sql`UPDATE contacts SET deleting_at = now() WHERE id = ${id}`
        return row
      }),
    ),
  )

/**
 * Deletes the contact (notes, timeline, labels cascade) once no conversation is left on it;
 * otherwise answers the ids attached meanwhile, for another round through the actors.
 */
export const finishDelete = (id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT id FROM contacts WHERE id = ${id} FOR UPDATE`
        const left = yield* sql<{ id: number }>`SELECT id FROM conversations WHERE contact_id = ${id}`
        if (left.length > 0) return { _tag: 'Again' as const, ids: left.map((r) => r.id) }
        yield* sql`DELETE FROM contacts WHERE id = ${id}`
        return { _tag: 'Done' as const }
      }),
    ),
  )
