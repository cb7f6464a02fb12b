import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import pg from 'pg'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { disconnectUser, publishEvent, recheckTopic, revokeSubscription } from '../../engine/events'
import { sign } from '../../http/realtime/token'
import { DatabaseLink } from '../../store/database'
import * as ServerKeys from '../../store/serverKeys'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { type Client, connect, refusal, refusedStatus } from '../support/ws'

let s: TestServer
let w: F.Seeded
let owner: F.Session

beforeAll(async () => {
  s = await startTestServer()
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

const tokenFor = async (session: F.Session, channels?: string[]) => {
  const res = await s.fetch('/v1/realtime/token', F.json(channels ? { channels } : {}, session.headers()))
  expect(res.status).toBe(200)
  return ((await res.json()) as { data: { token: string; url: string; expires_at: string } }).data
}

const open = async (session = owner, channels?: string[]) => connect((await tokenFor(session, channels)).url)

const subscribe = async (c: Client, channel: string, since?: string) => {
  c.send({ op: 'subscribe', channel, ref: channel, ...(since ? { since } : {}) })
  return c.next((f) => f.channel === channel && f.op !== undefined)
}

const emit = (topic: string, event: string, data: unknown) => s.run(publishEvent(topic, event, data))

describe('tokens', () => {
  it('issues a short-lived token to app sessions only', async () => {
    const t = await tokenFor(owner)
    expect(t.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/v1\/realtime\?token=/)
    const expires = Date.parse(t.expires_at) - Date.now()
    expect(expires).toBeGreaterThan(30_000)
    expect(expires).toBeLessThanOrEqual(61_000)
    const withKey = await s.fetch('/v1/realtime/token', F.json({}, F.bearer(await F.apiKey(s, w))))
    expect(withKey.status).toBe(403)
  })

  it('refuses an upgrade without a valid, unexpired token', async () => {
    const base = `ws://127.0.0.1:${s.port}/v1/realtime`
    expect(await refusedStatus(base)).toBe(401)
    expect(await refusedStatus(`${base}?token=nonsense`)).toBe(401)
    const { token } = await tokenFor(owner)
    expect(await refusedStatus(`${base}?token=${token.slice(0, -2)}xx`)).toBe(401)
    // A token signed with another key, and one already expired.
    const forged = sign(Buffer.alloc(32, 1), {
      u: w.ownerId,
      w: w.workspaceId,
      exp: Date.now() / 1000 + 60,
      ch: [],
    })
    expect(await refusedStatus(`${base}?token=${forged}`)).toBe(401)
    // Signed with the deployment's real key, but expired a second ago.
    const key = await s.run(ServerKeys.getOrCreate('realtime-token'))
    const expired = sign(key, {
      u: w.ownerId,
      w: w.workspaceId,
      exp: Math.floor(Date.now() / 1000) - 1,
      ch: [],
    })
    expect(await refusedStatus(`${base}?token=${expired}`)).toBe(401)
    const fresh = sign(key, {
      u: w.ownerId,
      w: w.workspaceId,
      exp: Math.floor(Date.now() / 1000) + 30,
      ch: [],
    })
    const accepted = await connect(`${base}?token=${fresh}`)
    accepted.close()
  })
})

describe('subscriptions (deny by default)', () => {
  it('grants the own workspace and own user channels and refuses others explicitly', async () => {
    const other = await F.workspace(s, { plan: 'pro' })
    const c = await open()
    expect(await subscribe(c, `ws:${w.workspaceId}`)).toMatchObject({
      op: 'subscribed',
      ref: `ws:${w.workspaceId}`,
    })
    expect(await subscribe(c, `user:${w.ownerId}`)).toMatchObject({ op: 'subscribed' })
    expect(await subscribe(c, `ws:${other.workspaceId}`)).toMatchObject({ op: 'refused', code: 'forbidden' })
    expect(await subscribe(c, `user:${other.ownerId}`)).toMatchObject({ op: 'refused', code: 'forbidden' })
    expect(await subscribe(c, 'conv:999999')).toMatchObject({ op: 'refused', code: 'forbidden' })
    // Tickets' channel exists (the ticket visibility rule decides): one that names nothing is refused.
    expect(await subscribe(c, 'ticket:999999')).toMatchObject({ op: 'refused', code: 'forbidden' })
    expect(await subscribe(c, 'ticket:abc')).toMatchObject({ op: 'refused', code: 'forbidden' })
    expect(await subscribe(c, 'nonsense')).toMatchObject({ op: 'refused', code: 'unknown_channel' })
    c.send({ op: 'fly' })
    expect(await c.next((f) => f.op === 'error')).toMatchObject({ code: 'invalid_message' })
    // A ref nested past the request bodies' depth limit (echoed, a deep one would overflow the
    // stack writing the answer); one at the limit is answered.
    c.ws.send(`{"op":"ping","ref":${'['.repeat(64)}${']'.repeat(64)}}`)
    expect(await c.next((f) => f.op === 'error')).toMatchObject({ code: 'invalid_message' })
    c.ws.send(`{"op":"ping","ref":${'['.repeat(63)}${']'.repeat(63)}}`)
    expect(await c.next((f) => f.op === 'pong')).toHaveProperty('ref')
    c.send({ op: 'ping', ref: [[['ok']]] })
    expect(await c.next((f) => f.op === 'pong')).toMatchObject({ ref: [[['ok']]] })
    c.close()
  })

  it('subscribes the channels named in the token on connect', async () => {
    const c = await open(owner, [`ws:${w.workspaceId}`, 'ws:999999'])
    const frames = [await c.next((f) => f.op !== undefined), await c.next((f) => f.op !== undefined)]
    expect(frames.map((f) => [f.op, f.channel]).sort()).toEqual([
      ['refused', 'ws:999999'],
      ['subscribed', `ws:${w.workspaceId}`],
    ])
    c.close()
  })
})

describe('delivery', () => {
  it('delivers events in the envelope {event, data, at} in publish order', async () => {
    const c = await open()
    const topic = `ws:${w.workspaceId}`
    await subscribe(c, topic)
    for (let i = 1; i <= 1000; i++) await emit(topic, 'inbox.changed', { n: i })
    const got: number[] = []
    for (let i = 0; i < 1000; i++) {
      const f = await c.next((x) => x.event === 'inbox.changed')
      got.push(f.data.n)
      if (i === 0) {
        expect(Object.keys(f).sort()).toEqual(['at', 'cursor', 'data', 'event'])
        expect(f.at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
      }
    }
    expect(got).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1))
    c.close()
  })

  it('lets a reconnecting client resume from its cursor, or tells it to reload', async () => {
    const topic = `user:${w.ownerId}`
    const a = await open()
    await subscribe(a, topic)
    await emit(topic, 'notification.created', { id: 1 })
    const first = await a.next((f) => f.event === 'notification.created')
    a.close()
    await a.closed
    await emit(topic, 'notification.created', { id: 2 })
    await emit(topic, 'notification.created', { id: 3 })
    const b = await open()
    expect(await subscribe(b, topic, first.cursor)).toMatchObject({ op: 'subscribed' })
    expect((await b.next((f) => f.event === 'notification.created')).data).toEqual({ id: 2 })
    expect((await b.next((f) => f.event === 'notification.created')).data).toEqual({ id: 3 })
    b.send({ op: 'unsubscribe', channel: topic })
    await b.next((f) => f.op === 'unsubscribed')
    expect(await subscribe(b, topic, 'deadbeef.1')).toMatchObject({ op: 'subscribed' })
    expect(await b.next((f) => f.op === 'reload')).toMatchObject({ channel: topic })
    b.close()
  })

  it('unsubscribes a user who lost access to a topic and closes on lost workspace access', async () => {
    const c = await open()
    const topic = `ws:${w.workspaceId}`
    await subscribe(c, topic)
    await s.run(revokeSubscription(w.ownerId, topic))
    expect(await c.next((f) => f.op === 'unsubscribed')).toMatchObject({
      channel: topic,
      reason: 'access_lost',
    })
    await emit(topic, 'inbox.changed', { after: 'revoke' })
    c.send({ op: 'ping', ref: 1 })
    expect(await c.next((f) => f.op === 'pong')).toMatchObject({ ref: 1 })
    expect(c.frames.find((f) => f.event === 'inbox.changed')).toBeUndefined()
    await s.run(disconnectUser(w.ownerId))
    expect(await c.closed).toEqual({ code: 4503, reason: 'access_lost' })
  })

  it('cuts off a slow consumer with 4008 while others keep receiving', { timeout: 30_000 }, async () => {
    const topic = `ws:${w.workspaceId}`
    const slow = await open()
    const fast = await open()
    await subscribe(slow, topic)
    await subscribe(fast, topic)
    // Stop reading: the server's buffer for this socket grows until the limit.
    ;(slow.ws as unknown as { _socket: { pause: () => void } })._socket.pause()
    const blob = 'x'.repeat(16 * 1024)
    const total = 1500
    let received = 0
    const counting = (async () => {
      while (received < total) {
        await fast.next((f) => f.event === 'bulk', 10_000)
        received++
      }
    })()
    for (let i = 0; i < total; i++) {
      await emit(topic, 'bulk', { i, blob })
      if (i % 100 === 0) await new Promise((r) => setTimeout(r, 5))
    }
    await counting
    expect(received).toBe(total)
    ;(slow.ws as unknown as { _socket: { resume: () => void } })._socket.resume()
    expect((await slow.closed).code).toBe(4008)
    fast.close()
  })
})

/**
 * Every connection of the node's pool busy for `seconds`, resolved once they all are (the run's
 * statements seen in PostgreSQL; the embedded database's one connection is taken at once). The
 * `ended` settles when they end; a sleeper that found no connection is ignored.
 */
const holdPool = async (node: TestServer, seconds: number) => {
  const connections = await node.run(Effect.map(DatabaseLink, (l) => l.connections))
  const held = node.run(
    Effect.all(
      Array.from({ length: connections }, () =>
        // A new connection may take longer to open than DB_WAIT_MS: such a sleeper asks again.
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`SELECT pg_sleep(${seconds}::float8)`).pipe(
          Effect.retry({ times: 20 }),
          Effect.ignore,
        ),
      ),
      { concurrency: 'unbounded' },
    ),
  )
  const url = node.env.DATABASE_URL
  if (!url) {
    await new Promise((r) => setTimeout(r, 300))
    return { ended: held }
  }
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    for (let i = 0; i < 100; i++) {
      const { rows } = await admin.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND query LIKE '%pg_sleep%' AND pid <> pg_backend_pid()",
      )
      if (rows[0]!.n >= connections) return { ended: held }
      await new Promise((r) => setTimeout(r, 20))
    }
    throw new Error('the pool never had every connection busy')
  } finally {
    await admin.end()
  }
}

describe('the database unable to serve', () => {
  let node: TestServer
  let seeded: F.Seeded
  let session: F.Session
  beforeAll(async () => {
    node = await startTestServer({ DB_WAIT_MS: '300' })
    seeded = await F.workspace(node, { plan: 'pro' })
    session = await F.signIn(node, seeded.ownerEmail)
  })
  afterAll(() => node?.stop())
  // The pool a test held is free again before the next test, whether the test passed or not.
  let held: Promise<unknown> = Promise.resolve()
  afterEach(() => held)
  const hold = async () => {
    const pool = await holdPool(node, 3)
    held = pool.ended
    return pool
  }

  const socketUrl = async () => {
    const res = await node.fetch('/v1/realtime/token', F.json({}, session.headers()))
    return ((await res.json()) as { data: { url: string } }).data.url
  }
  /** How the socket closed, or what it holds when still open 10 s later. */
  const closing = (c: Client) =>
    Promise.race([
      c.closed,
      new Promise((r) => setTimeout(() => r({ still: 'open', frames: c.frames }), 10_000)),
    ])

  // The membership is looked up at every upgrade. With every connection of the pool busy past
  // DB_WAIT_MS the look-up fails as the request pipeline's do, and the answer is theirs: 503 with
  // Retry-After, which the app's reconnect waits out. It was a 500, and nothing was logged.
  it('answers an upgrade 503 `unavailable` with Retry-After, then opens once the database is free', async () => {
    const url = await socketUrl()
    const pool = await hold()
    const refused = await refusal(url)
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('2')
    expect(JSON.parse(refused.body).error.code).toBe('unavailable')
    await pool.ended
    const c = await connect(url)
    c.close()
  })

  // A subscription is authorised against the database too. A `refused` would stand until the
  // client reconnected (the app takes it as the server's answer about the channel), so the
  // socket is closed with 4013, which the client reconnects after, resuming every channel.
  it('closes a socket whose subscription cannot be authorised with 4013, and the next socket is served', async () => {
    const c = await connect(await socketUrl())
    const channel = `ws:${seeded.workspaceId}`
    const pool = await hold()
    c.send({ op: 'subscribe', channel, ref: 1 })
    expect(await closing(c)).toEqual({ code: 4013, reason: 'unavailable' })
    expect(c.frames.filter((f) => f.op === 'refused')).toEqual([])
    await pool.ended
    const again = await connect(await socketUrl())
    again.send({ op: 'subscribe', channel, ref: 2 })
    expect(await again.next((f) => f.channel === channel)).toMatchObject({ op: 'subscribed', ref: 2 })
    again.close()
  })

  // A re-check comes when access may have been taken away (a reassignment): one that cannot be
  // made must not leave the subscription delivering as before.
  it('closes a socket with 4013 when a re-check of its subscription cannot be made', async () => {
    const c = await connect(await socketUrl())
    const channel = `ws:${seeded.workspaceId}`
    c.send({ op: 'subscribe', channel, ref: 1 })
    expect(await c.next((f) => f.channel === channel)).toMatchObject({ op: 'subscribed' })
    const pool = await hold()
    await node.run(recheckTopic(channel))
    expect(await closing(c)).toEqual({ code: 4013, reason: 'unavailable' })
    await pool.ended
  })
})
