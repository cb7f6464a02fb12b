import * as http from 'node:http'
import type { ServiceCommand } from '../../connectors/msgapp/TransportTest'
import { freePort } from './server'

/**
 * A stand-in messaging service on loopback for nodes that run as other processes (cluster tests):
 * their test transport (`MSGAPP_TRANSPORT=test` with `MSGAPP_TEST_SERVICE=<url>`) announces each
 * socket here, polls for what the service does to it and hands every send here (see
 * connectors/msgapp/TransportTest.ts). The service records each send the moment it arrives, so a
 * send is counted even when the node that made it dies before it hears the answer.
 */
export interface ServiceSend {
  readonly channel: number
  /** The node process that sent it. */
  readonly pid: number
  readonly jid: string
  readonly text: string
  readonly id: string
}

export interface ServiceSocket {
  readonly channel: number
  readonly socket: string
  readonly pid: number
}

export interface MsgappService {
  readonly url: string
  /** Every send received, in order of arrival. */
  readonly sends: ServiceSend[]
  /** Every socket announced, in order. */
  readonly sockets: ServiceSocket[]
  /** The number is linked as `phone`: its latest socket and every later one opens at once. */
  readonly link: (channel: number, phone: string) => void
  /**
   * Holds the answer to the first send (from now) that `when` accepts; resolves with it once it has
   * arrived. `release` answers it.
   */
  readonly hold: (when: (s: ServiceSend) => boolean) => Promise<ServiceSend>
  readonly release: () => void
  /** Refuses the next send of the number with `{statusCode, message}` (it is still recorded). */
  readonly refuseNext: (channel: number, statusCode: number, message: string) => void
  readonly close: () => Promise<void>
}

export const startMsgappService = async (): Promise<MsgappService> => {
  const port = await freePort()
  const sends: ServiceSend[] = []
  const sockets: ServiceSocket[] = []
  const queues = new Map<string, ServiceCommand[]>()
  const linked = new Map<number, string>()
  let held: { when: (s: ServiceSend) => boolean; arrived: (s: ServiceSend) => void } | null = null
  let waiting: (() => void) | null = null
  const refusals = new Map<number, { statusCode: number; message: string }>()
  let n = 0

  const latest = (channel: number) => sockets.filter((s) => s.channel === channel).at(-1)
  const command = (socket: string, c: ServiceCommand) => queues.get(socket)?.push(c)

  const read = (req: http.IncomingMessage) =>
    new Promise<Record<string, unknown>>((resolve) => {
      let body = ''
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString('utf8')
      })
      req.on('end', () => resolve(body ? (JSON.parse(body) as Record<string, unknown>) : {}))
    })

  const server = http.createServer(async (req, res) => {
    const answer = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(body))
    }
    res.on('error', () => {})
    const url = new URL(req.url ?? '/', 'http://x')
    if (req.method === 'GET' && url.pathname === '/commands') {
      const socket = url.searchParams.get('socket') ?? ''
      const commands = queues.get(socket) ?? []
      queues.set(socket, [])
      return answer({ commands })
    }
    const body = await read(req)
    if (url.pathname === '/connect') {
      const s = { channel: Number(body.channel), socket: String(body.socket), pid: Number(body.pid) }
      sockets.push(s)
      queues.set(s.socket, [])
      const phone = linked.get(s.channel)
      if (phone) command(s.socket, { op: 'open', phone })
      return answer({})
    }
    if (url.pathname === '/send') {
      const content = body.content as { text?: unknown; caption?: unknown }
      const send: ServiceSend = {
        channel: Number(body.channel),
        pid: Number(body.pid),
        jid: String(body.jid),
        text: String(content.text ?? content.caption ?? ''),
        id: `3EB0SVC${(++n).toString(16).padStart(6, '0')}`,
      }
      sends.push(send)
      const refusal = refusals.get(send.channel)
      if (refusal) {
        refusals.delete(send.channel)
        return answer({ error: refusal })
      }
      if (held?.when(send)) {
        const h = held
        held = null
        await new Promise<void>((resolve) => {
          waiting = resolve
          h.arrived(send)
        })
      }
      return answer({ id: send.id })
    }
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()))

  return {
    url: `http://127.0.0.1:${port}`,
    sends,
    sockets,
    link: (channel, phone) => {
      linked.set(channel, phone)
      const s = latest(channel)
      if (s) command(s.socket, { op: 'open', phone })
    },
    hold: (when) =>
      new Promise<ServiceSend>((arrived) => {
        held = { when, arrived }
      }),
    release: () => {
      const w = waiting
      waiting = null
      w?.()
    },
    refuseNext: (channel, statusCode, message) => {
      refusals.set(channel, { statusCode, message })
    },
    close: () =>
      new Promise<void>((resolve) => {
        const w = waiting
        waiting = null
        w?.()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
