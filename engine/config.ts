import * as path from 'node:path'
import { Context } from 'effect'

/**
 * Every setting the service reads from its environment, parsed once at start. The README's
 * environment table mirrors this list; keep them together.
 */
export interface AppConfig {
  readonly port: number
  readonly host: string
  readonly publicUrl: string
  readonly dataDir: string
  /** PostgreSQL URL; absent means the embedded database under `dataDir`. */
  readonly databaseUrl: string | undefined
  /** Redis URL; absent means in-process rate limits and bus. */
  readonly redisUrl: string | undefined
  /** Prefix of every Redis key, so several deployments (or test runs) can share one Redis. */
  readonly redisPrefix: string
  readonly oidc:
    | {
        readonly issuer: string
        readonly clientId: string
        readonly clientSecret: string
        /** Allows an `http://` issuer (local identity providers, tests). */
        readonly allowInsecure: boolean
      }
    | undefined
  readonly allowUwsFallback: boolean
  readonly maxBodyBytes: number
  readonly sessionTtlHours: number
  /** Requests per minute per API key (spec: 120). Benchmarks raise it to measure throughput. */
  readonly rateLimitPerKey: number
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'none'
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

const int = (env: NodeJS.ProcessEnv, key: string, fallback: number, min: number, max: number): number => {
  const raw = env[key]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${key} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return n
}

const bool = (env: NodeJS.ProcessEnv, key: string): boolean => /^(1|true|yes)$/i.test(env[key] ?? '')

const nonEmpty = (env: NodeJS.ProcessEnv, key: string): string | undefined => {
  const v = env[key]?.trim()
  return v ? v : undefined
}

export const loadConfig = (env: NodeJS.ProcessEnv = process.env): AppConfig => {
  const port = int(env, 'PORT', 8080, 0, 65535)
  const issuer = nonEmpty(env, 'OIDC_ISSUER')
  const clientId = nonEmpty(env, 'OIDC_CLIENT_ID')
  const clientSecret = nonEmpty(env, 'OIDC_CLIENT_SECRET')
  if (issuer && (!clientId || !clientSecret)) {
    throw new ConfigError('OIDC_ISSUER is set: OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are required too')
  }
  const logLevel = (nonEmpty(env, 'LOG_LEVEL') ?? 'info').toLowerCase()
  if (!['debug', 'info', 'warn', 'error', 'none'].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be debug, info, warn, error or none, got "${logLevel}"`)
  }
  return {
    port,
    host: nonEmpty(env, 'HOST') ?? '0.0.0.0',
    publicUrl: (nonEmpty(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    dataDir: path.resolve(nonEmpty(env, 'DATA_DIR') ?? './data'),
    databaseUrl: nonEmpty(env, 'DATABASE_URL'),
    redisUrl: nonEmpty(env, 'REDIS_URL'),
    redisPrefix: nonEmpty(env, 'REDIS_PREFIX') ?? 'kotak:',
    oidc:
      issuer && clientId && clientSecret
        ? { issuer, clientId, clientSecret, allowInsecure: bool(env, 'OIDC_ALLOW_INSECURE') }
        : undefined,
    allowUwsFallback: bool(env, 'UWS_ALLOW_FALLBACK'),
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    sessionTtlHours: int(env, 'SESSION_TTL_HOURS', 336, 1, 8760),
    rateLimitPerKey: int(env, 'RATE_LIMIT_PER_KEY', 120, 1, 100_000_000),
    logLevel: logLevel as AppConfig['logLevel'],
  }
}

export class Config extends Context.Tag('kotak/Config')<Config, AppConfig>() {}
