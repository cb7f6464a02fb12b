import { Effect, Schema } from 'effect'
import { notFound } from '../actors/errors'
import { cleanMime } from '../engine/mime'
import { FileStorage } from '../engine/storage/FileStorage'
import type * as Files from '../store/files'
import type { Reply } from './route'

/**
 * Types shown inline: pictures, sound, video, PDF and plain text. Anything else is sent as a
 * download (deny by default): a list of what a browser could run (HTML, SVG, XML and XSL, every
 * spelling of JavaScript…) always misses one, and files come from strangers.
 */
export const INLINE =
  /^(image\/(png|jpeg|gif|webp|avif|bmp)|audio\/[\w.+-]+|video\/[\w.+-]+|application\/pdf|text\/plain)$/

export const asciiName = (name: string) => name.replace(/[^\x20-\x7e]|["\\]/g, '_')

export type ByteRange = { readonly start: number; readonly end: number } | 'unsatisfiable' | null

/**
 * One `bytes=` range of a file of `size` bytes (RFC 9110 §14): `a-b`, `a-` or `-n` (the last n).
 * Null when absent or malformed, or several ranges (then the whole file is sent).
 */
export const parseRange = (header: string | undefined, size: number): ByteRange => {
  const m = header ? /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header) : null
  if (!m || (m[1] === '' && m[2] === '')) return null
  if (m[1] === '') {
    const n = Number(m[2])
    if (n === 0 || size === 0) return 'unsatisfiable'
    return { start: Math.max(0, size - n), end: size - 1 }
  }
  const start = Number(m[1])
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)
  if (m[2] !== '' && Number(m[2]) < start) return null
  if (start >= size) return 'unsatisfiable'
  return { start, end }
}

/** A stored file as an HTTP answer: Range, inline or download, never sniffed into something active. */
export const fileReply = (file: Files.FileRow, range: string | undefined, download: boolean) =>
  Effect.gen(function* () {
    const storage = yield* FileStorage
    const size = yield* Effect.orDie(storage.size(file.storage_key))
    if (size === null) return yield* Effect.fail(notFound())
    // Rows stored before types were normalised on the way in are normalised on the way out.
    const mime = cleanMime(file.mime)
    const attachment = download || !INLINE.test(mime)
    const headers: Record<string, string> = {
      'Accept-Ranges': 'bytes',
      'Content-Disposition': `${attachment ? 'attachment' : 'inline'}; filename="${asciiName(file.name)}"; filename*=UTF-8''${encodeURIComponent(file.name)}`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
    }
    const r = parseRange(range, size)
    if (r === 'unsatisfiable') {
      return {
        _tag: 'Raw',
        status: 416,
        contentType: 'text/plain; charset=utf-8',
        body: 'Range not satisfiable',
        headers: { ...headers, 'Content-Range': `bytes */${size}` },
      } satisfies Reply as Reply
    }
    const bytes = yield* Effect.orDie(storage.read(file.storage_key, r ?? undefined))
    if (bytes === null) return yield* Effect.fail(notFound())
    return {
      _tag: 'Raw',
      status: r ? 206 : 200,
      contentType: mime,
      body: bytes,
      headers: r
        ? { ...headers, 'Content-Range': `bytes ${r.start}-${r.start + bytes.length - 1}/${size}` }
        : headers,
    } satisfies Reply as Reply
  })

export const DownloadQuery = Schema.Struct({
  download: Schema.optional(Schema.Literal('0', '1', 'true', 'false')),
})

export const wantsDownload = (q: { readonly download?: string | undefined }) =>
  q.download === '1' || q.download === 'true'

/** An icon as an HTTP answer: private to its viewers, cacheable by them, never sniffed. */
export const iconReply = (
  icon: { readonly mime: string; readonly bytes: Uint8Array },
  cache: string,
): Reply => ({
  _tag: 'Raw',
  status: 200,
  contentType: icon.mime,
  body: icon.bytes,
  headers: { 'Cache-Control': cache, 'X-Content-Type-Options': 'nosniff' },
})
