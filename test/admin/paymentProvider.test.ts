import * as fs from 'node:fs'
import { Effect, Layer } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PaymentError, PaymentProvider, type PaymentStatus } from '../../actors/admin/PaymentProvider'
import { loadConfig } from '../../engine/config'
import { makeLogger } from '../../engine/log'
import { type RunningApp, start } from '../../http/app'
import * as F from '../support/fixtures'
import { freePort, type TestServer, tempDir } from '../support/server'

/**
 * Another payment provider plugs in as README "Billing" says: a layer of the `PaymentProvider`
 * tag passed as `paymentProvider` to `start`. Billing then opens its checkouts there, asks it on
 * return, and hears its callbacks at `/v1/payments/{name}/callback`.
 */
const checkouts = new Map<string, PaymentStatus>()
const fake = Layer.succeed(PaymentProvider, {
  name: 'acme',
  createCheckout: (req) =>
    Effect.sync(() => {
      const id = `acme_${req.reference}`
      checkouts.set(id, 'pending')
      return { externalId: id, checkoutUrl: `https://pay.acme.example/c/${id}`, expiresAt: req.expiresAt }
    }),
  status: (id) =>
    checkouts.has(id)
      ? Effect.succeed(checkouts.get(id)!)
      : Effect.fail(new PaymentError({ reason: 'unknown' })),
  verifyCallback: ({ header, body }) => {
    const b = body as { id?: string; status?: PaymentStatus }
    return header('x-acme-token') === 'trusted' && b.id && b.status
      ? Effect.succeed({ externalId: b.id, status: b.status })
      : Effect.fail(new PaymentError({ reason: 'not from acme' }))
  },
})

let app: RunningApp
let s: Pick<TestServer, 'run' | 'fetch'>
let dir: string
beforeAll(async () => {
  const port = await freePort()
  dir = tempDir()
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dir,
    LOG_LEVEL: 'error',
  }
  // The embedded database and in-process services: this test is about the provider, not the cluster.
  delete env.DATABASE_URL
  delete env.REDIS_URL
  const cfg = loadConfig(env)
  app = await start(cfg, {
    database: { url: undefined, dataDir: 'memory', socketDir: dir },
    logger: makeLogger(cfg.logLevel),
    paymentProvider: fake,
  })
  s = { run: app.run, fetch: (p, init) => fetch(`${app.url}${p}`, init) }
})
afterAll(async () => {
  await app?.stop()
  fs.rmSync(dir, { recursive: true, force: true })
})

const body = async (res: Response) => (await res.json()) as Record<string, any>

describe('a payment provider of our own', () => {
  it('is used for checkouts, return and callbacks instead of the local one', async () => {
    const w = await F.workspace(s as TestServer, { plan: 'free' })
    const owner = await F.signIn(s as TestServer, w.ownerEmail)
    const up = (await body(await s.fetch('/v1/billing/upgrade', F.json({ months: 1 }, owner.headers())))).data
    expect(up.checkout_url).toMatch(/^https:\/\/pay\.acme\.example\/c\/acme_/)
    const number = up.invoice.number as string
    const id = up.checkout_url.split('/').pop() as string
    const detail = (await body(await s.fetch(`/v1/billing/invoices/${number}`, { headers: owner.headers() })))
      .data
    expect(detail.attempts[0]).toMatchObject({ provider: 'acme', status: 'pending' })

    // The local provider's callback is not there; acme's refuses what acme did not send.
    expect((await s.fetch('/v1/payments/local/callback', F.json({ id, status: 'paid' }))).status).toBe(404)
    expect((await s.fetch('/v1/payments/acme/callback', F.json({ id, status: 'paid' }))).status).toBe(401)

    // The browser comes back before the callback: the server asks acme.
    checkouts.set(id, 'paid')
    const back = (
      await body(await s.fetch(`/v1/billing/return?invoice=${number}`, { headers: owner.headers() }))
    ).data
    expect(back).toMatchObject({ status: 'paid', plan: { key: 'pro' } })
    // acme's own callback arrives later and changes nothing more.
    const late = await s.fetch(
      '/v1/payments/acme/callback',
      F.json({ id, status: 'paid' }, { 'x-acme-token': 'trusted' }),
    )
    expect(late.status).toBe(200)
    expect((await body(late)).data.result).toBe('unchanged')
  })
})
