import { Effect } from 'effect'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { nthSocket, socketsOf } from '../../connectors/msgapp/TransportTest'
import * as Msgapp from '../../store/msgapp'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { addNumber, body, ENV, linkedNumber, status, waitFor, waitStatus } from './support'

let s: TestServer
let w: F.Seeded
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer(ENV)
  w = await F.workspace(s, { plan: 'pro' })
  owner = await F.signIn(s, w.ownerEmail)
})
afterAll(() => s?.stop())

describe('messaging-app numbers: linking and reconnect rules', () => {
  it('adds a number, shows the QR as a PNG data URL with its lifetime, pairs by phone, goes active', async () => {
    const { ch, sock } = await addNumber(s, owner)
    expect(ch.type).toBe('msgapp')
    expect(ch.msgapp).toEqual({ groups: true, reject_calls: false, call_reply: '', agent_initial: true })
    sock.qr('2@abcdefghijklmnop,xyz,123')
    await waitStatus(s, owner, ch.id, 'qr')
    const qr = (await body(await s.fetch(`/v1/channels/${ch.id}/qr`, { headers: owner.headers() }))).data
    expect(qr.qr).toMatch(/^data:image\/png;base64,/)
    expect(qr.lifetime).toBeGreaterThan(50)
    expect(qr.lifetime).toBeLessThanOrEqual(60)

    const bad = await s.fetch(`/v1/channels/${ch.id}/pair`, F.json({ phone: 'abc' }, owner.headers()))
    expect(bad.status).toBe(422)
    expect((await body(bad)).error.fields.phone).toBeTruthy()
    const pair = await s.fetch(
      `/v1/channels/${ch.id}/pair`,
      F.json({ phone: '+62 812-0000-0009' }, owner.headers()),
    )
    expect(pair.status).toBe(200)
    expect((await body(pair)).data).toEqual({ phone: '+6281200000009', code: 'KTK4PAIR' })
    expect(sock.calls.find((c) => c.op === 'requestPairingCode')?.args).toEqual(['6281200000009'])

    sock.open('6281200000009')
    await waitStatus(s, owner, ch.id, 'active')
    const st = await status(s, owner, ch.id)
    expect(st.phone).toBe('+6281200000009')
    expect(st.linked_at).toBeTruthy()
    expect((await s.fetch(`/v1/channels/${ch.id}/qr`, { headers: owner.headers() })).status).toBe(409)
    // The creds Baileys reports are stored sealed, never in clear.
    sock.emit('creds.update', { registrationId: 4242 })
    const rows = await waitFor(async () => {
      const r = await s.run(Msgapp.readAuth(ch.id, 'creds', ['creds']))
      return r.length ? r : null
    })
    expect(rows[0]!.sealed).toMatch(/^v1\./)
    expect(rows[0]!.sealed).not.toContain('4242')
  })

  it('another workspace gets 404, keys are refused (A access)', async () => {
    const { ch } = await addNumber(s, owner)
    const other = await F.workspace(s, { plan: 'pro' })
    const otherOwner = await F.signIn(s, other.ownerEmail)
    expect((await s.fetch(`/v1/channels/${ch.id}/status`, { headers: otherOwner.headers() })).status).toBe(
      404,
    )
    const key = await F.apiKey(s, w)
    expect((await s.fetch(`/v1/channels/${ch.id}/status`, { headers: F.bearer(key) })).status).toBe(403)
  })

  it('515 restart-required reconnects at once', async () => {
    const { ch, sock } = await linkedNumber(s, owner)
    const t0 = Date.now()
    sock.close(515)
    const second = await nthSocket(ch.id, 2)
    expect(Date.now() - t0).toBeLessThan(1500)
    second.open()
    await waitStatus(s, owner, ch.id, 'active')
  })

  it('401 logged out stops, clears the auth state, sets the status and notifies the managers', async () => {
    const { ch, sock } = await linkedNumber(s, owner)
    await s.run(Msgapp.writeAuth(ch.id, [{ kind: 'creds', id: 'creds', sealed: 'v1.x' }]))
    sock.close(401)
    await waitStatus(s, owner, ch.id, 'logged_out')
    await new Promise((r) => setTimeout(r, 700))
    expect(socketsOf(ch.id).length).toBe(1)
    expect(await s.run(Msgapp.readAuth(ch.id, 'creds', ['creds']))).toEqual([])
    const notes = await waitFor(async () => {
      const r = (await body(await s.fetch('/v1/notifications', { headers: owner.headers() }))).data
      const list = (Array.isArray(r) ? r : r.items) as Array<Record<string, any>>
      return list.find((x) => x.kind === 'channel.logged_out' && x.data.channel_id === ch.id)
    })
    expect(notes.title).toContain('logged out')
    // It opens the channel's page in the app (/app/channels/:id).
    expect(notes.link).toBe(`/channels/${ch.id}`)
    // Reconnect starts linking again with a new socket.
    const again = await s.fetch(`/v1/channels/${ch.id}/reconnect`, F.json({}, owner.headers()))
    expect(again.status).toBe(200)
    await nthSocket(ch.id, 2)
  })

  it('other closes back off with growing, capped delays and never more than one pending reconnect', async () => {
    const { ch, sock } = await linkedNumber(s, owner)
    const times: number[] = [Date.now()]
    sock.close(428)
    // A storm of closes on the same (dead) socket must not multiply reconnects.
    sock.close(408)
    sock.close(503)
    let current = await nthSocket(ch.id, 2, 5000)
    times.push(Date.now())
    await waitStatus(s, owner, ch.id, 'reconnecting')
    current.close(408)
    current = await nthSocket(ch.id, 3, 5000)
    times.push(Date.now())
    current.close(408)
    current = await nthSocket(ch.id, 4, 8000)
    times.push(Date.now())
    expect(socketsOf(ch.id).length).toBe(4)
    // base 200 ms, doubling, ±50 % jitter: 3rd wait (≥ 400 ms) is longer than the 1st can be (≤ 300 ms).
    expect(times[3]! - times[2]!).toBeGreaterThanOrEqual(380)
    current.open()
    await waitStatus(s, owner, ch.id, 'active')
    expect(socketsOf(ch.id).length).toBe(4)
  })

  it('logout logs the socket out and stays down; 403 sets banned', async () => {
    const { ch, sock } = await linkedNumber(s, owner)
    const res = await s.fetch(`/v1/channels/${ch.id}/logout`, F.json({}, owner.headers()))
    expect(res.status).toBe(200)
    expect((await body(res)).data.status).toBe('logged_out')
    await waitFor(async () => sock.calls.some((c) => c.op === 'logout'))
    await new Promise((r) => setTimeout(r, 400))
    expect(socketsOf(ch.id).length).toBe(1)

    const b = await linkedNumber(s, owner, '6281200000077')
    b.sock.close(403)
    await waitStatus(s, owner, b.ch.id, 'banned')
  })

  it('PATCH takes the messaging-app fields; other types refuse them (422)', async () => {
    const { ch } = await addNumber(s, owner)
    const res = await s.fetch(`/v1/channels/${ch.id}`, {
      ...F.json(
        { groups: false, reject_calls: true, call_reply: ' Chat only ', agent_initial: false },
        owner.headers(),
      ),
      method: 'PATCH',
    })
    expect(res.status).toBe(200)
    expect((await body(res)).data.msgapp).toEqual({
      groups: false,
      reject_calls: true,
      call_reply: 'Chat only',
      agent_initial: false,
    })
    const api = await s.fetch('/v1/channels/api', F.json({ name: 'x' }, owner.headers()))
    const apiId = (await body(api)).data.id
    const wrong = await s.fetch(`/v1/channels/${apiId}`, {
      ...F.json({ groups: false }, owner.headers()),
      method: 'PATCH',
    })
    expect(wrong.status).toBe(422)
    expect((await body(wrong)).error.fields.groups).toBeTruthy()
    const unused = await s.run(Effect.succeed(1))
    expect(unused).toBe(1)
  })
})
