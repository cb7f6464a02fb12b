/**
 * The WebSocket protocol of the real-time gateway, in one place.
 *
 * Client → server (JSON text frames):
 *   {op: 'subscribe', channel, since?, ref?}   since = the `cursor` of the last event seen
 *   {op: 'unsubscribe', channel, ref?}
 *   {op: 'ping', ref?}
 * Server → client:
 *   events: {event, data, at, cursor}          (`cursor` lets a reconnecting client resume)
 *   {op: 'subscribed', channel, ref?}
 *   {op: 'refused', channel, code, message, ref?}
 *   {op: 'unsubscribed', channel, reason, ref?}  reason: 'requested' | 'access_lost'
 *   {op: 'reload', channel, ref?}              the cursor is too old (or from another node): reload via the API
 *   {op: 'pong', ref?}
 *   {op: 'error', code, message}               a frame the server could not understand
 */

import { MAX_JSON_DEPTH, nestsDeeper } from '../validation'

/**
 * Close codes. 4000–4499: the client may reconnect (with a fresh token). 4500–4999: it must not
 * reconnect on its own (access is gone). 1001 = server going away (reconnect).
 */
export const closeCodes = {
  slowConsumer: { code: 4008, reason: 'slow_consumer', reconnect: true },
  /** A subscription could not be authorised because the database cannot serve now. */
  unavailable: { code: 4013, reason: 'unavailable', reconnect: true },
  accessLost: { code: 4503, reason: 'access_lost', reconnect: false },
} as const

/** Buffered bytes beyond which a socket counts as a slow consumer and is closed. */
export const SLOW_CONSUMER_BYTES = 1024 * 1024

export type ClientFrame =
  | { readonly op: 'subscribe'; readonly channel: string; readonly since?: string; readonly ref?: unknown }
  | { readonly op: 'unsubscribe'; readonly channel: string; readonly ref?: unknown }
  | { readonly op: 'ping'; readonly ref?: unknown }

export const parseFrame = (text: string): ClientFrame | null => {
  // A `ref` is echoed back: one nested past the request bodies' limit would overflow the stack
  // when the answer is written.
  if (nestsDeeper(text, MAX_JSON_DEPTH)) return null
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch {
    return null
  }
  if (typeof v !== 'object' || v === null) return null
  const f = v as Record<string, unknown>
  if (f.op === 'ping') return { op: 'ping', ref: f.ref }
  if (
    (f.op === 'subscribe' || f.op === 'unsubscribe') &&
    typeof f.channel === 'string' &&
    f.channel.length <= 200
  ) {
    if (f.op === 'unsubscribe') return { op: 'unsubscribe', channel: f.channel, ref: f.ref }
    return {
      op: 'subscribe',
      channel: f.channel,
      ...(typeof f.since === 'string' ? { since: f.since } : {}),
      ref: f.ref,
    }
  }
  return null
}
