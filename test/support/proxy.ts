import * as net from 'node:net'
import { freePort } from './server'

/**
 * A TCP proxy in front of a server (PostgreSQL, Redis, the embedded database's unix socket) whose
 * link can fail the two ways a network does, to play an outage for the nodes behind it without
 * touching the server others use:
 *
 * - `cut()`: every connection is closed and new ones are refused, as when the server is stopped.
 * - `blackhole()`: connections stay open, new ones are accepted, and no byte passes either way, as
 *   when the server or the network stops answering. Connections of that time never pass bytes
 *   again, even after `restore()`: only a client that drops them recovers.
 *
 * `restore()` accepts and forwards new connections again, on the same port.
 */
export interface TcpProxy {
  readonly port: number
  readonly cut: () => Promise<void>
  readonly blackhole: () => void
  readonly restore: () => Promise<void>
  readonly close: () => Promise<void>
  /** Connections the proxy holds now (both sides of each). */
  readonly open: () => number
}

export type Upstream = { readonly host: string; readonly port: number } | { readonly path: string }

export const tcpProxy = async (upstream: Upstream): Promise<TcpProxy> => {
  const port = await freePort()
  const sockets = new Set<net.Socket>()
  let server: net.Server | undefined
  let dark = false
  // What turns each forwarding pair dark for good.
  const pairs = new Set<() => void>()

  const hold = (sock: net.Socket) => {
    sockets.add(sock)
    sock.on('close', () => sockets.delete(sock))
    sock.on('error', () => sock.destroy())
  }
  const accept = (client: net.Socket) => {
    hold(client)
    if (dark) {
      // Accepted, read and never answered.
      client.on('data', () => {})
      return
    }
    const up = 'path' in upstream ? net.connect(upstream.path) : net.connect(upstream.port, upstream.host)
    hold(up)
    let passing = true
    const stop = () => {
      passing = false
    }
    pairs.add(stop)
    client.on('data', (d) => {
      if (passing) up.write(d)
    })
    up.on('data', (d) => {
      if (passing) client.write(d)
    })
    const end = () => {
      pairs.delete(stop)
      client.destroy()
      up.destroy()
    }
    client.on('close', end)
    up.on('close', end)
  }
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      if (server) return resolve()
      const s = net.createServer(accept)
      s.once('error', reject)
      s.listen(port, '127.0.0.1', () => resolve())
      server = s
    })
  const cut = () =>
    new Promise<void>((resolve) => {
      dark = false
      for (const sock of sockets) sock.destroy()
      if (!server) return resolve()
      server.close(() => resolve())
      server = undefined
    })
  await listen()
  return {
    port,
    cut,
    blackhole: () => {
      dark = true
      for (const stop of pairs) stop()
      pairs.clear()
    },
    restore: () => {
      dark = false
      return listen()
    },
    close: cut,
    open: () => sockets.size,
  }
}
