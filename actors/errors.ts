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
  method_not_allowed: 405,
  conflict: 409,
  workspace_required: 409,
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
export const rateLimitedUntil = (resetAtMs: number, nowMs = Date.now()) =>
  rateLimited(Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)))

export const notFound = () => new ApiError({ code: 'not_found' })
export const forbidden = (message?: string) =>
  new ApiError({ code: 'forbidden', ...(message ? { message } : {}) })
export const conflict = (message?: string) =>
  new ApiError({ code: 'conflict', ...(message ? { message } : {}) })
export const invalid = (fields: Readonly<Record<string, FieldMessage>>) =>
  new ApiError({ code: 'validation_error', fields })
