import * as dns from 'node:dns'
import * as http from 'node:http'
import * as https from 'node:https'
import * as net from 'node:net'

/**
 * Outbound HTTP to addresses chosen by customers (webhooks), with server-side request forgery
 * guarded: the host is resolved first and every address it resolves to is checked; the
 * connection is then pinned to the checked address (no second lookup an attacker could
 * rebind), and each redirect is checked the same way. Private, loopback, link-local, CGNAT,
 * multicast and reserved ranges are refused unless the policy allows private networks
 * (self-hosted deployments, tests).
 */
const blocked = new net.BlockList()
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net4, bits, 'ipv4')
for (const [net6, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['2001:db8::', 32],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net6, bits, 'ipv6')

/** True when the address is not publicly routable. IPv4-mapped IPv6 is judged as IPv4. */
export const isPrivateAddress = (address: string): boolean => {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return blocked.check(mapped[1]!, 'ipv4')
  const family = net.isIPv4(address) ? 'ipv4' : net.isIPv6(address) ? 'ipv6' : null
  return family === null ? true : blocked.check(address, family)
}

export interface OutboundPolicy {
  /** Allow private and loopback addresses (self-hosted networks, tests). */
  readonly allowPrivate: boolean
  /** Exact addresses allowed even though private (one internal receiver, tests). */
  readonly allowAddresses?: readonly string[]
  /** Require https (webhooks do; tests on loopback may not). */
  readonly requireHttps: boolean
  readonly timeoutMs: number
  readonly maxRedirects: number
  /** Resolves a host name to addresses; defaults to the system resolver. */
  readonly resolve?: (host: string) => Promise<readonly string[]>
}

export type RefusalReason =
  | 'invalid_url'
  | 'https_required'
  | 'private_address'
  | 'unresolvable'
  | 'too_many_redirects'
  | 'too_large'

export class OutboundRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    detail: string,
  ) {
    super(detail)
  }
}

const systemResolve = async (host: string) =>
  (await dns.promises.lookup(host, { all: true })).map((a) => a.address)

/** Checks a URL against the policy and returns the address to connect to. */
export const checkUrl = async (
  raw: string,
  policy: OutboundPolicy,
): Promise<{ url: URL; address: string }> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new OutboundRefused('invalid_url', `not a URL: ${raw}`)
  }
  if (url.protocol !== 'https:' && (policy.requireHttps || url.protocol !== 'http:')) {
    throw new OutboundRefused('https_required', `only https URLs are accepted, got ${url.protocol}`)
  }
  if (url.username || url.password)
    throw new OutboundRefused('invalid_url', 'credentials in URLs are not accepted')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  let addresses: readonly string[]
  if (net.isIP(host)) addresses = [host]
  else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(host)
    } catch {
      throw new OutboundRefused('unresolvable', `cannot resolve ${host}`)
    }
  }
  if (addresses.length === 0) throw new OutboundRefused('unresolvable', `cannot resolve ${host}`)
  // Every address must pass: a host that also resolves privately could be steered there.
  const refused = (a: string) => isPrivateAddress(a) && !policy.allowAddresses?.includes(a)
  if (!policy.allowPrivate && addresses.some(refused)) {
    throw new OutboundRefused('private_address', `${host} resolves to a private or reserved address`)
  }
  return { url, address: addresses[0]! }
}

export interface OutboundResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  /** The body as text, cut at `maxBytes` (a webhook's answer is only logged). */
  readonly body: string
  /** The same body as bytes. */
  readonly bytes: Buffer
  readonly durationMs: number
}

/** How much of an answer is kept unless the caller says otherwise. */
const MAX_RESPONSE_BYTES = 64 * 1024

const requestOnce = (
  url: URL,
  address: string,
  method: string,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
  limit: { readonly maxBytes: number; readonly failWhenLarger: boolean },
) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; bytes: Buffer }>((resolve, reject) => {
    const lib = url.protocol === 'https:' ? https : http
    const req = lib.request(
      url,
      {
        method,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        // Pinned: connect to the address that was checked, whatever DNS says now.
        lookup: (_host, options, cb) => {
          const family = net.isIPv6(address) ? 6 : 4
          if ((options as dns.LookupOptions).all) cb(null, [{ address, family }] as never, family)
          else cb(null, address, family)
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (c: Buffer) => {
          size += c.length
          if (size <= limit.maxBytes) chunks.push(c)
          else if (limit.failWhenLarger) {
            req.destroy(new OutboundRefused('too_large', `larger than ${limit.maxBytes} bytes`))
          }
        })
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes: Buffer.concat(chunks).subarray(0, limit.maxBytes),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('timeout', () => req.destroy(new Error(`timed out after ${timeoutMs} ms`)))
    req.on('error', reject)
    req.end(body)
  })

/**
 * Sends one request under the policy, following redirects (each one checked) up to the limit.
 * Fails with OutboundRefused before connecting anywhere it should not, or with the network error.
 */
export const send = async (
  rawUrl: string,
  init: {
    method: 'POST' | 'GET'
    headers: Record<string, string>
    body: string
    /** Answers larger than this fail with `too_large` (downloads); default: cut at 64 KB. */
    maxBytes?: number
  },
  policy: OutboundPolicy,
): Promise<OutboundResponse> => {
  const limit =
    init.maxBytes === undefined
      ? { maxBytes: MAX_RESPONSE_BYTES, failWhenLarger: false }
      : { maxBytes: init.maxBytes, failWhenLarger: true }
  const started = performance.now()
  let target = rawUrl
  let method: string = init.method
  let body = init.body
  for (let hop = 0; ; hop++) {
    const { url, address } = await checkUrl(target, policy)
    const res = await requestOnce(url, address, method, init.headers, body, policy.timeoutMs, limit)
    const location = res.headers.location
    if (res.status >= 300 && res.status < 400 && location) {
      if (hop >= policy.maxRedirects)
        throw new OutboundRefused('too_many_redirects', `more than ${policy.maxRedirects} redirects`)
      target = new URL(location, url).href
      // 303 (and, as browsers do, 301/302 after POST) continue as GET without a body.
      if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
        method = 'GET'
        body = ''
      }
      continue
    }
    return {
      status: res.status,
      headers: res.headers,
      body: res.bytes.toString('utf8'),
      bytes: res.bytes,
      durationMs: Math.round(performance.now() - started),
    }
  }
}
