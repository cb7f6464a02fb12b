import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  checkUrl,
  isPrivateAddress,
  type OutboundPolicy,
  OutboundRefused,
  send,
} from '../../engine/net/outbound'
import { sign, verify } from '../../engine/net/signature'

/** Real HTTP servers on loopback only; host names are resolved by an injected resolver. */
interface Received {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

const serve = (host: string, handler: (req: Received, res: http.ServerResponse) => void) =>
  new Promise<{ server: http.Server; port: number; received: Received[] }>((resolve) => {
    const received: Received[] = []
    const server = http.createServer((req, res) => {
      let body = ''
      req.on('data', (c) => {
        body += c
      })
      req.on('end', () => {
        const r = { method: req.method!, url: req.url!, headers: req.headers, body }
        received.push(r)
        handler(r, res)
      })
    })
    server.listen(0, host, () => resolve({ server, port: (server.address() as AddressInfo).port, received }))
  })

const open: OutboundPolicy = { allowPrivate: true, requireHttps: false, timeoutMs: 2000, maxRedirects: 3 }
const strict: OutboundPolicy = { allowPrivate: false, requireHttps: true, timeoutMs: 2000, maxRedirects: 3 }

const refusal = async (p: Promise<unknown>) => {
  try {
    await p
  } catch (e) {
    if (e instanceof OutboundRefused) return e.reason
    throw e
  }
  throw new Error('was not refused')
}

describe('address policy', () => {
  it.each([
    ['10.1.2.3', true],
    ['172.16.0.1', true],
    ['172.32.0.1', false],
    ['192.168.1.1', true],
    ['127.0.0.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['2606:4700::1', false],
    ['not-an-ip', true],
  ])('%s private: %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected)
  })

  it('refuses bad URLs, plain http, credentials, private and half-private names', async () => {
    const resolve = async (host: string) =>
      ({ 'inside.test': ['10.0.0.5'], 'mixed.test': ['8.8.8.8', '127.0.0.1'], 'fine.test': ['8.8.8.8'] })[
        host
      ] ?? Promise.reject(new Error('NXDOMAIN'))
    const policy = { ...strict, resolve }
    expect(await refusal(checkUrl('nonsense', policy))).toBe('invalid_url')
    expect(await refusal(checkUrl('http://fine.test/hook', policy))).toBe('https_required')
    expect(await refusal(checkUrl('https://user:pw@fine.test/hook', policy))).toBe('invalid_url')
    expect(await refusal(checkUrl('https://inside.test/hook', policy))).toBe('private_address')
    expect(await refusal(checkUrl('https://mixed.test/hook', policy))).toBe('private_address')
    expect(await refusal(checkUrl('https://127.0.0.1/hook', policy))).toBe('private_address')
    expect(await refusal(checkUrl('https://[::1]/hook', policy))).toBe('private_address')
    expect(await refusal(checkUrl('https://nowhere.test/hook', policy))).toBe('unresolvable')
    expect((await checkUrl('https://fine.test/hook', policy)).address).toBe('8.8.8.8')
  })
})

describe('sending', () => {
  let a: Awaited<ReturnType<typeof serve>>
  let b: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    b = await serve('127.0.0.2', (_req, res) => res.end('should never be reached'))
    a = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/to-private') {
        res.writeHead(302, { location: `http://127.0.0.2:${b.port}/inside` }).end()
      } else if (req.url === '/loop') {
        res.writeHead(307, { location: '/loop' }).end()
      } else if (req.url === '/see-other') {
        res.writeHead(303, { location: '/done' }).end()
      } else {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')
      }
    })
  })
  afterAll(() => {
    a.server.close()
    b.server.close()
  })

  it('posts to the address it checked, even for a name DNS does not know', async () => {
    const policy = { ...open, resolve: async () => ['127.0.0.1'] }
    const res = await send(
      `http://hooks.customer.test:${a.port}/in`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'x-test': '1' }, body: '{"a":1}' },
      policy,
    )
    expect(res.status).toBe(200)
    expect(res.body).toBe('ok')
    const got = a.received.at(-1)!
    expect(got).toMatchObject({ method: 'POST', url: '/in', body: '{"a":1}' })
    expect(got.headers.host).toBe(`hooks.customer.test:${a.port}`)
    expect(got.headers['x-test']).toBe('1')
  })

  it('refuses a redirect to a private address, and never connects there', async () => {
    const policy: OutboundPolicy = { ...strict, requireHttps: false, allowAddresses: ['127.0.0.1'] }
    const before = b.received.length
    const reason = await refusal(
      send(`http://127.0.0.1:${a.port}/to-private`, { method: 'POST', headers: {}, body: 'x' }, policy),
    )
    expect(reason).toBe('private_address')
    expect(b.received.length).toBe(before)
  })

  it('stops after the redirect limit and turns a 303 into a GET', async () => {
    expect(
      await refusal(send(`http://127.0.0.1:${a.port}/loop`, { method: 'POST', headers: {}, body: '' }, open)),
    ).toBe('too_many_redirects')
    const res = await send(
      `http://127.0.0.1:${a.port}/see-other`,
      { method: 'POST', headers: {}, body: 'x' },
      open,
    )
    expect(res.status).toBe(200)
    expect(a.received.at(-1)).toMatchObject({ method: 'GET', url: '/done', body: '' })
  })
})

describe('signatures', () => {
  it('signs timestamp.body and verifies within the tolerance only', () => {
    const s = sign('whsec', 1_700_000_000, '{"x":1}')
    expect(s).toMatch(/^sha256=[0-9a-f]{64}$/)
    expect(verify('whsec', 1_700_000_000, '{"x":1}', s, 1_700_000_100)).toBe(true)
    expect(verify('whsec', 1_700_000_000, '{"x":2}', s, 1_700_000_100)).toBe(false)
    expect(verify('other', 1_700_000_000, '{"x":1}', s, 1_700_000_100)).toBe(false)
    expect(verify('whsec', 1_700_000_000, '{"x":1}', s, 1_700_000_000 + 301)).toBe(false)
  })
})
