import { Schema } from 'effect'

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
