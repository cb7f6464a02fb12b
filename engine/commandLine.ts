import { parseArgs } from 'node:util'

/**
 * Argument parsing for the operator CLIs (the service's `kotak`, the social service's
 * `kotak-social`): node's `util.parseArgs` in strict mode, with every refusal turned into a
 * `UsageError`, which an entry answers with the message, the usage and exit code 2.
 */
export class UsageError extends Error {}

/** Every option takes a value (`--name NAME`), except booleans (`--help`). */
export type OptionSpecs = Readonly<
  Record<string, { readonly type: 'string' | 'boolean'; readonly short?: string }>
>

export type Values<O extends OptionSpecs> = {
  readonly [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean
}

export interface CommandLine<O extends OptionSpecs> {
  /** The command's words (`workspace create`), in order. */
  readonly words: readonly string[]
  readonly values: Values<O>
}

/** Unknown options, a missing value or an option given the wrong kind of value: `UsageError`. */
export const parse = <const O extends OptionSpecs>(argv: readonly string[], options: O): CommandLine<O> => {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      options,
      allowPositionals: true,
      strict: true,
    })
    return { words: positionals, values: values as Values<O> }
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e))
  }
}

/** A required string option, trimmed; absent or blank is a `UsageError`. */
export const need = <O extends OptionSpecs>(values: Values<O>, key: keyof O & string): string => {
  const v = values[key]
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${key} is required`)
  return v.trim()
}

/** What an entry prints on standard error for a `UsageError`, before exiting with 2. */
export const usageText = (program: string, message: string, usage: string) =>
  `${program}: ${message}\n\n${usage}\n`
