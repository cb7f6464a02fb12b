import * as fs from 'node:fs'
import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { encryptedStream } from 'baileys'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ENV, linkedNumber, waId } from '../msgapp/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { socketFor } from './support'

/**
 * A file's media type comes from strangers (a messaging-app sender's `mimetype`, an API
 * channel's attachment) and is served as the `Content-Type` of the agents' media link: a CR or
 * LF in it must never become headers of the sender's choosing (a cookie planted on the app's
 * origin), and a type written oddly must not slip past the rule that sends active types as
 * downloads (engine/mime.ts).
 */
let s: TestServer
let w: F.Seeded
let owner: F.Session
let files: http.Server
let filesUrl = ''
const served = new Map<string, Buffer>()
beforeAll(async () => {
  s = await startTestServer({ ...ENV, WEBHOOK_ALLOW_PRIVATE: '1' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
  files = http.createServer((req, res) => {
    const b = served.get(req.url ?? '')
    if (!b) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': b.length }).end(b)
  })
  await new Promise<void>((r) => files.listen(0, '127.0.0.1', r))
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`
  served.set('/page', Buffer.from('<h1>hello</h1>'))
  served.set('/pdf', Buffer.from('%PDF-1.4\n'))
})
afterAll(async () => {
  files?.close()
  await s?.stop()
})

const body = async (res: Response) => (await res.json()) as Record<string, any>

const apiKey = async (name: string) =>
  (await body(await s.fetch('/v1/channels/api', F.json({ name }, owner.headers())))).data.credentials
    .key as string

const inbound = (key: string, conv: string, id: string, mime: string, path = '/page') =>
  s.fetch(
    '/v1/channel-api/messages',
    F.json(
      {
        conversation_id: conv,
        contact: { name: 'Rina' },
        message: { id, attachments: [{ url: `${filesUrl}${path}`, mime, name: 'page.html' }] },
      },
      F.bearer(key),
    ),
  )

describe('an API channel attachment’s type', () => {
  it('with a CR or LF is refused with 422 and nothing is stored', async () => {
    const key = await apiKey('Shop')
    const res = await inbound(key, 'm-1', 'in-1', 'text/plain\r\nSet-Cookie: planted=1; Path=/')
    expect(res.status).toBe(422)
    const json = await body(res)
    expect(json.error.fields).toHaveProperty(['message.attachments.0.mime'])
    const list = await body(await s.fetch('/v1/interactions', { headers: owner.headers() }))
    expect(list.data).toHaveLength(0)
  })

  it('written with a leading space and capitals is stored clean and served as a download', async () => {
    const key = await apiKey('Shop 2')
    const res = await inbound(key, 'm-2', 'in-2', ' Text/HTML; charset=utf-8')
    expect(res.status).toBe(201)
    const message = (await body(res)).data.message
    expect(message.media.mime).toBe('text/html')
    const media = await s.fetch(message.media.url, { headers: owner.headers() })
    expect(media.status).toBe(200)
    expect(media.headers.get('content-type')).toBe('text/html')
    expect(media.headers.get('content-disposition')).toMatch(/^attachment;/)
    expect(media.headers.get('x-content-type-options')).toBe('nosniff')
  })
})

describe('what is shown inline', () => {
  it('only pictures, sound, video, PDF and plain text; every other type is a download', async () => {
    const key = await apiKey('Shop 3')
    const disposition = async (mime: string, i: number, path?: string) => {
      const res = await inbound(key, 'm-3', `in-3-${i}`, mime, path)
      expect(res.status, mime).toBe(201)
      const media = await s.fetch((await body(res)).data.message.media.url, { headers: owner.headers() })
      return media.headers.get('content-disposition')!.split(';')[0]
    }
    const types = ['application/rss+xml', 'text/xsl', 'application/x-javascript', 'image/svg+xml', 'text/css']
    for (const [i, mime] of types.entries()) expect(await disposition(mime, i), mime).toBe('attachment')
    expect(await disposition('text/plain', 10)).toBe('inline')
    // A PDF by its bytes (an HTML page claimed as a PDF is stored as application/octet-stream).
    expect(await disposition('application/pdf', 11, '/pdf')).toBe('inline')
  })
})

describe('a messaging-app sender’s document type', () => {
  it('with CR and LF adds no header to the media link: the file is served as what its bytes are', async () => {
    const { sock } = await linkedNumber(s, owner, '6281200000901')
    const { c: ws } = await socketFor(s, owner, `ws:${w.workspaceId}`)
    const enc = await encryptedStream(Buffer.from('hello'), 'document')
    served.set('/doc.enc', fs.readFileSync(enc.encFilePath))
    sock.emit('messages.upsert', {
      type: 'notify',
      messages: [
        {
          key: { remoteJid: '6281399990901@s.whatsapp.net', fromMe: false, id: waId() },
          message: {
            documentMessage: {
              url: `${filesUrl}/doc.enc`,
              // The adapter once kept what came before the first `;`: none here.
              mimetype: 'text/plain\r\nX-Injected: yes\r\nSet-Cookie: planted=1',
              fileName: 'note.txt',
              mediaKey: enc.mediaKey,
              fileEncSha256: enc.fileEncSha256,
              fileSha256: enc.fileSha256,
              fileLength: enc.fileLength,
            },
          },
          messageTimestamp: Math.floor(Date.now() / 1000),
          pushName: 'Stranger',
        },
      ],
    })
    const created = await ws.next((f) => f.event === 'inbox.changed')
    const convId = (created.data as { interaction_id: number }).interaction_id
    let msg: any
    for (let i = 0; i < 100 && !msg?.media; i++) {
      const list = await body(
        await s.fetch(`/v1/interactions/${convId}/messages`, { headers: owner.headers() }),
      )
      msg = list.data.find((m: any) => m.type === 'document')
      if (!msg?.media) await new Promise((r) => setTimeout(r, 100))
    }
    // The claim is thrown away; the bytes are UTF-8 text named `.txt`.
    expect(msg.media.mime).toBe('text/plain')
    const res = await s.fetch(msg.media.url, { headers: owner.headers() })
    expect(res.status).toBe(200)
    expect(res.headers.get('x-injected')).toBeNull()
    expect(res.headers.get('set-cookie')).toBeNull()
    expect(res.headers.get('content-type')).toMatch(/^text\/plain(;|$)/)
    expect(Buffer.from(await res.arrayBuffer()).toString()).toBe('hello')
    ws.close()
  })
})
