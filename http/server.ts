import uws from 'uWebSockets.js'
import { STATUS_CODES } from 'node:http'
import * as net from 'node:net'
import { type Incoming, incoming } from './request'

export type { Incoming } from './request'

/**
 * The uWebSockets.js transport: copies each request out of uWS synchronously (its request object
 * dies when the handler returns), reads the body with a size cap, hands the request to the
 * pipeline, and writes the answer corked. Knows nothing of routes or auth.
 */

/** True when the native binary loaded; the package silently falls back to a slow emulation. */
/** uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT (the binding exports it; its typings do not). */
const LISTEN_EXCLUSIVE_PORT = 1

export const isNative = (): boolean => typeof (uws as { SSLApp?: unknown }).SSLApp === 'function'

/**
 * An answer as the transport writes it. To a `HEAD` request the transport sends the status and
 * headers with the body's length and never the body itself, whatever `body` holds.
 */
export interface Outgoing {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | Uint8Array
  /** The rest of a streamed body (a Raw reply's `stream`), written after `body`. */
  readonly stream?: AsyncIterable<Uint8Array>
}

export interface Listening {
  readonly app: uws.TemplatedApp
  readonly port: number
  readonly close: () => void
  /** Requests whose answer the handler has not given yet (what a stopping node waits for). */
  readonly pending: () => readonly Pending[]
}

export interface Pending {
  readonly method: string
  readonly path: string
  readonly since: number
}

export interface ServerOptions {
  readonly host: string
  readonly port: number
  readonly maxBodyBytes: number
  /** A request's own body limit (routes taking uploads); `maxBodyBytes` when absent. */
  readonly bodyLimit?: (method: string, path: string) => number
  /** Whether a request's body is handed over as a stream as it arrives instead of read whole. */
  readonly streamsBody?: (method: string, path: string) => boolean
  /** Answers a request: at once when it needs no I/O, else later; `null` = a fault (500). */
  readonly handle: (req: Incoming, done: (out: Outgoing | null) => void) => void
  /** Answers a request refused before the pipeline (body too large). */
  readonly tooLarge: (req: Incoming) => Outgoing
  /** Lets other modules (the real-time gateway) add WebSocket routes before listening. */
  readonly configure?: (app: uws.TemplatedApp) => void
}

const statusLine = (status: number) => `${status} ${STATUS_CODES[status] ?? 'Unknown'}`

/**
 * uWS writes a header as given: a CR, LF or NUL in one would end it and start headers (or a body)
 * of whoever chose the value. Values are the service's, but some carry what strangers sent (a
 * file's type, a name): such a header is left out rather than split the response.
 */
const UNSAFE_HEADER = /[\r\n\0]/
const writeHeaders = (res: uws.HttpResponse, headers: Outgoing['headers']) => {
  for (const [k, v] of headers) if (!UNSAFE_HEADER.test(v) && !UNSAFE_HEADER.test(k)) res.writeHeader(k, v)
}
const BODYLESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS'])

/**
 * Fails at once, with the reason `listen` would give, when the port is taken: a node checks
 * before it opens its database (the embedded one takes seconds to start) rather than after.
 */
export const ensurePortFree = (host: string, port: number): Promise<void> =>
  port === 0
    ? Promise.resolve()
    : new Promise((resolve, reject) => {
        const probe = net.createServer()
        probe.once('error', (e: NodeJS.ErrnoException) =>
          reject(e.code === 'EADDRINUSE' ? portInUse(host, port) : e),
        )
        probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()))
      })

const portInUse = (host: string, port: number) =>
  new Error(
    `cannot listen on ${host}:${port}: the port is in use (another Kotak node or another program) ` +
      'or the address is not this machine’s; stop that program or choose another PORT',
  )

export const listen = (opts: ServerOptions): Promise<Listening> => {
  const app = uws.App()
  opts.configure?.(app)
  // Set once the node stops listening: a client's kept-alive connection may still bring a request,
  // which is told to retry elsewhere (503) and has its connection closed, instead of reaching
  // services that are shutting down.
  let closing = false
  // Only requests the handler did not answer at once are entered (most reads are answered
  // before `handle` returns).
  const pending = new Set<Pending>()
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
    let aborted = false
    // Whatever waits on the socket (a streamed answer draining, a streamed body's reader) wakes
    // up when the client goes away.
    const onAbort: Array<() => void> = []
    // uWS needs an abort handler only for a request still open when this callback returns; one
    // answered at once (most reads) is spared the closure and the native call.
    let watching = false
    let ended = false
    const watch = () => {
      if (watching) return
      watching = true
      ip()
      res.onAborted(() => {
        aborted = true
        for (const f of onAbort) f()
      })
    }
    const headers = new Map<string, string>()
    req.forEach((k, v) => {
      headers.set(k, v)
    })
    if (closing) {
      refuseWhileClosing(res, headers, end)
      return
    }
    // The peer's address, read when first asked (http/request.ts) or when the request outlives
    // this callback (`watch`): a handler that asks after an await still gets it, even if the
    // client has gone by then. Only a request answered at once may never read it.
    let peer: string | undefined
    const ip = () => {
      peer ??= ended ? '' : Buffer.from(res.getRemoteAddressAsText()).toString()
      return peer
    }
    const base = { method, path: req.getUrl(), query: req.getQuery() ?? '', headers, ip }
    // Set once the answer is on its way: a streamed body still arriving is dropped from then on.
    let answered: (() => void) | null = null
    const respond = (out: Outgoing, close = false) => {
      answered?.()
      // One answer per request: a handler that ends after the transport has refused the body
      // (413) is not heard; uWS throws on a response already sent.
      if (aborted || ended) return
      if (out.stream) {
        watch()
        ended = true
        void respondStream(out, out.stream)
        return
      }
      ended = true
      res.cork(() => {
        res.writeStatus(statusLine(out.status))
        writeHeaders(res, out.headers)
        end(out.body, close)
      })
    }
    // Chunked: each chunk written corked; when uWS reports backpressure, wait for `onWritable`.
    const respondStream = async (out: Outgoing, stream: AsyncIterable<Uint8Array>) => {
      res.cork(() => {
        res.writeStatus(statusLine(out.status))
        writeHeaders(res, out.headers)
        if (out.body.length > 0) res.write(out.body)
      })
      try {
        for await (const chunk of stream) {
          if (aborted) return
          let drained = true
          res.cork(() => {
            drained = res.write(chunk)
          })
          if (!drained && !aborted)
            await new Promise<void>((resolve) => {
              onAbort.push(resolve)
              res.onWritable(() => {
                resolve()
                return true
              })
            })
        }
        if (!aborted) res.cork(() => res.end())
      } catch {
        // The status is sent already: the client sees the connection cut, not a complete file.
        if (!aborted) res.close()
      }
    }
    const dispatch = (body: Uint8Array | null, bodyStream?: AsyncIterable<Uint8Array>) => {
      const request = incoming(base.method, base.path, base.query, base.headers, base.ip, body, bodyStream)
      let settled = false
      let entry: Pending | null = null
      opts.handle(request, (out) => {
        settled = true
        if (entry) pending.delete(entry)
        respond(
          out ?? {
            status: 500,
            headers: [['Content-Type', 'application/json']],
            body: '{"error":{"code":"server_error","message":"Server fault."}}',
          },
        )
      })
      if (!settled) {
        // Shown as an age at shutdown: the monotonic clock.
        entry = { method: base.method, path: base.path, since: performance.now() }
        pending.add(entry)
      }
    }
    const declared = headers.get('content-length')
    if (BODYLESS.has(base.method) && !declared && !headers.has('transfer-encoding')) {
      dispatch(null)
      if (!ended) watch()
      return
    }
    watch()
    const limit = opts.bodyLimit ? opts.bodyLimit(base.method, base.path) : opts.maxBodyBytes
    if (declared && Number(declared) > limit) {
      const refuse = () => respond(opts.tooLarge({ ...base, body: null }), true)
      if (Number(declared) - limit > LINGER_BYTES) refuse()
      else
        res.onData((_chunk, isLast) => {
          if (isLast) refuse()
        })
      return
    }
    if (opts.streamsBody?.(base.method, base.path)) {
      streamBody(res, limit, {
        aborted: () => aborted,
        onAbort: (f) => {
          onAbort.push(f)
        },
        refuse: () => respond(opts.tooLarge({ ...base, body: null }), true),
        answered: (f) => {
          answered = f
        },
        dispatch: (stream) => dispatch(null, stream),
      })
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    res.onData((chunk, isLast) => {
      if (ended) return
      size += chunk.byteLength
      if (size > limit) {
        chunks.length = 0
        if (lingered(size, limit, isLast)) respond(opts.tooLarge({ ...base, body: null }), true)
        return
      }
      // The chunk's memory is reused by uWS after this callback: copy it.
      chunks.push(Buffer.from(chunk.slice(0)))
      if (isLast) dispatch(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks))
    })
  })
  return new Promise((resolve, reject) => {
    // Exclusive: uWS otherwise binds with SO_REUSEPORT, and a second server started on a port in
    // use would silently share it, taking part of its traffic (docs/decisions.md).
    const listenOn = app.listen as unknown as (
      host: string,
      port: number,
      options: number,
      cb: (token: uws.us_listen_socket | false) => void,
    ) => void
    listenOn.call(app, opts.host, opts.port, LISTEN_EXCLUSIVE_PORT, (token) => {
      if (!token) {
        reject(portInUse(opts.host, opts.port))
        return
      }
      resolve({
        app,
        port: uws.us_socket_local_port(token),
        close: () => {
          closing = true
          uws.us_listen_socket_close(token)
        },
        pending: () => [...pending],
      })
    })
  })
}

/**
 * How much of a body past its limit is read and dropped before the 413 goes out, with the
 * connection closed. Closing a socket with bytes still unread makes the kernel reset it, and a
 * client still writing its body (fetch, most libraries) then reports the reset, often before it
 * has read the answer; a body read to its end leaves nothing unread. Beyond this the answer goes
 * at once: such a client may see a reset, but no node reads a gigabyte to refuse it.
 */
export const LINGER_BYTES = 32 * 1024 * 1024

/** Whether a body past its limit has been dropped long enough for the 413 to go out. */
const lingered = (size: number, limit: number, isLast: boolean) => isLast || size - limit > LINGER_BYTES

/**
 * A request on a kept-alive connection once the node has stopped listening: 503, told to retry
 * elsewhere, and the connection closed. A body still coming is read to its end and dropped first,
 * as for a 413 (`LINGER_BYTES`): closed with bytes unread, the connection would be reset, and a
 * client still writing its body would see the reset instead of the 503 it can retry on.
 */
const refuseWhileClosing = (
  res: uws.HttpResponse,
  headers: ReadonlyMap<string, string>,
  end: (body: string, close: boolean) => void,
) => {
  const refuse = () =>
    res.cork(() => {
      res.writeStatus('503 Service Unavailable')
      res.writeHeader('Content-Type', 'application/json')
      res.writeHeader('Retry-After', '1')
      end('{"error":{"code":"unavailable","message":"Shutting down; try again."}}', true)
    })
  const declared = Number(headers.get('content-length') ?? 0)
  if (!(declared > 0 || headers.has('transfer-encoding')) || declared > LINGER_BYTES) {
    refuse()
    return
  }
  let done = false
  let size = 0
  res.onAborted(() => {
    done = true
  })
  res.onData((chunk, isLast) => {
    if (done) return
    size += chunk.byteLength
    if (!lingered(size, 0, isLast)) return
    done = true
    refuse()
  })
}

/** Chunks queued before the socket is paused; it resumes once the reader is down to a quarter. */
const HIGH_WATER = 16

/**
 * A request body as an async iterable of chunks, in arrival order. The socket is paused while
 * `HIGH_WATER` chunks wait for the reader, so a slow handler holds about a megabyte, not the
 * body. Ends with an error when the client goes away or the body passes `limit` (then 413).
 */
const streamBody = (
  res: uws.HttpResponse,
  limit: number,
  hooks: {
    readonly aborted: () => boolean
    readonly onAbort: (f: () => void) => void
    readonly refuse: () => void
    readonly answered: (f: () => void) => void
    readonly dispatch: (stream: AsyncIterable<Uint8Array>) => void
  },
) => {
  const queue: Buffer[] = []
  let size = 0
  let ended = false
  let failure: Error | null = null
  let paused = false
  let dropped = false
  let waiter: (() => void) | null = null
  const wakeReader = () => {
    const w = waiter
    waiter = null
    w?.()
  }
  hooks.onAbort(() => {
    failure ??= new Error('client went away')
    wakeReader()
  })
  // The answer went out before the body was read to the end: drop the rest as it comes.
  hooks.answered(() => {
    dropped = true
    queue.length = 0
    if (paused && !hooks.aborted()) {
      paused = false
      res.resume()
    }
  })
  res.onData((chunk, isLast) => {
    if (dropped || failure) return
    size += chunk.byteLength
    if (size > limit) {
      // Nothing more reaches the reader (it waits); the rest is read and dropped until the 413
      // can go out, so the handler cannot answer first with an error of its own.
      queue.length = 0
      if (lingered(size, limit, isLast)) {
        failure = new Error('body too large')
        hooks.refuse()
        wakeReader()
      }
      return
    }
    // The chunk's memory is reused by uWS after this callback: copy it.
    queue.push(Buffer.from(chunk.slice(0)))
    if (isLast) ended = true
    if (!isLast && !paused && queue.length >= HIGH_WATER) {
      paused = true
      res.pause()
    }
    wakeReader()
  })
  const stream: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: async (): Promise<IteratorResult<Uint8Array>> => {
        for (;;) {
          if (failure) throw failure
          const chunk = queue.shift()
          if (chunk) {
            if (paused && queue.length <= HIGH_WATER / 4 && !hooks.aborted()) {
              paused = false
              res.resume()
            }
            return { done: false, value: chunk }
          }
          if (ended) return { done: true, value: undefined }
          await new Promise<void>((resolve) => {
            waiter = resolve
          })
        }
      },
    }),
  }
  hooks.dispatch(stream)
}
