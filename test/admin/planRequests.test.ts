import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/** `POST /plan-requests` daily limits (spec 1 §4.5 "rate-limited against abuse"; docs/decisions.md, Administration). */
let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

const earlier = (email: string, ip: string, n: number) =>
  s.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.forEach(
        Array.from({ length: n }),
        () => sql`
          INSERT INTO plan_requests (name, email, company, phone, message, locale, ip, created_at)
          VALUES ('Earlier', ${email}, '', '', 'An earlier request for a plan.', 'en', ${ip}, now() - interval '2 hours')`,
      ),
    ),
  )
const send = (email: string) =>
  s.fetch('/v1/plan-requests', F.json({ name: 'Dewi', email, message: 'We would like a Custom plan.' }))

describe('plan request limits', () => {
  it('3 a day per e-mail address, from any address; a day-old request no longer counts', async () => {
    await earlier('dewi@shop.example', '10.1.2.3', 3)
    const refused = await send('dewi@shop.example')
    expect(refused.status).toBe(429)
    const wait = Number(refused.headers.get('retry-after'))
    expect(wait).toBeGreaterThan(20 * 3600)
    expect(wait).toBeLessThanOrEqual(22 * 3600)
    expect((await send('other@shop.example')).status).toBe(201)
  })

  it('10 a day per client address', async () => {
    await earlier('x@a.example', '127.0.0.1', 9)
    // One of today's 10 was made by the first test (other@shop.example); the next is refused.
    const res = await send('fresh@b.example')
    expect(res.status).toBe(429)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limited')
    // The daily limit (its wait runs to when the oldest request is a day old), not the minute's.
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(3600)
  })
})
