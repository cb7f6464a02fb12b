import { pipeline, Readable } from 'node:stream'
import busboy from 'busboy'
import { Effect } from 'effect'
import { type ApiError, type FieldMessage, invalid } from '../actors/errors'
import { humanSize, type UploadedFile } from '../actors/fields'
import { addMessages } from '../actors/i18n'

/**
 * `multipart/form-data` request bodies (spec 1 §1: file-carrying endpoints). A route opts in with
 * `multipart` limits; the pipeline parses the body (already read whole by the transport, within
 * the route's `maxBytes`), hands the text fields to the route's body schema and the files to the
 * handler. Repeated fields and `name[]` fields become arrays; file fields named `files[]` arrive
 * as `files`.
 */
export interface MultipartLimits {
  /** Largest request body of the route, multipart or not (the transport answers 413 beyond). */
  readonly maxBytes: number
  /** Most files in one request. */
  readonly maxFiles: number
  /** Largest single file; a larger one is a 422 on its field. */
  readonly maxFileBytes: number
}

export interface Multipart {
  readonly fields: Readonly<Record<string, string | readonly string[]>>
  readonly files: readonly UploadedFile[]
}

addMessages({
  'field.multipart': {
    en: 'is not a valid multipart/form-data body',
    id: 'bukan isi multipart/form-data yang valid',
  },
})

export const isMultipart = (contentType: string | undefined): boolean =>
  contentType?.toLowerCase().startsWith('multipart/form-data') ?? false

/** A file name without path separators or control characters. */
const safeName = (name: string) =>
  [...name]
    .map((ch) => (ch === '/' || ch === '\\' || ch.charCodeAt(0) < 0x20 ? '_' : ch))
    .join('')
    .slice(0, 255)

const fieldName = (name: string) => (name.endsWith('[]') ? name.slice(0, -2) : name)

export const parseMultipart = (
  body: Uint8Array,
  contentType: string,
  limits: MultipartLimits,
): Effect.Effect<Multipart, ApiError> =>
  Effect.async<Multipart, ApiError>((resume) => {
    const fields: Record<string, string | string[]> = {}
    const files: UploadedFile[] = []
    const problems: Record<string, FieldMessage> = {}
    let done = false
    let parsed = false
    let pendingFiles = 0
    const finish = (r: Effect.Effect<Multipart, ApiError>) => {
      if (done) return
      done = true
      resume(r)
    }
    // The parser may close before the last file stream has ended: wait for both.
    const settle = () => {
      if (!parsed || pendingFiles > 0) return
      if (Object.keys(problems).length > 0) finish(Effect.fail(invalid(problems)))
      else finish(Effect.succeed({ fields, files }))
    }
    let bb: busboy.Busboy
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        limits: {
          files: limits.maxFiles,
          fileSize: limits.maxFileBytes,
          fields: 100,
          fieldSize: 1024 * 1024,
          parts: limits.maxFiles + 100,
        },
      })
    } catch {
      finish(Effect.fail(invalid({ body: { key: 'field.multipart' } })))
      return
    }
    bb.on('field', (raw, value) => {
      const name = fieldName(raw)
      const prev = fields[name]
      fields[name] =
        prev === undefined && !raw.endsWith('[]')
          ? value
          : [...(prev === undefined ? [] : Array.isArray(prev) ? prev : [prev]), value]
    })
    bb.on('file', (raw, stream, info) => {
      const name = fieldName(raw)
      const chunks: Buffer[] = []
      pendingFiles += 1
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('limit', () => {
        problems[name] = { key: 'field.file_too_large', params: { size: humanSize(limits.maxFileBytes) } }
      })
      stream.on('end', () => {
        pendingFiles -= 1
        // A file input left empty arrives as a part without a name or bytes: not a file.
        if (!problems[name] && info.filename !== undefined && !(info.filename === '' && chunks.length === 0))
          files.push({
            field: name,
            filename: safeName(info.filename) || 'file',
            mime: (info.mimeType || 'application/octet-stream').toLowerCase(),
            bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
          })
        settle()
      })
    })
    bb.on('filesLimit', () => {
      problems.files = { key: 'field.too_many_files', params: { n: limits.maxFiles } }
    })
    bb.on('error', () => finish(Effect.fail(invalid({ body: { key: 'field.multipart' } }))))
    bb.on('close', () => {
      parsed = true
      settle()
    })
    bb.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength))
  })

/**
 * The bytes of the file in `field` of a multipart body that arrives as a stream (routes with
 * `streamBody`), as a stream too: nothing of the file is held beyond what its reader has not
 * consumed yet. Other parts are skipped; no such file is a 422 naming the field.
 */
export const fileStream = (
  body: AsyncIterable<Uint8Array> | undefined,
  contentType: string | undefined,
  field: string,
): Effect.Effect<Readable, ApiError> =>
  Effect.async<Readable, ApiError>((resume) => {
    if (!body || !isMultipart(contentType)) {
      resume(Effect.fail(invalid({ [field]: { key: 'field.file_required' } })))
      return
    }
    let found: Readable | null = null
    let bb: busboy.Busboy
    try {
      bb = busboy({
        headers: { 'content-type': contentType! },
        limits: { files: 1, fields: 100, parts: 101 },
      })
    } catch {
      resume(Effect.fail(invalid({ body: { key: 'field.multipart' } })))
      return
    }
    bb.on('file', (raw, stream) => {
      if (found || fieldName(raw) !== field) {
        stream.resume()
        return
      }
      found = stream
      resume(Effect.succeed(stream))
    })
    bb.on('close', () => {
      if (!found) resume(Effect.fail(invalid({ [field]: { key: 'field.file_required' } })))
    })
    pipeline(Readable.from(body), bb, (err) => {
      if (!err) return
      // The client went away or the body broke off: the reader of the file learns it from its stream.
      if (found) found.destroy(err)
      else resume(Effect.fail(invalid({ body: { key: 'field.multipart' } })))
    })
  })
