import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as I from '../inbox/support'
import { startTestServer, type TestServer } from '../support/server'
import { api, type People, people, raise } from './support'

/**
 * The discussion of spec 2 §4.3 and the conversation side of §4.1 over HTTP and WebSocket:
 * messages with mentions (`mention_ids` and `@Name`) and files, `after_message`/`after_event`,
 * feedback and conclusions reaching the conversation's notes and `conv:` sockets, the
 * update-request window (server clock moved, never slept), and the ticket events on `ws:` and
 * `ticket:`.
 */
let s: TestServer
let p: People
const MIN = 60_000

beforeAll(async () => {
  s = await startTestServer()
  p = await people(s)
}, 60_000)
afterAll(() => s?.stop())

const sock = (who: keyof People['sessions'], channel: string) => I.socketFor(s, p.sessions[who]!, channel)

describe('the discussion', () => {
  it('keeps a gap-free order; mentions by id and by @Name make participants who are told', async () => {
    const t = await raise(s, p)
    // The outsider cannot see the ticket until mentioned.
    expect((await api(s, p.outsider).get(`/v1/tickets/${t.id}`)).status).toBe(404)
    const m1 = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, {
      body: 'Looking into it',
      mention_ids: [p.outsiderId],
    })
    expect(m1.status).toBe(201)
    expect(m1.data).toMatchObject({
      seq: 1,
      kind: 'comment',
      body: 'Looking into it',
      sender: { user_id: p.b1Id },
    })
    expect(m1.data.mentions).toEqual([expect.objectContaining({ id: p.outsiderId })])
    expect((await api(s, p.outsider).get(`/v1/tickets/${t.id}`)).status).toBe(200)
    const told = await api(s, p.outsider).get('/v1/notifications')
    expect(told.data.some((n: any) => n.kind === 'ticket.mention' && n.data.ticket_id === t.id)).toBe(true)
    const m2 = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'two' })
    expect(m2.data.seq).toBe(2)
    const all = await api(s, p.b1).get(`/v1/tickets/${t.id}/messages`)
    expect(all.data.map((m: any) => m.seq)).toEqual([1, 2])
    expect(all.meta.events.map((e: any) => e.kind)).toEqual(['created', 'mentioned'])
    const newer = await api(s, p.b1).get(
      `/v1/tickets/${t.id}/messages?after_message=${m1.data.id}&after_event=${all.meta.events[1].id}`,
    )
    expect(newer.data.map((m: any) => m.id)).toEqual([m2.data.id])
    expect(newer.meta.events).toEqual([])
  })

  it('recognises @Name of a member in the text', async () => {
    const t = await raise(s, p)
    // Names of the fixtures are all "Andi Agent": give the other team's member one of their own.
    await I.sql(s, (db) => db`UPDATE users SET name = 'Siti Rahma' WHERE id = ${p.otherId}`)
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'Can you check, @siti rahma?' })
    expect(m.status).toBe(201)
    expect(m.data.mentions).toEqual([{ id: p.otherId, name: 'Siti Rahma' }])
    expect((await api(s, p.other).get(`/v1/tickets/${t.id}`)).status).toBe(200)
  })

  it('does not tell a mentioned member without tickets.view what the message says', async () => {
    // The notice carries the first 200 characters of an internal comment; a member who may not
    // open tickets got it all the same (by id and by @Name).
    const role = await I.role(s, p.w, ['interactions.view'])
    const m = await I.agent(s, p.w, role)
    const t = await raise(s, p)
    const posted = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, {
      body: `Refund code 4471 for @${m.user.name}`,
      mention_ids: [m.user.id],
    })
    expect(posted.status).toBe(201)
    const who = m.session.headers()
    expect((await api(s, who).get(`/v1/tickets/${t.id}`)).status).toBe(403)
    const told = await api(s, who).get('/v1/notifications')
    expect(told.status).toBe(200)
    expect(told.data.filter((n: any) => n.kind === 'ticket.mention')).toEqual([])
    expect(JSON.stringify(told.data)).not.toContain('4471')
  })

  it('refuses an empty message, unknown mention ids, and more than 5 files', async () => {
    const t = await raise(s, p)
    expect((await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: '  ' })).status).toBe(422)
    expect(
      (await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'x', mention_ids: [2_000_000_000] }))
        .status,
    ).toBe(422)
    const files = Array.from({ length: 6 }, (_, i) => ({
      field: 'files[]',
      name: `f${i}.txt`,
      type: 'text/plain',
      bytes: I.bytes(10, i),
    }))
    const res = await s.fetch(`/v1/tickets/${t.id}/messages`, {
      method: 'POST',
      headers: p.b1,
      body: I.form({ body: 'six' }, files),
    })
    expect(res.status).toBe(422)
  })

  it('stores files privately and serves them to those who see the ticket (Range, download)', async () => {
    const t = await raise(s, p)
    const bytes = I.bytes(2000)
    const res = await s.fetch(`/v1/tickets/${t.id}/messages`, {
      method: 'POST',
      headers: p.b1,
      body: I.form({ body: 'invoice attached', 'mention_ids[]': String(p.b2Id) }, [
        { field: 'files[]', name: 'invoice.pdf', type: 'application/pdf', bytes },
        { field: 'files[]', name: 'photo.png', type: 'image/png', bytes: I.bytes(10) },
      ]),
    })
    expect(res.status).toBe(201)
    const m = (await I.body(res)).data
    expect(m.files.map((f: any) => [f.index, f.name, f.size])).toEqual([
      [0, 'invoice.pdf', 2000],
      [1, 'photo.png', 10],
    ])
    expect(m.mentions.map((x: any) => x.id)).toEqual([p.b2Id])
    const got = await s.fetch(m.files[0].url, { headers: p.b2 })
    expect(got.status).toBe(200)
    expect(new Uint8Array(await got.arrayBuffer())).toEqual(bytes)
    const part = await s.fetch(m.files[0].url, { headers: { ...p.b2, range: 'bytes=0-9' } })
    expect(part.status).toBe(206)
    expect((await part.arrayBuffer()).byteLength).toBe(10)
    const dl = await s.fetch(`${m.files[0].url}?download=1`, { headers: p.b2 })
    expect(dl.headers.get('content-disposition')).toMatch(/^attachment/)
    // Those who may not see the ticket get 404, as for a file that does not exist.
    expect((await s.fetch(m.files[0].url, { headers: p.other })).status).toBe(404)
    expect((await s.fetch(`/v1/ticket-messages/${m.id}/files/4`, { headers: p.b2 })).status).toBe(404)
  })
})

describe('feedback and conclusions reach the conversation', () => {
  it('sends a message as an internal note (source ticket_feedback) live on conv: and clears the request', async () => {
    const t = await raise(s, p)
    const conv = await sock('agent', `conv:${p.conversation}`)
    expect(conv.answer.op).toBe('subscribed')
    const ask = await api(s, p.agent).post(`/v1/interactions/${p.conversation}/tickets/${t.id}/messages`, {
      request_update: true,
      text: 'Any news?',
    })
    expect(ask.status).toBe(200)
    expect(ask.data.message).toMatchObject({ kind: 'update_request', body: 'Any news?' })
    const mine = ask.data.tickets.find((x: any) => x.id === t.id)
    expect(mine.update_request).toMatchObject({ by: { user_id: p.agentId } })
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'Refund sent today' })
    const fb = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages/${m.data.id}/feedback`)
    expect(fb.status).toBe(200)
    expect(fb.data.feedback).toMatchObject({ note_id: expect.any(Number) })
    const live = await conv.c.next(
      (f: any) => f.event === 'message.created' && f.data.source === 'ticket_feedback',
    )
    expect(live.data).toMatchObject({
      type: 'note',
      body: 'Refund sent today',
      interaction_id: p.conversation,
    })
    conv.c.close()
    const notes = await api(s, p.agent).get(`/v1/interactions/${p.conversation}/notes`)
    expect(notes.data[0]).toMatchObject({ source: 'ticket_feedback', body: 'Refund sent today' })
    expect(notes.meta.source.ticket_feedback).toBeGreaterThanOrEqual(1)
    expect(notes.meta.feedback_unseen).toBeGreaterThanOrEqual(1)
    const seen = await api(s, p.agent).post(`/v1/interactions/${p.conversation}/feedback-seen`)
    expect(seen.data.feedback_unseen).toBe(0)
    expect((await api(s, p.agent).get(`/v1/interactions/${p.conversation}/notes`)).meta.feedback_unseen).toBe(
      0,
    )
    // The request is cleared; the detail's tickets show it with the thread the conversation sees.
    const d = await api(s, p.agent).get(`/v1/interactions/${p.conversation}`)
    const brief = d.data.tickets.find((x: any) => x.id === t.id)
    expect(brief).toMatchObject({ update_request: null, can_open: true, thread: { team: { id: p.team } } })
    expect(brief.thread.messages.map((x: any) => x.body)).toEqual(['Any news?', 'Refund sent today'])
    // Sent once only.
    expect((await api(s, p.b1).post(`/v1/tickets/${t.id}/messages/${m.data.id}/feedback`)).status).toBe(409)
  })

  it('a conclusion is noted (ticket_conclusion); resolve needs tickets.manage and an active ticket', async () => {
    const t = await raise(s, p)
    expect(
      (await api(s, p.agent).post(`/v1/tickets/${t.id}/conclusion`, { conclusion: 'Done', resolve: true }))
        .status,
    ).toBe(403)
    const c = await api(s, p.b1).post(`/v1/tickets/${t.id}/conclusion`, {
      conclusion: 'Refunded',
      resolve: true,
    })
    expect(c.status).toBe(201)
    expect(c.data).toMatchObject({ kind: 'conclusion', body: 'Refunded' })
    expect(c.meta.status).toBe('resolved')
    const notes = await api(s, p.agent).get(`/v1/interactions/${p.conversation}/notes`)
    expect(notes.data[0]).toMatchObject({ source: 'ticket_conclusion', body: 'Refunded' })
    const again = await api(s, p.b1).post(`/v1/tickets/${t.id}/conclusion`, {
      conclusion: 'x',
      resolve: true,
    })
    expect(again.status).toBe(422)
    // A conclusion without resolving is fine on a finished ticket.
    expect(
      (await api(s, p.b1).post(`/v1/tickets/${t.id}/conclusion`, { conclusion: 'Also noted' })).status,
    ).toBe(201)
    const log = (await api(s, p.b1).get(`/v1/tickets/${t.id}/messages`)).meta.events
    expect(log.map((e: any) => e.kind)).toEqual(['created', 'conclusion', 'status', 'conclusion'])
  })

  it('a message sent as feedback twice at once makes one note (one 200, one 409)', async () => {
    const t = await raise(s, p)
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'Only once please' })
    const path = `/v1/tickets/${t.id}/messages/${m.data.id}/feedback`
    const both = await Promise.all([api(s, p.b1).post(path), api(s, p.b2).post(path)])
    expect(both.map((r) => r.status).sort()).toEqual([200, 409])
    const notes = await api(s, p.agent).get(`/v1/interactions/${p.conversation}/notes`)
    expect(notes.data.filter((n: any) => n.body === 'Only once please')).toHaveLength(1)
  })

  it('feedback needs a ticket raised from a conversation (422)', async () => {
    const t = await raise(s, p, { interaction_id: undefined, contact_id: p.contact })
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'x' })
    const r = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages/${m.data.id}/feedback`)
    expect(r.status).toBe(422)
  })
})

describe('the conversation side', () => {
  it('posts into the discussion without ticket access; only tickets of that conversation (404)', async () => {
    const t = await raise(s, p, { assignee_ids: [p.b1Id] })
    // The Frontline agent created it: make a ticket they cannot open (another team, not theirs).
    const hidden = await api(s, p.owner).post('/v1/tickets', {
      subject: 'Hidden',
      team_id: p.otherTeam,
      interaction_id: p.conversation,
    })
    expect((await api(s, p.agent).get(`/v1/tickets/${hidden.data.id}`)).status).toBe(404)
    const d = await api(s, p.agent).get(`/v1/interactions/${p.conversation}`)
    expect(d.data.tickets.find((x: any) => x.id === hidden.data.id)).toMatchObject({ can_open: false })
    const r = await api(s, p.agent).post(
      `/v1/interactions/${p.conversation}/tickets/${hidden.data.id}/messages`,
      {
        text: 'Hello team',
      },
    )
    expect(r.status).toBe(200)
    expect(r.data.message).toMatchObject({ kind: 'conversation', body: 'Hello team' })
    // Another conversation's path names no ticket of it.
    const other = await I.conversation(s, p.w, {})
    const wrong = await api(s, p.owner).post(`/v1/interactions/${other.id}/tickets/${t.id}/messages`, {
      text: 'x',
    })
    expect(wrong.status).toBe(404)
    const empty = await api(s, p.agent).post(
      `/v1/interactions/${p.conversation}/tickets/${t.id}/messages`,
      {},
    )
    expect(empty.status).toBe(422)
  })

  it('update requests: active tickets only (422), once per 15 minutes per ticket (429 Retry-After)', async () => {
    const t = await raise(s, p)
    const path = `/v1/interactions/${p.conversation}/tickets/${t.id}/messages`
    expect((await api(s, p.agent).post(path, { request_update: true })).status).toBe(200)
    const res = await s.fetch(path, {
      method: 'POST',
      headers: { ...p.agent, 'content-type': 'application/json' },
      body: JSON.stringify({ request_update: true }),
    })
    expect(res.status).toBe(429)
    const retry = Number(res.headers.get('retry-after'))
    expect(retry).toBeGreaterThan(14 * 60)
    expect(retry).toBeLessThanOrEqual(15 * 60)
    // Feedback clears the pending request but not the window.
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'On it' })
    await api(s, p.b1).post(`/v1/tickets/${t.id}/messages/${m.data.id}/feedback`)
    expect((await api(s, p.b1).get(`/v1/tickets/${t.id}`)).data.update_request).toBeNull()
    expect((await api(s, p.agent).post(path, { request_update: true })).status).toBe(429)
    // Text alone is not a request: it goes through within the window.
    expect((await api(s, p.agent).post(path, { text: 'Thanks' })).status).toBe(200)
    await I.advance(s, 15 * MIN + 1000)
    try {
      expect((await api(s, p.agent).post(path, { request_update: true })).status).toBe(200)
    } finally {
      await I.advance(s, -(15 * MIN + 1000))
    }
    await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { status: 'resolved' })
    const done = await api(s, p.agent).post(path, { request_update: true })
    expect(done.status).toBe(422)
    expect((await api(s, p.agent).post(path, { text: 'late' })).status).toBe(422)
  })
})

describe('events', () => {
  it('tickets.changed on ws:, and ticket.message / .updated / ticket.event / ticket.updated on ticket:', async () => {
    const ws = await sock('b1', `ws:${p.w.workspaceId}`)
    const t = await raise(s, p)
    expect(
      await ws.c.next((f: any) => f.event === 'tickets.changed' && f.data.ticket_id === t.id),
    ).toMatchObject({
      data: { ticket_id: t.id, reason: 'created' },
    })
    const tk = await sock('b1', `ticket:${t.id}`)
    expect(tk.answer.op).toBe('subscribed')
    const m = await api(s, p.b1).post(`/v1/tickets/${t.id}/messages`, { body: 'hello' })
    expect(await tk.c.next((f) => f.event === 'ticket.message')).toMatchObject({
      data: { id: m.data.id, body: 'hello', seq: 1 },
    })
    expect(
      await ws.c.next((f: any) => f.event === 'tickets.changed' && f.data.reason === 'message'),
    ).toMatchObject({
      data: { ticket_id: t.id },
    })
    await api(s, p.b1).patch(`/v1/tickets/${t.id}`, { priority: 'high' })
    expect(await tk.c.next((f) => f.event === 'ticket.event')).toMatchObject({
      data: { field: 'priority', old: 'normal', new: 'high' },
    })
    expect(
      await tk.c.next((f: any) => f.event === 'ticket.updated' && f.data.priority === 'high'),
    ).toMatchObject({
      data: { id: t.id },
    })
    await api(s, p.b1).post(`/v1/tickets/${t.id}/messages/${m.data.id}/feedback`)
    expect(await tk.c.next((f) => f.event === 'ticket.message.updated')).toMatchObject({
      data: { id: m.data.id, feedback: { note_id: expect.any(Number) } },
    })
    ws.c.close()
    tk.c.close()
  })
})
