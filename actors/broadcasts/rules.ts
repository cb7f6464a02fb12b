import { Schema } from 'effect'
import { localParts, startOfLocalDay } from '../../engine/time'
import type { BroadcastRow, Status } from '../../store/broadcasts'
import type { ContactRow } from '../../store/contacts'
import type { PlanState } from '../../store/plans'
import { customValue } from '../customValues'
import { BigId, Id, IsoDateTime, Text } from '../fields'

/**
 * The rules of broadcasts that need no database: the request shapes, default settings and the
 * safety limits, message variables, the state table (`can`), the pacing decision the sender takes
 * before every message (a pure function of the clock reading), the finish-time estimate built on
 * the same decision, the risk level and the monthly quota. Figures are ours (docs/decisions.md,
 * "Broadcasts").
 */
export const LIMITS = {
  /** A number sends at most 30 messages a minute (spec 2 §8); a broadcast never plans more. */
  max_pace_per_minute: 30,
  max_random_delay_seconds: 120,
  max_daily_cap: 100_000,
  max_skip_recent_hours: 720,
  max_variants: 5,
  max_text_length: 4096,
  max_footer_length: 200,
  max_recipients: 50_000,
  preview_contacts: 5,
  test_sends_per_hour: 10,
  attachment_bytes: 16 * 1024 * 1024,
} as const

export const DEFAULTS = {
  pace_per_minute: 10,
  random_delay_seconds: 5,
  daily_cap: 0,
  quiet_hours: { from: '21:00', to: '08:00' } as { from: string; to: string } | null,
  skip_recent_hours: 24,
  send_at: null as string | null,
}
export type Settings = typeof DEFAULTS

/** Broadcast messages a month per plan; Custom takes `broadcasts_per_month` from its contract. */
export const PRO_QUOTA = 10_000

export const quotaLimit = (w: PlanState): number => {
  if (w.plan === 'free') return 0
  if (w.plan === 'pro') return PRO_QUOTA
  const own = (w.limits as Readonly<Record<string, unknown>>).broadcasts_per_month
  return typeof own === 'number' && own >= 0 ? own : 0
}

const HHMM = Schema.String.pipe(
  Schema.filter((s) => /^([01]\d|2[0-3]):[0-5]\d$/.test(s), { message: () => 'field.pattern' }),
)

export const SettingsBody = Schema.Struct({
  pace_per_minute: Schema.optional(
    Schema.Number.pipe(Schema.int(), Schema.between(1, LIMITS.max_pace_per_minute)),
  ),
  random_delay_seconds: Schema.optional(
    Schema.Number.pipe(Schema.int(), Schema.between(0, LIMITS.max_random_delay_seconds)),
  ),
  daily_cap: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, LIMITS.max_daily_cap))),
  quiet_hours: Schema.optional(Schema.NullOr(Schema.Struct({ from: HHMM, to: HHMM }))),
  skip_recent_hours: Schema.optional(
    Schema.Number.pipe(Schema.int(), Schema.between(0, LIMITS.max_skip_recent_hours)),
  ),
  send_at: Schema.optional(Schema.NullOr(IsoDateTime)),
})

export const AudienceBody = Schema.Struct({
  segment_ids: Schema.optional(Schema.Array(Id).pipe(Schema.maxItems(20))),
  label_ids: Schema.optional(Schema.Array(Id).pipe(Schema.maxItems(50))),
  contact_ids: Schema.optional(Schema.Array(BigId).pipe(Schema.maxItems(LIMITS.max_recipients))),
})

export const VariantBody = Schema.Struct({
  text: Text(1, LIMITS.max_text_length),
  footer: Schema.optional(Schema.String.pipe(Schema.maxLength(LIMITS.max_footer_length))),
})
export const MessagesBody = Schema.Array(VariantBody).pipe(Schema.maxItems(LIMITS.max_variants))

export const settingsOf = (b: Pick<BroadcastRow, 'settings'>): Settings =>
  ({ ...DEFAULTS, ...b.settings }) as Settings

// ---- Variables ------------------------------------------------------------------------------

export const VARIABLES: ReadonlyArray<{ readonly name: string; readonly label: string }> = [
  { name: 'name', label: 'Contact name' },
  { name: 'first_name', label: 'First name' },
  { name: 'phone', label: 'Phone' },
  { name: 'email', label: 'E-mail' },
  { name: 'company', label: 'Company' },
  { name: 'job_title', label: 'Job title' },
  { name: 'city', label: 'City' },
]
const VARIABLE = /\{\{\s*([\w:]+)\s*\}\}/g

/** Variables a text names that are neither built in nor a contact field's `cf:<key>`. */
export const unknownVariables = (text: string, customKeys: ReadonlySet<string>): string[] =>
  [...text.matchAll(VARIABLE)]
    .map((m) => m[1]!)
    .filter(
      (v) => !VARIABLES.some((x) => x.name === v) && !(v.startsWith('cf:') && customKeys.has(v.slice(3))),
    )

export type ContactLike = Pick<
  ContactRow,
  'name' | 'phone' | 'email' | 'company' | 'job_title' | 'city' | 'custom'
>

/** The text a contact reads: variables filled (empty when the contact has no value), footer below. */
export const render = (
  v: { readonly text: string; readonly footer?: string | undefined },
  c: ContactLike,
) => {
  const value = (name: string): string => {
    if (name.startsWith('cf:')) {
      const x = customValue(c.custom, name.slice(3))
      return x === undefined || x === null ? '' : typeof x === 'boolean' ? (x ? 'Yes' : 'No') : String(x)
    }
    switch (name) {
      case 'name':
        return c.name
      case 'first_name':
        return c.name.trim().split(/\s+/)[0] ?? ''
      case 'phone':
        return c.phone ?? ''
      case 'email':
        return c.email ?? ''
      case 'company':
        return c.company ?? ''
      case 'job_title':
        return c.job_title ?? ''
      case 'city':
        return c.city ?? ''
      default:
        return ''
    }
  }
  const text = v.text.replace(VARIABLE, (_, name: string) => value(name)).trim()
  const footer = v.footer?.trim()
  return footer ? `${text}\n\n${footer}` : text
}

// ---- States ---------------------------------------------------------------------------------

export const can = (b: Pick<BroadcastRow, 'status' | 'channel_id'>, failed: number) => {
  const s: Status = b.status
  return {
    edit: s === 'draft',
    delete: s === 'draft' || s === 'completed' || s === 'cancelled',
    schedule: s === 'draft',
    pause: s === 'scheduled' || s === 'running',
    resume: s === 'paused',
    cancel: s === 'scheduled' || s === 'running' || s === 'paused',
    retry: failed > 0 && (s === 'running' || s === 'paused' || s === 'completed'),
    unschedule: s === 'scheduled',
    duplicate: true,
    test: b.channel_id !== null && s !== 'cancelled',
  }
}

// ---- Pacing ---------------------------------------------------------------------------------

export interface PaceInput {
  readonly nowMs: number
  readonly settings: Settings
  readonly zone: string
  /** When this broadcast last sent (or tried to). */
  readonly lastSentMs: number | null
  /** The extra random delay drawn for the next message. */
  readonly jitterMs: number
  /** Sent by this broadcast since the local midnight. */
  readonly sentToday: number
  /** The number's warm-up allowance: its limit per rolling 24 h and what it sent in the last 24 h. */
  readonly warmup: { readonly limit: number; readonly sent24h: number } | null
}

export type WaitReason = 'scheduled' | 'quiet_hours' | 'daily_cap' | 'warmup' | 'pace' | 'throttle'
export type PaceDecision =
  | { readonly _tag: 'Send' }
  | { readonly _tag: 'Wait'; readonly reason: WaitReason; readonly untilMs: number }

const MINUTE = 60_000
const toMinutes = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number]
  return h * 60 + m
}

/** When the quiet hours that hold at `nowMs` end, or null outside them. */
export const quietUntil = (nowMs: number, quiet: Settings['quiet_hours'], zone: string): number | null => {
  if (!quiet || quiet.from === quiet.to) return null
  const l = localParts(new Date(nowMs), zone)
  const now = l.hour * 60 + l.minute
  const from = toMinutes(quiet.from)
  const to = toMinutes(quiet.to)
  const inside = from < to ? now >= from && now < to : now >= from || now < to
  if (!inside) return null
  const minutes = (to - now + 1440) % 1440
  return nowMs + minutes * MINUTE - l.second * 1000 - (nowMs % 1000)
}

const nextLocalMidnight = (nowMs: number, zone: string) => {
  const l = localParts(new Date(nowMs), zone)
  return startOfLocalDay(l.year, l.month, l.day + 1, zone).getTime()
}

/** Whether the next message may go now, or what it waits for and until when. */
export const decide = (p: PaceInput): PaceDecision => {
  const quiet = quietUntil(p.nowMs, p.settings.quiet_hours, p.zone)
  if (quiet !== null) return { _tag: 'Wait', reason: 'quiet_hours', untilMs: quiet }
  if (p.settings.daily_cap > 0 && p.sentToday >= p.settings.daily_cap)
    return { _tag: 'Wait', reason: 'daily_cap', untilMs: nextLocalMidnight(p.nowMs, p.zone) }
  if (p.warmup && p.warmup.sent24h >= p.warmup.limit)
    return { _tag: 'Wait', reason: 'warmup', untilMs: p.nowMs + 15 * MINUTE }
  if (p.lastSentMs !== null) {
    const due = p.lastSentMs + Math.ceil(MINUTE / p.settings.pace_per_minute) + p.jitterMs
    if (due > p.nowMs) return { _tag: 'Wait', reason: 'pace', untilMs: due }
  }
  return { _tag: 'Send' }
}

/**
 * When `n` messages would be sent from `startMs` with the settings, the number's warm-up
 * allowance (its daily limit, and how much of today's is used) and the average random delay:
 * the sender's own decision replayed.
 */
export const finishTime = (
  startMs: number,
  n: number,
  settings: Settings,
  zone: string,
  warmup: { readonly limit: number; readonly sent24h: number } | null,
): number => {
  let now = startMs
  let last: number | null = null
  let today = 0
  let dayEnds = nextLocalMidnight(now, zone)
  let warm = warmup ? warmup.sent24h : 0
  const jitter = (settings.random_delay_seconds * 1000) / 2
  for (let sent = 0; sent < n; ) {
    if (now >= dayEnds) {
      today = 0
      warm = 0
      dayEnds = nextLocalMidnight(now, zone)
    }
    const d = decide({
      nowMs: now,
      settings,
      zone,
      lastSentMs: last,
      jitterMs: jitter,
      sentToday: today,
      warmup: warmup ? { limit: warmup.limit, sent24h: warm } : null,
    })
    if (d._tag === 'Wait') {
      // A warm-up wait lasts until the day's allowance comes back.
      now = d.reason === 'warmup' ? dayEnds : d.untilMs
      continue
    }
    last = now
    today += 1
    warm += 1
    sent += 1
  }
  return now
}

// ---- Risk -----------------------------------------------------------------------------------

export type RiskLevel = 'low' | 'medium' | 'high'
export interface RiskReason {
  readonly code: string
  readonly level: RiskLevel
  readonly message: string
}

export interface RiskInput {
  readonly recipients: number
  readonly settings: Settings
  readonly variants: number
  readonly channelStatus: string | null
  readonly warmup: { readonly limit: number; readonly remaining: number } | null
  /** Recipients who never wrote to this number. */
  readonly cold: number
}

export const riskOf = (r: RiskInput): { level: RiskLevel; reasons: RiskReason[] } => {
  const reasons: RiskReason[] = []
  const add = (code: string, level: RiskLevel, message: string) => reasons.push({ code, level, message })
  if (r.channelStatus === null) add('no_number', 'high', 'No messaging-app number is chosen.')
  else if (r.channelStatus === 'restricted')
    add('number_restricted', 'high', 'The number was restricted recently; sending more may get it banned.')
  else if (r.channelStatus !== 'active')
    add('number_not_connected', 'high', 'The number is not connected; nothing will be sent until it is.')
  if (r.warmup) {
    add(
      'new_number',
      'medium',
      `The number is new: at most ${r.warmup.limit} messages per 24 hours while it warms up.`,
    )
    if (r.recipients > r.warmup.remaining)
      add(
        'over_warmup',
        'high',
        'More recipients than the number may send today; the broadcast will take several days.',
      )
  }
  if (r.settings.pace_per_minute > 20)
    add(
      'fast_pace',
      r.settings.pace_per_minute >= 30 ? 'high' : 'medium',
      'A fast pace looks like a bot to the service.',
    )
  if (r.settings.random_delay_seconds === 0)
    add('no_random_delay', 'medium', 'Messages at exact intervals look automated.')
  if (r.recipients > 0 && r.cold / r.recipients > 0.5)
    add(
      'unsaved_contacts',
      r.cold / r.recipients > 0.8 ? 'high' : 'medium',
      'Most recipients never wrote to this number; numbers are often restricted for messaging strangers.',
    )
  if (r.variants < 2 && r.recipients > 200)
    add('single_variant', 'medium', 'Many identical messages; add variants so they differ.')
  if (r.recipients > 1000)
    add('large_audience', 'medium', 'A large audience: consider splitting it over days.')
  const level: RiskLevel = reasons.some((x) => x.level === 'high')
    ? 'high'
    : reasons.some((x) => x.level === 'medium')
      ? 'medium'
      : 'low'
  return { level, reasons }
}
