import type { SqlClient } from '@effect/sql'
import type { SqlError } from '@effect/sql/SqlError'
import { Effect, type Schema } from 'effect'
import type { DomainServices } from '../actors'
import type { Caller, PermissionRule } from '../actors/admin/caller'
import type { Mailer } from '../actors/admin/Mailer'
import type { PaymentProvider } from '../actors/admin/PaymentProvider'
import type { Answer } from '../actors/answer'
import type { Connector } from '../actors/channels/Connector'
import type { Answerable, ApiError } from '../actors/errors'
import type { UploadedFile } from '../actors/fields'
import type { Locale } from '../actors/i18n'
import type { ActorError } from '../engine/actor/Actor'
import type { Bus } from '../engine/bus/Bus'
import type { WallClock } from '../engine/clock'
import type { ClusterHealth } from '../engine/cluster/Cluster'
import type { Config } from '../engine/config'
import type { Log } from '../engine/log'
import type { MetricsTag } from '../engine/metrics'
import type { RateLimiter } from '../engine/ratelimit/RateLimiter'
import type { FileStorage } from '../engine/storage/FileStorage'
import type { SigningKey } from '../engine/tokens'
import type { ChannelRow } from '../store/channels'
import type { DatabaseHealth, StoreMemos } from '../store/database'
import type { WorkspaceRow } from '../store/workspaces'
import type { CredentialCache } from './credentials'
import type { MultipartLimits } from './multipart'
import type { Method } from './router'
import type { VisitorCredential } from './visitorAuth'

/**
 * Access classes of spec 1: K = key or session, A = app session only, P = public, C = an API
 * channel's key (`Bearer svca_ch_…`), V = a live chat visitor's token (`Bearer lcv_…`) on
 * `/livechat/{key}/…` (http/visitorAuth.ts).
 */
export type Access = 'K' | 'A' | 'P' | 'C' | 'V'

/** Services every handler may use: the kernel's, the ports', and the domain's actors (actors/index.ts). */
export type Services =
  | SqlClient.SqlClient
  | StoreMemos
  | Config
  | Log
  | RateLimiter
  | MetricsTag
  | Bus
  | SigningKey
  | DomainServices
  | CredentialCache
  | ClusterHealth
  | DatabaseHealth
  | WallClock
  | FileStorage
  | Connector
  | Mailer
  | PaymentProvider

export interface Request<P, Q, B> {
  readonly method: Method
  readonly path: string
  readonly params: P
  readonly query: Q
  /** The query string as received, for handlers that must see every parameter (OIDC callback). */
  readonly rawQuery: string
  readonly body: B
  /** Files of a `multipart/form-data` body (routes with `multipart`); empty otherwise. */
  readonly files: readonly UploadedFile[]
  /** The body as it arrives, for routes with `streamBody` (never read whole into memory). */
  readonly bodyStream?: AsyncIterable<Uint8Array>
  readonly locale: Locale
  readonly requestId: string
  /** The caller's address (behind `TRUST_PROXY` hops, the one the outermost trusted proxy saw). */
  readonly ip: () => string
  readonly header: (name: string) => string | undefined
  readonly cookie: (name: string) => string | undefined
  /** The authenticated caller; only absent on public (P) routes. */
  readonly caller: Caller | null
}

/** What a handler of a channel-key (C) route gets: the API channel the key belongs to and its workspace. */
export interface ChannelRequest<P, Q, B> extends Request<P, Q, B> {
  readonly channel: ChannelRow
  readonly workspace: WorkspaceRow
}

/** What a handler of a visitor-token (V) route gets: the live chat channel, its visitor and workspace. */
export interface VisitorRequest<P, Q, B> extends Request<P, Q, B>, VisitorCredential {}

/** What a handler of an authenticated, workspace-scoped route gets: caller and workspace are known. */
export interface AuthedRequest<P, Q, B> extends Request<P, Q, B> {
  readonly caller: Caller
  readonly workspace: WorkspaceRow
}

/**
 * What a handler of a route with `workspace: 'optional'` gets: a signed-in user who belongs to
 * no workspace (yet, or any more) reaches it too, with `workspace` null.
 */
export interface OptionalWorkspaceRequest<P, Q, B> extends Request<P, Q, B> {
  readonly caller: Caller
  readonly workspace: WorkspaceRow | null
}

/**
 * What a handler may fail with: an ApiError, a domain error that carries its answer
 * (actors/errors.ts `Answerable`, answered by the pipeline), or a fault (500, 503 for actors).
 */
export type HandlerError = ApiError | Answerable | SqlError | ActorError

export type Reply =
  | {
      readonly _tag: 'Json'
      readonly status: number
      readonly data: unknown
      readonly meta?: Readonly<Record<string, unknown>> | undefined
      readonly headers?: Readonly<Record<string, string>>
      readonly cookies?: readonly string[]
    }
  | {
      readonly _tag: 'Raw'
      readonly status: number
      readonly contentType: string
      readonly body: string | Uint8Array
      /**
       * More of the body, written after `body` as it comes (chunked, with backpressure): large
       * downloads such as the contacts export. A failure midway cuts the connection.
       */
      readonly stream?: AsyncIterable<Uint8Array>
      readonly headers?: Readonly<Record<string, string>>
      readonly cookies?: readonly string[]
    }

export const ok = (data: unknown, meta?: Readonly<Record<string, unknown>>): Reply => ({
  _tag: 'Json',
  status: 200,
  data,
  meta,
})
export const created = (data: unknown, meta?: Readonly<Record<string, unknown>>): Reply => ({
  _tag: 'Json',
  status: 201,
  data,
  meta,
})
export const raw = (status: number, contentType: string, body: string | Uint8Array): Reply => ({
  _tag: 'Raw',
  status,
  contentType,
  body,
})
export const redirect = (location: string, cookies: readonly string[] = []): Reply => ({
  _tag: 'Raw',
  status: 302,
  contentType: 'text/plain; charset=utf-8',
  body: '',
  headers: { location },
  cookies,
})

// biome-ignore lint/suspicious/noExplicitAny: only the decoded side matters to a route; the encoded side varies.
type AnySchema<A> = Schema.Schema<A, any, never>

interface RouteBase<P, Q, B> {
  readonly method: Method
  /** Full path in the spec's form, `/v1/members/{id}`. */
  readonly path: string
  readonly summary: string
  readonly tag: string
  readonly params?: AnySchema<P>
  readonly query?: AnySchema<Q>
  readonly body?: AnySchema<B>
  /** Response `data` schema, for the OpenAPI document. */
  readonly response?: Schema.Schema.Any
  /**
   * Accepts `multipart/form-data` besides JSON: text fields go through `body`, files arrive in
   * `files`. Its `maxBytes` is the route's body limit (JSON bodies keep `MAX_BODY_BYTES`).
   */
  readonly multipart?: MultipartLimits
  /**
   * Takes its body as a stream (large uploads such as the contacts import): the transport hands
   * it over as it arrives, pausing the socket while the handler is behind; the handler reads
   * `bodyStream` itself. `maxBytes` is the route's body limit (413 beyond).
   */
  readonly streamBody?: { readonly maxBytes: number }
}

export type Route<P = unknown, Q = unknown, B = unknown, W extends WorkspaceOption = WorkspaceOption> =
  | (RouteBase<P, Q, B> & {
      readonly access: 'P'
      /**
       * Outside every rate limit: health and metrics, which a load balancer or a scraper polls
       * from one address far more often than the public budget allows, and the app's and the
       * widget's static files, which everyone behind one address (an office's NAT) loads.
       */
      readonly unlimited?: true
      readonly handler: (req: Request<P, Q, B>) => Effect.Effect<Reply, HandlerError, Services>
    })
  | (RouteBase<P, Q, B> & {
      readonly access: 'C'
      readonly handler: (req: ChannelRequest<P, Q, B>) => Effect.Effect<Reply, HandlerError, Services>
    })
  | (RouteBase<P, Q, B> & {
      readonly access: 'V'
      readonly handler: (req: VisitorRequest<P, Q, B>) => Effect.Effect<Reply, HandlerError, Services>
    })
  | (RouteBase<P, Q, B> & {
      readonly access: 'K' | 'A'
      readonly permission?: PermissionRule
      /**
       * `optional`: a signed-in user without any workspace may call it (otherwise 409), and its
       * handler gets `workspace` as `WorkspaceRow | null` (OptionalWorkspaceRequest).
       */
      readonly workspace?: W
      /** A mutation that keeps working in a frozen workspace (billing, transfer, notifications). */
      readonly whileFrozen?: true
      readonly handler: (req: AuthedRequestFor<W, P, Q, B>) => Effect.Effect<Reply, HandlerError, Services>
    })

/** A route's `workspace` option: absent, or `optional`. */
export type WorkspaceOption = 'optional' | undefined

/**
 * The request an authenticated route's handler gets, by its `workspace` option: the workspace is
 * known unless the route takes `optional`, and for a route of either kind (`Route` as such) it may
 * be null.
 */
export type AuthedRequestFor<W extends WorkspaceOption, P, Q, B> = [W] extends [undefined]
  ? AuthedRequest<P, Q, B>
  : OptionalWorkspaceRequest<P, Q, B>

/**
 * Keeps each route's parameter types inferred from its schemas, and gives every route the same
 * keys in the same order: the pipeline reads a route's fields on every request, and routes as
 * written (each literal its own keys, its own order, so its own hidden class) made those reads
 * megamorphic in V8 once a server had answered a few different routes.
 */
export const route = <P = undefined, Q = undefined, B = undefined, W extends WorkspaceOption = undefined>(
  r: Route<P, Q, B, W>,
): Route => {
  // Every access class's fields read off one view of the route; absent ones come out undefined.
  const f = r as RouteBase<P, Q, B> & {
    readonly access: Route['access']
    readonly handler: unknown
    readonly unlimited?: true
    readonly permission?: PermissionRule
    readonly workspace?: 'optional'
    readonly whileFrozen?: true
  }
  const shaped: Record<RouteKey, unknown> = {
    method: f.method,
    path: f.path,
    summary: f.summary,
    tag: f.tag,
    params: f.params,
    query: f.query,
    body: f.body,
    response: f.response,
    multipart: f.multipart,
    streamBody: f.streamBody,
    access: f.access,
    unlimited: f.unlimited,
    permission: f.permission,
    workspace: f.workspace,
    whileFrozen: f.whileFrozen,
    handler: f.handler,
  }
  return shaped as unknown as Route
}

/** Every key of every access class's route: `route()`'s literal must name each (a new one fails to compile). */
type RouteKey = Route extends infer R ? (R extends unknown ? keyof R : never) : never

/** A domain operation's answer as the response: 201 when it made something, else 200. */
export const answer = <E, R>(effect: Effect.Effect<Answer, E, R>): Effect.Effect<Reply, E, R> =>
  Effect.map(effect, (a) => (a.created ? created(a.data, a.meta) : ok(a.data, a.meta)))
