import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { cleanMime } from '../engine/mime'
import { FileStorage } from '../engine/storage/FileStorage'

/**
 * What the API knows of a private file (name, type, size, workspace); the bytes are kept by the
 * file storage port under `storage_key`.
 */
export interface FileRow {
  readonly id: number
  readonly workspace_id: number
  readonly storage_key: string
  readonly name: string
  readonly mime: string
  readonly size: number
  readonly created_by: number | null
  readonly created_at: Date
}

export interface NewFile {
  readonly name: string
  readonly mime: string
  readonly bytes: Uint8Array
}

/** Stores the bytes, then records the file; returns the record. */
export const save = (workspaceId: number, file: NewFile, createdBy: number | null) =>
  Effect.gen(function* () {
    const storage = yield* FileStorage
    const key = yield* storage.put(String(workspaceId), file.bytes)
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<FileRow>`
      INSERT INTO files (workspace_id, storage_key, name, mime, size, created_by)
      VALUES (${workspaceId}, ${key}, ${file.name}, ${cleanMime(file.mime)}, ${file.bytes.byteLength}, ${createdBy})
      RETURNING *`
    return row!
  })

export const byId = (workspaceId: number, id: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<FileRow>`SELECT * FROM files WHERE id = ${id} AND workspace_id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )

export const byIds = (workspaceId: number, ids: readonly number[]) =>
  ids.length === 0
    ? Effect.succeed([] as readonly FileRow[])
    : Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<FileRow>`SELECT * FROM files WHERE workspace_id = ${workspaceId} AND id IN ${sql.in(ids)}`,
      )

/** Forgets the record and the bytes (the bytes last: a reader never finds a record without them). */
export const remove = (file: FileRow) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM files WHERE id = ${file.id}`
    yield* Effect.flatMap(FileStorage, (s) => s.remove(file.storage_key))
  })
