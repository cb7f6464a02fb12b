import * as net from 'node:net'

/**
 * HTTP/1.1 over a bare socket, for what `fetch` hides: pipelining, the framing of HEAD answers,
 * interim `100 Continue`, methods fetch refuses, clients that send slowly. Bytes are kept as
 * latin1 strings so a string's length is its byte count.
 */

export interface RawResponse {
  readonly status: number
  /** Header names in lower case; a repeated header keeps its last value. */
  readonly headers: ReadonlyMap<string, string>
  /** The body as received (latin1); empty for a HEAD answer. */
  readonly body: string
  /** The body decoded as UTF-8 JSON. */
  readonly json: () => Record<string, any>
}

export interface Parsed {
  /** Final answers, in order; interim 1xx answers are in `interim`. */
  readonly responses: readonly RawResponse[]
  readonly interim: readonly number[]
  /** Bytes after the last complete answer: a HEAD answer with a body would leave some here. */
  readonly rest: string
}

/**
 * Splits `raw` into answers to requests made with `methods`, in order. A HEAD answer has no body
 * whatever its Content-Length says (RFC 9110 §9.3.2); every other answer is framed by it.
 */
export const parseResponses = (raw: string, methods: readonly string[]): Parsed => {
  const responses: RawResponse[] = []
  const interim: number[] = []
  let at = 0
  while (responses.length < methods.length) {
    const end = raw.indexOf('\r\n\r\n', at)
    if (end < 0) break
    const lines = raw.slice(at, end).split('\r\n')
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(lines[0] ?? '')?.[1] ?? Number.NaN)
    if (!Number.isInteger(status)) throw new Error(`not a status line: ${JSON.stringify(lines[0])}`)
    const headers = new Map<string, string>()
    for (const line of lines.slice(1)) {
      const i = line.indexOf(':')
      headers.set(line.slice(0, i).trim().toLowerCase(), line.slice(i + 1).trim())
    }
    if (status < 200) {
      interim.push(status)
      at = end + 4
      continue
    }
    const head = methods[responses.length] === 'HEAD'
    const length = head ? 0 : Number(headers.get('content-length') ?? 0)
    if (raw.length < end + 4 + length) break
    const body = raw.slice(end + 4, end + 4 + length)
    responses.push({
      status,
      headers,
      body,
      json: () => JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as Record<string, any>,
    })
    at = end + 4 + length
  }
  return { responses, interim, rest: raw.slice(at) }
}

export interface Exchange extends Parsed {
  /** The server closed the connection (before all answers came, or after). */
  readonly closed: boolean
  /** The socket's first error (`EPIPE`, `ECONNRESET`: the server reset the connection). */
  readonly error: string | undefined
  readonly raw: string
}

/**
 * Bytes to send, a pause, a wait until the bytes received match, a wait until that many final
 * answers have come (to send the next request on a kept-alive connection, not pipelined), or
 * something done to the server between two steps (stopping it), awaited.
 */
export type Step =
  | string
  | Buffer
  | { readonly waitMs: number }
  | { readonly until: RegExp }
  | { readonly answers: number }
  | { readonly run: () => Promise<unknown> }

export interface ExchangeOptions {
  readonly timeoutMs?: number
  /** Wait for the server to close the connection after the last answer (until the timeout). */
  readonly untilClose?: boolean
  /**
   * Send every step whatever comes back, as `fetch` sends a whole body before it reads the
   * answer: the connection stays half-open when the server closes its side, and the exchange
   * ends once the steps are sent and the connection is closed (a reset shows in `error`).
   */
  readonly sendAll?: boolean
}

/**
 * Opens a connection, performs `steps`, and resolves once every request in `methods` is answered
 * (and, with `untilClose`, the connection closed), the server closes, or the timeout (5 s by
 * default) passes. The socket is destroyed afterwards.
 */
export const exchange = (
  port: number,
  steps: readonly Step[],
  methods: readonly string[],
  opts: ExchangeOptions = {},
): Promise<Exchange> =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: opts.sendAll === true })
    let raw = ''
    let closed = false
    let error: string | undefined
    let settled = false
    let sent = false
    const answered = () => {
      try {
        return parseResponses(raw, methods).responses.length
      } catch {
        return 0
      }
    }
    const met = (step: { readonly until: RegExp } | { readonly answers: number }) =>
      'until' in step ? step.until.test(raw) : answered() >= step.answers
    const waiting: Array<{
      step: { readonly until: RegExp } | { readonly answers: number }
      go: () => void
    }> = []
    const finish = () => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      try {
        resolve({ ...parseResponses(raw, methods), closed, error, raw })
      } catch (e) {
        reject(e)
      }
    }
    const timer = setTimeout(finish, opts.timeoutMs ?? 5_000)
    socket.on('data', (d) => {
      raw += d.toString('latin1')
      for (const w of waiting.splice(0)) {
        if (met(w.step)) w.go()
        else waiting.push(w)
      }
      if (!opts.untilClose && !opts.sendAll && answered() === methods.length) finish()
    })
    // Half-open (`sendAll`): the server's side ended; ours ends once every step is sent.
    socket.on('end', () => {
      if (sent) socket.end()
    })
    socket.on('close', () => {
      closed = true
      finish()
    })
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message
    })
    socket.on('connect', async () => {
      for (const step of steps) {
        if (settled) return
        if (typeof step === 'string') socket.write(Buffer.from(step, 'latin1'))
        else if (Buffer.isBuffer(step)) socket.write(step)
        else if ('waitMs' in step) await new Promise((r) => setTimeout(r, step.waitMs))
        else if ('run' in step) await step.run()
        else if (!met(step)) await new Promise<void>((go) => waiting.push({ step, go }))
      }
      sent = true
      if (opts.sendAll && socket.readableEnded) socket.end()
    })
  })

/** One request's bytes: request line, `Host`, the given headers, and the body if any. */
export const request = (
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
  body?: string,
): string => {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1']
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`)
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`)
  return `${lines.join('\r\n')}\r\n\r\n${body === undefined ? '' : Buffer.from(body).toString('latin1')}`
}
