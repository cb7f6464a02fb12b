import WebSocket from 'ws'

/**
 * A WebSocket test client that queues every frame, so a test can await the next frame matching a
 * predicate without racing the socket.
 */
export interface Client {
  readonly ws: WebSocket
  readonly frames: Array<Record<string, unknown>>
  readonly send: (frame: unknown) => void
  readonly next: (
    match?: (f: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ) => Promise<Record<string, any>>
  readonly closed: Promise<{ code: number; reason: string }>
  readonly close: () => void
}

export const connect = (url: string): Promise<Client> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    const frames: Array<Record<string, unknown>> = []
    // When a wait times out, these tell a lost frame from a late one: what arrived last and when,
    // and how late the timeout itself fired (a process starved of CPU fires its timers late).
    const opened = Date.now()
    let lastFrame: { at: number; op: unknown; event: unknown } | undefined
    const waiters: Array<{
      match: (f: Record<string, unknown>) => boolean
      resolve: (f: Record<string, unknown>) => void
    }> = []
    let onClose: (v: { code: number; reason: string }) => void = () => undefined
    const closed = new Promise<{ code: number; reason: string }>((r) => {
      onClose = r
    })
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data)) as Record<string, unknown>
      lastFrame = { at: Date.now(), op: frame.op, event: frame.event }
      const i = waiters.findIndex((w) => w.match(frame))
      if (i >= 0) waiters.splice(i, 1)[0]!.resolve(frame)
      else frames.push(frame)
    })
    ws.on('close', (code, reason) => onClose({ code, reason: String(reason) }))
    ws.on('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.on('error', reject)
    ws.on('open', () =>
      resolve({
        ws,
        frames,
        closed,
        send: (frame) => ws.send(JSON.stringify(frame)),
        close: () => ws.close(),
        next: (match = () => true, timeoutMs = 5_000) => {
          const i = frames.findIndex(match)
          if (i >= 0) return Promise.resolve(frames.splice(i, 1)[0]!)
          return new Promise((res, rej) => {
            const asked = Date.now()
            const waiter = {
              match,
              resolve: (f: Record<string, unknown>) => {
                clearTimeout(timer)
                res(f)
              },
            }
            const timer = setTimeout(() => {
              // A waiter that gave up takes no frame: one arriving later is queued for the next
              // `next`, not handed to a promise nobody awaits any more.
              const at = waiters.indexOf(waiter)
              if (at >= 0) waiters.splice(at, 1)
              const now = Date.now()
              const last = lastFrame
                ? `last frame ${JSON.stringify({ op: lastFrame.op, event: lastFrame.event })} ${now - lastFrame.at} ms ago`
                : `no frame since the socket opened ${now - opened} ms ago`
              rej(
                new Error(
                  `no matching frame in ${timeoutMs} ms (the timeout fired ${now - asked - timeoutMs} ms late; ` +
                    `${last}; socket ${['connecting', 'open', 'closing', 'closed'][ws.readyState]}); ` +
                    `queued: ${JSON.stringify(frames)}`,
                ),
              )
            }, timeoutMs)
            waiters.push(waiter)
          })
        },
      }),
    )
  })

/** The HTTP status a refused upgrade answered with. */
export const refusedStatus = (url: string): Promise<number> => refusal(url).then((r) => r.status)

/** A refused upgrade's status, headers (names in lower case) and body. */
export const refusal = (
  url: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (d: Buffer) => {
        body += d.toString('utf8')
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    ws.on('open', () => {
      ws.close()
      reject(new Error('upgrade was accepted'))
    })
    ws.on('error', () => undefined)
  })
