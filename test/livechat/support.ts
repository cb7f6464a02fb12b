import { deflateSync } from 'node:zlib'
import { expect } from 'vitest'
import * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

/** Helpers shared by the live chat suites: channels, visitors, and real images built byte by byte. */
export const body = async (res: Response) => (await res.json()) as Record<string, any>

export const patch = (b: unknown, h: Record<string, string>): RequestInit => ({
  ...F.json(b, h),
  method: 'PATCH',
})

export const createLivechat = async (
  s: TestServer,
  owner: F.Session,
  extra: Record<string, unknown> = {},
) => {
  const res = await s.fetch('/v1/channels/livechat', F.json({ name: 'Website', ...extra }, owner.headers()))
  expect(res.status).toBe(201)
  return (await body(res)).data
}

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})
const crc32 = (b: Buffer) => {
  let c = 0xffffffff
  for (const x of b) c = crcTable[(c ^ x) & 0xff]! ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}
const chunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4)
  len.writeUInt32BE(data.length)
  const td = Buffer.concat([Buffer.from(type, 'latin1'), data])
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(td))
  return Buffer.concat([len, td, crc])
}

/** A real PNG of one colour, `w` × `h` pixels; `pad` adds an ancillary chunk to make it large. */
export const png = (w: number, h: number, pad = 0) => {
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(w, 0)
  ihdr.writeUInt32BE(h, 4)
  ihdr[8] = 8
  ihdr[9] = 2
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, 0x40)])
  const raw = Buffer.concat(Array.from({ length: h }, () => row))
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    ...(pad > 0 ? [chunk('tEXt', Buffer.alloc(pad, 0x61))] : []),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

/** A minimal JPEG header (SOI, APP0, SOF0 with the size): enough for content checks. */
export const jpegHeader = (w: number, h: number) =>
  Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xe0,
    0x00,
    0x10,
    0x4a,
    0x46,
    0x49,
    0x46,
    0x00,
    0x01,
    0x01,
    0x00,
    0x00,
    0x01,
    0x00,
    0x01,
    0x00,
    0x00,
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    h >> 8,
    h & 0xff,
    w >> 8,
    w & 0xff,
    0x03,
    0x01,
    0x22,
    0x00,
    0x02,
    0x11,
    0x01,
    0x03,
    0x11,
    0x01,
    0xff,
    0xd9,
  ])

/** A lossless WebP header (VP8L) of `w` × `h`. */
export const webpHeader = (w: number, h: number) => {
  const b = Buffer.alloc(30)
  b.write('RIFF', 0, 'latin1')
  b.writeUInt32LE(22, 4)
  b.write('WEBP', 8, 'latin1')
  b.write('VP8L', 12, 'latin1')
  b.writeUInt32LE(10, 16)
  b[20] = 0x2f
  const bits = (w - 1) | ((h - 1) << 14)
  b.writeUInt32LE(bits >>> 0, 21)
  return b
}

export const form = (
  fields: Record<string, string>,
  files: Record<string, { bytes: Buffer; name: string; type: string }>,
) => {
  const f = new FormData()
  for (const [k, v] of Object.entries(fields)) f.append(k, v)
  for (const [k, v] of Object.entries(files))
    f.append(k, new Blob([Uint8Array.from(v.bytes)], { type: v.type }), v.name)
  return f
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Config (form token) then start, as the widget does; answers the start response's data. */
export const startVisitor = async (
  s: TestServer,
  key: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
) => {
  const cfg = await body(await s.fetch(`/v1/livechat/${key}/config`))
  const res = await s.fetch(
    `/v1/livechat/${key}/visitors`,
    F.json(
      {
        name: 'Vera Visitor',
        email: `vera-${Math.random().toString(36).slice(2, 8)}@example.com`,
        phone: '+62 812 3456 7890',
        page_url: 'https://shop.example.com/pricing',
        form_token: cfg.data.form_token,
        ...extra,
      },
      headers,
    ),
  )
  expect(res.status, await res.clone().text()).toBe(201)
  return (await body(res)).data as {
    token: string
    session: string
    interaction_id: number
    channel: string
  } & Record<string, any>
}

export const v = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...extra,
})
