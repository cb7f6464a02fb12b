import { pipeline, Readable } from 'node:stream'
import busboy from 'busboy'
import { Effect } from 'effect'
import { type ApiError, type FieldMessage, invalid } from '../actors/errors'
import { humanSize, type UploadedFile } from '../actors/fields'
import { addMessages } from '../actors/i18n'
import { utf8Text } from './validation'

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

/**
 * The name of the first text part (no file name, not `application/octet-stream`, as busboy tells
 * files from fields) whose bytes are not UTF-8, or null. busboy decodes a text part leniently
 * (a bad byte becomes U+FFFD) and says nothing, so the parts' bytes are checked here first, as
 * JSON bodies are (http/validation.ts `utf8Text`). A body this scan cannot follow is left to
 * busboy, which refuses it.
 */
const textPartNotUtf8 = (body: Buffer, contentType: string): string | null => {
  const boundary = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType)
  const b = boundary?.[1] ?? boundary?.[2]
  if (!b) return null
  const delimiter = Buffer.from(`\r\n--${b}`, 'latin1')
  // The first delimiter may open the body, without the line break before it.
  let at = body.indexOf(delimiter.subarray(2))
  if (at < 0) return null
  at += delimiter.length - 2
  while (at + 2 <= body.length && !(body[at] === 0x2d && body[at + 1] === 0x2d)) {
    const headEnd = body.indexOf('\r\n\r\n', at, 'latin1')
    if (headEnd < 0) return null
    const next = body.indexOf(delimiter, headEnd + 4)
    if (next < 0) return null
    const head = body.toString('latin1', at, headEnd)
    const file = /;\s*filename\*?=/i.test(head) || /content-type:\s*application\/octet-stream/i.test(head)
    if (!file && utf8Text(body.subarray(headEnd + 4, next)) === null) {
      return fieldName(/;\s*name="([^"]*)"/i.exec(head)?.[1] ?? 'body') || 'body'
    }
    at = next + delimiter.length
  }
  return null
}

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
    const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    const notUtf8 = textPartNotUtf8(bytes, contentType)
    if (notUtf8 !== null) {
      finish(Effect.fail(invalid({ [notUtf8]: { key: 'field.utf8' } })))
      return
    }
    bb.end(bytes)
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
