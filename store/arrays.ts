/**
 * PostgreSQL array literals for parameters: @effect/sql expands a JS array into a value list, so
 * array columns are written as one literal with a cast (`${pgArray(xs)}::text[]`).
 */
export const pgArray = (values: ReadonlyArray<string | number>): string =>
  `{${values.map((v) => (typeof v === 'number' ? String(v) : `"${v.replace(/["\\]/g, '\\$&')}"`)).join(',')}}`
