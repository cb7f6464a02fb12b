import { Effect, Schema } from 'effect'
import { ApiError, invalid } from './errors'
import { addMessages } from './i18n'

addMessages({
  'field.file_too_large': {
    en: 'must be at most {size}',
    id: 'maksimal {size}',
  },
  'field.too_many_files': {
    en: 'at most {n} files per request',
    id: 'maksimal {n} berkas per permintaan',
  },
  'field.file_required': {
    en: 'a file is required',
    id: 'berkas wajib dilampirkan',
  },
})

addMessages({
  'field.characters': {
    en: 'contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate)',
    id: 'berisi karakter yang tidak diizinkan (NUL atau surrogate UTF-16 tanpa pasangan)',
  },
})

export { storableInPlace, UNSTORABLE, unstorable } from '../engine/storable'

/**
 * Reusable request fields. Text is checked on its trimmed length but kept as sent (handlers trim),
 * so the JSON Schema of the request keeps its limits: a trimming transformation would document
 * only a bare string.
 */
export const Text = (min: number, max: number) =>
  Schema.String.pipe(
    Schema.filter(
      (s) => {
        const n = s.trim().length
        return n >= min && n <= max
      },
      { jsonSchema: { minLength: min, maxLength: max } },
    ),
  )

/**
 * Ids of database rows (PostgreSQL `integer`/`serial`): a larger number can name no row, and
 * would fail in the database instead of being a 422 here.
 */
export const MAX_ID = 2_147_483_647
export const Id = Schema.Number.pipe(Schema.int(), Schema.between(1, MAX_ID))
export const IdFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_ID))

/** A link's token in a path (sign-in, invitation): any text, so a mangled link still reaches the page that says it does not work. */
export const LinkToken = Schema.String.pipe(Schema.maxLength(500))
/**
 * Ids of `bigint` rows (conversations, messages, contacts, files, groups, visitors): any integer
 * JavaScript holds exactly; a larger one names no row.
 */
export const MAX_BIG_ID = Number.MAX_SAFE_INTEGER
export const BigId = Schema.Number.pipe(Schema.int(), Schema.between(1, MAX_BIG_ID))
export const BigIdFromString = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, MAX_BIG_ID))

/**
 * An agent's `client_id` (makes resending safe). Customers' messages keep theirs in the same
 * per-conversation key under a prefix with a colon (`api:…` for the API channel, `lc:…` for live
 * chat), so an agent's may not contain one: it could otherwise claim a customer's message.
 */
export const AgentClientId = Text(1, 100).pipe(
  Schema.filter((s) => !s.includes(':'), { message: () => 'field.pattern' }),
)

/** An e-mail address as people type it (the mail server is the final judge). */
export const EmailAddress = Schema.String.pipe(
  Schema.maxLength(320),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/),
)
/** A phone number: digits with an optional leading `+`, spaces, brackets and dashes. */
export const PhoneNumber = Schema.String.pipe(Schema.pattern(/^\+?[0-9][0-9 ()-]{4,24}$/))
/** An ISO 8601 date and time (`2026-11-22T10:00:00Z`, offsets allowed). */
const isCalendarDate = (s: string) => {
  // Years 0001–9999: PostgreSQL has no year 0 ('0000-01-01'::date fails), JavaScript has.
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith('0000')) return false
  const d = new Date(`${s}T00:00:00Z`)
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s
}

/** A calendar day `YYYY-MM-DD` that exists (2025-02-30 and 2025-13-01 are 422 `field.date`). */
export const LocalDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, {
    message: () => 'field.date',
    jsonSchema: { pattern: '^\\d{4}-\\d{2}-\\d{2}$', format: 'date' },
  }),
)

export const IsoDateTime = Schema.String.pipe(
  Schema.maxLength(40),
  Schema.filter((s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)), {
    message: () => 'field.pattern',
  }),
)

export interface UploadedFile {
  /** Form field, without a trailing `[]`. */
  readonly field: string
  readonly filename: string
  readonly mime: string
  readonly bytes: Uint8Array
}

/** `16 MB`, `512 KB`: sizes as people say them (powers of 1024). */
export const humanSize = (bytes: number): string =>
  bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MB`
    : bytes >= 1024 && bytes % 1024 === 0
      ? `${bytes / 1024} KB`
      : `${bytes} bytes`

/** The one file a route expects in `field`, or a 422 naming the field. */
export const requireFile = (files: readonly UploadedFile[], field: string) => {
  const f = files.find((x) => x.field === field)
  return f ? Effect.succeed(f) : Effect.fail(invalid({ [field]: { key: 'field.file_required' } }))
}

export const tooLargeFile = (field: string, maxBytes: number) =>
  new ApiError({
    code: 'validation_error',
    fields: { [field]: { key: 'field.file_too_large', params: { size: humanSize(maxBytes) } } },
  })

/** An e-mail address given as a person's account or contact (trimmed before use). */
export const Email = Schema.String.pipe(
  Schema.filter((s) => s.trim().length <= 254 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s.trim()), {
    jsonSchema: { format: 'email', maxLength: 254 },
    message: () => 'field.email',
  }),
)

addMessages({ 'field.email': { en: 'must be an e-mail address', id: 'harus alamat e-mail' } })

addMessages({
  'field.url': {
    en: 'must be a web address that starts with http:// or https://',
    id: 'harus alamat web yang diawali http:// atau https://',
  },
})

/**
 * A URL a screen shows as a link (a client's website, the page a live chat started on): absolute,
 * with a host, and a scheme of `schemes` only, `http` and `https` unless the field's meaning is
 * another (`mailto:`, `tel:`), so never `javascript:`, `data:` or `file:`. At most `max`
 * characters; '' is no link. Kept as sent.
 */
export const WebUrl = (max: number, schemes: readonly string[] = ['http:', 'https:']) =>
  Schema.String.pipe(
    Schema.maxLength(max),
    Schema.filter(
      (s) => {
        if (s.trim() === '') return true
        try {
          const u = new URL(s.trim())
          return schemes.includes(u.protocol) && (u.hostname !== '' || !u.protocol.startsWith('http'))
        } catch {
          return false
        }
      },
      { message: () => 'field.url', jsonSchema: { format: 'uri' } },
    ),
  )

/** An IANA zone name this runtime knows, or '' (follow the workspace zone). */
export const TimeZone = Schema.String.pipe(
  Schema.filter(
    (z) => {
      if (z === '') return true
      try {
        new Intl.DateTimeFormat('en', { timeZone: z })
        return true
      } catch {
        return false
      }
    },
    { message: () => 'field.timezone' },
  ),
)
