import { describe, expect, it } from 'vitest'
import {
  type Arrival,
  automationRuns,
  awayDue,
  FRESH_MS,
  isNewConversation,
  repliesOf,
} from '../../actors/inbox/inboundRules'
import type { BusinessHours } from '../../store/settings'

/** Whether an inbound message sets automation going, with plain values (actors/inbox/inboundRules.ts). */

const NOW = Date.UTC(2026, 10, 25, 3, 0) // a Wednesday, 10:00 in Jakarta
const posted: Arrival = { outgoing: false, history: false, group: false, automatic: false }

describe('automation runs', () => {
  it.each<[string, Arrival, boolean, boolean]>([
    ['a message posted now (API channel, live chat)', posted, false, true],
    ['a resend of a stored message', posted, true, false],
    ['our own side (the phone, the Sent folder)', { ...posted, outgoing: true }, false, false],
    ['history being imported', { ...posted, history: true, sentAt: NOW }, false, false],
    ['a group chat', { ...posted, group: true, sentAt: NOW }, false, false],
    ['automatic or bulk mail', { ...posted, automatic: true, sentAt: NOW }, false, false],
    ['dated just now', { ...posted, sentAt: NOW - 1_000 }, false, true],
    ['dated in the future', { ...posted, sentAt: NOW + 60_000 }, false, true],
    ['dated just under ten minutes ago', { ...posted, sentAt: NOW - FRESH_MS + 1 }, false, true],
    ['dated ten minutes ago', { ...posted, sentAt: NOW - FRESH_MS }, false, false],
    ['undated mail', { ...posted, sentAt: null }, false, false],
  ])('%s', (_, arrival, duplicate, runs) => {
    expect(automationRuns(arrival, duplicate, NOW)).toBe(runs)
  })
})

describe('a new conversation', () => {
  it.each([
    ['created', 1, true],
    ['created', 3, true],
    ['existing', 1, false],
    ['awaiting first message', 1, true],
    ['awaiting first message', 2, false],
  ] as const)('%s, message %i: %s', (opening, seq, isNew) => {
    expect(isNewConversation(opening, seq)).toBe(isNew)
  })
})

describe('automatic replies', () => {
  const both = { auto_reply: { greeting_on: true, greeting: ' Hi ', away_on: true, away: 'Away' } }
  it.each([
    [{}, true, null],
    [{ auto_reply: { greeting_on: true, greeting: '  ' } }, true, null],
    [both, true, { greeting: 'Hi', away: 'Away' }],
    [both, false, { greeting: '', away: 'Away' }],
    [{ auto_reply: { greeting_on: true, greeting: 'Hi' } }, false, null],
    [
      { auto_reply: { greeting_on: false, greeting: 'Hi', away_on: true, away: 'Away' } },
      true,
      { greeting: '', away: 'Away' },
    ],
  ])('%j, new %s', (settings, newConversation, replies) => {
    expect(repliesOf(settings, newConversation)).toEqual(replies)
  })

  const weekdays = (from: string, to: string): BusinessHours => ({
    enabled: true,
    days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from, to })),
  })
  const jakarta = { business_hours: weekdays('08:00', '17:00'), timezone: 'Asia/Jakarta' }

  it.each<[string, BusinessHours | null | undefined, number, boolean]>([
    ["inside the workspace's hours", undefined, NOW, false],
    ["after the workspace's hours", null, NOW + 8 * 3_600_000, true],
    ["the channel's own hours, closed now", weekdays('12:00', '17:00'), NOW, true],
    ['hours switched off', { enabled: false, days: [] }, NOW + 8 * 3_600_000, false],
    ['a Saturday', undefined, NOW + 3 * 86_400_000, true],
  ])('away %s', (_, channelHours, at, due) => {
    expect(awayDue(channelHours, jakarta, new Date(at))).toBe(due)
  })
})
