import { Effect, Exit } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WorkspaceActor } from '../../actors/admin/WorkspaceActor'
import { ChannelActor, OUTBOUND_PER_MINUTE } from '../../actors/channels/ChannelActor'
import * as Channels from '../../store/channels'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

let s: TestServer
beforeAll(async () => {
  s = await startTestServer()
})
afterAll(() => s?.stop())

describe('WorkspaceActor quota counters', () => {
  it('lets exactly the plan limit through under concurrency, then refuses with the reset time', async () => {
    const w = await F.workspace(s, { plan: 'free' })
    // Free: 200 replies per local day of the workspace zone (Asia/Jakarta, UTC+7).
    const now = new Date('2026-11-22T20:00:00Z')
    const results = await s.run(
      Effect.flatMap(WorkspaceActor, (a) =>
        Effect.forEach(
          Array.from({ length: 250 }, () => 0),
          () => Effect.exit(a.ask(w.workspaceId, { _tag: 'Consume', counter: 'replies_per_day', now })),
          { concurrency: 'unbounded' },
        ),
      ),
    )
    expect(results.filter(Exit.isSuccess)).toHaveLength(200)
    const refused = results.find(Exit.isFailure)!
    expect(JSON.stringify(refused)).toMatch(/QuotaExceeded/)
    // 20:00Z is already 23 Nov in Jakarta; the day ends at midnight local = 17:00Z.
    expect(JSON.stringify(refused)).toMatch(/2026-11-23T17:00:00/)

    // The count survives passivation (it is in the database), and a new local day starts afresh.
    await s.run(Effect.flatMap(WorkspaceActor, (a) => a.stop(w.workspaceId)))
    const usage = await s.run(
      Effect.flatMap(WorkspaceActor, (a) => a.ask(w.workspaceId, { _tag: 'Usage', now })),
    )
    expect(usage.replies_per_day).toMatchObject({ period: '2026-11-23', used: 200, limit: 200 })
    const tomorrow = new Date('2026-11-23T17:00:01Z')
    const next = await s.run(
      Effect.flatMap(WorkspaceActor, (a) =>
        a.ask(w.workspaceId, { _tag: 'Consume', counter: 'replies_per_day', now: tomorrow }),
      ),
    )
    expect(next).toMatchObject({ period: '2026-11-24', used: 1 })
  })

  it('treats a limit of 0 as unlimited', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const r = await s.run(
      Effect.flatMap(WorkspaceActor, (a) =>
        a.ask(w.workspaceId, { _tag: 'Consume', counter: 'replies_per_day', n: 10_000 }),
      ),
    )
    expect(r).toMatchObject({ used: 10_000, limit: 0 })
  })
})

describe('ChannelActor', () => {
  it('allows 30 outbound messages a minute per number, then refuses with a retry time', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const ch = await s.run(Channels.create(w.workspaceId, 'msgapp', 'Sales'))
    const minute = Math.floor(Date.now() / 60_000) * 60_000 + 60_000 * 5
    const take = (nowMs: number) =>
      s.run(
        Effect.exit(Effect.flatMap(ChannelActor, (a) => a.ask(ch.id, { _tag: 'TakeOutboundSlot', nowMs }))),
      )
    for (let i = 0; i < OUTBOUND_PER_MINUTE; i++) expect(Exit.isSuccess(await take(minute + 100))).toBe(true)
    const over = await take(minute + 10_000)
    expect(Exit.isFailure(over)).toBe(true)
    expect(JSON.stringify(over)).toMatch(/"retryAfterSeconds":50/)
    expect(Exit.isSuccess(await take(minute + 60_000))).toBe(true)
  })

  it('publishes status changes on the workspace channel', async () => {
    const w = await F.workspace(s, { plan: 'pro' })
    const ch = await s.run(Channels.create(w.workspaceId, 'email', 'Support'))
    const session = await F.signIn(s, w.ownerEmail)
    const token = await s.fetch(
      '/v1/realtime/token',
      F.json({ channels: [`ws:${w.workspaceId}`] }, session.headers()),
    )
    const c = await connect(((await token.json()) as { data: { url: string } }).data.url)
    await c.next((f) => f.op === 'subscribed')
    await s.run(Effect.flatMap(ChannelActor, (a) => a.ask(ch.id, { _tag: 'SetStatus', status: 'connected' })))
    expect(await c.next((f) => f.event === 'channel.updated')).toMatchObject({
      data: { channel_id: ch.id, status: 'connected' },
    })
    c.close()
  })
})
