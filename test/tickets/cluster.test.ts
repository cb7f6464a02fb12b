import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { api } from '../contacts/support'
import * as I from '../inbox/support'
import { ownersOf, startCluster, type TestCluster, waitSettled } from '../support/cluster'
import * as F from '../support/fixtures'

/**
 * Tickets in cluster mode: two nodes as separate processes on one PostgreSQL database and one
 * Redis prefix. One ticket written from both nodes at once lives on one node's TicketActor; its
 * discussion keeps a gap-free order, concurrent changes of different fields are all kept, and a
 * socket on one node hears what was written through the other.
 */
// Cluster mode needs PostgreSQL and Redis by design: the embedded database is a single node's.
const enabled = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL)

describe.skipIf(!enabled)('tickets on two nodes', () => {
  let c: TestCluster
  let owner: Record<string, string>
  let team: number

  beforeAll(async () => {
    c = await startCluster({ nodes: 2 })
    await waitSettled(c)
    const s = c.nodes[0]!.server
    const w = await F.workspace(s, { plan: 'pro' })
    owner = (await F.signIn(s, w.ownerEmail)).headers()
    team = await I.team(s, w, [w.ownerId], 'backoffice')
  }, 120_000)
  afterAll(() => c?.stop(), 60_000)

  it('one ticket written from both nodes: one owner, gap-free discussion, no lost change', async () => {
    const [a, b] = [c.nodes[0]!.server, c.nodes[1]!.server]
    const created = await api(a, owner).post('/v1/tickets', { subject: 'Cluster ticket', team_id: team })
    expect(created.status).toBe(201)
    const id = created.data.id as number
    const listener = await I.socketFor(
      b,
      { cookie: owner.cookie!, csrf: owner['x-csrf-token']!, headers: () => owner },
      `ticket:${id}`,
    )
    expect(listener.answer.op).toBe('subscribed')

    const posts = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        api(i % 2 === 0 ? a : b, owner).post(`/v1/tickets/${id}/messages`, { body: `m${i}` }),
      ),
    )
    expect(posts.map((r) => r.status)).toEqual(Array(20).fill(201))
    expect(posts.map((r) => r.data.seq).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i + 1),
    )
    // Every message was heard on the other node's socket.
    const heard = new Set<number>()
    while (heard.size < 20)
      heard.add((await listener.c.next((f) => f.event === 'ticket.message', 10_000)).data.seq)
    listener.c.close()

    // Custom values are one map: changes of two keys from two nodes at once must both stay.
    for (const label of ['Alpha', 'Beta'])
      expect(
        (await api(a, owner).post('/v1/custom-fields', { entity: 'ticket', label, type: 'text' })).status,
      ).toBe(201)
    const changes = await Promise.all([
      api(a, owner).patch(`/v1/tickets/${id}`, { priority: 'urgent', custom: { alpha: 'from A' } }),
      api(b, owner).patch(`/v1/tickets/${id}`, { subject: 'Renamed on B', custom: { beta: 'from B' } }),
    ])
    expect(changes.map((r) => r.status)).toEqual([200, 200])
    const d = await api(b, owner).get(`/v1/tickets/${id}`)
    expect(d.data).toMatchObject({
      priority: 'urgent',
      subject: 'Renamed on B',
      custom: { alpha: 'from A', beta: 'from B' },
    })
    const log = (await api(a, owner).get(`/v1/tickets/${id}/messages`)).meta.events
    expect(log.map((e: any) => e.seq)).toEqual(log.map((_: unknown, i: number) => i + 1))
    expect(log.map((e: any) => e.field).sort()).toEqual(
      [null, 'custom.alpha', 'custom.beta', 'priority', 'subject'].sort(),
    )
    expect((await ownersOf(c, 'ticket', id)).length).toBe(1)
  })
})
