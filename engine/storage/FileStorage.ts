import { Context, Data, type Effect } from 'effect'

/**
 * Private file storage (message media, e-mail attachments, template attachments, avatars): bytes
 * under opaque keys the storage chooses. The database keeps what the API knows of a file (name,
 * type, size, owner); this port only keeps bytes.
 *
 * Guarantees:
 * - `put` is atomic: once it succeeds the whole file is readable under the returned key, and a
 *   failed or interrupted `put` leaves nothing readable behind.
 * - Keys are never reused; `remove` of a missing key succeeds (idempotent).
 * - `read` with a range returns exactly the bytes `start…end` (inclusive, clamped to the file);
 *   a missing key is `null`, not an error.
 * - Failures of the medium (disk full, permissions) are `StorageError`; callers answer 500.
 * Adapters: `FileStorageLocal` (a directory on local disk; shared volume in cluster mode).
 */
export class StorageError extends Data.TaggedError('StorageError')<{
  readonly op: string
  readonly key: string
  readonly cause: unknown
}> {}

export interface ByteRange {
  /** First byte, from 0. */
  readonly start: number
  /** Last byte, inclusive. */
  readonly end: number
}

export interface FileStorageShape {
  /** Stores the bytes under a new key (grouped under `prefix`, such as a workspace id). */
  readonly put: (prefix: string, bytes: Uint8Array) => Effect.Effect<string, StorageError>
  /** Size in bytes, or null when the key holds nothing. */
  readonly size: (key: string) => Effect.Effect<number | null, StorageError>
  /** The whole file, or the bytes of `range`; null when the key holds nothing. */
  readonly read: (key: string, range?: ByteRange) => Effect.Effect<Uint8Array | null, StorageError>
  readonly remove: (key: string) => Effect.Effect<void, StorageError>
}

export class FileStorage extends Context.Tag('kotak/FileStorage')<FileStorage, FileStorageShape>() {}

/** Keys are `<prefix>/<yyyy-mm>/<random>`: path-safe segments only, never `..`. */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}(\/[A-Za-z0-9_-]{1,64}){1,4}$/
