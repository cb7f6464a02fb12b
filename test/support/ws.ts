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
            const timer = setTimeout(
              () => rej(new Error(`no matching frame; queued: ${JSON.stringify(frames)}`)),
              timeoutMs,
            )
            waiters.push({
              match,
              resolve: (f) => {
                clearTimeout(timer)
                res(f)
              },
            })
          })
        },
      }),
    )
  })

/** The HTTP status a refused upgrade answered with. */
export const refusedStatus = (url: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(url)
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0))
    ws.on('open', () => {
      ws.close()
      reject(new Error('upgrade was accepted'))
    })
    ws.on('error', () => undefined)
  })
