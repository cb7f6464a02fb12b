import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type WebSocket, WebSocketServer } from 'ws'
import { connect } from './ws'

/**
 * The WebSocket test client itself: a frame is never lost between two waits. A frame that arrives
 * after a wait gave up (a test checking that nothing comes yet, then waiting for it) is there for
 * the next wait; the client once handed it to the abandoned one, and the next wait timed out on a
 * frame the server had sent.
 */
let server: WebSocketServer
let peer: Promise<WebSocket>

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  peer = new Promise((resolve) => server.once('connection', resolve))
  await new Promise((resolve) => server.once('listening', resolve))
})
afterAll(() => new Promise((resolve) => server.close(resolve)))

describe('the WebSocket test client', () => {
  it('keeps a frame that arrives after a wait timed out for the next wait', async () => {
    const c = await connect(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`)
    try {
      const isPing = (f: Record<string, unknown>) => f.op === 'ping'
      await expect(c.next(isPing, 50)).rejects.toThrow(/no matching frame in 50 ms/)
      ;(await peer).send(JSON.stringify({ op: 'ping', n: 1 }))
      expect(await c.next(isPing, 2_000)).toEqual({ op: 'ping', n: 1 })
    } finally {
      c.close()
    }
  })
})
