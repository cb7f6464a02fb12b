import type { ApiError } from './errors'
import { type Locale, t } from './i18n'

export { iso } from '../engine/time'

export const dataBody = (data: unknown, meta?: Readonly<Record<string, unknown>>): string =>
  JSON.stringify(meta === undefined ? { data } : { data, meta })

export const errorBody = (err: ApiError, locale: Locale): string => {
  const message = t(locale, err.message || err.code, err.params)
  const fields = err.fields
    ? Object.fromEntries(Object.entries(err.fields).map(([k, v]) => [k, t(locale, v.key, v.params)]))
    : undefined
  return JSON.stringify({ error: fields ? { code: err.code, message, fields } : { code: err.code, message } })
}
