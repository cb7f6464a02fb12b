import type { SqlClient } from '@effect/sql'
import type { SqlError } from '@effect/sql/SqlError'
import type { Effect, Schema } from 'effect'
import type { ApiError } from '../actors/errors'
import type { Locale } from '../actors/i18n'
import type { Log } from '../engine/log'
import type { MetricsTag } from '../engine/metrics'
import type { RateLimiter } from '../engine/ratelimit/RateLimiter'
import type { Reply } from '../http/route'
import type { Method } from '../http/router'
import type { SocialConfig } from './config'

/** What handlers of the social service may use. */
export type SocialServices = SqlClient.SqlClient | RateLimiter | Log | SocialConfig | MetricsTag

export interface BaseRequest {
  readonly method: string
  readonly path: string
  readonly params: Readonly<Record<string, string>>
  readonly rawQuery: string
  readonly locale: Locale
  readonly requestId: string
  readonly header: (name: string) => string | undefined
}

/** A request made with an active key of a workspace on an active Pro plan. */
export interface KeyRequest<Q> extends BaseRequest {
  readonly query: Q
  readonly workspaceId: number
  readonly keyId: number
}

/** A request to an endpoint without a key (webhook, health); the body is the raw bytes. */
export interface PublicRequest extends BaseRequest {
  readonly body: Uint8Array | null
}

type Handler<R> = (req: R) => Effect.Effect<Reply, ApiError | SqlError, SocialServices>

// biome-ignore lint/suspicious/noExplicitAny: only the decoded side of a query schema matters here.
type QuerySchema<Q> = Schema.Schema<Q, any, never>

export type SocialRoute =
  | {
      readonly method: Method
      readonly path: string
      readonly access: 'key'
      readonly query?: QuerySchema<unknown>
      readonly handler: Handler<KeyRequest<unknown>>
    }
  | {
      readonly method: Method
      readonly path: string
      readonly access: 'public'
      readonly handler: Handler<PublicRequest>
    }

/** Keeps a key route's query type inferred from its schema. */
export const keyRoute = <Q>(r: {
  readonly method: Method
  readonly path: string
  readonly query?: QuerySchema<Q>
  readonly handler: Handler<KeyRequest<Q>>
}): SocialRoute => ({ ...r, access: 'key' }) as SocialRoute

export const publicRoute = (r: {
  readonly method: Method
  readonly path: string
  readonly handler: Handler<PublicRequest>
}): SocialRoute => ({ ...r, access: 'public' })

/** Fixed page size of every list (spec 3 §8). */
export const PAGE_SIZE = 50

export const pageMeta = (page: number, total: number) => ({
  page,
  per_page: PAGE_SIZE,
  total,
  has_more: page * PAGE_SIZE < total,
})

const JSON_TYPE = 'application/json; charset=utf-8'

/** `{data, meta, …extra}` as the body of a 200. Every success carries `meta` (spec 3 §4). */
export const envelope = (
  data: unknown,
  meta: Readonly<Record<string, unknown>> = {},
  extra: Readonly<Record<string, unknown>> = {},
): Reply => ({
  _tag: 'Raw',
  status: 200,
  contentType: JSON_TYPE,
  body: JSON.stringify({ data, meta, ...extra }),
})
