import { createHmac } from 'node:crypto'
import { systemMillis } from '../clock'
import { safeEqual } from '../tokens'

/**
 * Webhook signatures: `sha256=` + hex HMAC-SHA256 over `timestamp + "." + body` with the shared
 * secret. The timestamp travels in its own header and is part of what is signed, so a captured
 * delivery cannot be replayed later with a fresh timestamp; receivers should refuse timestamps
 * older than a few minutes.
 */
export const sign = (secret: string, timestamp: number, body: string): string =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`

export const verify = (
  secret: string,
  timestamp: number,
  body: string,
  signature: string,
  nowSeconds = Math.floor(systemMillis() / 1000),
  toleranceSeconds = 300,
): boolean =>
  Math.abs(nowSeconds - timestamp) <= toleranceSeconds && safeEqual(sign(secret, timestamp, body), signature)
