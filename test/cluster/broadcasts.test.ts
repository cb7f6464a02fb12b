import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INTERRUPTED } from '../../actors/broadcasts/BroadcastActor'
import { LOCK_CLASS } from '../../actors/broadcasts/senders'
import { bulkContacts, ENV, recipients, sql } from '../broadcasts/support'
import { api, type Who } from '../contacts/support'
import {
  type ClusterNode,
  ownersOf,
  startCluster,
  type TestCluster,
  waitFor,
  waitSettled,
} from '../support/cluster'
import * as F from '../support/fixtures'
import { type MsgappService, startMsgappService } from '../support/msgappService'

/**
 * A broadcast in cluster mode: two nodes (separate processes) on one PostgreSQL database and one
 * Redis, the number's sockets talking to a stand-in messaging service on loopback
 * (test/support/msgappService.ts), which records every send the moment it arrives. The node that
 * runs the broadcast's sender is killed (SIGKILL) while the service holds the answer to a send;
 * the other node takes the broadcast over (its advisory lock went with the dead node's
 * connection) and finishes it. Every recipient reaches the service exactly once, and the one
 * whose send was in flight follows the documented rule (sent when the number's node logged it,
 * otherwise failed "interrupted" and not sent again).
 */
const N = 12
const HOLD_AT = 4
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

describe.skipIf(!enabled)('a broadcast when its sending node is killed', () => {
  let c: TestCluster
  let svc: MsgappService
  let w: F.Seeded
  let owner: Who

  beforeAll(async () => {
    svc = await startMsgappService()
    c = await startCluster({
      nodes: 2,
      env: {
        ...ENV,
        MSGAPP_TEST_SERVICE: svc.url,
        MSGAPP_POLL_MS: '300',
        BROADCAST_POLL_MS: '200',
        CLUSTER_LEASE_MS: '3000',
        CLUSTER_ASK_TIMEOUT_MS: '10000',
      },
    })
    w = await F.workspace(c.nodes[0]!.server, { plan: 'pro' })
    owner = (await F.signIn(c.nodes[0]!.server, w.ownerEmail)).headers()
    await waitSettled(c)
  }, 180_000)
  afterAll(async () => {
    await c?.stop()
    await svc?.close()
  }, 60_000)

  const nodeOfPid = (pid: number) => c.nodes.find((n) => n.proc.pid === pid)

  /** Which node holds an advisory lock `(space, key)` (its claims connection is named by pid). */
  const lockHolder = async (space: number, key: number) => {
    const rows = await sql<{ application_name: string }>(
      c.nodes[0]!.server,
      (db) => db`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${space} AND l.objid = ${key}`,
    )
    const pid = Number(rows[0]?.application_name.split(' ')[1])
    return rows.length === 1 ? nodeOfPid(pid) : undefined
  }

  /**
   * A linked number whose socket (the number's session) and ChannelActor (its shard) are on the
   * same node, so killing the broadcast's node also kills the socket of the send in flight (a
   * number split across nodes is test/cluster/msgappForward.test.ts).
   */
  let tries = 0
  const number = async () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const via = c.live()[attempt % 2]!
      const created = await api(via.server, owner).post('/v1/channels', { name: `Shop ${tries}.${attempt}` })
      expect(created.status, JSON.stringify(created.error)).toBe(201)
      const ch = created.data as { id: number }
      const socket = await waitFor('the number to connect', () =>
        svc.sockets.filter((s) => s.channel === ch.id).at(-1),
      )
      svc.link(ch.id, `6281277${String(ch.id).padStart(5, '0')}`)
      await waitFor('the number to be active', async () => {
        const st = await api(via.server, owner).get(`/v1/channels/${ch.id}/status`)
        return st.data?.status === 'active'
      })
      expect((await via.ask('channel', ch.id, { _tag: 'Reload' })).status).toBe(200)
      const [actor] = await ownersOf(c, 'channel', ch.id)
      const session = nodeOfPid(socket.pid)
      if (actor && actor === session && svc.sockets.filter((s) => s.channel === ch.id).length === 1)
        return { ch, node: session }
    }
    throw new Error('no number had its session and its actor on one node')
  }

  it('is taken over by the other node and sends every recipient exactly once', async () => {
    // Names and phones of its own per attempt: CI retries a failed test once, in the same workspace.
    tries += 1
    const { ch, node } = await number()
    const o = api(node.server, owner)
    const made = await o.post('/v1/labels', { name: `Promo cluster ${tries}` })
    expect(made.status, JSON.stringify(made.error)).toBe(201)
    const label = made.data.id
    await bulkContacts(node.server, w.workspaceId, N, String(6 + tries), label)
    const b = await o.post('/v1/broadcasts', {
      name: 'Cluster',
      channel_id: ch.id,
      audience: { label_ids: [label] },
      messages: [{ text: 'Halo {{first_name}}, promo!' }],
      settings: { pace_per_minute: 30, random_delay_seconds: 0, quiet_hours: null, skip_recent_hours: 24 },
    })
    expect(b.status, JSON.stringify(b.error)).toBe(201)
    const id = b.data.id as number
    const mine = () => svc.sends.filter((s) => s.channel === ch.id)
    const held = svc.hold((s) => s.channel === ch.id && mine().length === HOLD_AT)
    // Scheduled through the number's node: its local nudge starts the sender there.
    const started = await o.post(`/v1/broadcasts/${id}/schedule`, { risk_ack: true })
    expect(started.status, JSON.stringify(started.error)).toBe(200)
    const inFlight = await Promise.race([
      held,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no send was held')), 90_000)),
    ])

    // The sending node: the one whose claims connection holds the broadcast's lock.
    const victim = await waitFor('the sender', () => lockHolder(LOCK_CLASS, id))
    const survivor = c.live().find((n) => n !== victim) as ClusterNode
    expect(mine().length).toBe(HOLD_AT)
    victim.proc.kill('SIGKILL')
    await victim.exited
    svc.release()
    const viaSurvivor = api(survivor.server, owner)
    await waitFor(
      'the broadcast to complete on the other node',
      async () => (await viaSurvivor.get(`/v1/broadcasts/${id}`)).data?.status === 'completed',
      { timeoutMs: 120_000, intervalMs: 500 },
    )

    // Every recipient reached the service exactly once.
    const rows = await recipients(survivor.server, id)
    expect(rows.length).toBe(N)
    const phones = mine().map((s) => `+${s.jid.split('@')[0]}`)
    expect(new Set(phones).size, `sent twice: ${phones.join(' ')}`).toBe(phones.length)
    expect([...phones].sort()).toEqual(rows.map((r) => r.phone).sort())
    // The sends after the kill came from the survivor.
    expect(
      mine()
        .slice(HOLD_AT)
        .every((s) => s.pid === survivor.proc.pid),
    ).toBe(true)
    // Each recipient has its outcome: sent, except the one in flight when its node died without
    // a record of the answer (interrupted: not sent again).
    const heldPhone = `+${inFlight.jid.split('@')[0]}`
    for (const r of rows) {
      if (r.phone === heldPhone && r.state === 'failed') expect(r.reason).toBe(INTERRUPTED)
      else expect(r.state, `${r.phone}: ${r.reason}`).toBe('sent')
    }
    const heldRow = rows.find((r) => r.phone === heldPhone)!
    // The socket died with the sender's node: nobody logged the answer, so it is interrupted.
    if (inFlight.pid === victim.proc.pid) expect(heldRow.state).toBe('failed')
    console.info(
      `broadcast failover: sender on ${victim.name} (socket on ${nodeOfPid(inFlight.pid)?.name}); ` +
        `held recipient ${heldRow.state}; ${phones.length} sends, none twice`,
    )
  }, 240_000)
})
