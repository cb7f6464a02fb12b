import { Cause, Context, Effect, Exit } from 'effect'
import { ApiError, apiAnswer, isAnswerable, rateLimitedUntil } from '../actors/errors'
import { pickLocale } from '../actors/i18n'
import { ActorDefect, ActorLoadFailed, ActorStopped } from '../engine/actor/Actor'
import { systemMillis } from '../engine/clock'
import { Log, type Logger } from '../engine/log'
import { MetricsTag } from '../engine/metrics'
import { RateLimiter, type RateLimiterShape, type RateLimitResult } from '../engine/ratelimit/RateLimiter'
import { attempt, onExit, withServices } from '../engine/step'
import { randomToken } from '../engine/tokens'
import { DatabaseDown, unavailableIn } from '../store/pool'
import { dataBody, errorResponse, JSON_TYPE, type ResponseMeta as Meta } from './envelope'
import { incoming } from './request'
import type { Reply } from './route'
import type { Router } from './router'
import type { Incoming, Outgoing } from './server'

export type { Incoming, Outgoing } from './server'

/**
 * The one request pipeline of both services (the service API, `http/apiPipeline.ts`, and the
 * social reporting service, `social/pipeline.ts`): request id, locale, route match (404, 405 with
 * `Allow`, `HEAD` as the path's `GET`), the service's own steps, the envelope, the mapping of
 * failures, metrics. What differs between the services (credentials, budgets, plans, decoding)
 * is the `ServiceSteps` each hands in; everything a client sees of HTTP itself is decided here
 * once.
 */

/** The least a route must say for the pipeline: its path, the label of its metrics. */
export interface RouteLike {
  readonly path: string
}

/** What a service plugs into the pipeline. */
export interface ServiceSteps<Rt extends RouteLike, R> {
  /**
   * A matched route: the service's credential, rate limit, access and decoding, then the handler.
   * A `HEAD` arrives here as the `GET` it is answered by (a read, for CSRF and scopes alike).
   * Headers pushed on `meta` go out with the answer, whether it succeeds or fails.
   */
  readonly run: (
    route: Rt,
    params: Readonly<Record<string, string>>,
    req: Incoming,
    meta: Meta,
    services: Context.Context<R>,
  ) => Effect.Effect<Reply, unknown, R>
  /**
   * A request that matched no route (404) or not with its method (405), before it is refused
   * with `error`: the social service counts it against the caller's key. Default: refused at once.
   */
  readonly refuse?: (error: ApiError, req: Incoming, meta: Meta) => Effect.Effect<never, unknown, R>
  /**
   * The class of a route in the metrics (`class` label): a handful of values that alerts and
   * dashboards group by, where the route template is too fine. Default: `read` for GET and HEAD,
   * else `write`. A request that matched no route is `unmatched`.
   */
  readonly classify?: (route: Rt, method: string) => string
}

const byMethod = (_route: unknown, method: string): string =>
  method === 'GET' || method === 'HEAD' ? 'read' : 'write'

// Request ids: a random per-process prefix and a counter; unique without a random draw per request.
const idPrefix = randomToken(6)
let idCounter = 0
const nextRequestId = () => `${idPrefix}-${(++idCounter).toString(36)}`

/** A caller's `X-Request-Id` when it is sane, else a new one. */
export const requestIdFor = (incoming: string | undefined) =>
  incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : nextRequestId()

/**
 * Counts a hit against `key`'s budget of `limit` a minute and adds the rate headers; over the
 * budget fails with 429 `rate_limited` and `Retry-After` (the seconds to the next window).
 */
export const rateLimit = (key: string, limit: number, meta: Meta) =>
  Effect.flatMap(RateLimiter, (limiter) => rateLimitWith(limiter, key, limit, meta))

/** `rateLimit` with the limiter at hand: done at once when the limiter counts in memory. */
export const rateLimitWith = (
  limiter: RateLimiterShape,
  key: string,
  limit: number,
  meta: Meta,
): Effect.Effect<void, ApiError> => {
  const counted = (r: RateLimitResult): Effect.Effect<void, ApiError> => {
    meta.headers.push(['X-RateLimit-Limit', String(r.limit)], ['X-RateLimit-Remaining', String(r.remaining)])
    // The limiter's clock, read synchronously (this runs on every request).
    return r.allowed ? Effect.void : Effect.fail(rateLimitedUntil(r.resetAtMs, systemMillis()))
  }
  return limiter.hitNow
    ? counted(limiter.hitNow(key, limit))
    : Effect.flatMap(limiter.hit(key, limit), counted)
}

/**
 * The largest body the transport reads for a request: the route's `multipart.maxBytes` when it
 * takes uploads, else the JSON limit.
 */
export const bodyLimitFor =
  <Rt extends Streaming & { readonly multipart?: { readonly maxBytes: number } | undefined }>(
    router: Router<Rt>,
    jsonLimit: number,
  ) =>
  (method: string, path: string): number => {
    const match = router.match(method, path)
    const upload =
      match._tag === 'Found'
        ? (match.value.multipart?.maxBytes ?? match.value.streamBody?.maxBytes)
        : undefined
    return upload === undefined ? jsonLimit : Math.max(upload, jsonLimit)
  }

interface Streaming {
  readonly streamBody?: { readonly maxBytes: number } | undefined
}

/** Whether the transport should hand a request's body over as a stream (routes with `streamBody`). */
export const streamsBodyFor =
  <Rt extends Streaming>(router: Router<Rt>) =>
  (method: string, path: string): boolean => {
    const match = router.match(method, path)
    return match._tag === 'Found' && match.value.streamBody !== undefined
  }

const toOutgoing = (reply: Reply, meta: Meta): Outgoing => {
  let headers = meta.headers
  if (reply.headers) {
    // A reply's own header replaces the pipeline's default of the same name (Cache-Control of assets).
    const own = new Set(Object.keys(reply.headers).map((k) => k.toLowerCase()))
    headers = headers.filter(([k]) => !own.has(k.toLowerCase()))
    for (const [k, v] of Object.entries(reply.headers)) headers.push([k, v])
  }
  for (const c of reply.cookies ?? []) headers.push(['Set-Cookie', c])
  if (reply._tag === 'Raw') {
    headers.push(['Content-Type', reply.contentType])
    return {
      status: reply.status,
      headers,
      body: reply.body,
      ...(reply.stream ? { stream: reply.stream } : {}),
    }
  }
  headers.push(['Content-Type', JSON_TYPE])
  return { status: reply.status, headers, body: dataBody(reply.data, reply.meta) }
}

const refuseAtOnce = (error: ApiError) => Effect.fail(error)

const notFound = new ApiError({ code: 'not_found' })

/**
 * A service's request handler: never fails; faults become 500 `server_error` and are logged with
 * the request id. Called as `handle(router, req)` it is an effect like any other (tests run it);
 * `handle.withServices(services)` is the same handler with the node's services looked up once,
 * which the transport runs through `runFast`: its steps are plain functions that go on at once
 * when nothing waits (engine/step.ts), so a request answered from memory starts no fiber.
 */
export interface Handle<Rt, R> {
  (router: Router<Rt>, req: Incoming): Effect.Effect<Outgoing, never, R | Log | MetricsTag>
  readonly withServices: (
    services: Context.Context<R | Log | MetricsTag>,
  ) => (router: Router<Rt>, req: Incoming) => Effect.Effect<Outgoing, never, R | Log | MetricsTag>
}

export const makeHandle = <Rt extends RouteLike, R>(steps: ServiceSteps<Rt, R>): Handle<Rt, R> => {
  const classify = steps.classify ?? byMethod
  const classOf = (route: Rt | undefined, method: string): string =>
    route === undefined ? 'unmatched' : classify(route, method)
  const respond = (
    services: Context.Context<R | Log | MetricsTag>,
    router: Router<Rt>,
    req: Incoming,
  ): Effect.Effect<Outgoing, never, R | Log | MetricsTag> =>
    // The services are there for the steps that ask for one (engine/step.ts), here and in the
    // callbacks that go on with a reply.
    withServices(services, () => respondWith(services, router, req))
  const respondWith = (
    services: Context.Context<R | Log | MetricsTag>,
    router: Router<Rt>,
    req: Incoming,
  ): Effect.Effect<Outgoing, never, R | Log | MetricsTag> =>
    attempt(() => {
      const started = performance.now()
      const log = Context.get(services as Context.Context<Log>, Log)
      const metrics = Context.get(services as Context.Context<MetricsTag>, MetricsTag)
      const requestId = requestIdFor(req.headers.get('x-request-id'))
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
      const refuse = steps.refuse ?? refuseAtOnce
      const program = attempt(() =>
        match._tag === 'Found'
          ? steps.run(
              match.value,
              match.params,
              req.method === 'HEAD'
                ? incoming('GET', req.path, req.query, req.headers, req.ip, req.body, req.bodyStream)
                : req,
              meta,
              services,
            )
          : refuse(
              match._tag === 'NotFound'
                ? notFound
                : new ApiError({ code: 'method_not_allowed', headers: { Allow: match.allow.join(', ') } }),
              req,
              meta,
            ),
      )
      return onExit(program, (exit) => {
        const out = Exit.isSuccess(exit)
          ? toOutgoing(exit.value, meta)
          : failureResponse(exit.cause, meta, log, { route: routeLabel, method: req.method })
        metrics.recordHttp(
          req.method,
          routeLabel,
          out.status,
          (performance.now() - started) / 1000,
          match._tag === 'Found' ? match.value : undefined,
          classOf,
        )
        return out
      })
    })
  const handle = (router: Router<Rt>, req: Incoming) =>
    Effect.contextWithEffect((services: Context.Context<R | Log | MetricsTag>) =>
      respond(services, router, req),
    )
  return Object.assign(handle, {
    withServices: (services: Context.Context<R | Log | MetricsTag>) => (router: Router<Rt>, req: Incoming) =>
      respond(services, router, req),
  })
}

/**
 * The answer to a failed request: its ApiError as such, a domain error with the answer it carries
 * (actors/errors.ts `Answerable`); an actor that is stopping or cannot load
 * its state as 503 (safe to retry); anything else as 500 `server_error`, logged with the cause.
 */
export const failureResponse = (
  cause: Cause.Cause<unknown>,
  meta: Meta,
  log: Logger,
  context: { readonly route: string; readonly method: string },
): Outgoing => {
  const failure = Cause.failureOption(cause)
  const error = failure._tag === 'Some' ? failure.value : undefined
  if (error instanceof ApiError) return errorResponse(error, meta)
  if (isAnswerable(error)) return errorResponse(error[apiAnswer](), meta)
  if (error instanceof ActorStopped || error instanceof ActorLoadFailed) {
    log.warn('actor unavailable', { request_id: meta.requestId, ...context, error: error.message })
    return errorResponse(new ApiError({ code: 'unavailable', headers: { 'Retry-After': '1' } }), meta)
  }
  // The database busy past the pool's bound, or out of reach: the request held nothing after
  // failing (its transaction rolled back), and the same request may succeed in a moment. Out of
  // reach, the probe looks four times a second and service resumes at its first answer.
  const busy = unavailableIn(error ?? Cause.squash(cause), (e) =>
    e instanceof ActorDefect ? Cause.squash(e.cause) : (e as { cause?: unknown }).cause,
  )
  if (busy) {
    // A refusal at the closed gate: the outage was logged once, when the probe found it.
    const say = busy.error instanceof DatabaseDown ? log.debug : log.warn
    say('database unavailable', { request_id: meta.requestId, ...context, error: busy.error.message })
    const retryAfter = busy.why === 'down' ? '1' : '2'
    return errorResponse(new ApiError({ code: 'unavailable', headers: { 'Retry-After': retryAfter } }), meta)
  }
  log.error('request failed', {
    request_id: meta.requestId,
    ...context,
    cause:
      error instanceof ActorDefect
        ? `${error.message}: ${Cause.pretty(error.cause)}`
        : error !== undefined
          ? String((error as { cause?: unknown }).cause ?? error)
          : Cause.pretty(cause),
  })
  return errorResponse(new ApiError({ code: 'server_error' }), meta)
}

/** The answer to a body over the size limit, given before the pipeline reads it. */
export const tooLarge = (req: Incoming, limit: number): Outgoing =>
  errorResponse(new ApiError({ code: 'payload_too_large', params: { limit } }), {
    headers: [['X-Request-Id', nextRequestId()]],
    locale: pickLocale(req.headers.get('x-locale')),
    requestId: '',
  })
