import { afterAll, beforeAll, expect, it } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer } from '../support/server'
import { connect } from '../support/ws'

/** Heartbeats: the server pings quiet sockets and closes those that stop answering. */
let s: TestServer
let owner: F.Session
beforeAll(async () => {
  s = await startTestServer({ REALTIME_IDLE_SECONDS: '8' })
  owner = await F.signIn(s, (await F.workspace(s, { plan: 'pro' })).ownerEmail)
})
afterAll(() => s?.stop())

const open = async () => {
  const res = await s.fetch('/v1/realtime/token', F.json({}, owner.headers()))
  return connect(((await res.json()) as { data: { url: string } }).data.url)
}

it('closes a client that stops answering pings and keeps one that answers', { timeout: 60_000 }, async () => {
  const dead = await open()
  const alive = await open()
  let pings = 0
  alive.ws.on('ping', () => {
    pings++
  })
  // A vanished client: nothing it receives is read, so no pong goes back.
  ;(dead.ws as unknown as { _socket: { pause: () => void } })._socket.pause()
  // Bounded wait for the condition (no timing assertion): the server drops the dead socket.
  const deadline = Date.now() + 40_000
  let connections = 2
  while (Date.now() < deadline) {
    const text = await (await s.fetch('/metrics')).text()
    connections = Number(/^kotak_realtime_connections (\d+)/m.exec(text)?.[1] ?? -1)
    if (connections === 1) break
    await new Promise((r) => setTimeout(r, 500))
  }
  expect(connections).toBe(1)
  expect(pings).toBeGreaterThan(0)
  alive.send({ op: 'ping', ref: 'still-here' })
  expect(await alive.next((f) => f.op === 'pong')).toMatchObject({ ref: 'still-here' })
  alive.close()
})
