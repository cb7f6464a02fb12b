import type { ChannelRow } from '../../store/channels'
import * as Settings from '../../store/settings'

/**
 * What decides whether an inbound customer message sets the inbox's automation going (spec 1 §4.4
 * `auto_reply`), as plain functions of values: the one rule for every channel type, so that the
 * messaging app, e-mail, live chat and the API channel cannot drift apart. `inbound.ts` runs them.
 */

/** Messages younger than this when they arrive are new; older ones are history or backlog. */
export const FRESH_MS = 10 * 60_000

/** What the channel knows about how a message arrived. */
export interface Arrival {
  /** Sent from our own side (the phone, another mail program): recorded, never answered. */
  readonly outgoing: boolean
  /** Imported history or backlog, not a message arriving now. */
  readonly history: boolean
  /** A group chat: nobody there is greeted or told we are away. */
  readonly group: boolean
  /** Itself automatic (RFC 3834 `Auto-Submitted`, bulk or list mail), so two responders cannot loop. */
  readonly automatic: boolean
  /**
   * When the channel dates its messages (mail, the messaging app): the sender's time, epoch ms, or
   * null when the message carried none (then it is not known to be new). Absent when the message
   * is being posted now (the API channel, live chat): it is new.
   */
  readonly sentAt?: number | null
}

/**
 * How the message's conversation came to be: opened for this message (announced to the inbox as
 * `conversation.created`), already there, or opened earlier without a message (live chat opens it
 * with the visitor), where the first message is what makes it new.
 */
export type Opening = 'created' | 'existing' | 'awaiting first message'

/** Whether the conversation counts as new for the greeting, given the stored message's sequence. */
export const isNewConversation = (opening: Opening, seq: number): boolean =>
  opening === 'created' || (opening === 'awaiting first message' && seq === 1)

/**
 * Whether automation runs for the message: a fresh customer message, stored for the first time
 * (a resend was answered when it first came).
 */
export const automationRuns = (a: Arrival, duplicate: boolean, nowMs: number): boolean =>
  !duplicate &&
  !a.outgoing &&
  !a.history &&
  !a.group &&
  !a.automatic &&
  (a.sentAt === undefined || (a.sentAt !== null && nowMs - a.sentAt < FRESH_MS))

interface AutoReplySettings {
  readonly greeting_on?: boolean
  readonly greeting?: string
  readonly away_on?: boolean
  readonly away?: string
}

/** The automatic replies a channel has on for an inbound message (texts), or null when none. */
export const repliesOf = (settings: ChannelRow['settings'], newConversation: boolean) => {
  const auto = (settings.auto_reply ?? {}) as AutoReplySettings
  const greeting = newConversation && auto.greeting_on ? (auto.greeting ?? '').trim() : ''
  const away = auto.away_on ? (auto.away ?? '').trim() : ''
  return greeting === '' && away === '' ? null : { greeting, away }
}

/**
 * Whether the away message is due at `now`: outside business hours, the channel's own (its
 * `hours` setting) or else the workspace's. Whether it went out recently is asked afterwards.
 */
export const awayDue = (
  channelHours: Settings.BusinessHours | null | undefined,
  general: { readonly business_hours: Settings.BusinessHours; readonly timezone: string },
  now: Date,
): boolean => !Settings.openAt(channelHours ?? general.business_hours, general.timezone, now)
