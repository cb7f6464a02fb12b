import type { ApiError } from '../actors/errors'
import { type Locale, t } from '../actors/i18n'
import type { Outgoing } from './server'

export const dataBody = (data: unknown, meta?: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(meta === undefined ? { data } : { data, meta })

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
