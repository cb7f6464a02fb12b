import { Effect } from 'effect'
import { ApiError } from '../../actors/errors'
import { systemTime } from '../../engine/clock'
import { safeEqual } from '../../engine/tokens'
import { raw } from '../../http/route'
import { SocialConfig } from '../config'
import { ingest, parsePayload, verifySignature } from '../instagram'
import { envelope, publicRoute } from '../route'

/**
 * The platform's webhook, outside `/api/v1` (the API itself is read-only):
 * `GET /webhooks/instagram` answers the subscription handshake, `POST` takes notifications signed
 * with the app secret. Without INSTAGRAM_APP_SECRET / INSTAGRAM_VERIFY_TOKEN both answer 404.
 */
export const WEBHOOK_PATH = '/webhooks/instagram'

const disabled = new ApiError({ code: 'not_found', message: 'social.webhook.disabled' })

export const routes = [
  publicRoute({
    method: 'GET',
    path: WEBHOOK_PATH,
    handler: (req) =>
      Effect.gen(function* () {
        const cfg = yield* SocialConfig
        if (!cfg.verifyToken) return yield* Effect.fail(disabled)
        const q = new URLSearchParams(req.rawQuery)
        const challenge = q.get('hub.challenge')
        const token = q.get('hub.verify_token') ?? ''
        if (
          q.get('hub.mode') !== 'subscribe' ||
          !challenge ||
          challenge.length > 512 ||
          !safeEqual(token, cfg.verifyToken)
        ) {
          return yield* Effect.fail(
            new ApiError({ code: 'forbidden', message: 'social.webhook.verify_token' }),
          )
        }
        // The challenge is echoed as plain text that browsers must not sniff into HTML.
        return {
          ...raw(200, 'text/plain; charset=utf-8', challenge),
          headers: { 'X-Content-Type-Options': 'nosniff' },
        }
      }),
  }),
  publicRoute({
    method: 'POST',
    path: WEBHOOK_PATH,
    handler: (req) =>
      Effect.gen(function* () {
        const cfg = yield* SocialConfig
        if (!cfg.appSecret) return yield* Effect.fail(disabled)
        const body = req.body ?? new Uint8Array()
        if (!verifySignature(cfg.appSecret, body, req.header('x-hub-signature-256'))) {
          return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'social.webhook.signature' }))
        }
        const payload = parsePayload(body)
        if (!payload) {
          return yield* Effect.fail(
            new ApiError({ code: 'validation_error', message: 'social.webhook.payload' }),
          )
        }
        return envelope(yield* ingest(payload, yield* systemTime))
      }),
  }),
]
