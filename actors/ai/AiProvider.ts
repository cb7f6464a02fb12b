import { Context, Data, Effect } from 'effect'

/**
 * An AI provider: chat completions (the conversation summary) and text embeddings (the knowledge
 * base's semantic search). The domain (actors/ai/requests.ts, actors/kb/, actors/inbox/summary.ts)
 * only talks to this interface.
 *
 * Guarantees every adapter keeps:
 * - One call is one request as the caller sees it (the AI quota counts calls, not attempts): an
 *   adapter may retry a timeout, a refused connection, 429 or 5xx with backoff inside a call.
 * - A call either answers a well-formed result or fails with `AiError` (the provider failed, timed
 *   out, or answered something malformed: 502 `ai_error`, quota not used) or `AiUnavailable` (no
 *   provider set up on this server: 503 `ai_unavailable`). Nothing is thrown.
 * - `embed` answers one unit-length vector per input, in input order, all of one length.
 * - `chat` keeps roles apart: the caller's `system` message carries the instructions and only
 *   `user` messages carry customer or agent text, so message text never becomes an instruction.
 * - Calls are interruptible: an interrupted call aborts its HTTP request.
 *
 * Adapters (connectors/ai): `AiProviderOpenAi` (any OpenAI-compatible HTTP API: OpenAI, Ollama,
 * llama.cpp, vLLM…, configured by `AI_*` variables), and `off` when none is configured. The
 * server's services take another layer of this tag as the `aiProvider` option (http/app.ts).
 */
export class AiError extends Data.TaggedError('AiError')<{ readonly reason: string }> {}

export class AiUnavailable extends Data.TaggedError('AiUnavailable')<{}> {}

export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant'
  readonly content: string
}

export interface ChatOptions {
  readonly maxTokens?: number
  readonly temperature?: number
}

export interface AiProviderShape {
  /** False for `off`: every call fails with `AiUnavailable`. */
  readonly configured: boolean
  /** The embedding model's name, stored with every chunk (null when off). */
  readonly embeddingModel: string | null
  readonly chat: (
    messages: readonly ChatMessage[],
    options?: ChatOptions,
  ) => Effect.Effect<string, AiError | AiUnavailable>
  readonly embed: (
    texts: readonly string[],
  ) => Effect.Effect<ReadonlyArray<ReadonlyArray<number>>, AiError | AiUnavailable>
}

export class AiProvider extends Context.Tag('kotak/AiProvider')<AiProvider, AiProviderShape>() {}

/** No provider on this server. */
export const off: AiProviderShape = {
  configured: false,
  embeddingModel: null,
  chat: () => Effect.fail(new AiUnavailable()),
  embed: () => Effect.fail(new AiUnavailable()),
}

/** Scales a vector to length 1 (cosine similarity is then a dot product on both storages). */
export const unit = (v: ReadonlyArray<number>): number[] => {
  let sum = 0
  for (const x of v) sum += x * x
  const norm = Math.sqrt(sum)
  return norm === 0 ? v.map(() => 0) : v.map((x) => x / norm)
}
