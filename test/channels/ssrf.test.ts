import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { receiver } from './receiver'

/** Without WEBHOOK_ALLOW_PRIVATE: only https URLs on public hosts are accepted, checked after DNS. */
let s: TestServer
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer()
  const w = await F.workspace(s, { plan: 'custom' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

it.each([
  'https://127.0.0.1/hook',
  'https://10.1.2.3/hook',
  'https://169.254.169.254/latest/meta-data',
  'https://[::1]/hook',
  'https://localhost/hook',
  'http://example.com/hook',
  'not a url',
])('refuses webhook_url %s with 422', async (url) => {
  const res = await s.fetch('/v1/channels/api', F.json({ name: 'x', webhook_url: url }, owner.headers()))
  expect(res.status).toBe(422)
  expect(((await res.json()) as any).error.fields).toHaveProperty('webhook_url')
})

it('refuses a PATCH to a private address, and a ping to one set before is refused by the guard', async () => {
  const made = await s.fetch('/v1/channels/api', F.json({ name: 'ok' }, owner.headers()))
  expect(made.status).toBe(201)
  const ch = ((await made.json()) as any).data
  const res = await s.fetch(`/v1/channels/${ch.id}/api`, {
    ...F.json({ webhook_url: 'https://192.168.1.10/x' }, owner.headers()),
    method: 'PATCH',
  })
  expect(res.status).toBe(422)
  // A loopback receiver is never contacted: the ping fails with the guard's refusal.
  const rx = await receiver(() => '')
  try {
    const ping = (await (
      await s.fetch(`/v1/channels/${ch.id}/api/test-webhook`, F.json({}, owner.headers()))
    ).json()) as any
    expect(ping.data).toMatchObject({ status: 'failed', http_status: null, error: 'no webhook_url set' })
    expect(rx.got).toHaveLength(0)
  } finally {
    await rx.close()
  }
})
