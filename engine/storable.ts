/**
 * Text PostgreSQL cannot store, found and mended: the kernel's, so the main service (actors/fields
 * re-exports it) and the social service share one rule.
 */

/**
 * Text no store can hold: NUL (PostgreSQL refuses it in `text` and `jsonb`) and a UTF-16
 * surrogate without its pair (not a character; no UTF-8 encoding exists). With the `u` flag a
 * surrogate pair is one code point, so the class matches only an unpaired half. Request input is
 * checked in http/validation.ts; what arrives in files (imports) is checked cell by cell
 * (`field.characters`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses.
export const UNSTORABLE = /[\u0000\uD800-\uDFFF]/u

/** Whether a value is text holding NUL or an unpaired surrogate (`UNSTORABLE`). */
export const unstorable = (v: unknown): boolean => typeof v === 'string' && UNSTORABLE.test(v)

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this replaces.
const UNSTORABLE_ALL = /[\u0000\uD800-\uDFFF]/gu

/**
 * What a stranger's service sends (a messaging-app message, its history) cannot be refused with a
 * 422: every string in `value` (at any depth of its plain objects and arrays; binary views left
 * alone) has NUL and unpaired surrogates replaced by U+FFFD, in place, so the message is stored
 * instead of failing (issue 50 item 2). Returns `value`.
 */
export const storableInPlace = <A>(value: A, depth = 0): A => {
  if (depth > 64 || value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) return value
  const o = value as Record<string, unknown>
  for (const k of Object.keys(o)) {
    const v = o[k]
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) o[k] = v.replace(UNSTORABLE_ALL, '\uFFFD')
    } else if (v !== null && typeof v === 'object') storableInPlace(v, depth + 1)
  }
  return value
}
