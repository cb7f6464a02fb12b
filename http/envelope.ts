import type { ApiError } from '../actors/errors'
import { type Locale, t } from '../actors/i18n'
import type { Outgoing } from './server'

/**
 * Views that never change once made (`shared`), with their `{data}` body once it is encoded: a
 * view answered again is not encoded again. Weak, so a view and its body go when nothing else
 * holds the view (a credential dropped from the cache, say).
 */
const sharedBodies = new WeakMap<object, string | null>()

/**
 * Marks a view as unchanging from now on: `dataBody` encodes it once and hands out the same text
 * after. For views kept and answered again (GET /v1/me's, per cached credential); a view that is
 * changed after being marked would be answered as it was.
 */
export const shared = <A extends object>(view: A): A => {
  if (!sharedBodies.has(view)) sharedBodies.set(view, null)
  return view
}

export const dataBody = (data: unknown, meta?: Readonly<Record<string, unknown>>): string => {
  if (meta === undefined && typeof data === 'object' && data !== null) {
    const kept = sharedBodies.get(data)
    if (kept !== undefined) {
      if (kept !== null) return kept
      const body = JSON.stringify({ data })
      sharedBodies.set(data, body)
      return body
    }
  }
  return JSON.stringify(meta === undefined ? { data } : { data, meta })
}

export const errorBody = (err: ApiError, locale: Locale): string => {
  const message = t(locale, err.message || err.code, err.params)
  const fields = err.fields
    ? Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k, t(locale, v.key, v.params)]))
    : undefined
  return JSON.stringify({ error: fields ? { code: err.code, message, fields } : { code: err.code, message } })
}

export const JSON_TYPE = 'application/json; charset=utf-8'

/** What a response carries besides its body: headers gathered on the way, the caller's language. */
export interface ResponseMeta {
  headers: Array<[string, string]>
  locale: Locale
  readonly requestId: string
}

export const errorResponse = (err: ApiError, meta: ResponseMeta): Outgoing => {
  const headers = [...meta.headers, ['Content-Type', JSON_TYPE] as [string, string]]
  for (const [k, v] of Object.entries(err.headers ?? {})) headers.push([k, v])
  return { status: err.status, headers, body: errorBody(err, meta.locale) }
}
