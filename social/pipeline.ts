import type { SqlError } from '@effect/sql/SqlError'
import { Effect, Either, Exit } from 'effect'
import { ApiError } from '../actors/errors'
import { pickLocale } from '../actors/i18n'
import { Log } from '../engine/log'
import { MetricsTag } from '../engine/metrics'
import { RateLimiter } from '../engine/ratelimit/RateLimiter'
import { JSON_TYPE, type ResponseMeta as Meta } from '../http/envelope'
import { failureResponse, type Incoming, type Outgoing, requestIdFor } from '../http/pipeline'
import { parseQuery } from '../http/request'
import type { Reply } from '../http/route'
import type { Router } from '../http/router'
import { decode } from '../http/validation'
import './messages'
import type { SocialRoute, SocialServices } from './route'
import * as Keys from './store/keys'

/**
 * The request path of the social service. Order of checks: route (unknown path 404, any method
 * but the routed one 405 with `Allow`) → key (401) → rate limit (429) → plan (402) → path
 * parameters (404) → query (422) → handler. Every response to a request with an active key
 * carries `X-RateLimit-Limit` and `X-RateLimit-Remaining`, even a 404 or 405: such a request
 * counts against the key's budget too.
 */

/** Requests per minute per key (spec 3 §8). */
export const RATE_LIMIT = 60

const bearer = (header: string | undefined): string | null => {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m && Keys.KEY_PATTERN.test(m[1]!) ? m[1]! : null
}

const unauthorized = new ApiError({ code: 'unauthorized' })

/** Counts the hit and adds the rate headers; over the budget fails with 429 and `Retry-After`. */
const rateLimit = (keyId: number, meta: Meta) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const r = yield* limiter.hit(`key:${keyId}`, RATE_LIMIT)
    meta.headers.push(['X-RateLimit-Limit', String(r.limit)], ['X-RateLimit-Remaining', String(r.remaining)])
    if (!r.allowed) {
      const seconds = Math.max(1, Math.ceil((r.resetAtMs - Date.now()) / 1000))
      return yield* Effect.fail(
        new ApiError({
          code: 'rate_limited',
          params: { seconds },
          headers: { 'Retry-After': String(seconds) },
        }),
      )
    }
  })

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
    if (route.access === 'public')
      return yield* route.handler({ ...requestOf(req, params, meta), body: req.body })
    const secret = bearer(req.headers.get('authorization'))
    if (!secret) return yield* Effect.fail(unauthorized)
    const cred = yield* Keys.authenticate(secret)
    if (!cred) return yield* Effect.fail(unauthorized)
    yield* rateLimit(cred.key_id, meta)
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
    if (cred) yield* rateLimit(cred.key_id, meta)
    return yield* Effect.fail(err)
  })

const toOutgoing = (reply: Reply, meta: Meta): Outgoing => {
  const headers = [...meta.headers]
  for (const [k, v] of Object.entries(reply.headers ?? {})) headers.push([k, v])
  if (reply._tag === 'Raw') {
    headers.push(['Content-Type', reply.contentType])
    return { status: reply.status, headers, body: reply.body }
  }
  headers.push(['Content-Type', JSON_TYPE])
  const body = reply.meta === undefined ? { data: reply.data } : { data: reply.data, meta: reply.meta }
  return { status: reply.status, headers, body: JSON.stringify(body) }
}

/** Never fails: faults become 500 `server_error` and are logged with the request id. */
export const handle = (
  router: Router<SocialRoute>,
  req: Incoming,
): Effect.Effect<Outgoing, never, SocialServices> =>
  Effect.gen(function* () {
    const started = performance.now()
    const log = yield* Log
    const metrics = yield* MetricsTag
    const incomingId = req.headers.get('x-request-id')
    const requestId = requestIdFor(incomingId)
    const meta: Meta = {
      headers: [
        ['X-Request-Id', requestId],
        ['Cache-Control', 'no-store'],
      ],
      locale: pickLocale(req.headers.get('x-locale')),
      requestId,
    }
    const match = router.match(req.method, req.path)
    const routeLabel = match._tag === 'Found' ? match.value.path : 'unmatched'
    const program: Effect.Effect<Reply, ApiError | SqlError, SocialServices> =
      match._tag === 'Found'
        ? run(match.value, match.params, req, meta)
        : refuse(
            match._tag === 'NotFound'
              ? new ApiError({ code: 'not_found' })
              : new ApiError({ code: 'method_not_allowed', headers: { Allow: match.allow.join(', ') } }),
            req,
            meta,
          )
    const exit = yield* Effect.exit(program)
    let out: Outgoing
    if (Exit.isSuccess(exit)) {
      out = toOutgoing(exit.value, meta)
    } else {
      out = failureResponse(exit.cause, meta, log, { route: routeLabel, method: req.method })
    }
    metrics.httpRequests.inc({ method: req.method, route: routeLabel, status: String(out.status) })
    metrics.httpDuration.observe(
      { method: req.method, route: routeLabel },
      (performance.now() - started) / 1000,
    )
    return out
  })

/** The answer to a body over the size limit, given before the pipeline reads it. */
export { tooLarge } from '../http/pipeline'
