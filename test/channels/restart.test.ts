import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { receiver } from './receiver'

/** Webhook deliveries are stored before they are sent, so a restart between attempts loses none. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '1500' }, { durable: true })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const body = async (res: Response) => (await res.json()) as Record<string, any>

describe('webhook deliveries across a restart', () => {
  it('retries a failed delivery after the node restarts, with the same delivery id', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const created = await s.fetch(
        '/v1/channels/api',
        F.json({ name: 'Shop backend', webhook_url: rx.url, retries: 3 }, owner.headers()),
      )
      const ch = (await body(created)).data
      secret = ch.credentials.webhook_secret
      const inbound = await body(
        await s.fetch(
          '/v1/channel-api/messages',
          F.json(
            { conversation_id: 'r-1', message: { id: 'r-in-1', text: 'hello' } },
            F.bearer(ch.credentials.key),
          ),
        ),
      )
      rx.failNext(1)
      const reply = await s.fetch(
        `/v1/interactions/${inbound.data.interaction_id}/messages`,
        F.json({ text: 'hi there' }, owner.headers()),
      )
      expect(reply.status).toBe(201)
      await rx.until((g) => g.some((x) => x.json.event === 'message.created'))

      // The first attempt failed; the node goes away before the retry is due.
      await s.restart()

      await rx.until((g) => g.filter((x) => x.json.event === 'message.created').length >= 2, 15_000)
      const tries = rx.got.filter((x) => x.json.event === 'message.created')
      expect(tries).toHaveLength(2)
      expect(tries.every((t) => t.signatureValid)).toBe(true)
      expect(new Set(tries.map((t) => t.headers['x-kotak-delivery'])).size).toBe(1)
      const api = await body(await s.fetch(`/v1/channels/${ch.id}/api`, { headers: owner.headers() }))
      const d = api.data.api.deliveries.find((x: any) => x.event === 'message.created')
      expect(d).toMatchObject({ status: 'delivered', attempts: 2 })
      expect(d.log.map((l: any) => l.http_status)).toEqual([500, 204])
      // Credentials outlive the restart too.
      const again = await s.fetch(
        '/v1/channel-api/messages',
        F.json(
          { conversation_id: 'r-1', message: { id: 'r-in-2', text: 'still there?' } },
          F.bearer(ch.credentials.key),
        ),
      )
      expect(again.status).toBe(201)
    } finally {
      await rx.close()
    }
  }, 60_000)
})
