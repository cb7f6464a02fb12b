import * as crypto from 'node:crypto'
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { Context } from 'effect'

/** URL-safe random secret with `bytes` of entropy. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url')

/** Secrets with full entropy need no slow hash; SHA-256 makes the stored value useless if leaked. */
export const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest()

/**
 * `digest` as base64 text (cache keys of credentials; every authenticated request makes one): the
 * one-shot `crypto.hash` where Node has it (20.12 and later), less than half the CPU of a Hash
 * object's create, update and digest.
 */
export const digestText: (secret: string) => string =
  typeof crypto.hash === 'function'
    ? (secret) => crypto.hash('sha256', secret, 'base64')
    : (secret) => createHash('sha256').update(secret).digest('base64')

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const mac = (key: Buffer, body: string) => createHmac('sha256', key).update(body).digest('base64url')

/**
 * A signed, self-contained token (`base64url(json).mac`): verified by any node holding the
 * deployment's key, with no lookup. Payloads carry their own purpose and expiry fields; the
 * verifier of each purpose checks them.
 */
export const signJson = (key: Buffer, payload: unknown): string => {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${mac(key, body)}`
}

/** The payload of a token `signJson` made with this key, or null (malformed, forged). */
export const verifyJson = (key: Buffer, token: string | null | undefined): unknown => {
  if (!token) return null
  const dot = token.indexOf('.')
  if (dot <= 0) return null
  const body = token.slice(0, dot)
  if (!safeEqual(token.slice(dot + 1), mac(key, body))) return null
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown
  } catch {
    return null
  }
}

/**
 * The deployment's token-signing key (one per deployment, kept in store/serverKeys), loaded once
 * at start: real-time tokens, visitor tokens and signed file links all verify with it on any node.
 * Each token kind carries its own purpose field so one kind never passes for another.
 */
export class SigningKey extends Context.Tag('kotak/SigningKey')<SigningKey, Buffer>() {}
