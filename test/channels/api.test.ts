import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConversationActor } from '../../actors/inbox/ConversationActor'
import { REFRESH_AHEAD_MS, TTL_MS } from '../../http/credentials'
import * as ChannelApi from '../../store/channelApi'
import * as Workspaces from '../../store/workspaces'
import * as I from '../inbox/support'
import { waitFor } from '../support/cluster'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'
import { receiver } from './receiver'

let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_BASE_MS: '50' })
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const body = async (res: Response) => (await res.json()) as Record<string, any>
const patch = (b: unknown, h: Record<string, string>): RequestInit => ({ ...F.json(b, h), method: 'PATCH' })

const createApi = async (extra: Record<string, unknown> = {}) => {
  const res = await s.fetch('/v1/channels/api', F.json({ name: 'Shop backend', ...extra }, owner.headers()))
  expect(res.status).toBe(201)
  return (await body(res)).data
}

/** Archives a channel so the tests after it stay within the plan's channel quota. */
const retire = async (ch: { id: number }) => {
  const r = await s.fetch(`/v1/channels/${ch.id}`, { method: 'DELETE', headers: owner.headers() })
  expect(r.status).toBeLessThan(300)
}

const inbound = (key: string, b: unknown) => s.fetch('/v1/channel-api/messages', F.json(b, F.bearer(key)))

/** Waits (at most 5 s) until `ok()` holds; the assertions after it say what was expected. */
const until = async (ok: () => boolean) => {
  for (let i = 0; i < 100 && !ok(); i++) await new Promise((r) => setTimeout(r, 50))
}

describe('API channel', () => {
  it('creates with credentials shown once; the list never shows a key or secret', async () => {
    const ch = await createApi()
    expect(ch.credentials.key).toMatch(/^svca_ch_[A-Za-z0-9_-]{43}$/)
    expect(ch.credentials.webhook_secret).toMatch(/^whsec_/)
    expect(ch.type).toBe('api')
    expect(ch.api.inbound_url).toBe(`${s.url}/v1/channel-api/messages`)
    const list = await s.fetch('/v1/channels', { headers: owner.headers() })
    const text = await list.text()
    expect(text).not.toContain(ch.credentials.key)
    expect(text).not.toContain(ch.credentials.webhook_secret)
    const parsed = JSON.parse(text)
    expect(parsed.meta.quota).toEqual({ used: parsed.data.length, limit: 10 })
    const detail = await body(await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() }))
    expect(JSON.stringify(detail)).not.toContain(ch.credentials.key)
    const api = await body(await s.fetch(`/v1/channels/${ch.id}/api`, { headers: owner.headers() }))
    expect(api.data.api.key.prefix).toBe(ch.credentials.key.slice(0, 16))
    expect(JSON.stringify(api)).not.toContain(ch.credentials.key)
    const secret = await body(await s.fetch(`/v1/channels/${ch.id}/api/secret`, { headers: owner.headers() }))
    expect(secret.data.webhook_secret).toBe(ch.credentials.webhook_secret)
  })

  it('needs Pro or Custom (402 on Free), is app-only (403 with a key), and counts against the shared quota', async () => {
    const free = await F.workspace(s, { plan: 'free' })
    const freeOwner = await F.signIn(s, free.ownerEmail)
    const r = await s.fetch('/v1/channels/api', F.json({ name: 'x' }, freeOwner.headers()))
    expect(r.status).toBe(402)
    const key = await F.apiKey(s, w)
    expect((await s.fetch('/v1/channels/api', F.json({ name: 'x' }, F.bearer(key)))).status).toBe(403)
    // Pro allows 10 channels in all.
    const ws2 = await F.workspace(s, { plan: 'pro' })
    const o2 = await F.signIn(s, ws2.ownerEmail)
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        s.fetch('/v1/channels/api', F.json({ name: `c${i}` }, o2.headers())),
      ),
    )
    const statuses = made.map((m) => m.status).sort()
    expect(statuses.filter((x) => x === 201)).toHaveLength(10)
    expect(statuses.filter((x) => x === 402)).toHaveLength(2)
  })

  it('PATCH common fields and api settings; DELETE removes, or archives with conversations', async () => {
    const ch = await createApi()
    const hours = { enabled: true, days: [{ day: 1, open: true, from: '08:00', to: '17:00' }] }
    const p = await s.fetch(
      `/v1/channels/${ch.id}`,
      patch({ name: 'Renamed', hours, auto_reply: { greeting_on: true, greeting: 'Hi' } }, owner.headers()),
    )
    expect(p.status).toBe(200)
    const d = (await body(p)).data
    expect(d).toMatchObject({
      name: 'Renamed',
      hours,
      auto_reply: { greeting_on: true, greeting: 'Hi', away_on: false },
    })
    const back = await body(await s.fetch(`/v1/channels/${ch.id}`, patch({ hours: null }, owner.headers())))
    expect(back.data.hours).toBeNull()
    expect(back.data.auto_reply.greeting).toBe('Hi')
    const bad = await s.fetch(`/v1/channels/${ch.id}/api`, patch({ retries: 6 }, owner.headers()))
    expect(bad.status).toBe(422)
    const ok = await body(
      await s.fetch(
        `/v1/channels/${ch.id}/api`,
        patch({ retries: 5, events: ['conversation.updated'] }, owner.headers()),
      ),
    )
    expect(ok.data.api).toMatchObject({ retries: 5, events: ['message.created', 'conversation.updated'] })

    const del = await body(
      await s.fetch(`/v1/channels/${ch.id}`, { method: 'DELETE', headers: owner.headers() }),
    )
    expect(del.data).toMatchObject({ deleted: true, archived: false })
    expect((await s.fetch(`/v1/channels/${ch.id}`, { headers: owner.headers() })).status).toBe(404)

    const used = await createApi()
    expect(
      (await inbound(used.credentials.key, { conversation_id: 'c1', message: { id: 'm1', text: 'hi' } }))
        .status,
    ).toBe(201)
    const arch = await body(
      await s.fetch(`/v1/channels/${used.id}`, { method: 'DELETE', headers: owner.headers() }),
    )
    expect(arch.data).toMatchObject({ deleted: false, archived: true })
    // An archived channel's key no longer works.
    expect(
      (await inbound(used.credentials.key, { conversation_id: 'c1', message: { id: 'm2', text: 'b' } }))
        .status,
    ).toBe(401)
  })

  it("a busy key is looked up again in its cache entry's last second: archived where no bus reaches, it is refused before the entry runs out", async () => {
    const ch = await createApi()
    // A read with the key (an unknown file: 404 once the key is accepted): nothing is written while
    // the clock below is moved, so nothing keeps a time from it.
    const read = async () =>
      (await s.fetch('/v1/channel-api/files/no-such-token', { headers: F.bearer(ch.credentials.key) })).status
    expect(await read()).toBe(404)
    // The clock is held from here on. First past that entry, so the next request looks the key up
    // again and its entry runs from a known time.
    const at = Date.now() + TTL_MS + 1
    const clock = vi.spyOn(Date, 'now').mockReturnValue(at)
    try {
      expect(await read()).toBe(404)
      // Archived in the database behind the node's back (no invalidation on the bus), as the
      // operator CLI on a database without Redis would.
      await s.run(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE channels SET archived_at = now() WHERE id = ${ch.id}`.pipe(Effect.asVoid),
        ),
      )
      // The entry's last second, where the clock stays: the entry never runs out here, so only the
      // lookup a request starts beside its answer can find the key gone.
      clock.mockReturnValue(at + TTL_MS - REFRESH_AHEAD_MS / 2)
      expect(await read()).toBe(404)
      let status = 404
      for (let i = 0; i < 40 && status !== 401; i++) {
        await sleep(50)
        status = await read()
      }
      expect(status).toBe(401)
    } finally {
      vi.restoreAllMocks()
    }
  })

  it('inbound messages: idempotent on message.id, one conversation per conversation_id, events on conv: and ws:', async () => {
    const ch = await createApi()
    const key = ch.credentials.key
    const first = await inbound(key, {
      conversation_id: 'order-7',
      contact: { id: 'u1', name: 'Budi', email: 'budi@example.com', phone: null },
      message: { id: 'ext-1', text: 'Halo' },
    })
    expect(first.status).toBe(201)
    const m1 = (await body(first)).data
    expect(m1).toMatchObject({
      conversation_id: 'order-7',
      message: { seq: 1, direction: 'in', body: 'Halo' },
    })

    const token = await body(
      await s.fetch(
        '/v1/realtime/token',
        F.json({ channels: [`conv:${m1.interaction_id}`, `ws:${w.workspaceId}`] }, owner.headers()),
      ),
    )
    const c = await connect(token.data.url)
    await c.next((f) => f.op === 'subscribed')
    await c.next((f) => f.op === 'subscribed')

    const again = await inbound(key, { conversation_id: 'order-7', message: { id: 'ext-1', text: 'Halo' } })
    expect(again.status).toBe(200)
    expect((await body(again)).data.message.id).toBe(m1.message.id)

    // Pacing allows one event per 100 ms window and one more at its end: how many windows the
    // sends span is measured, so that a loaded machine (slower answers, more windows) is no failure
    // and a server that does not pace at all still is. One more for the timers' whole milliseconds
    // (a window's event can fire a millisecond early).
    const windows = (since: number) => Math.ceil((performance.now() - since) / 100)
    const parallelFrom = performance.now()
    const parallel = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        inbound(key, { conversation_id: 'order-7', message: { id: `p${i}`, text: `n${i}` } }),
      ),
    )
    const parallelWindows = windows(parallelFrom)
    const seqs = (await Promise.all(parallel.map(body))).map((b) => b.data.message.seq).sort()
    expect(seqs).toEqual([2, 3, 4, 5, 6])
    for (let i = 0; i < 5; i++) {
      const ev = await c.next((f) => f.event === 'message.created')
      expect(ev.data.interaction_id).toBe(m1.interaction_id)
    }
    // inbox.changed for messages is paced per conversation (at most one per 100 ms, the last one
    // at the end of the window, docs/decisions.md "The write path"): the five parallel sends give
    // one or two when they are answered within one window (the resend of ext-1 stored nothing and
    // says nothing). Once the window is over, whatever was published is on the socket before the
    // answer to a later ping.
    await until(() => c.frames.some((f) => f.event === 'inbox.changed'))
    await new Promise((r) => setTimeout(r, 250))
    c.send({ op: 'ping' })
    await c.next((f) => f.op === 'pong')
    const inbox = c.frames.filter((f) => f.event === 'inbox.changed')
    expect(inbox.length).toBeGreaterThanOrEqual(1)
    expect(inbox.length).toBeLessThanOrEqual(2 + parallelWindows)
    expect(inbox[0]!.data).toMatchObject({ interaction_id: m1.interaction_id, channel_id: ch.id })

    // Twenty messages one after the other are twenty runs: paced, far fewer events, and the last
    // one comes after the last message (nothing committed goes untold).
    const sequentialFrom = performance.now()
    for (let i = 0; i < 20; i++) {
      const r = await inbound(key, { conversation_id: 'order-7', message: { id: `s${i}`, text: `s${i}` } })
      expect(r.status).toBe(201)
    }
    const sequentialWindows = windows(sequentialFrom)
    const lastMessage = () => c.frames.findLastIndex((f) => f.event === 'message.created')
    await until(() => c.frames.findLastIndex((f) => f.event === 'inbox.changed') > lastMessage())
    await new Promise((r) => setTimeout(r, 250))
    c.send({ op: 'ping' })
    await c.next((f) => f.op === 'pong')
    expect(c.frames.filter((f) => f.event === 'message.created')).toHaveLength(20)
    const paced = c.frames.filter((f) => f.event === 'inbox.changed').length - inbox.length
    expect(paced).toBeGreaterThanOrEqual(1)
    expect(paced).toBeLessThanOrEqual(Math.min(2 + sequentialWindows, 19))
    expect(c.frames.findLastIndex((f) => f.event === 'inbox.changed')).toBeGreaterThan(lastMessage())
    c.close()

    // Unknown or malformed keys, and workspace keys, are 401.
    expect((await inbound('svca_ch_nope', { conversation_id: 'a', message: { id: 'b' } })).status).toBe(401)
    expect((await inbound(await F.apiKey(s, w), { conversation_id: 'a', message: { id: 'b' } })).status).toBe(
      401,
    )
    expect((await inbound(key, { conversation_id: 'a' })).status).toBe(422)
  })

  it('a resolved key follows its workspace at once: frozen (423), back to Free (402), restored', async () => {
    const mine = await F.workspace(s, { plan: 'pro' })
    const me = await F.signIn(s, mine.ownerEmail)
    const res = await s.fetch('/v1/channels/api', F.json({ name: 'Cached' }, me.headers()))
    const key = (await body(res)).data.credentials.key
    const send = (id: string) => inbound(key, { conversation_id: 'c-1', message: { id, text: 'hi' } })
    expect((await send('a')).status).toBe(201)
    expect((await send('b')).status).toBe(201)
    await s.run(Workspaces.setFrozen(mine.workspaceId, true))
    expect((await send('c')).status).toBe(423)
    await s.run(Workspaces.setFrozen(mine.workspaceId, false))
    expect((await send('d')).status).toBe(201)
    await s.run(Workspaces.setPlan(mine.workspaceId, 'free', null))
    expect((await send('e')).status).toBe(402)
  })

  it('replacing the key refuses the old one at once', async () => {
    const ch = await createApi()
    const old = ch.credentials.key
    expect((await inbound(old, { conversation_id: 'k', message: { id: '1', text: 'a' } })).status).toBe(201)
    const r = await body(await s.fetch(`/v1/channels/${ch.id}/api/key`, F.json({}, owner.headers())))
    expect(r.data.key).not.toBe(old)
    expect((await inbound(old, { conversation_id: 'k', message: { id: '2' } })).status).toBe(401)
    expect(
      (await inbound(r.data.key, { conversation_id: 'k', message: { id: '2', text: 'b' } })).status,
    ).toBe(201)
  })

  it('test-webhook pings a signed request; agent replies go out as message.created with retries; status updates', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url, retries: 2 })
      secret = ch.credentials.webhook_secret
      const ping = await body(
        await s.fetch(`/v1/channels/${ch.id}/api/test-webhook`, F.json({}, owner.headers())),
      )
      expect(ping.data).toMatchObject({ status: 'delivered', http_status: 204, error: null })
      expect(typeof ping.data.duration_ms).toBe('number')
      expect(rx.got).toHaveLength(1)
      expect(rx.got[0]!.signatureValid).toBe(true)
      expect(rx.got[0]!.json.event).toBe('ping')
      expect(rx.got[0]!.headers['x-kotak-event']).toBe('ping')
      expect(rx.got[0]!.headers['x-kotak-delivery']).toBe(rx.got[0]!.json.id)

      // A new secret signs from then on.
      const ns = await body(await s.fetch(`/v1/channels/${ch.id}/api/secret`, F.json({}, owner.headers())))
      secret = ns.data.webhook_secret

      const msg = await body(
        await inbound(ch.credentials.key, {
          conversation_id: 't-1',
          message: { id: 'x1', text: 'need help' },
        }),
      )
      const convId = msg.data.interaction_id as number
      rx.failNext(2)
      const reply = await s.run(
        Effect.flatMap(ConversationActor, (a) =>
          a.ask(convId, {
            _tag: 'Append',
            direction: 'out',
            type: 'text',
            body: 'On it!',
            sender: { name: 'Andi' },
          }),
        ),
      )
      await rx.until((g) => g.filter((x) => x.json.event === 'message.created').length >= 3)
      const tries = rx.got.filter((x) => x.json.event === 'message.created')
      expect(tries.every((t) => t.signatureValid)).toBe(true)
      expect(new Set(tries.map((t) => t.headers['x-kotak-delivery'])).size).toBe(1)
      expect(tries[0]!.json.data).toMatchObject({
        conversation_id: 't-1',
        message: { id: reply.id, body: 'On it!', direction: 'out' },
      })

      // The receiver answers before the server records the attempt: wait for the record.
      const api = await waitFor('the third attempt recorded', async () => {
        const a = await body(await s.fetch(`/v1/channels/${ch.id}/api`, { headers: owner.headers() }))
        const m = a.data.api.deliveries.find((x: any) => x.event === 'message.created')
        return m?.status === 'pending' ? undefined : a
      })
      const d = api.data.api.deliveries.find((x: any) => x.event === 'message.created')
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, http_status: 204 })
      expect(d.log.map((l: any) => l.http_status)).toEqual([500, 500, 204])
      expect(api.data.api.deliveries.find((x: any) => x.event === 'ping')).toMatchObject({
        status: 'delivered',
      })

      // The customer's system reports delivery and reading.
      const st = await s.fetch(
        `/v1/channel-api/messages/${reply.id}/status`,
        F.json({ status: 'read' }, F.bearer(ch.credentials.key)),
      )
      expect((await body(st)).data).toEqual({ id: reply.id, status: 'read' })
      const st2 = await s.fetch(
        `/v1/channel-api/messages/${reply.id}/status`,
        F.json({ status: 'delivered' }, F.bearer(ch.credentials.key)),
      )
      expect((await body(st2)).data.status).toBe('read')
      // Inbound messages and other channels' messages are not ours to mark.
      const no = await s.fetch(
        `/v1/channel-api/messages/${msg.data.message.id}/status`,
        F.json({ status: 'read' }, F.bearer(ch.credentials.key)),
      )
      expect(no.status).toBe(404)
    } finally {
      await rx.close()
    }
  })

  it('gives up after `retries` and records every attempt; test-message simulates an inbound message', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url, retries: 1 })
      secret = ch.credentials.webhook_secret
      const tm = await s.fetch(
        `/v1/channels/${ch.id}/api/test-message`,
        F.json({ text: 'Simulated' }, owner.headers()),
      )
      expect(tm.status).toBe(201)
      const sim = (await body(tm)).data
      expect(sim.message).toMatchObject({ direction: 'in', body: 'Simulated' })
      rx.failNext(5)
      await s.run(
        Effect.flatMap(ConversationActor, (a) =>
          a.ask(sim.interaction_id, {
            _tag: 'Append',
            direction: 'out',
            type: 'text',
            body: 'reply',
            sender: {},
          }),
        ),
      )
      await rx.until((g) => g.length >= 2)
      await new Promise((r) => setTimeout(r, 400))
      expect(rx.got).toHaveLength(2)
      const api = await body(await s.fetch(`/v1/channels/${ch.id}/api`, { headers: owner.headers() }))
      expect(api.data.api.deliveries[0]).toMatchObject({
        status: 'failed',
        attempts: 2,
        http_status: 500,
        error: 'HTTP 500',
      })
    } finally {
      await rx.close()
    }
  })

  it('never delivers a reply unsent while its delivery was still being retried', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url, retries: 5 })
      secret = ch.credentials.webhook_secret
      const msg = await body(
        await inbound(ch.credentials.key, { conversation_id: 'u-1', message: { id: 'u1', text: 'Halo' } }),
      )
      const convId = msg.data.interaction_id as number
      rx.failNext(1000)
      const reply = await body(
        await s.fetch(
          `/v1/interactions/${convId}/messages`,
          F.json({ text: 'Oops, not for you' }, owner.headers()),
        ),
      )
      const mine = () => rx.got.filter((x) => x.json.event === 'message.created').length
      // Refused twice: the delivery waits for its next attempt.
      await rx.until(() => mine() >= 2)
      const un = await s.fetch(`/v1/interactions/${convId}/messages/${reply.data.id}`, {
        method: 'DELETE',
        headers: owner.headers(),
      })
      expect(un.status).toBe(200)
      const before = mine()
      rx.failNext(0)
      const delivery = async () =>
        (
          await body(await s.fetch(`/v1/channels/${ch.id}/api`, { headers: owner.headers() }))
        ).data.api.deliveries.find((x: any) => x.event === 'message.created')
      let d = await delivery()
      for (let i = 0; i < 100 && d.status === 'pending'; i++) {
        await sleep(50)
        d = await delivery()
      }
      expect(d).toMatchObject({ status: 'failed', error: 'unsent before it was delivered' })
      expect(mine()).toBe(before)
      await retire(ch)
    } finally {
      await rx.close()
    }
  })

  it('sends agent replies over HTTP to the webhook but never internal notes; receipts go through the conversation', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url })
      secret = ch.credentials.webhook_secret
      const msg = await body(
        await inbound(ch.credentials.key, { conversation_id: 'n-1', message: { id: 'q1', text: 'Halo' } }),
      )
      const convId = msg.data.interaction_id as number
      const send = (b: unknown) =>
        s.fetch(`/v1/interactions/${convId}/messages`, F.json(b, owner.headers())).then(body)
      const note = await send({ type: 'note', text: 'VIP customer, be nice' })
      expect(note.data.type).toBe('note')
      const reply = await send({ text: 'Halo juga!' })
      expect(reply.data.status).toBe('sent')
      await rx.until((g) => g.some((x) => x.json.event === 'message.created'))
      // Give a wrongly queued note the same time to arrive as the reply had.
      await new Promise((r) => setTimeout(r, 400))
      const created = rx.got.filter((x) => x.json.event === 'message.created')
      expect(created.map((x) => x.json.data.message.id)).toEqual([reply.data.id])
      expect(JSON.stringify(rx.got)).not.toContain('VIP customer')

      // The customer's system marks the reply read: agents get the whole message.
      const token = await body(
        await s.fetch('/v1/realtime/token', F.json({ channels: [`conv:${convId}`] }, owner.headers())),
      )
      const c = await connect(token.data.url)
      await c.next((f) => f.op === 'subscribed')
      const st = await s.fetch(
        `/v1/channel-api/messages/${reply.data.id}/status`,
        F.json({ status: 'read' }, F.bearer(ch.credentials.key)),
      )
      expect((await body(st)).data).toEqual({ id: reply.data.id, status: 'read' })
      const ev = await c.next((f) => f.event === 'message.updated')
      expect(ev.data).toMatchObject({
        id: reply.data.id,
        status: 'read',
        body: 'Halo juga!',
        direction: 'out',
      })
      c.close()
      // A note is not the customer's to mark (nor to learn about).
      const noNote = await s.fetch(
        `/v1/channel-api/messages/${note.data.id}/status`,
        F.json({ status: 'read' }, F.bearer(ch.credentials.key)),
      )
      expect(noNote.status).toBe(404)
      await retire(ch)
    } finally {
      await rx.close()
    }
  })

  it('keeps a contact record for each customer: found by search, reused for the same e-mail', async () => {
    const ch = await createApi()
    const a = await body(
      await inbound(ch.credentials.key, {
        conversation_id: 'ct-1',
        contact: { id: 'cust-9', name: 'Budi Hartono', email: 'Budi.H@x.example', phone: '+628111' },
        message: { id: 'm1', text: 'Halo' },
      }),
    )
    const detail = await body(
      await s.fetch(`/v1/interactions/${a.data.interaction_id}`, { headers: owner.headers() }),
    )
    expect(detail.data.contact).toMatchObject({
      name: 'Budi Hartono',
      details: { email: 'Budi.H@x.example', phone: '+628111' },
    })
    const found = await body(await s.fetch('/v1/interactions?q=Hartono', { headers: owner.headers() }))
    expect(found.data.map((x: { id: number }) => x.id)).toEqual([a.data.interaction_id])
    // Another thread of the same customer (e-mail in another case) is the same contact.
    const b = await body(
      await inbound(ch.credentials.key, {
        conversation_id: 'ct-2',
        contact: { email: 'budi.h@X.example' },
        message: { id: 'm1', text: 'Lagi' },
      }),
    )
    const other = await body(
      await s.fetch(`/v1/interactions/${b.data.interaction_id}`, { headers: owner.headers() }),
    )
    expect(other.data.contact.id).toBe(detail.data.contact.id)
    // Without any contact details, the customer is named after the conversation.
    const c = await body(
      await inbound(ch.credentials.key, { conversation_id: 'anon-7', message: { id: 'm1', text: 'Hi' } }),
    )
    const anon = await body(
      await s.fetch(`/v1/interactions/${c.data.interaction_id}`, { headers: owner.headers() }),
    )
    expect(anon.data.contact.name).toBe('anon-7')
    await retire(ch)
  })

  it('a reply whose webhook fails for good turns failed with the reason, and a retry sends it again; no URL, no delivery', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const ch = await createApi({ webhook_url: rx.url, retries: 0 })
      secret = ch.credentials.webhook_secret
      const msg = await body(
        await inbound(ch.credentials.key, { conversation_id: 'f-1', message: { id: 'f1', text: 'Halo' } }),
      )
      const convId = msg.data.interaction_id as number
      const messages = `/v1/interactions/${convId}/messages`
      rx.failNext(1)
      const reply = await body(await s.fetch(messages, F.json({ text: 'Maaf!' }, owner.headers())))
      const stateOf = async () => {
        const page = await body(await s.fetch(messages, { headers: owner.headers() }))
        return page.data.find((m: { id: number }) => m.id === reply.data.id)
      }
      for (let i = 0; i < 100 && (await stateOf()).status !== 'failed'; i++) await sleep(50)
      expect(await stateOf()).toMatchObject({ status: 'failed', error: 'Webhook delivery failed: HTTP 500' })
      const retry = await s.fetch(`${messages}/${reply.data.id}/retry`, {
        method: 'POST',
        headers: owner.headers(),
      })
      expect(retry.status).toBe(200)
      await rx.until((g) => g.filter((x) => x.json.event === 'message.created').length >= 2)
      const tries = rx.got.filter((x) => x.json.event === 'message.created')
      expect(tries.every((t) => t.signatureValid && t.json.data.message.id === reply.data.id)).toBe(true)
      // The same delivery, tried again: receivers deduplicate on its id.
      expect(new Set(tries.map((t) => t.headers['x-kotak-delivery'])).size).toBe(1)
      for (let i = 0; i < 100 && (await stateOf()).status !== 'sent'; i++) await sleep(50)
      expect(await stateOf()).toMatchObject({ status: 'sent', error: null })
      await retire(ch)
    } finally {
      await rx.close()
    }
    const bare = await createApi()
    const m = await body(
      await inbound(bare.credentials.key, { conversation_id: 'f-2', message: { id: 'f2', text: 'Halo' } }),
    )
    const refused = await body(
      await s.fetch(
        `/v1/interactions/${m.data.interaction_id}/messages`,
        F.json({ text: 'Halo juga' }, owner.headers()),
      ),
    )
    expect(refused.data).toMatchObject({
      status: 'failed',
      error: 'The channel has no webhook URL to deliver to.',
    })
    await retire(bare)
  })

  it('validates inbound messages: text or attachments, contact formats, sent_at kept', async () => {
    const ch = await createApi()
    const key = ch.credentials.key
    const fields = async (b: unknown) => {
      const r = await inbound(key, b)
      expect(r.status).toBe(422)
      return (await body(r)).error.fields
    }
    expect(await fields({ conversation_id: 'v-1', message: { id: '1', text: '   ' } })).toHaveProperty(
      'message.text',
    )
    expect(
      await fields({
        conversation_id: 'v-1',
        contact: { email: 'not-an-address' },
        message: { id: '1', text: 'x' },
      }),
    ).toHaveProperty('contact.email')
    expect(
      await fields({
        conversation_id: 'v-1',
        contact: { phone: 'call me' },
        message: { id: '1', text: 'x' },
      }),
    ).toHaveProperty('contact.phone')
    expect(
      await fields({ conversation_id: 'v-1', message: { id: '1', text: 'x', sent_at: 'yesterday' } }),
    ).toHaveProperty('message.sent_at')
    const ok = await body(
      await inbound(key, {
        conversation_id: 'v-1',
        message: { id: '1', text: 'x', sent_at: '2026-11-20T08:30:00+07:00' },
      }),
    )
    expect(ok.data.message.sent_at).toBe('2026-11-20T01:30:00Z')
    await retire(ch)
  })

  it('reopens a closed conversation when the customer writes on its thread again', async () => {
    const ch = await createApi()
    const first = await body(
      await inbound(ch.credentials.key, { conversation_id: 'back-1', message: { id: 'b1', text: 'Halo' } }),
    )
    const id = first.data.interaction_id as number
    const closed = await s.fetch(`/v1/interactions/${id}`, patch({ status: 'closed' }, owner.headers()))
    expect(closed.status).toBe(200)
    await inbound(ch.credentials.key, {
      conversation_id: 'back-1',
      message: { id: 'b2', text: 'Masih ada?' },
    })
    const detail = await body(await s.fetch(`/v1/interactions/${id}`, { headers: owner.headers() }))
    expect(detail.data.status).toBe('open')
    const waiting = await body(await s.fetch('/v1/interactions?tab=unreplied', { headers: owner.headers() }))
    expect(waiting.data.map((x: { id: number }) => x.id)).toContain(id)
    await retire(ch)
  })

  it("moves a quiet channel's reply cursor past other channels' replies older than the lag", async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const quiet = await createApi({ webhook_url: rx.url })
      const busy = await createApi({ webhook_url: rx.url })
      secret = busy.credentials.webhook_secret
      const m = await body(
        await inbound(busy.credentials.key, { conversation_id: 'cur-1', message: { id: '1', text: 'hi' } }),
      )
      const sent = await body(
        await s.fetch(
          `/v1/interactions/${m.data.interaction_id}/messages`,
          F.json({ type: 'text', text: 'hello back' }, owner.headers()),
        ),
      )
      const replyId = Number(sent.data.id)
      await rx.until((g) => g.some((x) => x.json.event === 'message.created'))
      const cursorOf = async (channelId: number) =>
        Number(
          (
            await I.sql<{ c: number }>(
              s,
              (db) => db`SELECT out_cursor AS c FROM channel_api WHERE channel_id = ${channelId}`,
            )
          )[0]!.c,
        )
      // Older than the lag: the cursors may pass it — the quiet channel's too, though not its reply.
      await I.sql(
        s,
        (db) => db`UPDATE messages SET created_at = now() - interval '1 minute' WHERE id = ${replyId}`,
      )
      await s.run(ChannelApi.advanceCursors)
      expect(await cursorOf(busy.id)).toBeGreaterThanOrEqual(replyId)
      expect(await cursorOf(quiet.id)).toBeGreaterThanOrEqual(replyId)
      await retire(quiet)
      await retire(busy)
    } finally {
      await rx.close()
    }
  })

  it('sends conversation.updated on status changes only to channels that chose it', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    try {
      const on = await createApi({ webhook_url: rx.url, events: ['conversation.updated'] })
      const off = await createApi({ webhook_url: rx.url })
      secret = on.credentials.webhook_secret
      const a = await body(
        await inbound(on.credentials.key, { conversation_id: 'cu-1', message: { id: '1', text: 'a' } }),
      )
      const b = await body(
        await inbound(off.credentials.key, { conversation_id: 'cu-2', message: { id: '1', text: 'b' } }),
      )
      for (const id of [a.data.interaction_id, b.data.interaction_id]) {
        await s.run(
          Effect.flatMap(ConversationActor, (x) => x.ask(id, { _tag: 'SetStatus', status: 'solved' })),
        )
      }
      await rx.until((g) => g.some((x) => x.json.event === 'conversation.updated'))
      await new Promise((r) => setTimeout(r, 300))
      const ups = rx.got.filter((x) => x.json.event === 'conversation.updated')
      expect(ups).toHaveLength(1)
      expect(ups[0]!.signatureValid).toBe(true)
      expect(ups[0]!.json.data).toMatchObject({
        conversation_id: 'cu-1',
        status: 'solved',
        channel_id: on.id,
      })
    } finally {
      await rx.close()
    }
  })

  it('tells conversation.updated of a change made before the channel chose it, and of a reopening by a message; an untouched thread is not read again', async () => {
    let secret = ''
    const rx = await receiver(() => secret)
    const ch = await createApi({ webhook_url: rx.url })
    try {
      secret = ch.credentials.webhook_secret
      const send = async (conversation: string, id: string) =>
        (
          await body(
            await inbound(ch.credentials.key, { conversation_id: conversation, message: { id, text: id } }),
          )
        ).data.interaction_id as number
      const solved = await send('late-1', 'a')
      await send('late-2', 'b')
      await s.run(
        Effect.flatMap(ConversationActor, (x) => x.ask(solved, { _tag: 'SetStatus', status: 'solved' })),
      )
      const threads = () =>
        I.sql<{ external_id: string; change_seq: string; notified_seq: string }>(
          s,
          (q) => q`SELECT external_id, change_seq::text, notified_seq::text FROM channel_api_threads
                   WHERE channel_id = ${ch.id} ORDER BY external_id`,
        )
      // Not chosen yet: counted, not looked at.
      expect((await threads()).map((t) => t.notified_seq)).toEqual(['0', '0'])
      const chosen = await s.fetch(
        `/v1/channels/${ch.id}/api`,
        patch({ events: ['conversation.updated'] }, owner.headers()),
      )
      expect(chosen.status).toBe(200)
      const told = () => rx.got.filter((x) => x.json.event === 'conversation.updated')
      await rx.until(() => told().length >= 1)
      // The changed thread looked at and told; the untouched one was never counted.
      await waitFor('both threads looked at', async () =>
        (await threads()).every((t) => t.change_seq === t.notified_seq),
      )
      expect(told().map((x) => x.json.data)).toMatchObject([{ conversation_id: 'late-1', status: 'solved' }])
      const before = await threads()

      // A customer's message reopens the solved conversation: counted and told. A message on the
      // open one changes none of the three: not counted, so no tick reads that thread again.
      await send('late-1', 'c')
      await send('late-2', 'd')
      await rx.until(() => told().length >= 2)
      expect(told()[1]!.json.data).toMatchObject({ conversation_id: 'late-1', status: 'open' })
      const after = await threads()
      expect(Number(after[0]!.change_seq)).toBe(Number(before[0]!.change_seq) + 1)
      expect(after[1]!.change_seq).toBe(before[1]!.change_seq)
      await new Promise((r) => setTimeout(r, 1500))
      expect(told()).toHaveLength(2)
      // A node that read the thread before the reopening was told (count 1, solved) may not tell
      // it now, nor mark its older look as seen.
      const stale = { status: 'solved', assignee_id: null, team_id: null }
      expect(await s.run(ChannelApi.lockForNotice(ch.id, 'late-1', 1, stale))).toBeNull()
      const open = { status: 'open', assignee_id: null, team_id: null }
      // Neither an older count with the announced state, nor a later count with another state.
      for (const look of [
        { seq: 1, state: open },
        { seq: 3, state: stale },
      ]) {
        await s.run(ChannelApi.markSeen([{ channel_id: ch.id, external_id: 'late-1', ...look }]))
        expect((await threads())[0]).toMatchObject({ change_seq: '2', notified_seq: '2' })
      }
    } finally {
      await rx.close()
      await retire(ch)
    }
  })
})

describe('OpenAPI', () => {
  it('documents channel-key endpoints with the channel-key scheme only', async () => {
    const YAML = (await import('yaml')).default
    const doc = YAML.parse(await (await s.fetch('/docs/openapi.yaml')).text())
    expect(doc.components.securitySchemes.channelKey).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(doc.paths['/v1/channel-api/messages'].post.security).toEqual([{ channelKey: [] }])
    expect(doc.paths['/v1/channel-api/files/{token}'].get.security).toEqual([{ channelKey: [] }])
  })
})
