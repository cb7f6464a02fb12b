import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCluster, storedMessages, type TestCluster, waitSettled } from '../support/cluster'
import * as F from '../support/fixtures'

/**
 * The write path under a storm (issue 26): API-channel messages to many conversations, through
 * both nodes of a cluster at once, so appends gather into the nodes' group commits and every
 * conversation's actor lives on one node or the other. One node is killed (SIGKILL) mid-storm;
 * its conversations move to the survivor, which keeps taking the same stream, and every message
 * the customer's system has not seen acknowledged is sent again (same `message.id`) until it is.
 * Then: every message is stored exactly once, each conversation's sequence runs 1…n without a gap,
 * and a resend of an acknowledged message answers `duplicate` with the stored one.
 */
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)
const CONVERSATIONS = 12
const PER_CONVERSATION = 25

describe.skipIf(!enabled)('the write path when a node dies mid-storm', () => {
  let c: TestCluster
  let key: string

  beforeAll(async () => {
    c = await startCluster({
      nodes: 2,
      env: {
        CLUSTER_LEASE_MS: '3000',
        CLUSTER_ASK_TIMEOUT_MS: '10000',
        RATE_LIMIT_PER_CHANNEL_KEY: '100000000',
      },
    })
    const w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
    const owner = await F.signIn(c.nodes[0]!.server, w.ownerEmail)
    const res = await c.nodes[0]!.fetch('/v1/channels/api', F.json({ name: 'Storm' }, owner.headers()))
    expect(res.status).toBe(201)
    key = ((await res.json()) as any).data.credentials.key
    await waitSettled(c)
  }, 180_000)
  afterAll(async () => {
    await c?.stop()
  }, 60_000)

  it('stores every acknowledged message once, gap-free, across the kill and the resends', async () => {
    const victim = c.nodes[1]!
    const survivor = c.nodes[0]!
    const post = (via: (typeof c.nodes)[number], conv: number, i: number) =>
      via
        .fetch(
          '/v1/channel-api/messages',
          F.json(
            { conversation_id: `storm-${conv}`, message: { id: `m-${conv}-${i}`, text: `c${conv} #${i}` } },
            F.bearer(key),
          ),
        )
        .then(
          async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }),
          () => ({ status: 0, body: null }),
        )

    const acked = new Map<string, number>()
    let killed = false
    let sent = 0
    /** One conversation's stream, in order; each message resent until acknowledged. */
    const stream = async (conv: number) => {
      for (let i = 1; i <= PER_CONVERSATION; i++) {
        for (let attempt = 0; ; attempt++) {
          expect(attempt, `m-${conv}-${i} never acknowledged`).toBeLessThan(60)
          // Both nodes take the storm until the kill; the survivor alone after it.
          const via = !killed && (conv + i) % 2 === 1 ? victim : survivor
          const r = await post(via, conv, i)
          if (r.status === 201 || r.status === 200) {
            acked.set(`m-${conv}-${i}`, r.body.data.message.id)
            break
          }
          // Refused while the dead node's shards move (503), or cut off with the node (0).
          expect([0, 503], `${JSON.stringify(r.body)}\n${via.output().slice(-4000)}`).toContain(r.status)
          await new Promise((res) => setTimeout(res, 100))
        }
        sent++
        if (!killed && sent === Math.floor((CONVERSATIONS * PER_CONVERSATION) / 3)) {
          killed = true
          victim.proc.kill('SIGKILL')
        }
      }
    }
    await Promise.all(Array.from({ length: CONVERSATIONS }, (_, conv) => stream(conv)))
    await victim.exited
    expect(killed).toBe(true)

    const rows = await storedMessages(c)
    expect(rows.length).toBe(CONVERSATIONS * PER_CONVERSATION)
    // Each message once, with the id its acknowledgement named.
    expect(new Set(rows.map((r) => r.client_id)).size).toBe(rows.length)
    for (const r of rows) expect(acked.get(r.client_id.slice('api:'.length))).toBe(r.id)
    // Each conversation numbered 1…n, in the customer's order.
    const byConversation = new Map<number, typeof rows>()
    for (const r of rows)
      byConversation.set(r.conversation_id, [...(byConversation.get(r.conversation_id) ?? []), r])
    expect(byConversation.size).toBe(CONVERSATIONS)
    for (const list of byConversation.values()) {
      expect(list.map((r) => r.seq)).toEqual(Array.from({ length: PER_CONVERSATION }, (_, i) => i + 1))
      const order = list.map((r) => Number(r.client_id.split('-')[2]))
      expect(order).toEqual([...order].sort((a, b) => a - b))
    }
    // The conversations' own counters agree with their messages.
    const convs = await c.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) =>
          sql<{ last_seq: number; unread_count: number }>`SELECT last_seq, unread_count FROM conversations`,
      ),
    )
    for (const cv of convs) expect(cv).toEqual({ last_seq: PER_CONVERSATION, unread_count: PER_CONVERSATION })

    // A resend now: the stored message, marked duplicate, nothing written.
    const again = await post(survivor, 3, 7)
    expect(again.status).toBe(200)
    expect(again.body.data.message.id).toBe(acked.get('m-3-7'))
  }, 180_000)
})
