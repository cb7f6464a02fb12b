import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { LINK_TTL_SECONDS } from '../../connectors/api/files'
import { SigningKey, signJson } from '../../engine/tokens'
import * as I from '../inbox/support'
import { jpegHeader, png } from '../livechat/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { receiver } from './receiver'

/** Spec 1 §4.7 and §8: an agent reply's attachment reaches the customer's system as a signed link, 7 days. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '50' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>
const createApi = async (extra: Record<string, unknown> = {}) => {
  const res = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend', ...extra }, owner.headers()))
  expect(res.status).toBe(201)
  return (await body(res)).data
}

describe('attachments of agent replies', () => {
  it('are in the webhook as signed links the channel key opens, with Range; other keys, forged or expired links get 404', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url })
      secret = ch.credentials.webhook_secret
      const other = await createApi()
      const inbound = await body(
        await s.fetch(
          '/v1/channel-api/messages',
          F.json(
            { conversation_id: 'f-1', message: { id: 'in-1', text: 'send me the invoice' } },
            F.bearer(ch.credentials.key),
          ),
        ),
      )
      const content = I.bytes(50_000)
      const sent = await s.fetch(`/v1/interactions/${inbound.data.interaction_id}/messages`, {
        method: 'POST',
        headers: owner.headers(),
        body: I.form({ text: 'here it is' }, [
          { field: 'file', name: 'invoice.pdf', type: 'application/pdf', bytes: content },
        ]),
      })
      expect(sent.status).toBe(201)

      await rx.until((g) => g.some((x) => x.json.event === 'message.created'))
      const hook = rx.got.find((x) => x.json.event === 'message.created')!
      expect(hook.signatureValid).toBe(true)
      const [att] = hook.json.data.message.attachments
      expect(att).toMatchObject({ name: 'invoice.pdf', mime: 'application/pdf', size: 50_000 })
      expect(att.url).toMatch(new RegExp(`^${s.url}/v1/channel-api/files/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+$`))
      const expires = Date.parse(att.expires_at) - Date.now()
      expect(expires).toBeGreaterThan((LINK_TTL_SECONDS - 60) * 1000)
      expect(expires).toBeLessThanOrEqual(LINK_TTL_SECONDS * 1000)
      const path = new URL(att.url).pathname

      const whole = await s.fetch(path, { headers: F.bearer(ch.credentials.key) })
      expect(whole.status).toBe(200)
      expect(Buffer.from(await whole.arrayBuffer()).equals(Buffer.from(content))).toBe(true)
      const part = await s.fetch(path, { headers: F.bearer(ch.credentials.key, { range: 'bytes=10-19' }) })
      expect(part.status).toBe(206)
      expect(Buffer.from(await part.arrayBuffer()).equals(Buffer.from(content.subarray(10, 20)))).toBe(true)

      // The link alone is not enough, and it opens only with its own channel's key.
      expect((await s.fetch(path)).status).toBe(401)
      expect((await s.fetch(path, { headers: F.bearer(other.credentials.key) })).status).toBe(404)
      const token = path.split('/').pop()!
      const forged = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`
      expect(
        (await s.fetch(`/v1/channel-api/files/${forged}`, { headers: F.bearer(ch.credentials.key) })).status,
      ).toBe(404)
      const key = await s.run(SigningKey)
      const fileId = JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString()).f
      const expired = signJson(key, {
        t: 'channel-file',
        f: fileId,
        c: ch.id,
        exp: Math.floor(Date.now() / 1000) - 1,
      })
      expect(
        (await s.fetch(`/v1/channel-api/files/${expired}`, { headers: F.bearer(ch.credentials.key) })).status,
      ).toBe(404)
      const fresh = signJson(key, {
        t: 'channel-file',
        f: fileId,
        c: ch.id,
        exp: Math.floor(Date.now() / 1000) + 60,
      })
      expect(
        (await s.fetch(`/v1/channel-api/files/${fresh}`, { headers: F.bearer(ch.credentials.key) })).status,
      ).toBe(200)

      // A reply without a file carries an empty list.
      const plain = await s.fetch(
        `/v1/interactions/${inbound.data.interaction_id}/messages`,
        F.json({ text: 'anything else?' }, owner.headers()),
      )
      expect(plain.status).toBe(201)
      await rx.until((g) => g.filter((x) => x.json.event === 'message.created').length >= 2)
      const second = rx.got.filter((x) => x.json.event === 'message.created')[1]!
      expect(second.json.data.message.attachments).toEqual([])
    } finally {
      await rx.close()
    }
  })
})

/** A loopback file server standing in for the customer's storage; counts the requests it serves. */
const fileServer = async (files: Record<string, { type: string; bytes: Uint8Array }>) => {
  let hits = 0
  const server = http.createServer((req, res) => {
    hits += 1
    const f = files[req.url ?? '']
    if (!f) {
      res.writeHead(404).end()
      return
    }
    res.writeHead(200, { 'content-type': f.type, 'content-length': f.bytes.byteLength }).end(f.bytes)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, hits: () => hits, close: () => new Promise((r) => server.close(r)) }
}

describe('attachments of inbound messages', () => {
  it('are fetched once each and stored privately: the text rides with the first file, each further file is its own message', async () => {
    const head = jpegHeader(4, 4)
    const photo = Buffer.concat([head, I.bytes(30_000 - head.length, 3)])
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), I.bytes(20_000 - 9, 5)])
    const big = I.bytes(16 * 1024 * 1024 + 1, 9)
    const files = await fileServer({
      '/photo.jpg': { type: 'image/jpeg', bytes: photo },
      '/terms.pdf': { type: 'application/pdf; charset=binary', bytes: pdf },
      '/big.bin': { type: 'application/octet-stream', bytes: big },
    })
    try {
      const ch = await createApi()
      const post = (message: Record<string, unknown>) =>
        s.fetch(
          '/v1/channel-api/messages',
          F.json(
            { conversation_id: 'att-1', contact: { name: 'Rina' }, message },
            F.bearer(ch.credentials.key),
          ),
        )
      const message = {
        id: 'with-files',
        text: 'my photo and the terms',
        attachments: [
          { url: `${files.base}/photo.jpg` },
          { url: `${files.base}/terms.pdf`, name: 'Terms.pdf' },
        ],
      }
      const res = await post(message)
      expect(res.status).toBe(201)
      const first = (await body(res)).data
      expect(first.message).toMatchObject({ type: 'image', body: 'my photo and the terms', direction: 'in' })
      expect(first.message.media).toMatchObject({ name: 'photo.jpg', mime: 'image/jpeg', size: 30_000 })
      expect(files.hits()).toBe(2)

      const list = await body(
        await s.fetch(`/v1/interactions/${first.interaction_id}/messages`, { headers: owner.headers() }),
      )
      const inbound = list.data.filter((m: any) => m.direction === 'in')
      expect(inbound.map((m: any) => [m.type, m.body, m.media?.name, m.media?.mime])).toEqual([
        ['image', 'my photo and the terms', 'photo.jpg', 'image/jpeg'],
        ['document', '', 'Terms.pdf', 'application/pdf'],
      ])
      const media = await s.fetch(inbound[1].media.url, { headers: owner.headers() })
      expect(Buffer.from(await media.arrayBuffer()).equals(Buffer.from(pdf))).toBe(true)

      // A resend stores nothing twice and fetches nothing again.
      const again = await post(message)
      expect(again.status).toBe(200)
      expect((await body(again)).data.message.id).toBe(first.message.id)
      expect(files.hits()).toBe(2)
      const after = await body(
        await s.fetch(`/v1/interactions/${first.interaction_id}/messages`, { headers: owner.headers() }),
      )
      expect(after.data.filter((m: any) => m.direction === 'in')).toHaveLength(2)

      // A file that cannot be fetched refuses the message, naming the attachment; nothing is stored.
      const missing = await post({
        id: 'missing',
        text: 'x',
        attachments: [{ url: `${files.base}/nope.png` }],
      })
      expect(missing.status).toBe(422)
      expect((await body(missing)).error.fields).toHaveProperty(['message.attachments.0.url'])
      const tooBig = await post({
        id: 'big',
        attachments: [{ url: `${files.base}/photo.jpg` }, { url: `${files.base}/big.bin` }],
      })
      expect(tooBig.status).toBe(422)
      expect((await body(tooBig)).error.fields['message.attachments.1.url']).toContain('16 MB')
      const tooMany = await post({
        id: 'many',
        attachments: Array.from({ length: 11 }, () => ({ url: `${files.base}/photo.jpg` })),
      })
      expect(tooMany.status).toBe(422)
      const final = await body(
        await s.fetch(`/v1/interactions/${first.interaction_id}/messages`, { headers: owner.headers() }),
      )
      expect(final.data.filter((m: any) => m.direction === 'in')).toHaveLength(2)
    } finally {
      await files.close()
    }
  })

  it('are named after the type they are stored as', async () => {
    const files = await fileServer({
      '/invoice.html': { type: 'image/png', bytes: png(2, 2) },
      '/download': { type: 'application/pdf', bytes: Buffer.from('%PDF-1.4\n') },
    })
    try {
      const ch = await createApi()
      const res = await s.fetch(
        '/v1/channel-api/messages',
        F.json(
          {
            conversation_id: 'names-1',
            contact: { name: 'Rina' },
            message: {
              id: 'named',
              text: 'files',
              attachments: [{ url: `${files.base}/invoice.html` }, { url: `${files.base}/download` }],
            },
          },
          F.bearer(ch.credentials.key),
        ),
      )
      expect(res.status).toBe(201)
      const id = (await body(res)).data.interaction_id
      const list = await body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))
      expect(list.data.map((m: any) => [m.media?.name, m.media?.mime])).toEqual([
        ['invoice.html.png', 'image/png'],
        ['download.pdf', 'application/pdf'],
      ])
    } finally {
      await files.close()
    }
  })
  it('are stored and served as what their bytes are, not as the type claimed', async () => {
    const page = Buffer.from('<html><body><script>alert(document.cookie)</script></body></html>')
    const files = await fileServer({
      '/photo.png': { type: 'text/html', bytes: png(2, 2) },
      '/chart.png': { type: 'image/png', bytes: page },
      '/terms': { type: 'application/octet-stream', bytes: page },
    })
    try {
      const ch = await createApi()
      const res = await s.fetch(
        '/v1/channel-api/messages',
        F.json(
          {
            conversation_id: 'types-1',
            contact: { name: 'Rina' },
            message: {
              id: 'typed',
              attachments: [
                { url: `${files.base}/photo.png` },
                { url: `${files.base}/chart.png` },
                { url: `${files.base}/terms`, mime: 'application/pdf', name: 'terms.pdf' },
              ],
            },
          },
          F.bearer(ch.credentials.key),
        ),
      )
      expect(res.status).toBe(201)
      const id = (await body(res)).data.interaction_id
      const list = await body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))
      expect(list.data.map((m: any) => [m.type, m.media?.name, m.media?.mime])).toEqual([
        ['image', 'photo.png', 'image/png'],
        ['document', 'chart.png', 'application/octet-stream'],
        ['document', 'terms.pdf', 'application/octet-stream'],
      ])
      const served = await Promise.all(
        list.data.map((m: any) => s.fetch(m.media.url, { headers: owner.headers() })),
      )
      expect(
        served.map((r) => [
          r.headers.get('content-type'),
          r.headers.get('content-disposition')?.split(';')[0],
        ]),
      ).toEqual([
        ['image/png', 'inline'],
        ['application/octet-stream', 'attachment'],
        ['application/octet-stream', 'attachment'],
      ])
    } finally {
      await files.close()
    }
  })
})
