import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'
import { body, createLivechat, startVisitor, v } from './support'

/**
 * The privacy fault of an internal note with a file reaching the visitor, through the real live
 * chat connector: a note with a file (and one with a file alone) stays the team's; the visitor's
 * socket, the visitor's conversation and the visitor's file links never show it, while the reply
 * sent after it arrives as usual.
 */
let s: TestServer
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ LIVECHAT_MIN_FILL_MS: '0', LIVECHAT_STARTS_PER_MINUTE: '1000' })
  const w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const visitorSocket = async (key: string, token: string) => {
  const r = await body(await s.fetch(`/v1/livechat/${key}/realtime`, F.json({}, v(token))))
  const c = await connect(r.data.url)
  await c.next((f) => f.op === 'subscribed' && f.channel === r.data.channel)
  return c
}

const SECRET = /Refund approved|finance-approval|internal-shot/

describe('an internal note with a file on a live chat', () => {
  it('never reaches the visitor: not on the socket, not in the conversation, not as a file', async () => {
    const ch = await createLivechat(s, owner, { title: 'Acme Support' })
    const key = ch.livechat.key as string
    const visitor = await startVisitor(s, key)
    const id = visitor.interaction_id
    const socket = await visitorSocket(key, visitor.token)
    const hi = await s.fetch(
      `/v1/livechat/${key}/messages`,
      F.json({ text: 'Where is my refund?', client_id: 'v-1' }, v(visitor.token)),
    )
    expect(hi.status).toBe(201)

    // As the composer sends it: multipart, `type=note`, the text and the file picked.
    const note = await s.fetch(`/v1/interactions/${id}/messages`, {
      method: 'POST',
      headers: owner.headers(),
      body: I.form({ type: 'note', text: 'Refund approved by finance, tell her on Monday' }, [
        { field: 'file', name: 'finance-approval.pdf', type: 'application/pdf', bytes: I.bytes(1_500) },
      ]),
    })
    expect(note.status, await note.clone().text()).toBe(201)
    const n = (await body(note)).data
    expect(n).toMatchObject({ type: 'note', status: 'internal', media: { name: 'finance-approval.pdf' } })
    const bare = await s.fetch(`/v1/interactions/${id}/messages`, {
      method: 'POST',
      headers: owner.headers(),
      body: I.form({ type: 'note' }, [
        { field: 'file', name: 'internal-shot.png', type: 'image/png', bytes: I.bytes(400) },
      ]),
    })
    expect(bare.status).toBe(201)
    const b = (await body(bare)).data

    // A note does not pick the chat up: the visitor still waits in the queue.
    const waiting = (
      await body(await s.fetch(`/v1/livechat/${key}/conversation`, { headers: v(visitor.token) }))
    ).data
    expect(waiting.queue.waiting).toBe(true)

    // The reply after the notes arrives; nothing of the notes came before it (frames keep order).
    const reply = await s.fetch(
      `/v1/interactions/${id}/messages`,
      F.json({ text: 'We are checking your refund now.' }, owner.headers()),
    )
    expect(reply.status).toBe(201)
    const shown = await socket.next(
      (f: any) => f.event === 'message' && f.data.body === 'We are checking your refund now.',
      10_000,
    )
    expect(shown.data).toMatchObject({ from: 'agent', media: null })
    expect(JSON.stringify(socket.frames)).not.toMatch(SECRET)
    // Left unread on the socket: the visitor's own message only.
    expect(socket.frames.filter((f: any) => f.event === 'message').map((f: any) => f.data.from)).toEqual([
      'visitor',
    ])

    // The visitor's view of the conversation: their message and the reply, nothing else.
    const conv = (
      await body(await s.fetch(`/v1/livechat/${key}/conversation`, { headers: v(visitor.token) }))
    ).data
    expect(conv.messages.map((m: any) => m.body)).toEqual([
      'Where is my refund?',
      'We are checking your refund now.',
    ])
    expect(JSON.stringify(conv)).not.toMatch(SECRET)
    const after = (
      await body(
        await s.fetch(`/v1/livechat/${key}/conversation?after=${n.id}`, { headers: v(visitor.token) }),
      )
    ).data
    expect(JSON.stringify(after)).not.toMatch(SECRET)

    // The notes' files are not the visitor's to fetch; the team's link serves them.
    for (const m of [n, b]) {
      const [row] = await I.sql<{ file_id: number }>(
        s,
        (db) => db`SELECT file_id FROM messages WHERE id = ${m.id}`,
      )
      expect(row!.file_id).not.toBeNull()
      const got = await s.fetch(`/v1/livechat/${key}/files/${row!.file_id}`, { headers: v(visitor.token) })
      expect(got.status).toBe(404)
      expect((await s.fetch(m.media.url, { headers: owner.headers() })).status).toBe(200)
    }

    // Stored as notes, listed as notes, and the inbox still has the reply as its last word.
    const notes = await body(await s.fetch(`/v1/interactions/${id}/notes`, { headers: owner.headers() }))
    expect(notes.data.map((x: any) => x.id)).toEqual([b.id, n.id])
    const page = await body(await s.fetch(`/v1/interactions/${id}/messages`, { headers: owner.headers() }))
    expect(page.data.map((x: any) => x.type)).toEqual(['text', 'note', 'note', 'text'])
    socket.close()
  })
})
