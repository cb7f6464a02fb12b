import { createHmac } from 'node:crypto'
import { Context } from 'effect'
import { safeEqual } from '../../engine/tokens'

/**
 * Real-time tokens are signed, not stored: any node holding the deployment's shared key
 * (store/serverKeys) verifies them, so they work cluster-wide with no lookup on connect.
 */
export interface Grant {
  /** User id. */
  readonly u: number
  /** Workspace id. */
  readonly w: number
  /** Expiry, epoch seconds. */
  readonly exp: number
  /** Channels to subscribe on connect. */
  readonly ch: readonly string[]
}

export const TOKEN_TTL_SECONDS = 60

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url')

export const sign = (key: Buffer, grant: Grant): string => {
  const body = Buffer.from(JSON.stringify(grant)).toString('base64url')
  return `${body}.${mac(key, body)}`
}

export const verify = (key: Buffer, token: string | null | undefined, nowMs = Date.now()): Grant | null => {
  if (!token) return null
  const dot = token.indexOf('.')
  if (dot <= 0) return null
  const body = token.slice(0, dot)
  if (!safeEqual(token.slice(dot + 1), mac(key, body))) return null
  try {
    const g = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Grant
    if (
      typeof g.u !== 'number' ||
      typeof g.w !== 'number' ||
      typeof g.exp !== 'number' ||
      !Array.isArray(g.ch)
    ) {
      return null
    }
    return g.exp * 1000 > nowMs ? g : null
  } catch {
    return null
  }
}

/** The deployment's token-signing key, loaded once at start (store/serverKeys). */
export class RealtimeKey extends Context.Tag('kotak/RealtimeKey')<RealtimeKey, Buffer>() {}
