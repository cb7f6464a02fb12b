import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Channels from '../../store/channels'
import * as Conversations from '../../store/conversations'
import {
  type ClusterNode,
  ownersOf,
  startCluster,
  type TestCluster,
  waitFor,
  waitSettled,
} from '../support/cluster'
import * as F from '../support/fixtures'
import { connect } from '../support/ws'

/**
 * Three nodes as separate processes on loopback, one PostgreSQL database and one Redis prefix.
 * Actor messages are driven through each node's test endpoint (CLUSTER_TEST_PORT), which asks
 * the actor through the cluster exactly as a route on that node would.
 */
const LEASE_MS = 3_000
const ASK_TIMEOUT_MS = 2_000

// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

describe.skipIf(!enabled)('cluster of three nodes', () => {
  let c: TestCluster
  let w: F.Seeded
  const conversations: number[] = []

  beforeAll(async () => {
    c = await startCluster({
      nodes: 3,
      env: { CLUSTER_LEASE_MS: String(LEASE_MS), CLUSTER_ASK_TIMEOUT_MS: String(ASK_TIMEOUT_MS) },
    })
    w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
    for (let i = 0; i < 30; i++)
      conversations.push(await c.run(Effect.map(Conversations.create(w.workspaceId, null), (r) => r.id)))
    await waitSettled(c)
  }, 120_000)
  afterAll(() => c?.stop(), 60_000)

  const text = (body: string, clientId?: string) => ({
    _tag: 'Append',
    direction: 'out',
    type: 'text',
    body,
    sender: { name: 'Olivia Owner', user_id: w.ownerId },
    ...(clientId ? { clientId } : {}),
  })

  /** Every live node's entity ids of an actor type. */
  const placement = async (actor: string) => {
    const byNode = new Map<ClusterNode, ReadonlyArray<string | number>>()
    for (const n of c.live()) byNode.set(n, (await n.status()).entities[actor] ?? [])
    return byNode
  }

  const expectUniqueOwners = async (actor: string, ids: ReadonlyArray<string | number>) => {
    const byNode = await placement(actor)
    for (const id of ids) {
      const holders = [...byNode].filter(([, list]) => list.includes(id)).map(([n]) => n.name)
      expect(holders.length, `${actor} ${id} lives on ${holders.join(', ')}`).toBeLessThanOrEqual(1)
    }
    return byNode
  }

  it('places every entity on exactly one node, whichever node is asked', async () => {
    const nodes = c.live()
    // Each conversation gets a message through every node: all reach the one owner.
    for (const [i, id] of conversations.entries()) {
      for (const [j, n] of nodes.entries()) {
        const r = await n.ask('conversation', id, text(`hello ${i}.${j}`))
        expect(r.status, JSON.stringify(r.body)).toBe(200)
        expect(r.body.data.seq).toBe(j + 1)
      }
    }
    const byNode = await expectUniqueOwners('conversation', conversations)
    for (const id of conversations) expect((await ownersOf(c, 'conversation', id)).length).toBe(1)
    // 30 entities over three nodes: each node owns some.
    for (const [n, list] of byNode) expect(list.length, n.name).toBeGreaterThan(0)
  })

  it('re-creates typed errors of a remote owner as their own class; Dates survive the trip', async () => {
    for (const n of c.live()) {
      const r = await n.ask('conversation', 987_654_321, text('nobody'))
      expect(r.status).toBe(409)
      expect(r.body.error).toMatchObject({
        _tag: 'ConversationNotFound',
        class: 'ConversationNotFound',
        fields: { id: 987_654_321 },
      })
      const usage = await n.ask('workspace', w.workspaceId, { _tag: 'Usage' })
      expect(usage.status).toBe(200)
      expect(Date.parse(usage.body.data.replies_per_day.endsAt)).toBeGreaterThan(Date.now())
    }
  })

  it('delivers message.created to an agent on node A for a message written through node C', async () => {
    const [a, , nodeC] = c.live()
    const id = conversations[0]!
    const owner = await F.signIn(a!.server, w.ownerEmail)
    const res = await a!.fetch('/v1/realtime/token', F.json({}, owner.headers()))
    expect(res.status).toBe(200)
    const { url } = ((await res.json()) as { data: { url: string } }).data
    expect(url).toContain(`:${a!.port}/`)
    const socket = await connect(url)
    socket.send({ op: 'subscribe', channel: `conv:${id}`, ref: 'x' })
    expect(await socket.next((f) => f.ref === 'x')).toMatchObject({ op: 'subscribed' })
    const written = await nodeC!.ask('conversation', id, text('across the cluster'))
    expect(written.status).toBe(200)
    const frame = await socket.next((f) => f.event === 'message.created', 10_000)
    expect(frame).toMatchObject({
      event: 'message.created',
      data: { body: 'across the cluster', seq: written.body.data.seq },
    })
    socket.close()
  })

  it('holds the per-key rate limit (120/min) and the channel throttle (30/min) across nodes', async () => {
    const key = await F.apiKey(c.nodes[0]!.server, w)
    const channel = await c.run(Channels.create(w.workspaceId, 'api', 'API'))
    // Both limits count per clock minute: start with enough of the minute left.
    if (60_000 - (Date.now() % 60_000) < 15_000)
      await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000)))
    const nodes = c.live()
    const statuses: number[] = []
    for (let i = 0; i < 126; i++) {
      const res = await nodes[i % nodes.length]!.fetch('/v1/me', { headers: F.bearer(key) })
      await res.arrayBuffer()
      statuses.push(res.status)
    }
    expect(statuses.filter((s) => s === 200).length).toBe(120)
    expect(statuses.filter((s) => s === 429).length).toBe(6)

    const outcomes: Array<string> = []
    for (let i = 0; i < 33; i++) {
      const r = await nodes[i % nodes.length]!.ask('channel', channel.id, { _tag: 'TakeOutboundSlot' })
      outcomes.push(r.status === 200 ? 'ok' : r.body.error._tag)
    }
    expect(outcomes.filter((o) => o === 'ok').length).toBe(30)
    expect(outcomes.filter((o) => o === 'Throttled').length).toBe(3)
  })

  it('revokes an API key on every node at once; the key list shows when it was last used', async () => {
    const [a, b] = c.live()
    const key = await F.apiKey(a!.server, w)
    // Each node resolves the key once and keeps it in its credential cache.
    for (const n of [a!, b!]) expect((await n.fetch('/v1/me', { headers: F.bearer(key) })).status).toBe(200)
    const owner = await F.signIn(a!.server, w.ownerEmail)
    const listed = await waitFor('last_used_at', async () => {
      const list = (await (await a!.fetch('/v1/api-keys', { headers: owner.headers() })).json()) as {
        data: Array<{ id: number; prefix: string; last_used_at: string | null }>
      }
      const mine = list.data.find((k) => key.startsWith(k.prefix))
      return mine?.last_used_at ? mine : undefined
    })
    const del = await a!.fetch(`/v1/api-keys/${listed.id}`, { method: 'DELETE', headers: owner.headers() })
    expect(del.status).toBeLessThan(300)
    // The other node's cached copy is gone with the revocation: the very next request is refused.
    expect((await b!.fetch('/v1/me', { headers: F.bearer(key) })).status).toBe(401)
    expect((await a!.fetch('/v1/me', { headers: F.bearer(key) })).status).toBe(401)
  })

  it('loses no acknowledged write and applies none twice when the owner is killed mid-stream', async () => {
    const id = await c.run(Effect.map(Conversations.create(w.workspaceId, null), (r) => r.id))
    expect((await c.nodes[0]!.ask('conversation', id, text('first', 'kill-0'))).status).toBe(200)
    const [victim] = await ownersOf(c, 'conversation', id)
    expect(victim).toBeDefined()
    const writers = c.live().filter((n) => n !== victim)
    expect(writers.length).toBe(2)

    const PER_WRITER = 40
    const KILL_AFTER = 10
    let acked = 0
    let killedAt = 0
    let firstAckAfterKill = 0
    let unavailable = 0
    /** Writes `count` messages in order, retrying each (same client id) until acknowledged. */
    const stream = async (writer: ClusterNode, tag: string) => {
      for (let i = 1; i <= PER_WRITER; i++) {
        for (let attempt = 0; ; attempt++) {
          expect(attempt, `write ${tag}-${i} never acknowledged`).toBeLessThan(30)
          const r = await writer.ask('conversation', id, text(`${tag} ${i}`, `${tag}-${i}`))
          if (r.status === 200) break
          expect(r.status, JSON.stringify(r.body)).toBe(503)
          unavailable++
          await new Promise((res) => setTimeout(res, 100))
        }
        acked++
        if (killedAt > 0 && firstAckAfterKill === 0) firstAckAfterKill = Date.now()
        if (acked === KILL_AFTER && killedAt === 0) {
          victim!.proc.kill('SIGKILL')
          killedAt = Date.now()
        }
      }
    }
    await Promise.all([stream(writers[0]!, 'a'), stream(writers[1]!, 'b')])
    await victim!.exited

    const rows = await c.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ seq: number; client_id: string }>`
          SELECT seq, client_id FROM messages WHERE conversation_id = ${id} ORDER BY seq`,
      ),
    )
    const expected = [
      'kill-0',
      ...['a', 'b'].flatMap((t) => Array.from({ length: PER_WRITER }, (_, i) => `${t}-${i + 1}`)),
    ]
    // Exactly the acknowledged writes, once each, numbered 1…n without a gap.
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: expected.length }, (_, i) => i + 1))
    expect([...rows.map((r) => r.client_id)].sort()).toEqual([...expected].sort())
    // Each writer's own messages are in its order.
    for (const t of ['a', 'b']) {
      const mine = rows
        .filter((r) => r.client_id.startsWith(`${t}-`))
        .map((r) => Number(r.client_id.slice(2)))
      expect(mine).toEqual([...mine].sort((x, y) => x - y))
    }
    const [newOwner] = await ownersOf(c, 'conversation', id)
    expect(newOwner).toBeDefined()
    expect(newOwner).not.toBe(victim)
    // Reported by the suite, not asserted: how long writes were refused.
    console.info(
      `failover: first write acknowledged ${firstAckAfterKill - killedAt} ms after SIGKILL ` +
        `(lease ${LEASE_MS} ms, ask timeout ${ASK_TIMEOUT_MS} ms); ${unavailable} answers 503 meanwhile`,
    )
    await waitSettled(c)
  }, 120_000)

  it('rebalances when a node joins: it takes shards, and every entity still has one owner', async () => {
    const before = (await Promise.all(c.live().map((n) => n.status()))).map((s) => s.shards)
    expect(before.reduce((a, b) => a + b, 0)).toBe(300)
    const joined = await c.start('n3')
    const statuses = await waitSettled(c)
    expect(statuses.length).toBe(3)
    expect((await joined.status()).shards).toBeGreaterThan(0)
    // The locks in Redis agree: each shard held by a live node.
    const addresses = new Set(statuses.map((s) => s.address))
    const locks = await c.redis.keys(`${c.prefix}cluster:shard:*`)
    expect(locks.length).toBe(300)
    const holders = await c.redis.mget(...locks)
    for (const h of holders) expect(addresses.has(h ?? '')).toBe(true)
    // Entities keep one owner after the move; some now live on the new node.
    for (const [i, id] of conversations.entries()) {
      const r = await c.live()[i % 3]!.ask('conversation', id, { _tag: 'WhoIsTyping' })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
    }
    await expectUniqueOwners('conversation', conversations)
    await waitFor('an entity on the new node', async () => {
      const mine = (await joined.status()).entities.conversation ?? []
      return mine.length > 0
    })
  }, 120_000)

  it('hands shards over at once when a node leaves gracefully (SIGTERM)', async () => {
    const leaving = c.live().at(-1)!
    const theirs = (await leaving.status()).entities.conversation ?? []
    const started = Date.now()
    leaving.proc.kill('SIGTERM')
    expect(await leaving.exited).toBe(0)
    const statuses = await waitSettled(c)
    expect(statuses.length).toBe(2)
    console.info(`graceful leave: shards settled on the others ${Date.now() - started} ms after SIGTERM`)
    for (const id of theirs) {
      const r = await c.live()[0]!.ask('conversation', id, { _tag: 'WhoIsTyping' })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
    }
    await expectUniqueOwners('conversation', conversations)
  }, 60_000)
})
