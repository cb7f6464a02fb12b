import type { ApiError } from './errors'
import { type Locale, t } from './i18n'

/** Timestamps go out as ISO 8601 UTC without fractions: `2026-11-22T08:30:00Z`. */
export const iso = (d: Date | null | undefined): string | null =>
  d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : null

export const dataBody = (data: unknown, meta?: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(meta === undefined ? { data } : { data, meta })

export const errorBody = (err: ApiError, locale: Locale): string => {
  const message = t(locale, err.message || err.code, err.params)
  const fields = err.fields
    ? Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k, t(locale, v.key, v.params)]))
    : undefined
  return JSON.stringify({ error: fields ? { code: err.code, message, fields } : { code: err.code, message } })
}
