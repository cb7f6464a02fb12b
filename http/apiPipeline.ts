import { Effect, Either } from 'effect'
import { type Caller, holds } from '../actors/admin/caller'
import { ApiError, invalid } from '../actors/errors'
import type { UploadedFile } from '../actors/fields'
import { Config } from '../engine/config'
import { safeEqual } from '../engine/tokens'
import { isPaidActive } from '../store/plans'
import { authenticate, SESSION_COOKIE } from './auth'
import { authenticateChannel } from './channelKey'
import type { ResponseMeta as Meta } from './envelope'
import { isMultipart, parseMultipart } from './multipart'
import { type Incoming, makeHandle, rateLimit } from './pipeline'
import { clientAddress, parseCookies, parseQuery } from './request'
import type { AuthedRequest, Request, Route, Services } from './route'
import type { Method } from './router'
import { decode } from './validation'
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
      if (!route.unlimited) yield* rateLimit(`ip:${req.ip}`, RATE_LIMITS.public, meta)
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
        caller.via === 'key' ? (yield* Config).rateLimitPerKey : (yield* Config).rateLimitPerSession,
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

/**
 * The path of every request of the service API: route match (404 / 405 + Allow), credential,
 * rate limit, access, decoding, handler, envelope. Never fails.
 */
export const handle = makeHandle<Route, Services>({ run })
