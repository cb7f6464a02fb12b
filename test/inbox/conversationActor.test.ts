import { SqlClient } from '@effect/sql'
import { Effect, Exit, Layer, Scope } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConversationActor, definition } from '../../actors/inbox/ConversationActor'
import * as Recent from '../../actors/inbox/recentClientIds'
import * as Actor from '../../engine/actor/Actor'
import * as AppendWriter from '../../store/appendWriter'
import * as Conversations from '../../store/conversations'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

let s: TestServer
let w: F.Seeded
let owner: F.Session

beforeAll(async () => {
  // 1,000 asks queue behind one actor: on a slow or busy machine the last waits longer than the
  // production ask timeout (5 s). These suites check order and exactly-once, not latency (that is
  // bench/'s), so the queue may take as long as it takes.
  s = await startTestServer({ CLUSTER_ASK_TIMEOUT_MS: '60000' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const newConversation = () => s.run(Effect.map(Conversations.create(w.workspaceId, null), (c) => c.id))

const text = (body: string, clientId?: string): Conversations.NewMessage => ({
  direction: 'out',
  type: 'text',
  body,
  sender: { name: 'Olivia Owner', user_id: w.ownerId },
  ...(clientId ? { clientId } : {}),
})

const append = (id: number, m: Conversations.NewMessage) =>
  s.run(Effect.flatMap(ConversationActor, (a) => a.ask(id, { _tag: 'Append', ...m })))

const socketFor = async (session: F.Session, channel: string) => {
  const res = await s.fetch('/v1/realtime/token', F.json({}, session.headers()))
  const { url } = ((await res.json()) as { data: { url: string } }).data
  const c = await connect(url)
  c.send({ op: 'subscribe', channel })
  const answer = await c.next((f) => f.channel === channel)
  return { c, answer }
}

describe('ConversationActor', () => {
  it('gives 1,000 concurrent sends the sequence 1…1000 without gaps, events in that order', {
    timeout: 60_000,
  }, async () => {
    const id = await newConversation()
    const { c, answer } = await socketFor(owner, `conv:${id}`)
    expect(answer.op).toBe('subscribed')
    const replies = await s.run(
      Effect.flatMap(ConversationActor, (a) =>
        Effect.forEach(
          Array.from({ length: 1000 }, (_, i) => i),
          (i) => a.ask(id, { _tag: 'Append', ...text(`m${i}`) }),
          { concurrency: 'unbounded' },
        ),
      ),
    )
    expect(replies.map((m) => m.seq).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i + 1),
    )
    const stored = await s.run(
      Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql<{ seq: number }>`SELECT seq FROM messages WHERE conversation_id = ${id} ORDER BY seq`,
      ),
    )
    expect(stored.map((r) => r.seq)).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    const seen: number[] = []
    for (let i = 0; i < 1000; i++) {
      const f = await c.next((x) => x.event === 'message.created')
      seen.push(f.data.seq)
      if (i === 0)
        expect(f.data).toMatchObject({ interaction_id: id, direction: 'out', type: 'text', status: 'sent' })
    }
    expect(seen).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    c.close()
  })

  it('keeps its sequence across passivation and never duplicates a resent client id', async () => {
    const id = await newConversation()
    await append(id, text('one'))
    const first = await append(id, text('two', 'client-42'))
    await s.run(Effect.flatMap(ConversationActor, (a) => a.stop(id)))
    const again = await append(id, text('two (resent)', 'client-42'))
    expect(again.id).toBe(first.id)
    expect(again.seq).toBe(2)
    expect((await append(id, text('three'))).seq).toBe(3)
  })

  it('passivates on its own after its idle time, then answers a resent client id with the stored message, gap-free', {
    timeout: 30_000,
  }, async () => {
    const id = await newConversation()
    // The conversation's own definition with a short idle time, in a scope of the test's: the only
    // writer of this conversation here.
    const scope = await s.run(Scope.make())
    const actor = await s.run(
      Effect.flatMap(Layer.buildWithScope(AppendWriter.layer, scope), (writer) =>
        Scope.extend(Actor.make({ ...definition, idleMs: 50, sweepMs: 10 }), scope).pipe(
          Effect.provide(writer),
        ),
      ),
    )
    const ask = (m: Conversations.NewMessage) => s.run(actor.ask(id, { _tag: 'Append', ...m }))
    const passivated = async () => {
      for (let i = 0; i < 200 && (await s.run(actor.size)) > 0; i++)
        await new Promise((r) => setTimeout(r, 20))
      expect(await s.run(actor.size)).toBe(0)
    }
    try {
      const one = await ask(text('one', 'idle-1'))
      const two = await ask(text('two', 'idle-2'))
      await passivated()
      // Reloaded by the resend: the stored message, not a new one.
      const again = await ask(text('two (resent)', 'idle-2'))
      expect(again).toMatchObject({ id: two.id, seq: 2, body: 'two', duplicate: true })
      expect(await ask(text('one (resent)', 'idle-1'))).toMatchObject({ id: one.id, seq: 1, duplicate: true })
      expect((await ask(text('three', 'idle-3'))).seq).toBe(3)
      await passivated()
      // A run after reloading: resends and new messages mixed, each answered in order.
      const run = await s.run(
        Effect.all(
          [
            actor.ask(id, { _tag: 'Append', ...text('three (resent)', 'idle-3') }),
            actor.ask(id, { _tag: 'Append', ...text('four', 'idle-4') }),
            actor.ask(id, { _tag: 'Append', ...text('four (resent in the same run)', 'idle-4') }),
            actor.ask(id, { _tag: 'Append', ...text('two (resent once more)', 'idle-2') }),
            actor.ask(id, { _tag: 'Append', ...text('five') }),
          ],
          { concurrency: 'unbounded' },
        ),
      )
      expect(run.map((m) => [m.seq, m.duplicate === true])).toEqual([
        [3, true],
        [4, false],
        [4, true],
        [2, true],
        [5, false],
      ])
      const stored = await s.run(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<{ seq: number; client_id: string | null }>`
              SELECT seq, client_id FROM messages WHERE conversation_id = ${id} ORDER BY seq`,
        ),
      )
      expect(stored).toEqual([
        { seq: 1, client_id: 'idle-1' },
        { seq: 2, client_id: 'idle-2' },
        { seq: 3, client_id: 'idle-3' },
        { seq: 4, client_id: 'idle-4' },
        { seq: 5, client_id: null },
      ])
      const row = await s.run(Conversations.byId(id))
      expect(row?.last_seq).toBe(5)
    } finally {
      await s.run(Scope.close(scope, Exit.void))
    }
  })

  it('answers ConversationNotFound for a conversation that does not exist', async () => {
    const exit = await s.run(
      Effect.exit(Effect.flatMap(ConversationActor, (a) => a.ask(987654, { _tag: 'Append', ...text('x') }))),
    )
    expect(exit._tag).toBe('Failure')
    expect(JSON.stringify(exit)).toMatch(/ConversationNotFound/)
  })

  it('holds typing in memory with expiry and publishes only changes', async () => {
    const id = await newConversation()
    const { c } = await socketFor(owner, `conv:${id}`)
    const typing = (on: boolean, nowMs: number) =>
      s.run(
        Effect.flatMap(ConversationActor, (a) =>
          a.ask(id, { _tag: 'Typing', userId: w.ownerId, name: 'Olivia', typing: on, nowMs }),
        ),
      )
    const t0 = Date.now()
    expect(await typing(true, t0)).toEqual([w.ownerId])
    await typing(true, t0 + 1000)
    expect(await c.next((f) => f.event === 'typing')).toMatchObject({
      data: { user_id: w.ownerId, typing: true },
    })
    const who = (nowMs: number) =>
      s.run(Effect.flatMap(ConversationActor, (a) => a.ask(id, { _tag: 'WhoIsTyping', nowMs })))
    expect(await who(t0 + 2000)).toEqual([w.ownerId])
    expect(await who(t0 + 60_000)).toEqual([])
    await typing(false, t0 + 3000)
    expect(await c.next((f) => f.event === 'typing')).toMatchObject({ data: { typing: false } })
    expect(c.frames.filter((f) => f.event === 'typing')).toHaveLength(0)
    const rows = await s.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT 1 FROM messages WHERE conversation_id = ${id}`),
    )
    expect(rows).toHaveLength(0)
    c.close()
  })
})

describe('conv: subscriptions follow the visibility rule', () => {
  it('lets an agent see an unassigned conversation, and unsubscribes them when it goes to someone else', async () => {
    const agentUser = await F.member(s, w, 'Agent')
    const other = await F.member(s, w, 'Agent')
    const agent = await F.signIn(s, agentUser.email)
    const id = await newConversation()
    const { c: agentSocket, answer } = await socketFor(agent, `conv:${id}`)
    expect(answer.op).toBe('subscribed')
    const { c: ownerSocket } = await socketFor(owner, `conv:${id}`)

    await s.run(
      Effect.flatMap(ConversationActor, (a) =>
        a.ask(id, { _tag: 'Assign', teamId: null, assigneeId: other.id }),
      ),
    )
    expect(await agentSocket.next((f) => f.op === 'unsubscribed')).toMatchObject({
      channel: `conv:${id}`,
      reason: 'access_lost',
    })
    // The owner sees everything and keeps receiving.
    expect(await ownerSocket.next((f) => f.event === 'interaction.updated')).toMatchObject({
      data: { id, assignee_id: other.id },
    })
    await append(id, text('after the reassignment'))
    expect(await ownerSocket.next((f) => f.event === 'message.created')).toMatchObject({
      data: { body: 'after the reassignment' },
    })
    expect(agentSocket.frames.find((f) => f.event === 'message.created')).toBeUndefined()

    // Assigned to someone else, the agent cannot subscribe again; the assignee can.
    agentSocket.send({ op: 'subscribe', channel: `conv:${id}` })
    expect(await agentSocket.next((f) => f.op === 'refused')).toMatchObject({ code: 'forbidden' })
    const { answer: assigneeAnswer, c: assigneeSocket } = await socketFor(
      await F.signIn(s, other.email),
      `conv:${id}`,
    )
    expect(assigneeAnswer.op).toBe('subscribed')
    for (const c of [agentSocket, ownerSocket, assigneeSocket]) c.close()
  })

  it('refuses a conversation of another workspace', async () => {
    const elsewhere = await F.workspace(s, { plan: 'pro' })
    const foreign = await s.run(Effect.map(Conversations.create(elsewhere.workspaceId, null), (c) => c.id))
    const { c, answer } = await socketFor(owner, `conv:${foreign}`)
    expect(answer).toMatchObject({ op: 'refused', code: 'forbidden' })
    c.close()
  })
})

describe('recent client ids', () => {
  it('finds the ids it was given, forgets the oldest beyond its bound, and tells hashes apart', () => {
    const recent = Recent.of([
      ['a', 1],
      ['b', 2],
    ])
    expect(Recent.candidate(recent, 'a')).toBe(1)
    expect(Recent.candidate(recent, 'b')).toBe(2)
    expect(Recent.candidate(recent, 'c')).toBeUndefined()
    for (let i = 0; i < Recent.RECENT_CLIENT_IDS; i++) Recent.add(recent, `n${i}`, 100 + i)
    expect(Recent.candidate(recent, 'a')).toBeUndefined()
    expect(Recent.candidate(recent, 'b')).toBeUndefined()
    expect(Recent.candidate(recent, 'n0')).toBe(100)
    expect(Recent.candidate(recent, `n${Recent.RECENT_CLIENT_IDS - 1}`)).toBe(
      100 + Recent.RECENT_CLIENT_IDS - 1,
    )
    Recent.add(recent, 'z', 999)
    expect(Recent.candidate(recent, 'n0')).toBeUndefined()
    expect(Recent.candidate(recent, 'z')).toBe(999)
    expect(recent.slots.length).toBe(2 * Recent.RECENT_CLIENT_IDS)
    // 53 bits: exact in a double, and different for ids that differ in one character.
    const h = Recent.hash53('00000000-0000-4000-8000-000000000000')
    expect(Number.isSafeInteger(h)).toBe(true)
    expect(h).not.toBe(Recent.hash53('00000000-0000-4000-8000-000000000001'))
  })
})
