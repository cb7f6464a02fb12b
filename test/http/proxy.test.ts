import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { clientAddress } from '../../http/request'
import { startTestServer, type TestServer } from '../support/server'

/** Behind a load balancer the per-address public limit must count clients, not the balancer. */
const remaining = async (s: TestServer, forwardedFor?: string) => {
  const res = await s.fetch(
    '/v1/public/config',
    forwardedFor ? { headers: { 'x-forwarded-for': forwardedFor } } : {},
  )
  expect(res.status).toBe(200)
  return Number(res.headers.get('x-ratelimit-remaining'))
}

describe('client address', () => {
  it('takes the address the trusted proxy saw, counted from the right', () => {
    expect(clientAddress('10.0.0.1', undefined, 1)).toBe('10.0.0.1')
    expect(clientAddress('10.0.0.1', '203.0.113.7', 0)).toBe('10.0.0.1')
    expect(clientAddress('10.0.0.1', '203.0.113.7', 1)).toBe('203.0.113.7')
    expect(clientAddress('10.0.0.1', '6.6.6.6, 203.0.113.7', 1)).toBe('203.0.113.7')
    expect(clientAddress('10.0.0.1', '203.0.113.7, 10.0.0.9', 2)).toBe('203.0.113.7')
  })
})

describe('with TRUST_PROXY=1', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: '1' })
  })
  afterAll(() => s?.stop())

  it('gives each client its own budget, and a forged header does not escape it', async () => {
    const a1 = await remaining(s, '198.51.100.1')
    expect(await remaining(s, '198.51.100.1')).toBe(a1 - 1)
    const b1 = await remaining(s, '198.51.100.2')
    expect(b1).toBe(a1)
    // The client sent its own X-Forwarded-For; the proxy appended the real address.
    expect(await remaining(s, '1.2.3.4, 198.51.100.1')).toBe(a1 - 2)
  })
})

describe('without TRUST_PROXY', () => {
  let s: TestServer
  beforeAll(async () => {
    s = await startTestServer()
  })
  afterAll(() => s?.stop())

  it('ignores X-Forwarded-For', async () => {
    const first = await remaining(s, '198.51.100.1')
    expect(await remaining(s, '198.51.100.2')).toBe(first - 1)
  })
})
