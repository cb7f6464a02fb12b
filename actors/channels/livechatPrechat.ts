import { Schema } from 'effect'

/**
 * The live chat start form's fields (spec 1 §4.6 `POST /livechat/{key}/visitors`: name, e-mail and
 * phone, all three required). An owner may make each one optional or hidden (`prechat` of
 * `PATCH /channels/{id}/livechat`); the default is the spec's, so a channel nobody changed, and
 * every API client, behaves as the spec says (docs/decisions.md, "Live chat in Indonesian, and
 * the pre-chat form").
 */
export const PRECHAT_FIELDS = ['name', 'email', 'phone'] as const
export const PRECHAT_MODES = ['required', 'optional', 'hidden'] as const

export type PrechatField = (typeof PRECHAT_FIELDS)[number]
export type PrechatMode = (typeof PRECHAT_MODES)[number]
export type Prechat = { readonly [F in PrechatField]: PrechatMode }

export const defaultPrechat: Prechat = { name: 'required', email: 'required', phone: 'required' }

const isMode = (v: unknown): v is PrechatMode => PRECHAT_MODES.some((m) => m === v)

/** The stored setting read back: whatever is missing or unknown reads as the spec's `required`. */
export const prechatOf = (stored: unknown): Prechat => {
  const s = stored !== null && typeof stored === 'object' ? (stored as Record<string, unknown>) : {}
  const pick = (f: PrechatField) => {
    const v = s[f]
    return isMode(v) ? v : defaultPrechat[f]
  }
  return { name: pick('name'), email: pick('email'), phone: pick('phone') }
}

/** The request field: any of the three (the others keep their current mode). */
export const PrechatPatch = Schema.Struct({
  name: Schema.optional(Schema.Literal(...PRECHAT_MODES)),
  email: Schema.optional(Schema.Literal(...PRECHAT_MODES)),
  phone: Schema.optional(Schema.Literal(...PRECHAT_MODES)),
})
