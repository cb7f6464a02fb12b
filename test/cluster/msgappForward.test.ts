import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TIMED_OUT } from '../../connectors/msgapp/forward'
import { ENV } from '../broadcasts/support'
import { api, type Who } from '../contacts/support'
import { ownersOf, startCluster, type TestCluster, waitFor, waitSettled } from '../support/cluster'
import * as F from '../support/fixtures'
import { type MsgappService, startMsgappService } from '../support/msgappService'

/**
 * A messaging-app number whose socket (its session, placed by the number's advisory lock) is on
 * one node and whose ChannelActor (placed by shard) is on the other: the adapter forwards each send
 * to the socket's node over the Bus and gets the delivery back (connectors/msgapp/forward.ts).
 * Two node processes, one PostgreSQL, one Redis, the loopback stand-in service that records every
 * send as it arrives.
 */
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

describe.skipIf(!enabled)('a number whose socket and actor are on different nodes', () => {
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

  /** A linked number whose session (socket) and ChannelActor (shard) are on different nodes. */
  const number = async () => {
    for (let attempt = 0; attempt < 12; attempt++) {
      const via = c.live()[attempt % 2]!
      const created = await api(via.server, owner).post('/v1/channels', { name: `Split ${attempt}` })
      expect(created.status, JSON.stringify(created.error)).toBe(201)
      const ch = created.data as { id: number }
      const socket = await waitFor('the number to connect', () =>
        svc.sockets.filter((s) => s.channel === ch.id).at(-1),
      )
      svc.link(ch.id, `6281288${String(ch.id).padStart(5, '0')}`)
      await waitFor('the number to be active', async () => {
        const st = await api(via.server, owner).get(`/v1/channels/${ch.id}/status`)
        return st.data?.status === 'active'
      })
      expect((await via.ask('channel', ch.id, { _tag: 'Reload' })).status).toBe(200)
      const [actor] = await ownersOf(c, 'channel', ch.id)
      const session = nodeOfPid(socket.pid)
      if (
        actor &&
        session &&
        actor !== session &&
        svc.sockets.filter((s) => s.channel === ch.id).length === 1
      )
        return { ch, socketNode: session, actorNode: actor }
    }
    throw new Error('no number had its session and its actor on different nodes')
  }

  let split: Awaited<ReturnType<typeof number>>
  let conversationId: number

  const sendsOf = (text: string) =>
    svc.sends.filter((s) => s.channel === split.ch.id && s.text.startsWith(text))

  it('an agent reply through HTTP on either node goes out once, from the socket node, and gets its status', async () => {
    split = await number()
    const { ch, socketNode, actorNode } = split
    const o = api(actorNode.server, owner)
    const contact = await o.post('/v1/contacts', { name: 'Rina', phone: '+6281399990777' })
    expect(contact.status, JSON.stringify(contact.error)).toBe(201)
    const started = await o.post('/v1/interactions', {
      contact_id: contact.data.id,
      channel_id: ch.id,
      text: 'Halo Rina',
    })
    expect(started.status, JSON.stringify(started.error)).toBe(201)
    conversationId = started.data.id as number
    await waitFor('the first message to reach the service', () => sendsOf('Halo Rina').length === 1).catch(
      (e: unknown) => {
        const outputs = c.nodes.map((n) => `${n.name} ${n.proc.pid}: ${n.output().slice(-3000)}`)
        throw new Error(`${String(e)}; sockets ${JSON.stringify(svc.sockets)}; ${outputs.join('\n')}`)
      },
    )

    for (const [via, text] of [
      [actorNode, 'Lewat node aktor'],
      [socketNode, 'Lewat node soket'],
    ] as const) {
      const res = await api(via.server, owner).post(`/v1/interactions/${conversationId}/messages`, { text })
      expect(res.status, JSON.stringify(res.error)).toBe(201)
      expect(res.data.status, JSON.stringify(res.data)).toBe('sent')
      const sent = sendsOf(text)
      expect(sent.length).toBe(1)
      // Sent by the process that holds the socket (the actor's node forwarded it).
      expect(sent[0]!.pid).toBe(socketNode.proc.pid)
      expect(sent[0]!.jid).toBe('6281399990777@s.whatsapp.net')
    }
    const list = await api(socketNode.server, owner).get(`/v1/interactions/${conversationId}/messages`)
    const mine = (list.data as Array<{ body: string; status: string }>).filter(
      (m) => m.body.startsWith('Lewat node') || m.body.startsWith('Halo Rina'),
    )
    expect(mine.map((m) => m.status)).toEqual(['sent', 'sent', 'sent'])
    // Still one socket: nothing moved the number meanwhile.
    expect(svc.sockets.filter((s) => s.channel === ch.id).length).toBe(1)
  }, 240_000)

  it('a restriction the service answers on the socket node comes back with its reason and restricts the number', async () => {
    const { ch, socketNode, actorNode } = split
    const o = api(actorNode.server, owner)
    svc.refuseNext(ch.id, 463, 'restricted for now')
    const res = await o.post(`/v1/interactions/${conversationId}/messages`, { text: 'Dibatasi' })
    expect(res.status, JSON.stringify(res.error)).toBe(201)
    expect(res.data.status, JSON.stringify(res.data)).toBe('failed')
    expect(JSON.stringify(res.data)).toContain('restricted for now (463)')
    expect(sendsOf('Dibatasi').map((s) => s.pid)).toEqual([socketNode.proc.pid])
    // Reported by the node that sent it: the number is restricted, then active after a send.
    await waitFor('the number to be restricted', async () => {
      const st = await o.get(`/v1/channels/${ch.id}/status`)
      return st.data?.status === 'restricted'
    })
    expect((await actorNode.ask('channel', ch.id, { _tag: 'Reload' })).status).toBe(200)
    const next = await o.post(`/v1/interactions/${conversationId}/messages`, { text: 'Lagi' })
    expect(next.data.status, JSON.stringify(next.data)).toBe('sent')
    await waitFor('the number to be active again', async () => {
      const st = await o.get(`/v1/channels/${ch.id}/status`)
      return st.data?.status === 'active'
    })
    expect(sendsOf('Lagi').length).toBe(1)
  }, 120_000)

  it('the socket node dying mid-request fails the message with a reason and sends it only once', async () => {
    const { ch, socketNode, actorNode } = split
    const text = 'Node soket mati'
    const held = svc.hold((s) => s.channel === ch.id && s.text.startsWith(text))
    const reply = api(actorNode.server, owner).post(`/v1/interactions/${conversationId}/messages`, { text })
    const inFlight = await Promise.race([
      held,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('no send was held')), 60_000)),
    ])
    expect(inFlight.pid).toBe(socketNode.proc.pid)
    socketNode.proc.kill('SIGKILL')
    await socketNode.exited
    svc.release()
    const res = await reply
    expect(res.status, JSON.stringify(res.error)).toBe(201)
    expect(res.data.status, JSON.stringify(res.data)).toBe('failed')
    expect(JSON.stringify(res.data)).toContain(TIMED_OUT)

    // The surviving node takes the number over (a new socket there) and does not send it again.
    await waitFor(
      'the number to reconnect on the surviving node',
      () => svc.sockets.filter((s) => s.channel === ch.id).at(-1)?.pid === actorNode.proc.pid,
      { timeoutMs: 60_000, intervalMs: 300 },
    )
    await waitFor('the number to be active again', async () => {
      const st = await api(actorNode.server, owner).get(`/v1/channels/${ch.id}/status`)
      return st.data?.status === 'active'
    })
    const after = await api(actorNode.server, owner).post(`/v1/interactions/${conversationId}/messages`, {
      text: 'Setelah pindah',
    })
    expect(after.status, JSON.stringify(after.error)).toBe(201)
    expect(after.data.status, JSON.stringify(after.data)).toBe('sent')
    expect(sendsOf('Setelah pindah').map((s) => s.pid)).toEqual([actorNode.proc.pid])
    expect(sendsOf(text).length).toBe(1)
    const list = await api(actorNode.server, owner).get(`/v1/interactions/${conversationId}/messages`)
    const failed = (list.data as Array<{ body: string; status: string }>).find((m) => m.body.startsWith(text))
    expect(failed?.status).toBe('failed')
  }, 240_000)
})
