import { signJson, verifyJson } from '../../engine/tokens'

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
  /** A live chat visitor's session (then `u` is 0): such a socket may only join `visitor:{v}`. */
  readonly v?: string
  /** The app session that asked for the token: ending that session closes the socket. */
  readonly s?: number
}

export const TOKEN_TTL_SECONDS = 60

export const sign = (key: Buffer, grant: Grant): string => signJson(key, grant)

/** `nowMs` on the clock `exp` was set by (engine/clock's process clock: any node verifies). */
export const verify = (key: Buffer, token: string | null | undefined, nowMs: number): Grant | null => {
  const g = verifyJson(key, token) as Partial<Grant> | null
  if (
    !g ||
    typeof g.u !== 'number' ||
    typeof g.w !== 'number' ||
    typeof g.exp !== 'number' ||
    !Array.isArray(g.ch) ||
    (g.v !== undefined && typeof g.v !== 'string') ||
    (g.s !== undefined && typeof g.s !== 'number')
  ) {
    return null
  }
  return g.exp * 1000 > nowMs ? (g as Grant) : null
}
