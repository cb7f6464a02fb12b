import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import * as I from './support'

/** The two races of the inbox, through the real HTTP server: many senders, many pickers. */
let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  // 1,000 sends from one key: lift the per-key budget (120/min) for this server only.
  // 1,000 asks queue behind one actor: on a slow or busy machine the last waits longer than the
  // production ask timeout (5 s), and on the embedded database (one connection) the last reads
  // of the burst wait longer than the pool's bound (`DB_WAIT_MS`, 5 s). These suites check order
  // and exactly-once, not latency (that is bench/'s), so the queue may take as long as it takes.
  s = await startTestServer({
    CONNECTORS: 'local',
    RATE_LIMIT_PER_KEY: '100000',
    CLUSTER_ASK_TIMEOUT_MS: '60000',
    DB_WAIT_MS: '60000',
  })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

describe('1,000 concurrent sends to one conversation', () => {
  it('numbers them 1…1000 without a gap and publishes message.created in that order', {
    timeout: 120_000,
  }, async () => {
    // An API-channel conversation: the 30/min throttle is per messaging-app number only.
    const ch = await I.channel(s, w, 'api')
    const c = await I.conversation(s, w, { channelId: ch.id, contactId: (await I.contact(s, w)).id })
    const key = await F.apiKey(s, w)
    const { c: socket, answer } = await I.socketFor(s, owner, `conv:${c.id}`)
    expect(answer.op).toBe('subscribed')

    // Each sender carries a client id. In cluster mode a burst this size queues longer than the
    // ask timeout (5 s) for the last ones: they get 503 and resend the same client id, as a
    // client should; nothing is stored twice and no number is skipped.
    const refusals = new Map<string, number>()
    const sendOnce = async (i: number): Promise<{ status: number; body: Record<string, any> }> => {
      for (;;) {
        const r = await s.fetch(
          `/v1/interactions/${c.id}/messages`,
          F.json({ text: `m${i}`, client_id: `burst-${i}` }, F.bearer(key)),
        )
        const body = await I.body(r)
        if (r.status !== 503) return { status: r.status, body }
        const why = `${body.error?.code}: ${body.error?.message}`
        refusals.set(why, (refusals.get(why) ?? 0) + 1)
      }
    }
    const responses = await Promise.all(Array.from({ length: 1000 }, (_, i) => sendOnce(i)))
    expect(responses.filter((r) => r.status !== 201)).toEqual([])
    if (!process.env.REDIS_URL) expect(Object.fromEntries(refusals)).toEqual({})
    const seqs = responses.map((r) => r.body.data.seq as number).sort((a, b) => a - b)
    expect(seqs).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    expect(new Set(responses.map((r) => r.body.data.status))).toEqual(new Set(['sent']))

    const stored = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ seq: number }>`SELECT seq FROM messages WHERE conversation_id = ${c.id} ORDER BY seq`,
      ),
    )
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))

    const seen: number[] = []
    while (seen.length < 1000) {
      const f = await socket.next((x) => x.event === 'message.created', 20_000)
      seen.push(f.data.seq)
    }
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    // Every sender's text is stored once, under the number its response reported.
    const texts = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ seq: number; body: string }>`SELECT seq, body FROM messages WHERE conversation_id = ${c.id}`,
      ),
    )
    const stored2 = new Map(texts.map((r) => [r.seq, r.body]))
    for (const r of responses) expect(stored2.get(r.body.data.seq)).toBe(r.body.data.body)
    expect(new Set(texts.map((r) => r.body)).size).toBe(1000)
    socket.close()
  })
})

describe('taking a conversation without interactions.assign', () => {
  it('lets one of 20 agents taking it at once have it; the others are refused as if they came later', {
    timeout: 60_000,
  }, async () => {
    // Agents (no interactions.assign) may take a conversation nobody has, never one someone holds.
    // Each checked who held it before the change applied: all 20 got 200, each taking it from the
    // one before.
    const ch = await I.channel(s, w, 'msgapp')
    const c = await I.conversation(s, w, { channelId: ch.id })
    const agents = await Promise.all(Array.from({ length: 20 }, () => I.agent(s, w)))
    const results = await Promise.all(
      agents.map(({ session, user }) =>
        s
          .fetch(`/v1/interactions/${c.id}`, I.patch({ assignee_id: user.id }, session.headers()))
          .then(async (r) => ({ status: r.status, body: await I.body(r), user })),
      ),
    )
    const winners = results.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    expect(winners[0]!.body.data).toMatchObject({ id: c.id, assignee: { id: winners[0]!.user.id } })
    for (const l of results.filter((r) => r.status !== 200)) {
      expect(l.status).toBe(403)
      expect(l.body.error.code).toBe('forbidden')
    }
    const [row] = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ assignee_id: number }>`SELECT assignee_id FROM conversations WHERE id = ${c.id}`,
      ),
    )
    expect(row!.assignee_id).toBe(winners[0]!.user.id)
    // Letting go of one's own still works.
    const holder = agents.find((a) => a.user.id === winners[0]!.user.id)!
    const released = await s.fetch(
      `/v1/interactions/${c.id}`,
      I.patch({ assignee_id: null }, holder.session.headers()),
    )
    expect((await I.body(released)).data).toMatchObject({ assignee: null })
  })
})

describe('live-chat pickup race', () => {
  it('gives 50 concurrent pickups exactly one winner; the others get 409 naming the winner', {
    timeout: 60_000,
  }, async () => {
    const ch = await I.channel(s, w, 'livechat')
    const c = await I.conversation(s, w, { channelId: ch.id, contactId: (await I.contact(s, w)).id })
    await I.inbound(s, c.id, 'Halo, ada yang bisa bantu?')
    const agents = await Promise.all(Array.from({ length: 50 }, () => I.agent(s, w)))
    const results = await Promise.all(
      agents.map(({ session, user }) =>
        s
          .fetch(`/v1/interactions/${c.id}/pickup`, { method: 'POST', headers: session.headers() })
          .then(async (r) => ({ status: r.status, body: await I.body(r), user })),
      ),
    )
    const winners = results.filter((r) => r.status === 200)
    expect(winners).toHaveLength(1)
    const winner = winners[0]!
    expect(winner.body.data).toMatchObject({ id: c.id, picked_up: true, assignee: { id: winner.user.id } })
    const losers = results.filter((r) => r.status !== 200)
    expect(losers).toHaveLength(49)
    for (const l of losers) {
      // Even a loser who can no longer see the chat (it went to a person) hears who won.
      expect(l.status).toBe(409)
      expect(l.body.error.code).toBe('conflict')
      expect(l.body.error.message).toBe(`This chat was already picked up by ${winner.user.name}.`)
    }
    // The database agrees, and the visitor was told once that an agent joined.
    const [row] = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ assignee_id: number }>`SELECT assignee_id FROM conversations WHERE id = ${c.id}`,
      ),
    )
    expect(row!.assignee_id).toBe(winner.user.id)
    const joined = (await I.recorded(s)).filter(
      (r) => r.conversationId === c.id && r.signal?.kind === 'agent_joined',
    )
    expect(joined).toHaveLength(1)
  })

  it('answers a later pickup with 409 and the Indonesian message under X-Locale: id', async () => {
    const ch = await I.channel(s, w, 'livechat')
    const c = await I.conversation(s, w, { channelId: ch.id })
    const first = await I.agent(s, w, 'Admin')
    const second = await I.agent(s, w, 'Admin')
    expect(
      (await s.fetch(`/v1/interactions/${c.id}/pickup`, { method: 'POST', headers: first.session.headers() }))
        .status,
    ).toBe(200)
    const again = await s.fetch(`/v1/interactions/${c.id}/pickup`, {
      method: 'POST',
      headers: second.session.headers({ 'x-locale': 'id' }),
    })
    expect(again.status).toBe(409)
    expect((await I.body(again)).error.message).toBe(`Chat ini sudah diambil oleh ${first.user.name}.`)
    // Picking up your own chat again is not a race lost.
    expect(
      (await s.fetch(`/v1/interactions/${c.id}/pickup`, { method: 'POST', headers: first.session.headers() }))
        .status,
    ).toBe(200)
  })
})
