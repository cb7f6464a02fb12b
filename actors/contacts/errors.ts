import { Data } from 'effect'
import { apiAnswer, type FieldMessage, forbidden, invalid as invalidFields, notFound } from '../errors'

/**
 * The closed set of failures of the contacts domain, each with its answer (actors/errors.ts
 * `Answerable`, given by the request pipeline).
 */
export type Problems = Readonly<Record<string, FieldMessage>>

/** Input the rules refuse, field by field (422). */
export class Invalid extends Data.TaggedError('ContactsInvalid')<{ readonly fields: Problems }> {
  [apiAnswer]() {
    return invalidFields(this.fields)
  }
}
/** A contact, label, field or note that is not the workspace's, or gone (404). */
export class Missing extends Data.TaggedError('ContactsMissing')<{}> {
  [apiAnswer]() {
    return notFound()
  }
}
/** The caller may not do this to this record (403), with a message key. */
export class Refused extends Data.TaggedError('ContactsRefused')<{ readonly message: string }> {
  [apiAnswer]() {
    return forbidden(this.message)
  }
}
/** A CSV file that cannot be read as a whole (422 on `file`, naming the line); nothing was written. */
export class CsvRejected extends Data.TaggedError('ContactsCsvRejected')<{
  readonly reason: 'quotes' | 'encoding' | 'too_long' | 'header' | 'columns' | 'empty'
  readonly line: number
}> {
  [apiAnswer]() {
    return invalidFields({ file: { key: `contacts.csv_${this.reason}`, params: { line: this.line } } })
  }
}

export type ContactsError = Invalid | Missing | Refused | CsvRejected

export const invalid = (fields: Problems) => new Invalid({ fields })
export const missing = () => new Missing()
