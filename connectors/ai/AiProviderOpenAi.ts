import { Duration, Effect, Schedule } from 'effect'
import {
  AiError,
  type AiProviderShape,
  type ChatMessage,
  type ChatOptions,
  unit,
} from '../../actors/ai/AiProvider'
import { systemMillis } from '../../engine/clock'
import type { AiConfig } from '../../engine/config'

/**
 * The AI port over an OpenAI-compatible HTTP API (`POST {base}/chat/completions` and
 * `POST {base}/embeddings`), which OpenAI and the usual local servers (Ollama, llama.cpp, vLLM,
 * LM Studio) all speak. Each attempt waits at most `timeoutMs`; a timeout, a refused connection,
 * 429 or 5xx is tried again up to `retries` times, waiting `retryBaseMs` doubled each time (or the
 * provider's `Retry-After`, at most 30 s). Any other answer that is not well formed fails at once.
 */

/** Whether another attempt may help. */
class Attempt extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
  }
}

const EMBED_BATCH = 64

const retryAfter = (res: Response): number | null => {
  const h = res.headers.get('retry-after')
  if (!h) return null
  const s = Number(h)
  if (Number.isFinite(s)) return Math.min(30_000, Math.max(0, s * 1000))
  const at = Date.parse(h)
  // The provider's date against this process's clock (no WallClock instance here).
  return Number.isNaN(at) ? null : Math.min(30_000, Math.max(0, at - systemMillis()))
}

/** The provider's own error text, short, for the log (never shown to API callers). */
const errorText = (body: string) => {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string }
    const m = typeof j.error === 'string' ? j.error : j.error?.message
    if (typeof m === 'string') return m.slice(0, 200)
  } catch {
    // not JSON
  }
  return body.slice(0, 200)
}

export const make = (cfg: AiConfig): AiProviderShape => {
  const post = (path: string, payload: unknown) => {
    const once = Effect.tryPromise({
      try: async (signal) => {
        const ctrl = new AbortController()
        const onAbort = () => ctrl.abort()
        signal.addEventListener('abort', onAbort)
        const timer = setTimeout(() => ctrl.abort(), cfg.timeoutMs)
        try {
          let res: Response
          try {
            res = await fetch(`${cfg.baseUrl}${path}`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                accept: 'application/json',
                ...(cfg.apiKey ? { authorization: `Bearer ${cfg.apiKey}` } : {}),
              },
              body: JSON.stringify(payload),
              signal: ctrl.signal,
            })
          } catch (e) {
            throw new Attempt(
              ctrl.signal.aborted ? `no answer within ${cfg.timeoutMs} ms` : `unreachable: ${String(e)}`,
              true,
            )
          }
          let text: string
          try {
            text = await res.text()
          } catch {
            throw new Attempt(`answer cut off or later than ${cfg.timeoutMs} ms`, true)
          }
          if (!res.ok) {
            const retryable = res.status === 408 || res.status === 429 || res.status >= 500
            throw new Attempt(`HTTP ${res.status}: ${errorText(text)}`, retryable, retryAfter(res))
          }
          try {
            return JSON.parse(text) as unknown
          } catch {
            throw new Attempt('the answer is not JSON', false)
          }
        } finally {
          clearTimeout(timer)
          signal.removeEventListener('abort', onAbort)
        }
      },
      catch: (e) => (e instanceof Attempt ? e : new Attempt(String(e), false)),
    })
    const delays = Schedule.exponential(Duration.millis(cfg.retryBaseMs), 2).pipe(
      Schedule.jittered,
      Schedule.intersect(Schedule.recurs(cfg.retries)),
    )
    return once.pipe(
      Effect.tapError((e) =>
        e.retryable && e.retryAfterMs !== null ? Effect.sleep(Duration.millis(e.retryAfterMs)) : Effect.void,
      ),
      Effect.retry({ schedule: delays, while: (e) => e.retryable }),
      Effect.mapError((e) => new AiError({ reason: `${path}: ${e.message}` })),
    )
  }

  const malformed = (path: string, what: string) => Effect.fail(new AiError({ reason: `${path}: ${what}` }))

  const chat = (messages: readonly ChatMessage[], options: ChatOptions = {}) =>
    Effect.flatMap(
      post('/chat/completions', {
        model: cfg.chatModel,
        messages: messages.map((m) => ({ role: m.role, content: m.content })),
        temperature: options.temperature ?? 0.2,
        ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
        stream: false,
      }),
      (body) => {
        const choice = (body as { choices?: Array<{ message?: { content?: unknown } }> } | null)?.choices?.[0]
        const content = choice?.message?.content
        if (typeof content !== 'string' || content.trim() === '')
          return malformed('/chat/completions', 'no choices[0].message.content in the answer')
        return Effect.succeed(content)
      },
    )

  const embedBatch = (texts: readonly string[]) =>
    Effect.flatMap(
      post('/embeddings', {
        model: cfg.embeddingModel,
        input: texts,
        encoding_format: 'float',
        ...(cfg.dimensions ? { dimensions: cfg.dimensions } : {}),
      }),
      (body) => {
        const data = (body as { data?: unknown } | null)?.data
        if (!Array.isArray(data) || data.length !== texts.length)
          return malformed('/embeddings', `expected ${texts.length} embeddings in data`)
        const byIndex = new Array<number[] | undefined>(texts.length)
        for (const [i, item] of data.entries()) {
          // Any JSON value may stand here (`null` too): read as an object with nothing in it.
          const d = (typeof item === 'object' && item !== null ? item : {}) as {
            index?: unknown
            embedding?: unknown
          }
          const at = typeof d.index === 'number' ? d.index : i
          const e = d.embedding
          if (
            !Number.isInteger(at) ||
            at < 0 ||
            at >= texts.length ||
            byIndex[at] !== undefined ||
            !Array.isArray(e) ||
            e.length === 0 ||
            !e.every((x) => typeof x === 'number' && Number.isFinite(x))
          )
            return malformed('/embeddings', `embedding ${i} is not a list of numbers`)
          byIndex[at] = e as number[]
        }
        const vectors = byIndex as number[][]
        const dims = cfg.dimensions ?? vectors[0]!.length
        if (vectors.some((v) => v.length !== dims))
          return malformed('/embeddings', `embeddings are not all ${dims} numbers long`)
        return Effect.succeed(vectors.map(unit))
      },
    )

  return {
    configured: true,
    embeddingModel: cfg.embeddingModel,
    chat,
    embed: (texts) =>
      Effect.map(
        Effect.forEach(
          Array.from({ length: Math.ceil(texts.length / EMBED_BATCH) }, (_, i) =>
            texts.slice(i * EMBED_BATCH, (i + 1) * EMBED_BATCH),
          ),
          embedBatch,
        ),
        (batches) => batches.flat(),
      ),
  }
}
