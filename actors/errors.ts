import { Data } from 'effect'

/**
 * The one error catalogue of the service API (spec 1 §7, plus the few codes the spec leaves
 * open, recorded in docs/decisions.md). Handlers fail with `ApiError`; one encoder turns it into
 * `{error: {code, message, fields?}}` with the status below.
 */
export const errorStatus = {
  unauthorized: 401,
  plan_required: 402,
  forbidden: 403,
  not_found: 404,
  /** The first run's setup link is not the current one (docs/decisions.md, "First run in the browser"). */
  setup_token_invalid: 404,
  method_not_allowed: 405,
  conflict: 409,
  workspace_required: 409,
  /** The install already has a workspace: the first run's setup is over, whatever the token. */
  setup_done: 410,
  payload_too_large: 413,
  csrf_mismatch: 419,
  validation_error: 422,
  workspace_frozen: 423,
  rate_limited: 429,
  server_error: 500,
  ai_error: 502,
  ai_unavailable: 503,
  unavailable: 503,
} as const

export type ErrorCode = keyof typeof errorStatus

export class ApiError extends Data.TaggedError('ApiError')<{
  readonly code: ErrorCode
  /** A message key of the catalogue in http/i18n.ts; defaults to the code's own message. */
  readonly message?: string
  readonly params?: Readonly<Record<string, string | number>>
  /** Field name to message key (or already-localized text for schema issues). */
  readonly fields?: Readonly<Record<string, FieldMessage>>
  readonly headers?: Readonly<Record<string, string>>
}> {
  get status(): number {
    return errorStatus[this.code]
  }
}

/**
 * The answer a domain error carries (issue 42): its class declares `[apiAnswer]()` once, and the
 * request pipeline (http/pipeline.ts `failureResponse`) answers any failure that has one with it,
 * so operations let such errors through instead of converting them at each call site. A call
 * site still catches one when it decides something else (an absent channel is nothing to relay,
 * a gone conversation a null). An error whose answer needs more than its own fields (the
 * winner's name of a lost pickup, the field a refusal names, the clock of a retry time) has no
 * `[apiAnswer]` and stays mapped where that is known. The method lives on the class, so an error
 * re-created across nodes (engine/cluster/codec.ts, classes of the modules each actor registers)
 * keeps it.
 */
export const apiAnswer: unique symbol = Symbol.for('kotak/apiAnswer')

export interface Answerable {
  readonly [apiAnswer]: () => ApiError
}

export const isAnswerable = (u: unknown): u is Answerable =>
  typeof u === 'object' && u !== null && typeof (u as Partial<Answerable>)[apiAnswer] === 'function'

export interface FieldMessage {
  readonly key: string
  readonly params?: Readonly<Record<string, string | number>>
}

export const apiError = (code: ErrorCode, extra?: Omit<ConstructorParameters<typeof ApiError>[0], 'code'>) =>
  new ApiError({ code, ...extra })

/** 429 with `Retry-After`: the one shape of every refusal for going too fast (spec 1 §3). */
export const rateLimited = (seconds: number, message?: string) =>
  new ApiError({
    code: 'rate_limited',
    ...(message ? { message } : {}),
    params: { seconds },
    headers: { 'Retry-After': String(seconds) },
  })

/** `rateLimited` for a window that resets at `resetAtMs`: at least one second. */
/** `nowMs` on the clock that set `resetAtMs` (the rate limiter's: Effect's `Clock`). */
export const rateLimitedUntil = (resetAtMs: number, nowMs: number) =>
  rateLimited(Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)))

export const notFound = () => new ApiError({ code: 'not_found' })
export const forbidden = (message?: string) =>
  new ApiError({ code: 'forbidden', ...(message ? { message } : {}) })
export const conflict = (message?: string) =>
  new ApiError({ code: 'conflict', ...(message ? { message } : {}) })
export const invalid = (fields: Readonly<Record<string, FieldMessage>>) =>
  new ApiError({ code: 'validation_error', fields })

/** Collects per-field problems while checking an input (every area's rules share it). */
export class ProblemSet {
  readonly fields: Record<string, FieldMessage> = {}
  add(field: string, key: string, params?: Readonly<Record<string, string | number>>) {
    this.fields[field] = params ? { key, params } : { key }
  }
  get empty(): boolean {
    return Object.keys(this.fields).length === 0
  }
}
