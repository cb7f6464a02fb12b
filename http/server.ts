import uws from 'uWebSockets.js'
import { STATUS_CODES } from 'node:http'

/**
 * The uWebSockets.js transport: copies each request out of uWS synchronously (its request object
 * dies when the handler returns), reads the body with a size cap, hands the request to the
 * pipeline, and writes the answer corked. Knows nothing of routes or auth.
 */

/** True when the native binary loaded; the package silently falls back to a slow emulation. */
export const isNative = (): boolean => typeof (uws as { SSLApp?: unknown }).SSLApp === 'function'

/** A request as the transport hands it over: everything copied out, nothing lazy. */
export interface Incoming {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
  readonly body: Uint8Array | null
  readonly ip: string
}

/**
 * An answer as the transport writes it. To a `HEAD` request the transport sends the status and
 * headers with the body's length and never the body itself, whatever `body` holds.
 */
export interface Outgoing {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | Uint8Array
}

export interface Listening {
  readonly app: uws.TemplatedApp
  readonly port: number
  readonly close: () => void
}

export interface ServerOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  /** A request's own body limit (routes taking uploads); `maxBodyBytes` when absent. */
  readonly bodyLimit?: (method: string, path: string) => number
  /** Answers a request: at once when it needs no I/O, else later; `null` = a fault (500). */
  readonly handle: (req: Incoming, done: (out: Outgoing | null) => void) => void
  /** Answers a request refused before the pipeline (body too large). */
  readonly tooLarge: (req: Incoming) => Outgoing
  /** Lets other modules (the real-time gateway) add WebSocket routes before listening. */
  readonly configure?: (app: uws.TemplatedApp) => void
}

const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`

const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS'])

export const listen = (opts: ServerOptions): Promise<Listening> => {
  const app = uws.App()
  opts.configure?.(app)
  // Set once the node stops listening: a client's kept-alive connection may still bring a request,
  // which is told to retry elsewhere (503) and has its connection closed, instead of reaching
  // services that are shutting down.
  let closing = false
  app.any('/*', (res, req) => {
    // A body after the headers of a HEAD answer would be read as the start of the next response
    // on a kept-alive connection (RFC 9110 §9.3.2): the headers say the GET's length, nothing
    // follows. `endWithoutBody` takes no arguments here: in v20.30 a reported length leaves the
    // response unfinished (the next request closes the connection) and its close flag cannot be
    // passed without one, so a HEAD that must end the connection says so and the client closes.
    const method = req.getMethod().toUpperCase()
    const head = method === 'HEAD'
    const end = (body: string | Uint8Array, close: boolean) => {
      if (!head) {
        res.end(body, close)
        return
      }
      res.writeHeader('Content-Length', String(Buffer.byteLength(body)))
      if (close) res.writeHeader('Connection', 'close')
      res.endWithoutBody()
    }
    if (closing) {
      res.cork(() => {
        res.writeStatus('503 Service Unavailable')
        res.writeHeader('Content-Type', 'application/json')
        res.writeHeader('Retry-After', '1')
        end('{"error":{"code":"unavailable","message":"Shutting down; try again."}}', true)
      })
      return
    }
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    const headers = new Map<string, string>()
    req.forEach((k, v) => {
      headers.set(k, v)
    })
    const base = {
      method,
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      headers,
      ip: Buffer.from(res.getRemoteAddressAsText()).toString(),
    }
    const respond = (out: Outgoing, close = false) => {
      if (aborted) return
      res.cork(() => {
        res.writeStatus(statusLine(out.status))
        for (const [k, v] of out.headers) res.writeHeader(k, v)
        end(out.body, close)
      })
    }
    const dispatch = (body: Uint8Array | null) => {
      opts.handle({ ...base, body }, (out) =>
        respond(
          out ?? {
            status: 500,
            headers: [['Content-Type', 'application/json']],
            body: '{"error":{"code":"server_error","message":"Server fault."}}',
          },
        ),
      )
    }
    const declared = headers.get('content-length')
    if (BODYLESS.has(base.method) && !declared && !headers.has('transfer-encoding')) {
      dispatch(null)
      return
    }
    const limit = opts.bodyLimit ? opts.bodyLimit(base.method, base.path) : opts.maxBodyBytes
    if (declared && Number(declared) > limit) {
      respond(opts.tooLarge({ ...base, body: null }), true)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let refused = false
    res.onData((chunk, isLast) => {
      if (refused) return
      size += chunk.byteLength
      if (size > limit) {
        refused = true
        respond(opts.tooLarge({ ...base, body: null }), true)
        return
      }
      // The chunk's memory is reused by uWS after this callback: copy it.
      chunks.push(Buffer.from(chunk.slice(0)))
      if (isLast) dispatch(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
  })
  return new Promise((resolve, reject) => {
    app.listen(opts.host, opts.port, (token) => {
      if (!token) {
        reject(new Error(`cannot listen on ${opts.host}:${opts.port}`))
        return
      }
      resolve({
        app,
        port: uws.us_socket_local_port(token),
        close: () => {
          closing = true
          uws.us_listen_socket_close(token)
        },
      })
    })
  })
}
