import { localParts, offsetMs } from '../engine/time'

/**
 * The reply target of a waiting conversation (spec 2 §2 `sla`, Pro and Custom): how long the
 * customer has waited in business minutes, when the reply is due, and whether that is a warning
 * or a breach. Pure arithmetic over the business hours object of spec 1 §2, in the workspace
 * zone.
 */
export interface BusinessHours {
  readonly enabled: boolean
  /** `day` 1 = Monday … 7 = Sunday; `from`/`to` are `HH:MM`. */
  readonly days: ReadonlyArray<{
    readonly day: number
    readonly open: boolean
    readonly from: string
    readonly to: string
  }>
}

export interface SlaPolicy {
  readonly targetMinutes: number
  /** Part of the target after which a waiting conversation is flagged `warn`. */
  readonly warnRatio: number
  /** Null or disabled = around the clock. */
  readonly hours: BusinessHours | null
  readonly zone: string
}

/**
 * Until the workspace settings issue adds the response target and business hours, every
 * workspace gets these (docs/decisions-inbox.md).
 */
export const DEFAULT_TARGET_MINUTES = 30
export const DEFAULT_WARN_RATIO = 0.8

export const defaultPolicy = (zone: string): SlaPolicy => ({
  targetMinutes: DEFAULT_TARGET_MINUTES,
  warnRatio: DEFAULT_WARN_RATIO,
  hours: null,
  zone,
})

const MINUTE = 60_000
/** Looking further than this for open hours gives up (a calendar with no open day). */
const MAX_DAYS = 400

const hhmm = (s: string): number => {
  const m = /^(\d{1,2}):(\d{2})$/.exec(s)
  return m ? Math.min(24 * 60, Number(m[1]) * 60 + Number(m[2])) : 0
}

/**
 * The instant of a local wall time (`minute` after local midnight, 1440 = the next midnight), found
 * like engine/time `startOfLocalDay`: by the zone's offset at the instant itself, so an opening
 * time on a daylight-saving day is that wall time, not midnight plus a fixed number of hours.
 */
const localInstant = (year: number, month: number, day: number, minute: number, zone: string): number => {
  const guess = Date.UTC(year, month - 1, day, 0, minute)
  const first = guess - offsetMs(new Date(guess), zone)
  return guess - offsetMs(new Date(first), zone)
}

/** Open intervals (epoch ms) of each local day from the one holding `from`, in order. */
function* openIntervals(
  from: Date,
  hours: BusinessHours,
  zone: string,
): Generator<readonly [number, number]> {
  const l = localParts(from, zone)
  for (let i = 0; i < MAX_DAYS; i++) {
    const weekday = ((new Date(Date.UTC(l.year, l.month - 1, l.day + i)).getUTCDay() + 6) % 7) + 1
    const rule = hours.days.find((d) => d.day === weekday)
    if (!rule?.open) continue
    const open = hhmm(rule.from)
    const close = hhmm(rule.to) > open ? hhmm(rule.to) : 24 * 60
    yield [
      localInstant(l.year, l.month, l.day + i, open, zone),
      localInstant(l.year, l.month, l.day + i, close, zone),
    ] as const
  }
}

/** What business time is measured in: the hours in force and the zone they are read in. */
export type Calendar = Pick<SlaPolicy, 'hours' | 'zone'>

const aroundTheClock = (p: Calendar) => p.hours === null || !p.hours.enabled

/** Business milliseconds between two instants. */
export const businessMs = (from: Date, to: Date, p: Calendar): number => {
  if (to.getTime() <= from.getTime()) return 0
  if (aroundTheClock(p)) return to.getTime() - from.getTime()
  let total = 0
  for (const [a, b] of openIntervals(from, p.hours!, p.zone)) {
    if (a >= to.getTime()) break
    total += Math.max(0, Math.min(b, to.getTime()) - Math.max(a, from.getTime()))
  }
  return total
}

/**
 * Business minutes between two instants, to the nearest whole minute: the measure of every report
 * and KPI time (actors/metrics.ts).
 */
export const businessMinutes = (from: Date, to: Date, p: Calendar): number =>
  Math.round(businessMs(from, to, p) / MINUTE)

/** The instant `minutes` business minutes after `from`, or null when no open hours come. */
export const addBusinessMinutes = (from: Date, minutes: number, p: Calendar): Date | null => {
  if (aroundTheClock(p)) return new Date(from.getTime() + minutes * MINUTE)
  let left = minutes * MINUTE
  for (const [a, b] of openIntervals(from, p.hours!, p.zone)) {
    const start = Math.max(a, from.getTime())
    if (start >= b) continue
    if (b - start >= left) return new Date(start + left)
    left -= b - start
  }
  return null
}

export interface Sla {
  readonly level: 'warn' | 'breach'
  /** Business minutes waited so far. */
  readonly minutes: number
  readonly due_at: Date | null
}

/** The SLA flag of a conversation waiting since `since`, or null when it is fine or not waiting. */
export const slaOf = (since: Date | null, now: Date, p: SlaPolicy): Sla | null => {
  if (since === null) return null
  const minutes = Math.floor(businessMs(since, now, p) / MINUTE)
  const level =
    minutes >= p.targetMinutes ? 'breach' : minutes >= p.targetMinutes * p.warnRatio ? 'warn' : null
  if (level === null) return null
  return { level, minutes, due_at: addBusinessMinutes(since, p.targetMinutes, p) }
}
