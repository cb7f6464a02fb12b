/**
 * What an uploaded image really is, read from its first bytes (never from its name or the type
 * the browser claimed): PNG, JPEG or WebP (also GIF, for visitor attachments), with its size in
 * pixels where the header says it. Null for anything else.
 */
export interface ImageInfo {
  readonly mime: 'image/png' | 'image/jpeg' | 'image/webp' | 'image/gif'
  readonly width: number
  readonly height: number
}

const ascii = (b: Uint8Array, at: number, n: number) => Buffer.from(b.subarray(at, at + n)).toString('latin1')

const png = (b: Uint8Array): ImageInfo | null => {
  if (b.length < 24 || ascii(b, 1, 3) !== 'PNG' || b[0] !== 0x89 || ascii(b, 12, 4) !== 'IHDR') return null
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  return { mime: 'image/png', width: v.getUint32(16), height: v.getUint32(20) }
}

const gif = (b: Uint8Array): ImageInfo | null => {
  if (b.length < 10 || !/^GIF8[79]a$/.test(ascii(b, 0, 6))) return null
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength)
  return { mime: 'image/gif', width: v.getUint16(6, true), height: v.getUint16(8, true) }
}

/** JPEG: walks the segments to the first start-of-frame marker, which carries the size. */
const jpeg = (b: Uint8Array): ImageInfo | null => {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null
  let i = 2
  while (i + 9 < b.length) {
    if (b[i] !== 0xff) return null
    const marker = b[i + 1]!
    if (marker === 0xff) {
      i += 1
      continue
    }
    const len = (b[i + 2]! << 8) | b[i + 3]!
    const sof = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (sof) {
      return { mime: 'image/jpeg', height: (b[i + 5]! << 8) | b[i + 6]!, width: (b[i + 7]! << 8) | b[i + 8]! }
    }
    if (len < 2) return null
    i += 2 + len
  }
  return null
}

/** WebP: RIFF container with a VP8 (lossy), VP8L (lossless) or VP8X (extended) first chunk. */
const webp = (b: Uint8Array): ImageInfo | null => {
  if (b.length < 30 || ascii(b, 0, 4) !== 'RIFF' || ascii(b, 8, 4) !== 'WEBP') return null
  const chunk = ascii(b, 12, 4)
  if (chunk === 'VP8 ') {
    if (b[23] !== 0x9d || b[24] !== 0x01 || b[25] !== 0x2a) return null
    return {
      mime: 'image/webp',
      width: ((b[27]! << 8) | b[26]!) & 0x3fff,
      height: ((b[29]! << 8) | b[28]!) & 0x3fff,
    }
  }
  if (chunk === 'VP8L') {
    if (b[20] !== 0x2f) return null
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)
    return { mime: 'image/webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (chunk === 'VP8X') {
    return {
      mime: 'image/webp',
      width: (b[24]! | (b[25]! << 8) | (b[26]! << 16)) + 1,
      height: (b[27]! | (b[28]! << 8) | (b[29]! << 16)) + 1,
    }
  }
  return null
}

export const sniffImage = (bytes: Uint8Array): ImageInfo | null =>
  png(bytes) ?? jpeg(bytes) ?? webp(bytes) ?? gif(bytes)

/** Channel icons (spec 1 §8): square PNG, JPG or WebP, up to 512 KB. */
export const MAX_ICON_BYTES = 512 * 1024

export type IconVerdict =
  | { readonly ok: true; readonly info: ImageInfo }
  | { readonly ok: false; readonly reason: 'too_large' | 'not_image' | 'not_square' }

export const checkIcon = (bytes: Uint8Array): IconVerdict => {
  if (bytes.byteLength > MAX_ICON_BYTES) return { ok: false, reason: 'too_large' }
  const info = sniffImage(bytes)
  if (!info || info.mime === 'image/gif' || info.width === 0) return { ok: false, reason: 'not_image' }
  if (info.width !== info.height) return { ok: false, reason: 'not_square' }
  return { ok: true, info }
}
