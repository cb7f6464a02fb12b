import { Cause, Effect, Either, Exit } from 'effect'
import { ActorDefect, ActorLoadFailed, ActorStopped } from '../engine/actor/Actor'
import { Config } from '../engine/config'
import { Log, type Logger } from '../engine/log'
import { MetricsTag } from '../engine/metrics'
import { RateLimiter } from '../engine/ratelimit/RateLimiter'
import { randomToken, safeEqual } from '../engine/tokens'
import { isPaidActive } from '../store/plans'
import { authenticate, SESSION_COOKIE } from './auth'
import { type Caller, holds } from './caller'
import { authenticateChannel } from './channelKey'
import { dataBody, errorResponse, JSON_TYPE, type ResponseMeta as Meta } from './envelope'
import { ApiError, invalid } from './errors'
import { pickLocale } from './i18n'
import { isMultipart, parseMultipart, type UploadedFile } from './multipart'
import { clientAddress, parseCookies, parseQuery } from './request'
import type { AuthedRequest, Reply, Request, Route, Services } from './route'
import type { Method, Router } from './router'
import { decode } from './validation'
import { authenticateVisitor, type VisitorCredential } from './visitorAuth'

/** A request as the transport hands it over: everything copied out, nothing lazy. */
export interface Incoming {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: ReadonlyMap<string, string>
  readonly body: Uint8Array | null
  /** The body as it arrives, for routes that stream it (`streamBody`); `body` is then null. */
  readonly bodyStream?: AsyncIterable<Uint8Array>
  readonly ip: string
}

export interface Outgoing {
  readonly status: number
  readonly headers: ReadonlyArray<readonly [string, string]>
  readonly body: string | Uint8Array
  /** The rest of a streamed body (a Raw reply's `stream`), written after `body`. */
  readonly stream?: AsyncIterable<Uint8Array>
}

/**
 * Per-minute request budgets of sessions and public callers (our choice, decisions.md). Keys get
 * `RATE_LIMIT_PER_KEY` (spec 1 §8: 120).
 */
export const RATE_LIMITS = { session: 600, public: 300, visitor: 120 } as const

// Request ids: a random per-process prefix and a counter; unique without a random draw per request.
const idPrefix = randomToken(6)
let idCounter = 0
const nextRequestId = () => `${idPrefix}-${(++idCounter).toString(36)}`

/** A caller's `X-Request-Id` when it is sane, else a new one. */
export const requestIdFor = (incoming: string | undefined) =>
  incoming && /^[\w.-]{1,64}$/.test(incoming) ? incoming : nextRequestId()

const decodeJsonBody = (
  body: Uint8Array | null,
  contentType: string | undefined,
): Either.Either<unknown, ApiError> => {
  if (!body || body.length === 0) return Either.right({})
  if (!contentType?.toLowerCase().includes('application/json')) {
    return Either.left(invalid({ body: { key: 'field.content_type' } }))
  }
  try {
    return Either.right(JSON.parse(Buffer.from(body).toString('utf8')))
  } catch {
    return Either.left(invalid({ body: { key: 'field.json' } }))
  }
}

const fromEither = <A>(e: Either.Either<A, ApiError>): Effect.Effect<A, ApiError> =>
  Either.isRight(e) ? Effect.succeed(e.right) : Effect.fail(e.left)

const noFiles: readonly UploadedFile[] = []

/**
 * The request body as the route takes it: JSON through its body schema, or (routes with
 * `multipart`) a form whose text fields go through the same schema and whose files are handed
 * over as they are. A JSON body keeps the JSON limit even on a route that takes large uploads.
 */
const decodeBody = (route: Route, body: Uint8Array | null, contentType: string | undefined) =>
  Effect.gen(function* () {
    if (route.multipart && body && body.length > 0 && isMultipart(contentType)) {
      const form = yield* parseMultipart(body, contentType!, route.multipart)
      const decoded = route.body ? yield* fromEither(decode(route.body, form.fields, 'body')) : undefined
      return { body: decoded, files: form.files }
    }
    if (route.multipart && body && body.length > (yield* Config).maxBodyBytes) {
      return yield* Effect.fail(
        new ApiError({ code: 'payload_too_large', params: { limit: (yield* Config).maxBodyBytes } }),
      )
    }
    const decoded = route.body
      ? yield* fromEither(
          Either.flatMap(decodeJsonBody(body, contentType), (json) => decode(route.body!, json, 'body')),
        )
      : undefined
    return { body: decoded, files: noFiles }
  })

/**
 * The largest body the transport reads for a request: the route's `multipart.maxBytes` when it
 * takes uploads, else the JSON limit.
 */
export const bodyLimitFor =
  (router: Router<Route>, jsonLimit: number) =>
  (method: string, path: string): number => {
    const match = router.match(method, path)
    const upload =
      match._tag === 'Found'
        ? (match.value.multipart?.maxBytes ?? match.value.streamBody?.maxBytes)
        : undefined
    return upload === undefined ? jsonLimit : Math.max(upload, jsonLimit)
  }

/** Whether the transport should hand a request's body over as a stream (routes with `streamBody`). */
export const streamsBodyFor =
  (router: Router<Route>) =>
  (method: string, path: string): boolean => {
    const match = router.match(method, path)
    return match._tag === 'Found' && match.value.streamBody !== undefined
  }

const rateLimit = (key: string, limit: number, meta: Meta) =>
  Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const r = yield* limiter.hit(key, limit)
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

/** Access, plan, frozen state, scope and permission, in the order a caller would expect to hear. */
const authorize = (route: Route, caller: Caller, method: Method, csrfHeader: string | undefined) =>
  Effect.gen(function* () {
    if (route.access === 'P' || route.access === 'C' || route.access === 'V') return
    const mutating = method !== 'GET'
    if (caller.via === 'key' && route.access === 'A') {
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'forbidden.app_only' }))
    }
    if (
      caller.via === 'session' &&
      mutating &&
      !(csrfHeader && safeEqual(csrfHeader, caller.session.csrf_token))
    ) {
      return yield* Effect.fail(new ApiError({ code: 'csrf_mismatch' }))
    }
    const ws = caller.workspace
    if (ws === null) {
      if (route.workspace === 'optional') return
      return yield* Effect.fail(new ApiError({ code: 'workspace_required' }))
    }
    if (caller.via === 'key' && !isPaidActive(ws, new Date())) {
      return yield* Effect.fail(new ApiError({ code: 'plan_required' }))
    }
    if (ws.frozen_at !== null && mutating && !route.whileFrozen) {
      return yield* Effect.fail(new ApiError({ code: 'workspace_frozen' }))
    }
    if (caller.via === 'key' && mutating && caller.scope === 'read') {
      return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'forbidden.read_key' }))
    }
    if (!holds(caller, route.permission)) return yield* Effect.fail(new ApiError({ code: 'forbidden' }))
  })

const run = (route: Route, params: Record<string, string>, incoming: Incoming, meta: Meta) =>
  Effect.gen(function* () {
    const { trustProxy } = yield* Config
    const req: Incoming =
      trustProxy === 0
        ? incoming
        : { ...incoming, ip: clientAddress(incoming.ip, incoming.headers.get('x-forwarded-for'), trustProxy) }
    const method = req.method as Method
    const cookies = parseCookies(req.headers.get('cookie'))
    const header = (name: string) => req.headers.get(name.toLowerCase())
    let caller: Caller | null = null
    let viaChannel: Effect.Effect.Success<ReturnType<typeof authenticateChannel>> | null = null
    let visitor: VisitorCredential | null = null
    if (route.access === 'P') {
      yield* rateLimit(`ip:${req.ip}`, RATE_LIMITS.public, meta)
    } else if (route.access === 'V') {
      // Live chat widget calls: the path's public key and the visitor's token, a budget per visitor.
      yield* rateLimit(`ip:${req.ip}`, RATE_LIMITS.public, meta)
      visitor = yield* authenticateVisitor(params.key, header('authorization'), method)
      yield* rateLimit(`visitor:${visitor.visitor.id}`, RATE_LIMITS.visitor, meta)
    } else if (route.access === 'C') {
      // API channel inbound calls: the channel key, its own budget, plan and frozen state.
      viaChannel = yield* authenticateChannel(header('authorization'))
      yield* rateLimit(`channel:${viaChannel.channel.id}`, (yield* Config).rateLimitPerChannelKey, meta)
      yield* viaChannel.authorize(method)
    } else {
      caller = yield* authenticate(header('authorization'), cookies.get(SESSION_COOKIE))
      if (!header('x-locale')) meta.locale = caller.user.locale
      yield* rateLimit(
        caller.via === 'key' ? `key:${caller.keyId}` : `user:${caller.user.id}`,
        caller.via === 'key' ? (yield* Config).rateLimitPerKey : RATE_LIMITS.session,
        meta,
      )
      yield* authorize(route, caller, method, header('x-csrf-token'))
    }
    // A path parameter that does not fit its schema names nothing that exists.
    const decodedParams: unknown = route.params
      ? yield* Effect.mapError(
          fromEither(decode(route.params, params, 'params')),
          () => new ApiError({ code: 'not_found' }),
        )
      : params
    const query = route.query ? yield* fromEither(decode(route.query, parseQuery(req.query), 'query')) : {}
    const { body, files } = route.streamBody
      ? { body: undefined, files: noFiles }
      : yield* decodeBody(route, req.body, header('content-type'))
    const request: Request<unknown, unknown, unknown> = {
      method,
      path: req.path,
      params: decodedParams,
      query,
      rawQuery: req.query,
      body,
      files,
      ...(req.bodyStream ? { bodyStream: req.bodyStream } : {}),
      locale: meta.locale,
      requestId: meta.requestId,
      ip: req.ip,
      header,
      cookie: (name) => cookies.get(name),
      caller,
    }
    if (route.access === 'P') return yield* route.handler(request)
    if (route.access === 'V') return yield* route.handler({ ...request, ...visitor! })
    if (route.access === 'C')
      return yield* route.handler({
        ...request,
        channel: viaChannel!.channel,
        workspace: viaChannel!.workspace,
      })
    return yield* route.handler({ ...request, workspace: caller!.workspace! } as AuthedRequest<
      unknown,
      unknown,
      unknown
    >)
  })

const toOutgoing = (reply: Reply, meta: Meta): Outgoing => {
  // A reply's own header replaces the pipeline's default of the same name (Cache-Control of assets).
  const own = new Set(Object.keys(reply.headers ?? {}).map((k) => k.toLowerCase()))
  const headers = meta.headers.filter(([k]) => !own.has(k.toLowerCase()))
  for (const [k, v] of Object.entries(reply.headers ?? {})) headers.push([k, v])
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

/**
 * The path of every request: route match (404 / 405 + Allow), credential, rate limit, access,
 * decoding, handler, envelope. Never fails: faults become 500 `server_error` and are logged.
 */
export const handle = (
  router: Router<Route>,
  req: Incoming,
): Effect.Effect<Outgoing, never, Services | MetricsTag> =>
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
    let routeLabel = 'unmatched'
    let out: Outgoing
    if (match._tag === 'NotFound') {
      out = errorResponse(new ApiError({ code: 'not_found' }), meta)
    } else if (match._tag === 'MethodNotAllowed') {
      out = errorResponse(
        new ApiError({ code: 'method_not_allowed', headers: { Allow: match.allow.join(', ') } }),
        meta,
      )
    } else {
      routeLabel = match.value.path
      const exit = yield* Effect.exit(run(match.value, match.params, req, meta))
      if (Exit.isSuccess(exit)) {
        out = toOutgoing(exit.value, meta)
      } else {
        out = failureResponse(exit.cause, meta, log, { route: routeLabel, method: req.method })
      }
    }
    metrics.httpRequests.inc({ method: req.method, route: routeLabel, status: String(out.status) })
    metrics.httpDuration.observe(
      { method: req.method, route: routeLabel },
      (performance.now() - started) / 1000,
    )
    return out
  })

/**
 * The answer to a failed request: its ApiError as such; an actor that is stopping or cannot load
 * its state as 503 (safe to retry); anything else as 500 `server_error`, logged with the cause.
 * Shared by every service's pipeline.
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
  if (error instanceof ActorStopped || error instanceof ActorLoadFailed) {
    log.warn('actor unavailable', { request_id: meta.requestId, ...context, error: error.message })
    return errorResponse(new ApiError({ code: 'unavailable', headers: { 'Retry-After': '1' } }), meta)
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
