import { Context, Effect, Either } from 'effect'
import { type Caller, holds } from '../actors/admin/caller'
import { ApiError, invalid } from '../actors/errors'
import type { UploadedFile } from '../actors/fields'
import { systemMillis } from '../engine/clock'
import { Config } from '../engine/config'
import { RateLimiter } from '../engine/ratelimit/RateLimiter'
import { andThen } from '../engine/step'
import { safeEqual } from '../engine/tokens'
import { isPaidActive } from '../store/plans'
import { authenticateIn, SESSION_COOKIE } from './auth'
import { authenticateChannel } from './channelKey'
import { CredentialCache } from './credentials'
import type { ResponseMeta as Meta } from './envelope'
import { isMultipart, parseMultipart } from './multipart'
import { type Incoming, makeHandle, rateLimitWith } from './pipeline'
import { clientAddress, mediaType, parseCookies, parseQuery } from './request'
import type {
  ChannelRequest,
  OptionalWorkspaceRequest,
  Reply,
  Request,
  Route,
  Services,
  VisitorRequest,
} from './route'
import { routeClass } from './routeClass'
import type { Method } from './router'
import { decode, parseJsonBody } from './validation'
import { authenticateVisitor, type VisitorCredential } from './visitorAuth'

/**
 * The service API's steps of the request pipeline (http/pipeline.ts): the credential of the
 * route's access class, its rate limit, access (plan, frozen state, CSRF, scope, permission),
 * then path parameters, query and body through the route's schemas, and the handler.
 */

/**
 * Per-minute request budgets of sessions and public callers (our choice, decisions.md). Keys get
 * `RATE_LIMIT_PER_KEY` (spec 1 §8: 120).
 */
export const RATE_LIMITS = { public: 300, visitor: 120 } as const

const decodeJsonBody = (
  body: Uint8Array | null,
  contentType: string | undefined,
): Either.Either<unknown, ApiError> => {
  if (!body || body.length === 0) return Either.right({})
  if (mediaType(contentType) !== 'application/json') {
    return Either.left(invalid({ body: { key: 'field.content_type' } }))
  }
  return parseJsonBody(body)
}

const fromEither = <A>(e: Either.Either<A, ApiError>): Effect.Effect<A, ApiError> =>
  Either.isRight(e) ? Effect.succeed(e.right) : Effect.fail(e.left)

const noFiles: readonly UploadedFile[] = []

/**
 * The request body as the route takes it: JSON through its body schema, or (routes with
 * `multipart`) a form whose text fields go through the same schema and whose files are handed
 * over as they are. A JSON body keeps the JSON limit even on a route that takes large uploads.
 */
const decodeBody = (
  route: Route,
  body: Uint8Array | null,
  contentType: string | undefined,
  maxBodyBytes: number,
): Effect.Effect<{ readonly body: unknown; readonly files: readonly UploadedFile[] }, ApiError> => {
  if (route.multipart && body && body.length > 0 && isMultipart(contentType)) {
    return Effect.gen(function* () {
      const form = yield* parseMultipart(body, contentType!, route.multipart!)
      const decoded = route.body ? yield* fromEither(decode(route.body, form.fields, 'body')) : undefined
      return { body: decoded, files: form.files }
    })
  }
  if (route.multipart && body && body.length > maxBodyBytes) {
    return Effect.fail(new ApiError({ code: 'payload_too_large', params: { limit: maxBodyBytes } }))
  }
  if (!route.body) return Effect.succeed({ body: undefined, files: noFiles })
  const decoded = Either.flatMap(decodeJsonBody(body, contentType), (json) =>
    decode(route.body!, json, 'body'),
  )
  return Either.isRight(decoded)
    ? Effect.succeed({ body: decoded.right, files: noFiles })
    : Effect.fail(decoded.left)
}

const forbidden = (message?: string) =>
  Effect.fail(new ApiError(message ? { code: 'forbidden', message } : { code: 'forbidden' }))

/** Access, plan, frozen state, scope and permission, in the order a caller would expect to hear. */
const authorize = (
  route: Route,
  caller: Caller,
  method: Method,
  csrfHeader: string | undefined,
): Effect.Effect<void, ApiError> => {
  if (route.access === 'P' || route.access === 'C' || route.access === 'V') return Effect.void
  const mutating = method !== 'GET'
  if (caller.via === 'key' && route.access === 'A') return forbidden('forbidden.app_only')
  if (
    caller.via === 'session' &&
    mutating &&
    !(csrfHeader && safeEqual(csrfHeader, caller.session.csrf_token))
  ) {
    return Effect.fail(new ApiError({ code: 'csrf_mismatch' }))
  }
  const ws = caller.workspace
  if (ws === null) {
    return route.workspace === 'optional'
      ? Effect.void
      : Effect.fail(new ApiError({ code: 'workspace_required' }))
  }
  // Every request with a key: the synchronous read of the clock.
  if (caller.via === 'key' && !isPaidActive(ws, new Date(systemMillis()))) {
    return Effect.fail(new ApiError({ code: 'plan_required' }))
  }
  if (ws.frozen_at !== null && mutating && !route.whileFrozen) {
    return Effect.fail(new ApiError({ code: 'workspace_frozen' }))
  }
  if (caller.via === 'key' && mutating && caller.scope === 'read') return forbidden('forbidden.read_key')
  return holds(caller, route.permission) ? Effect.void : forbidden()
}

const notFound = () => new ApiError({ code: 'not_found' })

/**
 * The steps of one request, each done at once when nothing waits (engine/step.ts): a cached
 * key, the in-memory rate limit and a handler answering from memory make no fiber.
 */
const run = (
  route: Route,
  params: Record<string, string>,
  req: Incoming,
  meta: Meta,
  services: Context.Context<Services>,
): Effect.Effect<Reply, unknown, Services> => {
  const cfg = Context.get(services, Config)
  const limiter = Context.get(services, RateLimiter)
  // The caller's address apart, not a copy of the request with another `ip`: one shape for all.
  // Worked out when first asked, as the transport's peer address (http/request.ts).
  let address: string | undefined
  const ip = () => {
    address ??=
      cfg.trustProxy === 0
        ? req.ip()
        : clientAddress(req.ip(), req.headers.get('x-forwarded-for'), cfg.trustProxy)
    return address
  }
  const method = req.method as Method
  const cookies = parseCookies(req.headers.get('cookie'))
  const header = (name: string) => req.headers.get(name.toLowerCase())
  const limit = (key: string, perMinute: number) => rateLimitWith(limiter, key, perMinute, meta)

  /**
   * Path parameters, query and body through the route's schemas, then the handler. The request
   * is one object literal with every key of every access class (absent ones undefined): all
   * requests share one hidden class, where spreading the credential's fields in gave each access
   * class its own and sent V8's property loads on this path to their slow, megamorphic form.
   */
  const handleWith = (
    caller: Caller | null,
    scope: Partial<VisitorCredential>,
    call: (
      request: Request<unknown, unknown, unknown> & Partial<VisitorCredential>,
    ) => Effect.Effect<Reply, unknown, Services>,
  ): Effect.Effect<Reply, unknown, Services> => {
    // A path parameter that does not fit its schema names nothing that exists.
    let decodedParams: unknown = params
    if (route.params) {
      const p = decode(route.params, params, 'params')
      if (Either.isLeft(p)) return Effect.fail(notFound())
      decodedParams = p.right
    }
    let query: unknown = {}
    if (route.query) {
      const q = decode(route.query, parseQuery(req.query), 'query')
      if (Either.isLeft(q)) return Effect.fail(q.left)
      query = q.right
    }
    const decoded = route.streamBody
      ? Effect.succeed({ body: undefined, files: noFiles })
      : decodeBody(route, req.body, header('content-type'), cfg.maxBodyBytes)
    return andThen(decoded, ({ body, files }) =>
      call({
        method,
        path: req.path,
        params: decodedParams,
        query,
        rawQuery: req.query,
        body,
        files,
        bodyStream: req.bodyStream,
        locale: meta.locale,
        requestId: meta.requestId,
        ip,
        header,
        cookie: (name) => cookies.get(name),
        caller,
        workspace: scope.workspace,
        channel: scope.channel,
        visitor: scope.visitor,
        widget: scope.widget,
      }),
    )
  }

  if (route.access === 'P') {
    return andThen(route.unlimited ? Effect.void : limit(`ip:${ip()}`, RATE_LIMITS.public), () =>
      handleWith(null, {}, (request) => route.handler(request)),
    )
  }
  if (route.access === 'V') {
    // Live chat widget calls: the path's public key and the visitor's token, a budget per visitor.
    return andThen(limit(`ip:${ip()}`, RATE_LIMITS.public), () =>
      andThen(
        authenticateVisitor(params.key, header('authorization'), method),
        (visitor: VisitorCredential) =>
          andThen(limit(`visitor:${visitor.visitor.id}`, RATE_LIMITS.visitor), () =>
            handleWith(null, visitor, (request) =>
              route.handler(request as VisitorRequest<unknown, unknown, unknown>),
            ),
          ),
      ),
    )
  }
  if (route.access === 'C') {
    // API channel inbound calls: the channel key, its own budget, plan and frozen state.
    return andThen(
      authenticateChannel(Context.get(services, CredentialCache), header('authorization')),
      (viaChannel) =>
        andThen(limit(`channel:${viaChannel.channel.id}`, cfg.rateLimitPerChannelKey), () =>
          andThen(viaChannel.authorize(method), () =>
            handleWith(null, { channel: viaChannel.channel, workspace: viaChannel.workspace }, (request) =>
              route.handler(request as ChannelRequest<unknown, unknown, unknown>),
            ),
          ),
        ),
    )
  }
  const cache = Context.get(services, CredentialCache)
  return andThen(authenticateIn(cache, header('authorization'), cookies.get(SESSION_COOKIE)), (caller) => {
    if (!header('x-locale')) meta.locale = caller.user.locale
    return andThen(
      limit(
        caller.via === 'key' ? `key:${caller.keyId}` : `user:${caller.user.id}`,
        caller.via === 'key' ? cfg.rateLimitPerKey : cfg.rateLimitPerSession,
      ),
      () =>
        andThen(authorize(route, caller, method, header('x-csrf-token')), () =>
          // Null only where `authorize` let a caller without a workspace through: a route with
          // `workspace: 'optional'`, whose handler's request type says so (http/route.ts).
          handleWith(caller, { workspace: caller.workspace! }, (request) =>
            route.handler(request as OptionalWorkspaceRequest<unknown, unknown, unknown>),
          ),
        ),
    )
  })
}

/**
 * The path of every request of the service API: route match (404 / 405 + Allow), credential,
 * rate limit, access, decoding, handler, envelope. Never fails.
 */
export const handle = makeHandle<Route, Services>({ run, classify: routeClass })
