import { cleanMime, OCTET_STREAM } from '../../engine/mime'
import { sniffImage } from '../image'

/**
 * What the messaging app takes as media, read from a file's first bytes (magic numbers), never
 * from its name or the type the browser claimed: an upload sent to customers on a number
 * (broadcast attachments, the inbox's files and stickers) must be one of these, so a renamed
 * program (`tool.exe` as `application/pdf`) never reaches a customer's phone.
 *
 * - images: JPEG, PNG, WebP (sniffImage: channel icons and visitors' images read them the same);
 * - videos: MP4 and 3GPP (ISO media with a video brand);
 * - audio (inbox only): AAC (ADTS), MP3, M4A, AMR, Ogg (Opus);
 * - documents: PDF; Word, Excel and PowerPoint, old (OLE compound file with the program's stream)
 *   and new (Office Open XML: a ZIP holding `[Content_Types].xml` and its `word/`, `xl/` or `ppt/`
 *   part); plain text and CSV (UTF-8 without control characters, named `.txt` or `.csv`).
 *
 * Anything else (programs, archives, HTML, SVG, GIF, QuickTime…) is null. The answer's `mime` is
 * what the file is stored and sent as.
 */
export type MediaKind = 'image' | 'video' | 'audio' | 'document'

export interface MediaType {
  readonly kind: MediaKind
  readonly mime: string
}

const ascii = (b: Uint8Array, at: number, n: number) => Buffer.from(b.subarray(at, at + n)).toString('latin1')

const starts = (b: Uint8Array, sig: readonly number[]) => sig.every((x, i) => b[i] === x)

/** ISO base media (MP4, 3GPP, M4A): an `ftyp` box first, whose major brand says which. */
const isoMedia = (b: Uint8Array): MediaType | null => {
  if (b.length < 12 || ascii(b, 4, 4) !== 'ftyp') return null
  const brand = ascii(b, 8, 4)
  if (brand.startsWith('3g')) return { kind: 'video', mime: 'video/3gpp' }
  if (brand === 'M4A ' || brand === 'M4B ') return { kind: 'audio', mime: 'audio/mp4' }
  // QuickTime (`qt  `) and HEIF images are not what the app plays.
  if (brand === 'qt  ' || brand.startsWith('hei') || brand.startsWith('mif') || brand === 'avif') return null
  return { kind: 'video', mime: 'video/mp4' }
}

const audio = (b: Uint8Array): MediaType | null => {
  if (ascii(b, 0, 6) === '#!AMR\n') return { kind: 'audio', mime: 'audio/amr' }
  if (ascii(b, 0, 4) === 'OggS' && b.length > 36 && ascii(b, 28, 8) === 'OpusHead')
    return { kind: 'audio', mime: 'audio/ogg' }
  if (ascii(b, 0, 3) === 'ID3') return { kind: 'audio', mime: 'audio/mpeg' }
  if (b.length >= 2 && b[0] === 0xff) {
    // ADTS (AAC): sync 0xFFF, layer 00; MPEG audio (MP3): sync 0xFFE, layer III.
    if ((b[1]! & 0xf6) === 0xf0) return { kind: 'audio', mime: 'audio/aac' }
    if ((b[1]! & 0xe6) === 0xe2) return { kind: 'audio', mime: 'audio/mpeg' }
  }
  return null
}

const utf16 = (s: string) => Buffer.from(s, 'utf16le')

const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]
/** An OLE compound file is an Office document only when it holds the program's stream. */
const ole = (b: Uint8Array): MediaType | null => {
  if (!starts(b, OLE)) return null
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  if (buf.includes(utf16('WordDocument'))) return { kind: 'document', mime: 'application/msword' }
  if (buf.includes(utf16('Workbook')) || buf.includes(utf16('Book')))
    return { kind: 'document', mime: 'application/vnd.ms-excel' }
  if (buf.includes(utf16('PowerPoint Document')))
    return { kind: 'document', mime: 'application/vnd.ms-powerpoint' }
  return null
}

const OOXML = 'application/vnd.openxmlformats-officedocument'
/** Office Open XML: a ZIP with the content-types part and the program's folder. */
const ooxml = (b: Uint8Array): MediaType | null => {
  if (!starts(b, [0x50, 0x4b, 0x03, 0x04])) return null
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength)
  if (!buf.includes('[Content_Types].xml')) return null
  if (buf.includes('word/')) return { kind: 'document', mime: `${OOXML}.wordprocessingml.document` }
  if (buf.includes('xl/')) return { kind: 'document', mime: `${OOXML}.spreadsheetml.sheet` }
  if (buf.includes('ppt/')) return { kind: 'document', mime: `${OOXML}.presentationml.presentation` }
  return null
}

const decoder = new TextDecoder('utf-8', { fatal: true })
/** Plain text or CSV: no magic number, so UTF-8 without control characters, and the name says so. */
const text = (b: Uint8Array, filename: string): MediaType | null => {
  const ext = /\.([a-z0-9]+)$/i.exec(filename)?.[1]?.toLowerCase()
  if (ext !== 'txt' && ext !== 'csv') return null
  if (b.some((x) => x < 0x20 && x !== 0x09 && x !== 0x0a && x !== 0x0d)) return null
  try {
    decoder.decode(b)
  } catch {
    return null
  }
  return { kind: 'document', mime: ext === 'csv' ? 'text/csv' : 'text/plain' }
}

export const sniffMsgappMedia = (bytes: Uint8Array, filename: string): MediaType | null => {
  const image = sniffImage(bytes)
  if (image) return image.mime === 'image/gif' ? null : { kind: 'image', mime: image.mime }
  if (ascii(bytes, 0, 5) === '%PDF-') return { kind: 'document', mime: 'application/pdf' }
  return isoMedia(bytes) ?? audio(bytes) ?? ole(bytes) ?? ooxml(bytes) ?? text(bytes, filename)
}

/** A sticker on the number: WebP or PNG by its bytes, its type; null for anything else. */
export const stickerMime = (bytes: Uint8Array): string | null => {
  const image = sniffImage(bytes)
  return image?.mime === 'image/webp' || image?.mime === 'image/png' ? image.mime : null
}

/** Every type the sniffers above can recognise: a claim of one of these the bytes do not bear out is false. */
const RECOGNISABLE = new Set([
  'image/png',
  'image/jpeg',
  'image/webp',
  'image/gif',
  'application/pdf',
  'video/mp4',
  'video/3gpp',
  'audio/mp4',
  'audio/amr',
  'audio/ogg',
  'audio/mpeg',
  'audio/aac',
  'application/msword',
  'application/vnd.ms-excel',
  'application/vnd.ms-powerpoint',
  `${OOXML}.wordprocessingml.document`,
  `${OOXML}.spreadsheetml.sheet`,
  `${OOXML}.presentationml.presentation`,
])

/**
 * The type a stranger's file (an e-mail attachment, an API channel's attachment) is stored and
 * served under: what its bytes are where they say (`sniffImage`, GIF included, then
 * `sniffMsgappMedia`), whatever was claimed, so a PNG claimed as `text/html` is `image/png`. Bytes
 * that say nothing keep the claimed type, unless it is one the bytes would have shown (an HTML page
 * claimed as `image/png` or `application/pdf`): then `application/octet-stream`, a download.
 */
export const typeByBytes = (
  bytes: Uint8Array,
  filename: string,
  claimed: string | null | undefined,
): string => {
  const known = sniffImage(bytes)?.mime ?? sniffMsgappMedia(bytes, filename)?.mime
  if (known) return known
  const mime = cleanMime(claimed)
  return RECOGNISABLE.has(mime) ? OCTET_STREAM : mime
}
