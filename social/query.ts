import { Schema } from 'effect'
import { isDate } from './time'

/** Query parameter schemas shared by the endpoints; failures become 422 with `error.fields`. */

export const DateParam = Schema.String.pipe(
  Schema.filter(isDate, { message: () => 'social.field.date', jsonSchema: { format: 'date' } }),
)

export const PageParam = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 1_000_000))

export const IdParam = Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 2_147_483_647))

export const TypeParam = Schema.Literal('reply', 'mention')
