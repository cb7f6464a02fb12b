import type { SqlError } from '@effect/sql/SqlError'
import { Effect, Either } from 'effect'
import { ApiError } from '../actors/errors'
import type { ResponseMeta as Meta } from '../http/envelope'
import { type Incoming, makeHandle, rateLimit } from '../http/pipeline'
import { parseQuery } from '../http/request'
import type { Reply } from '../http/route'
import { decode } from '../http/validation'
import './messages'
import type { SocialRoute, SocialServices } from './route'
import { WEBHOOK_PATH } from './routes/webhooks'
import * as Keys from './store/keys'

/**
 * The social service's steps of the shared request pipeline (http/pipeline.ts). Order of checks:
 * route (unknown path 404, any method but the routed one 405 with `Allow`) → key (401) → rate
 * limit (429) → plan (402) → path parameters (404) → query (422) → handler. Every response to a
 * request with an active key carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`, even a 404
 * or 405: such a request counts against the key's budget too.
 */

/** Requests per minute per key (spec 3 §8). */
export const RATE_LIMIT = 60

const bearer = (header: string | undefined): string | null => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m && Keys.KEY_PATTERN.test(m[1]!) ? m[1]! : null
}

const unauthorized = new ApiError({ code: 'unauthorized' })

const requestOf = (req: Incoming, params: Readonly<Record<string, string>>, meta: Meta) => ({
  method: req.method,
  path: req.path,
  params,
  rawQuery: req.query,
  locale: meta.locale,
  requestId: meta.requestId,
  header: (name: string) => req.headers.get(name.toLowerCase()),
})

const run = (
  route: SocialRoute,
  params: Readonly<Record<string, string>>,
  req: Incoming,
  meta: Meta,
): Effect.Effect<Reply, ApiError | SqlError, SocialServices> =>
  Effect.gen(function* () {
    // Public routes (health, metrics, the platform's webhook) have no key and no budget.
    if (route.access === 'public')
      return yield* route.handler({ ...requestOf(req, params, meta), body: req.body })
    const secret = bearer(req.headers.get('authorization'))
    if (!secret) return yield* Effect.fail(unauthorized)
    const cred = yield* Keys.authenticate(secret)
    if (!cred) return yield* Effect.fail(unauthorized)
    yield* rateLimit(`key:${cred.key_id}`, RATE_LIMIT, meta)
    if (!cred.plan_active) {
      return yield* Effect.fail(new ApiError({ code: 'plan_required', message: 'social.plan_required' }))
    }
    const decoded = route.query ? decode(route.query, parseQuery(req.query), 'query') : Either.right({})
    if (Either.isLeft(decoded)) return yield* Effect.fail(decoded.left)
    return yield* route.handler({
      ...requestOf(req, params, meta),
      query: decoded.right,
      workspaceId: cred.workspace_id,
      keyId: cred.key_id,
    })
  })

/** A 404 or 405 for a request that may carry an active key: the key is counted and told its budget. */
const refuse = (err: ApiError, req: Incoming, meta: Meta) =>
  Effect.gen(function* () {
    const secret = bearer(req.headers.get('authorization'))
    const cred = secret ? yield* Keys.authenticate(secret) : null
    if (cred) yield* rateLimit(`key:${cred.key_id}`, RATE_LIMIT, meta)
    return yield* Effect.fail(err)
  })

/**
 * The route classes of the metrics (http/routeClass.ts has the service API's): the platform's
 * webhook is `channel`, the other public routes `system`, the keyed API `read` (it only reads).
 */
const classify = (route: SocialRoute): string =>
  route.access === 'key' ? 'read' : route.path === WEBHOOK_PATH ? 'channel' : 'system'

/** The path of every request of the social service. Never fails. */
export const handle = makeHandle<SocialRoute, SocialServices>({ run, refuse, classify })

/** The answer to a body over the size limit, given before the pipeline reads it. */
export { tooLarge } from '../http/pipeline'
