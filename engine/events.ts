import { Effect } from 'effect'
import { Bus } from './bus/Bus'
import { systemMillis } from './clock'
import { isoMillis } from './time'

/**
 * Real-time events: encoded once as `{event, data, at}` and handed to the bus; every node with
 * subscribers to the topic delivers the same bytes to all of them. Publish only after the
 * database commit that the event reports.
 */
const encoder = new TextEncoder()

export const publishEvent = (topic: string, event: string, data: unknown) =>
  Effect.flatMap(Bus, (bus) =>
    bus.publish(topic, encoder.encode(JSON.stringify({ event, data, at: isoMillis(systemMillis()) }))),
  )

/** Control topic of one user's sockets on every node. */
export const userControlTopic = (userId: number) => `_ctl:user:${userId}`

export type ControlMessage =
  /** The user lost access to a topic: unsubscribe their sockets and tell them why. */
  | { readonly op: 'revoke'; readonly topic: string }
  /**
   * The user lost access to the workspace (disabled, removed, signed out everywhere); with
   * `session`, only that session ended: the sockets it opened close, the others stay.
   */
  | { readonly op: 'disconnect'; readonly session?: number }

export const sendControl = (userId: number, msg: ControlMessage) =>
  Effect.flatMap(Bus, (bus) => bus.publish(userControlTopic(userId), encoder.encode(JSON.stringify(msg))))

export const revokeSubscription = (userId: number, topic: string) =>
  sendControl(userId, { op: 'revoke', topic })
export const disconnectUser = (userId: number) => sendControl(userId, { op: 'disconnect' })
export const disconnectSession = (userId: number, sessionId: number) =>
  sendControl(userId, { op: 'disconnect', session: sessionId })

/** Asks every node to re-authorise its subscribers of `topic` (after an assignment change, say). */
export const RECHECK_FRAME = '{"op":"recheck"}'
export const recheckTopic = (topic: string) =>
  Effect.flatMap(Bus, (bus) => bus.publish(topic, encoder.encode(RECHECK_FRAME)))

/**
 * Credentials cached by nodes (resolved API keys and sessions) that a change made stale: every
 * node drops the matching entries. Sent by whatever revokes a key, ends a session or changes a
 * workspace, member or role.
 */
export const CREDENTIALS_TOPIC = '_ctl:credentials'
export type CredentialScope =
  | { readonly workspaceId: number }
  | { readonly userId: number }
  | { readonly all: true }

export const invalidateCredentials = (scope: CredentialScope) =>
  Effect.flatMap(Bus, (bus) => bus.publish(CREDENTIALS_TOPIC, encoder.encode(JSON.stringify(scope))))
