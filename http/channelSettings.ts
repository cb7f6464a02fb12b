import { Schema } from 'effect'

/**
 * The request fields every channel type shares (spec 1 §4.4: `hours`, `auto_reply`), in a module of
 * their own so each type's routes can use them without importing one another.
 */
const HHMM = Schema.String.pipe(Schema.pattern(/^([01]\d|2[0-3]):[0-5]\d$/))

export const Hours = Schema.Struct({
  enabled: Schema.Boolean,
  days: Schema.Array(
    Schema.Struct({
      day: Schema.Number.pipe(Schema.int(), Schema.between(1, 7)),
      open: Schema.Boolean,
      from: HHMM,
      to: HHMM,
    }),
  ).pipe(Schema.maxItems(7)),
})

export const AutoReply = Schema.Struct({
  greeting_on: Schema.optional(Schema.Boolean),
  greeting: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
  away_on: Schema.optional(Schema.Boolean),
  away: Schema.optional(Schema.String.pipe(Schema.maxLength(1000))),
})
