import * as http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A stand-in for an OpenAI-compatible API on loopback, speaking the protocol as the real ones do:
 * `POST /v1/chat/completions` and `POST /v1/embeddings` with bearer keys (401 otherwise),
 * request validation (400 with an `{error: {message, type, code}}` body), and the answers'
 * shapes (`choices[0].message.content`; `data[].embedding` with `index`, `dimensions` honoured).
 * Tests script what the next requests meet: an HTTP error (with `Retry-After`), no answer at all
 * (a hang, until the stand-in closes), or a malformed body; every request is recorded.
 *
 * Its embeddings are deterministic and carry meaning the way a real model does for the few
 * subjects the tests use: words of one subject, English or Indonesian (refund, pengembalian,
 * uang…), land on the same dimension, so texts that share no word can still be near.
 */
export type Fault =
  | { readonly kind: 'status'; readonly status: number; readonly retryAfter?: number }
  | { readonly kind: 'hang' }
  | { readonly kind: 'malformed'; readonly body: string }

export interface Recorded {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: Record<string, unknown>
}

export interface StandIn {
  /** Base URL for `AI_BASE_URL` (ends with `/v1`). */
  readonly url: string
  readonly key: string
  readonly requests: Recorded[]
  /** What the next requests to `path` meet, in order; then normal answers again. */
  readonly script: (path: 'chat' | 'embeddings', ...faults: Fault[]) => void
  /** The chat answer from now on (default: bullets made from the conversation's lines). */
  readonly chatAnswer: (f: ((userContent: string) => string) | null) => void
  /** Requests held by a `hang` so far (they end when the stand-in closes). */
  readonly hanging: () => number
  readonly close: () => Promise<void>
}

const SUBJECTS: Record<string, readonly string[]> = {
  refund: [
    'refund',
    'refunds',
    'reimburse',
    'money',
    'repay',
    'pengembalian',
    'uang',
    'dana',
    'kembali',
    'return',
  ],
  shipping: [
    'shipping',
    'delivery',
    'delivered',
    'courier',
    'parcel',
    'parcels',
    'package',
    'pengiriman',
    'kurir',
    'paket',
  ],
  password: ['password', 'login', 'signin', 'account', 'locked', 'sandi', 'masuk', 'akun', 'reset'],
  payment: ['payment', 'pay', 'invoice', 'bill', 'card', 'bayar', 'pembayaran', 'tagihan'],
}
const STOP = new Set([
  'the',
  'a',
  'an',
  'to',
  'my',
  'i',
  'how',
  'do',
  'is',
  'of',
  'for',
  'and',
  'in',
  'we',
  'your',
  'within',
  'by',
  'yang',
  'di',
  'ke',
  'saya',
  'bagaimana',
  'cara',
  'dan',
  'untuk',
  'where',
  'what',
  'can',
  'it',
  'are',
  'days',
])
const subjectOf = new Map(Object.entries(SUBJECTS).flatMap(([s, words]) => words.map((w) => [w, s] as const)))

const hash = (s: string) => {
  let h = 2166136261
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0
  return h
}

/** The stand-in's embedding of a text: subjects weigh 1, other words 0.3 each; not unit length. */
export const embedText = (text: string, dims = 64): number[] => {
  const v: number[] = new Array<number>(dims).fill(0)
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (STOP.has(w)) continue
    const subject = subjectOf.get(w)
    v[hash(subject ?? `w:${w}`) % dims]! += subject ? 1 : 0.3
  }
  // A text of no known word still gets a direction of its own.
  if (!v.some((x) => x !== 0)) v[hash(text) % dims] = 1
  return v.map((x) => x * 3)
}

/** The default chat answer: one bullet per line of the conversation (3 to 6), as a model would. */
const bulletsFrom = (userContent: string) => {
  const lines = /<conversation>\n([\s\S]*)\n<\/conversation>/.exec(userContent)?.[1]?.split('\n') ?? []
  const bullets = lines.slice(0, 6).map((l) => `- ${l.replace(/^(Customer|Agent|Internal note): /, '')}`)
  while (bullets.length < 3) bullets.push('- No further points.')
  return `Here is the summary:\n${bullets.join('\n')}`
}

const openAiError = (res: http.ServerResponse, status: number, message: string, code: string | null) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ error: { message, type: 'invalid_request_error', param: null, code } }))
}

export const startOpenAiStandIn = async (key = 'sk-test-standin'): Promise<StandIn> => {
  const requests: Recorded[] = []
  const queues: Record<'chat' | 'embeddings', Fault[]> = { chat: [], embeddings: [] }
  const held = new Set<http.ServerResponse>()
  let chatAnswer: ((u: string) => string) | null = null

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const path = req.url ?? ''
      let body: Record<string, unknown> = {}
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>
      } catch {
        return openAiError(res, 400, 'We could not parse the JSON body of your request.', null)
      }
      requests.push({ path, headers: req.headers, body })
      const kind = path === '/v1/chat/completions' ? 'chat' : path === '/v1/embeddings' ? 'embeddings' : null
      if (req.method !== 'POST' || kind === null)
        return openAiError(res, 404, `Unknown request URL: ${path}`, null)
      if (req.headers.authorization !== `Bearer ${key}`)
        return openAiError(res, 401, 'Incorrect API key provided.', 'invalid_api_key')
      const fault = queues[kind].shift()
      if (fault?.kind === 'hang') {
        held.add(res)
        res.on('close', () => held.delete(res))
        return
      }
      if (fault?.kind === 'status') {
        res.writeHead(fault.status, {
          'content-type': 'application/json',
          ...(fault.retryAfter !== undefined ? { 'retry-after': String(fault.retryAfter) } : {}),
        })
        return res.end(
          JSON.stringify({ error: { message: 'The server had an error', type: 'server_error' } }),
        )
      }
      if (fault?.kind === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(fault.body)
      }
      if (typeof body.model !== 'string' || body.model === '')
        return openAiError(res, 400, 'you must provide a model parameter', null)
      if (kind === 'chat') {
        const messages = body.messages
        if (!Array.isArray(messages) || messages.length === 0)
          return openAiError(res, 400, "'messages' must be a non-empty array", null)
        const user = [...messages].reverse().find((m: { role?: string }) => m.role === 'user') as
          | { content?: string }
          | undefined
        const content = (chatAnswer ?? bulletsFrom)(user?.content ?? '')
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(
          JSON.stringify({
            id: `chatcmpl-${requests.length}`,
            object: 'chat.completion',
            created: Math.floor(Date.now() / 1000),
            model: body.model,
            choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
          }),
        )
      }
      const input = typeof body.input === 'string' ? [body.input] : body.input
      if (!Array.isArray(input) || input.length === 0 || !input.every((x) => typeof x === 'string'))
        return openAiError(res, 400, "'input' must be a string or a non-empty array of strings", null)
      const dims = typeof body.dimensions === 'number' ? body.dimensions : 64
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end(
        JSON.stringify({
          object: 'list',
          // Answered in reverse order: clients must place each by its `index`.
          data: input
            .map((text, index) => ({
              object: 'embedding',
              index,
              embedding: embedText(text as string, dims),
            }))
            .reverse(),
          model: body.model,
          usage: { prompt_tokens: input.length, total_tokens: input.length },
        }),
      )
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}/v1`,
    key,
    requests,
    script: (path, ...faults) => queues[path].push(...faults),
    chatAnswer: (f) => {
      chatAnswer = f
    },
    hanging: () => held.size,
    close: async () => {
      for (const res of held) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** The environment that points a test server at the stand-in. */
export const aiEnv = (s: StandIn, extra: Record<string, string> = {}): Record<string, string> => ({
  AI_BASE_URL: s.url,
  AI_API_KEY: s.key,
  AI_CHAT_MODEL: 'standin-chat',
  AI_EMBEDDING_MODEL: 'standin-embed',
  AI_TIMEOUT_MS: '400',
  AI_RETRIES: '1',
  AI_RETRY_BASE_MS: '10',
  KB_EMBED_POLL_MS: '40',
  KB_EMBED_RETRY_BASE_MS: '10',
  ...extra,
})
