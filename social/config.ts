import * as path from 'node:path'
import { Context } from 'effect'

/**
 * Settings of the social reporting service (spec 3), read once from the environment. It runs
 * beside the messaging service, so its defaults differ: port 8090 and data under `./data/social`.
 */
export interface SocialConfigShape {
  readonly port: number
  readonly host: string
  readonly dataDir: string
  /** PostgreSQL URL; absent means the embedded database under `dataDir`. Tables live in schema `social`. */
  readonly databaseUrl: string | undefined
  /** Bounds on the database pool, as the main service's `DB_WAIT_MS`, `DB_STRICT` and `DB_PREPARED`. */
  readonly db: {
    readonly waitMs: number
    readonly queryTimeoutMs: number
    readonly strict: boolean
    readonly prepared: boolean
  }
  /** Redis URL; absent means in-process rate limits. */
  readonly redisUrl: string | undefined
  /** Prefix of the service's Redis keys: `${REDIS_PREFIX}social:`. */
  readonly redisPrefix: string
  /** The platform app's secret, which signs webhook notifications (`X-Hub-Signature-256`). */
  readonly appSecret: string | undefined
  /** The token the platform echoes in the subscription handshake (`hub.verify_token`). */
  readonly verifyToken: string | undefined
  readonly maxBodyBytes: number
  readonly allowUwsFallback: boolean
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error' | 'none'
}

export class SocialConfig extends Context.Tag('kotak/social/Config')<SocialConfig, SocialConfigShape>() {}

export class SocialConfigError extends Error {
  override readonly name = 'SocialConfigError'
}

export const DEFAULT_PORT = 8090
export const DEFAULT_DATA_DIR = './data/social'

const text = (env: NodeJS.ProcessEnv, key: string): string | undefined => {
  const v = env[key]?.trim()
  return v ? v : undefined
}

const int = (env: NodeJS.ProcessEnv, key: string, fallback: number, min: number, max: number): number => {
  const raw = text(env, key)
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new SocialConfigError(`${key} must be an integer from ${min} to ${max}, got "${raw}"`)
  }
  return n
}

const levels = ['debug', 'info', 'warn', 'error', 'none'] as const

export const loadSocialConfig = (env: NodeJS.ProcessEnv = process.env): SocialConfigShape => {
  const logLevel = (text(env, 'LOG_LEVEL') ?? 'info').toLowerCase()
  if (!(levels as readonly string[]).includes(logLevel)) {
    throw new SocialConfigError(`LOG_LEVEL must be ${levels.join(', ')}, got "${logLevel}"`)
  }
  const appSecret = text(env, 'INSTAGRAM_APP_SECRET')
  const verifyToken = text(env, 'INSTAGRAM_VERIFY_TOKEN')
  if ((appSecret === undefined) !== (verifyToken === undefined)) {
    throw new SocialConfigError(
      'INSTAGRAM_APP_SECRET and INSTAGRAM_VERIFY_TOKEN go together: set both to enable the webhook, or neither',
    )
  }
  return {
    port: int(env, 'PORT', DEFAULT_PORT, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    dataDir: path.resolve(text(env, 'DATA_DIR') ?? DEFAULT_DATA_DIR),
    databaseUrl: text(env, 'DATABASE_URL'),
    db: {
      waitMs: int(env, 'DB_WAIT_MS', 5000, 100, 600_000),
      queryTimeoutMs: int(env, 'DB_QUERY_TIMEOUT_MS', 30_000, 100, 3_600_000),
      strict: /^(1|true|yes)$/i.test(env.DB_STRICT ?? ''),
      prepared: !/^(0|false|no|off)$/i.test(env.DB_PREPARED ?? ''),
    },
    redisUrl: text(env, 'REDIS_URL'),
    redisPrefix: `${text(env, 'REDIS_PREFIX') ?? 'kotak:'}social:`,
    appSecret,
    verifyToken,
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 1_073_741_824),
    allowUwsFallback: /^(1|true|yes)$/i.test(env.UWS_ALLOW_FALLBACK ?? ''),
    logLevel: logLevel as SocialConfigShape['logLevel'],
  }
}
