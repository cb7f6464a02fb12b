import { Context } from 'effect'
import { systemMillis } from './clock'
import type { AppConfig } from './config'

type Level = 'debug' | 'info' | 'warn' | 'error'
const rank: Record<Level | 'none', number> = { debug: 10, info: 20, warn: 30, error: 40, none: 99 }

export type LogFields = Readonly<Record<string, unknown>>

/**
 * Structured JSON lines on stdout. Callers pass ids (request, workspace, actor) as fields; never
 * secrets: keys, tokens and passwords stay out of every log line.
 */
export interface Logger {
  readonly debug: (msg: string, fields?: LogFields) => void
  readonly info: (msg: string, fields?: LogFields) => void
  readonly warn: (msg: string, fields?: LogFields) => void
  readonly error: (msg: string, fields?: LogFields) => void
}

export const makeLogger = (
  level: AppConfig['logLevel'],
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger => {
  const min = rank[level]
  const emit = (lvl: Level) => (msg: string, fields?: LogFields) => {
    if (rank[lvl] < min) return
    write(`${JSON.stringify({ t: new Date(systemMillis()).toISOString(), level: lvl, msg, ...fields })}\n`)
  }
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
}

export class Log extends Context.Tag('kotak/Log')<Log, Logger>() {}
