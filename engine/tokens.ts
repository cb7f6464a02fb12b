import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** URL-safe random secret with `bytes` of entropy. */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString('base64url')

/** Secrets with full entropy need no slow hash; SHA-256 makes the stored value useless if leaked. */
export const digest = (secret: string): Buffer => createHash('sha256').update(secret).digest()

export const safeEqual = (a: string, b: string): boolean => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
