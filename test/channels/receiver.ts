import * as http from 'node:http'
import type { AddressInfo } from 'node:net'
import { verify } from '../../engine/net/signature'

/** A webhook receiver on loopback that checks every signature the way a customer would. */
export interface Received {
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  readonly json: { id: string; event: string; created_at: string; data: Record<string, any> }
  readonly signatureValid: boolean
}

export const receiver = async (secret: () => string) => {
  const got: Received[] = []
  let failNext = 0
  const waiters: Array<() => void> = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      const ts = Number(req.headers['x-kotak-timestamp'])
      const sig = String(req.headers['x-kotak-signature'] ?? '')
      got.push({
        headers: req.headers,
        body,
        json: JSON.parse(body),
        signatureValid: verify(secret(), ts, body, sig),
      })
      for (const w of waiters.splice(0)) w()
      if (failNext > 0) {
        failNext--
        res.writeHead(500).end('try later')
      } else res.writeHead(204).end()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/hook`,
    got,
    failNext: (n: number) => {
      failNext = n
    },
    /** Waits until `pred` holds over what arrived. */
    until: async (pred: (got: readonly Received[]) => boolean, timeoutMs = 8000) => {
      const deadline = Date.now() + timeoutMs
      while (!pred(got)) {
        if (Date.now() > deadline)
          throw new Error(`receiver: timed out; got ${JSON.stringify(got.map((g) => g.json.event))}`)
        await new Promise<void>((r) => {
          waiters.push(r)
          setTimeout(r, 100)
        })
      }
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  }
}
