import { SqlClient } from '@effect/sql'
import { Deferred, Effect, Exit } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as ApiThreads from '../../actors/channels/apiThreads'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'

/**
 * A burst of messages to one API thread whose look-up is under way (a node just started, or the
 * customer's contact changed): one look-up for the burst, every message accepted in order.
 */

describe('API threads: one look-up per thread at a time', () => {
  it('runs the first look-up of a thread alone; the others wait for its end, failed or not, then go on', async () => {
    const threads = ApiThreads.make()
    let firsts = 0
    const order: string[] = []
    const gate = Deferred.unsafeMake<void>(Effect.runSync(Effect.fiberId))
    const first = (fail: boolean) =>
      Effect.gen(function* () {
        firsts++
        yield* Deferred.await(gate)
        order.push('first')
        if (fail) return yield* Effect.fail('lost' as const)
        return 'first' as const
      })
    const after = Effect.sync(() => {
      order.push('after')
      return 'after' as const
    })
    const burst = (fail: boolean) =>
      Effect.all(
        Array.from({ length: 20 }, () => threads.single(1, 'order-7', first(fail), after)),
        { concurrency: 'unbounded', mode: 'either' },
      )
    const running = Effect.runPromise(burst(true))
    // Every message of the burst has started (the first one waits at the gate) before it opens.
    for (let i = 0; i < 100 && firsts === 0; i++) await new Promise((r) => setTimeout(r, 10))
    await new Promise((r) => setTimeout(r, 20))
    // Another thread is not held up by this one's look-up.
    expect(await Effect.runPromise(threads.single(1, 'order-8', Effect.succeed('own'), after))).toBe('own')
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    const results = await running
    expect(firsts).toBe(1)
    expect(order).toEqual(['first', ...Array(19).fill('after')])
    // The first failed; the others still went on once it had ended.
    expect(results.filter((r) => r._tag === 'Left')).toHaveLength(1)
    expect(results.filter((r) => r._tag === 'Right' && r.right === 'after')).toHaveLength(19)
    // Nothing is left under way: the next look-up is a first again.
    const next = await Effect.runPromiseExit(threads.single(1, 'order-7', Effect.succeed('again'), after))
    expect(next).toEqual(Exit.succeed('again'))
  })

  describe('over HTTP', () => {
    let s: TestServer
    let w: F.Seeded
    let owner: F.Session
    beforeAll(async () => {
      s = await startTestServer()
      w = await F.workspace(s, { plan: 'pro' })
      owner = await F.signIn(s, w.ownerEmail)
    })
    afterAll(() => s?.stop())

    it('a burst with a changed contact is accepted whole, gap-free, and the thread keeps the new contact', async () => {
      const created = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend' }, owner.headers()))
      expect(created.status).toBe(201)
      const key = ((await created.json()) as { data: { credentials: { key: string } } }).data.credentials.key
      const send = (id: string, contact: Record<string, unknown>) =>
        s.fetch(
          '/v1/channel-api/messages',
          F.json({ conversation_id: 'order-9', contact, message: { id, text: id } }, F.bearer(key)),
        )
      expect((await send('m0', { id: 'u9', name: 'Budi' })).status).toBe(201)
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, i) => send(`m${i + 1}`, { id: 'u9', name: 'Budi Santoso' })),
      )
      expect(answers.map((r) => r.status)).toEqual(Array(30).fill(201))
      const bodies = (await Promise.all(answers.map((r) => r.json()))) as Array<{
        data: { interaction_id: number; message: { seq: number } }
      }>
      expect(new Set(bodies.map((b) => b.data.interaction_id)).size).toBe(1)
      expect(bodies.map((b) => b.data.message.seq).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 2),
      )
      const [thread] = await s.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql<{ contact: { name: string } }>`
            SELECT contact FROM channel_api_threads WHERE external_id = 'order-9'`,
        ),
      )
      expect(thread?.contact.name).toBe('Budi Santoso')
    })
  })
})
