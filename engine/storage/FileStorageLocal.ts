import * as fs from 'node:fs/promises'
import * as path from 'node:path'
import { Effect, Layer } from 'effect'
import { systemMillis } from '../clock'
import { randomToken } from '../tokens'
import { type ByteRange, FileStorage, type FileStorageShape, KEY_PATTERN, StorageError } from './FileStorage'

/**
 * File storage in a local directory (default `DATA_DIR/files`). A file is written to a temporary
 * name and renamed into place, so a reader never sees half a file. In cluster mode every node must
 * see the same directory (a shared volume).
 */
export const make = (dir: string): FileStorageShape => {
  const root = path.resolve(dir)
  const fileOf = (op: string, key: string) =>
    KEY_PATTERN.test(key)
      ? Effect.succeed(path.join(root, ...key.split('/')))
      : Effect.fail(new StorageError({ op, key, cause: 'malformed key' }))
  const attempt = <A>(op: string, key: string, f: () => Promise<A>) =>
    Effect.tryPromise({ try: f, catch: (cause) => new StorageError({ op, key, cause }) })
  const missing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === 'ENOENT'

  return {
    put: (prefix, bytes) => {
      const month = new Date(systemMillis()).toISOString().slice(0, 7)
      const key = `${prefix.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'x'}/${month}/${randomToken(18)}`
      return Effect.flatMap(fileOf('put', key), (file) =>
        attempt('put', key, async () => {
          await fs.mkdir(path.dirname(file), { recursive: true })
          const tmp = `${file}.${randomToken(6)}.tmp`
          try {
            await fs.writeFile(tmp, bytes)
            await fs.rename(tmp, file)
          } catch (e) {
            await fs.rm(tmp, { force: true })
            throw e
          }
          return key
        }),
      )
    },
    size: (key) =>
      Effect.flatMap(fileOf('size', key), (file) =>
        attempt('size', key, async () => {
          try {
            return (await fs.stat(file)).size
          } catch (e) {
            if (missing(e)) return null
            throw e
          }
        }),
      ),
    read: (key, range?: ByteRange) =>
      Effect.flatMap(fileOf('read', key), (file) =>
        attempt('read', key, async () => {
          let handle: fs.FileHandle
          try {
            handle = await fs.open(file, 'r')
          } catch (e) {
            if (missing(e)) return null
            throw e
          }
          try {
            if (!range) return new Uint8Array(await handle.readFile())
            const { size } = await handle.stat()
            const end = Math.min(range.end, size - 1)
            const length = Math.max(0, end - range.start + 1)
            const buf = Buffer.alloc(length)
            let read = 0
            while (read < length) {
              const r = await handle.read(buf, read, length - read, range.start + read)
              if (r.bytesRead === 0) break
              read += r.bytesRead
            }
            return new Uint8Array(buf.buffer, buf.byteOffset, read)
          } finally {
            await handle.close()
          }
        }),
      ),
    remove: (key) =>
      Effect.flatMap(fileOf('remove', key), (file) =>
        attempt('remove', key, () => fs.rm(file, { force: true })),
      ),
  }
}

export const layer = (dir: string): Layer.Layer<FileStorage> => Layer.sync(FileStorage, () => make(dir))
