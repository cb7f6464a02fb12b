import { createHash } from 'node:crypto'
import { randomToken, signJson, verifyJson } from '../../engine/tokens'

/**
 * The start form's token against scripted abuse (spec 1 §4.6 `form_token`): `config` issues it,
 * signed (HMAC-SHA256 with a key derived from the deployment's key) with the channel, the issue
 * time and a nonce. `POST /visitors` accepts it only for the same channel, no sooner than the
 * minimum fill time (a person takes seconds to type three fields; a script posts at once), no
 * later than `FORM_TOKEN_TTL_MS`, and once (the nonce is spent in the database). A per-address
 * budget of starts per minute comes on top.
 */
export const FORM_TOKEN_TTL_MS = 60 * 60_000

interface Payload {
  readonly p: 'lcf'
  readonly c: number
  readonly t: number
  readonly n: string
}

const keyOf = (deploymentKey: Buffer) =>
  createHash('sha256').update(deploymentKey).update('kotak/livechat-form').digest()

export const issue = (deploymentKey: Buffer, channelId: number, nowMs: number) =>
  signJson(keyOf(deploymentKey), { p: 'lcf', c: channelId, t: nowMs, n: randomToken(12) } satisfies Payload)

export type FormTokenVerdict =
  | { readonly ok: true; readonly nonce: string }
  | { readonly ok: false; readonly reason: 'invalid' | 'too_fast' | 'expired' }

export const check = (
  deploymentKey: Buffer,
  token: string,
  channelId: number,
  minFillMs: number,
  nowMs: number,
): FormTokenVerdict => {
  const p = verifyJson(keyOf(deploymentKey), token) as Partial<Payload> | null
  if (p?.p !== 'lcf' || p.c !== channelId || typeof p.t !== 'number' || typeof p.n !== 'string')
    return { ok: false, reason: 'invalid' }
  if (nowMs - p.t < minFillMs) return { ok: false, reason: 'too_fast' }
  if (nowMs - p.t > FORM_TOKEN_TTL_MS) return { ok: false, reason: 'expired' }
  return { ok: true, nonce: p.n }
}
