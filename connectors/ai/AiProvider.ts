import { Effect, Layer } from 'effect'
import { AiProvider, off } from '../../actors/ai/AiProvider'
import { Config } from '../../engine/config'
import { Log } from '../../engine/log'
import * as AiProviderOpenAi from './AiProviderOpenAi'

/**
 * The adapters of the AI port (actors/ai/AiProvider.ts): the OpenAI-compatible HTTP API when
 * `AI_BASE_URL` is set, else `off` (AI features answer 503 `ai_unavailable`). No model ships with
 * the server (docs/decisions.md, "Knowledge base"): semantic search needs a provider.
 */
export const layer = Layer.effect(
  AiProvider,
  Effect.gen(function* () {
    const cfg = yield* Config
    const log = yield* Log
    if (!cfg.ai) {
      log.info('ai provider', { provider: 'off' })
      return off
    }
    log.info('ai provider', {
      provider: 'openai-compatible',
      base_url: cfg.ai.baseUrl,
      chat_model: cfg.ai.chatModel,
      embedding_model: cfg.ai.embeddingModel,
    })
    return AiProviderOpenAi.make(cfg.ai)
  }),
)
