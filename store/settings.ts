import { SqlClient } from '@effect/sql'
import { Effect } from 'effect'
import { localParts } from '../engine/time'
import type { WorkspaceRow } from './workspaces'

/** The business hours object of spec 1 §2: `day` 1 = Monday … 7 = Sunday, `from`/`to` `HH:MM`. */
export interface BusinessHours {
  readonly enabled: boolean
  readonly days: ReadonlyArray<{
    readonly day: number
    readonly open: boolean
    readonly from: string
    readonly to: string
  }>
}

/** What the inbox's reply-target flag needs (the shape of store/sla.ts `SlaPolicy`). */
export interface ReplyPolicy {
  readonly targetMinutes: number
  readonly warnRatio: number
  readonly hours: BusinessHours | null
  readonly zone: string
}

/**
 * A workspace's General settings (spec 1 §4.1 `GET /settings`): time zone (a column of the
 * workspace), response target and business hours (the `settings` column, defaults below). The
 * inbox reads the same values through `slaPolicyOf`.
 */
export interface GeneralSettings {
  readonly timezone: string
  /** Reply target for a waiting conversation, in business minutes. */
  readonly response_target_minutes: number
  /** Share of the target after which a waiting conversation is flagged `warn`, in percent. */
  readonly response_warn_percent: number
  readonly business_hours: BusinessHours
}

export const RESPONSE_TARGETS = [5, 10, 15, 30, 60, 120, 240, 480, 1440] as const
export const WARN_PERCENTS = [50, 60, 70, 75, 80, 90] as const

/** Monday to Friday, 08:00–17:00, switched off (= around the clock) until the workspace sets it. */
export const defaultBusinessHours: BusinessHours = {
  enabled: false,
  days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from: '08:00', to: '17:00' })),
}

interface Stored {
  readonly response_target_minutes?: number
  readonly response_warn_percent?: number
  readonly business_hours?: BusinessHours
}

type WithSettings = Pick<WorkspaceRow, 'timezone'> & { readonly settings?: unknown }

/** Every day 1..7 once, in order; a day the stored object lacks is closed. */
const normalizeHours = (h: BusinessHours): BusinessHours => ({
  enabled: h.enabled,
  days: [1, 2, 3, 4, 5, 6, 7].map(
    (day) => h.days.find((d) => d.day === day) ?? { day, open: false, from: '08:00', to: '17:00' },
  ),
})

export const generalOf = (w: WithSettings): GeneralSettings => {
  const s = (w.settings ?? {}) as Stored
  return {
    timezone: w.timezone,
    response_target_minutes: s.response_target_minutes ?? 30,
    response_warn_percent: s.response_warn_percent ?? 80,
    business_hours: normalizeHours(s.business_hours ?? defaultBusinessHours),
  }
}

const minutesOf = (hhmm: string) => {
  const [h, m] = hhmm.split(':').map(Number)
  return h! * 60 + m!
}

/** Whether the workspace is open at `now` (always, when business hours are off). */
export const openAt = (hours: BusinessHours, zone: string, now: Date): boolean => {
  if (!hours.enabled) return true
  const l = localParts(now, zone)
  const weekday = ((new Date(Date.UTC(l.year, l.month - 1, l.day)).getUTCDay() + 6) % 7) + 1
  const rule = hours.days.find((d) => d.day === weekday)
  if (!rule?.open) return false
  const minute = l.hour * 60 + l.minute
  return minute >= minutesOf(rule.from) && minute < minutesOf(rule.to)
}

/** The reply-target policy the inbox's `sla` flag follows (store/sla.ts). */
export const slaPolicyOf = (w: WithSettings): ReplyPolicy => {
  const g = generalOf(w)
  return {
    targetMinutes: g.response_target_minutes,
    warnRatio: g.response_warn_percent / 100,
    hours: g.business_hours,
    zone: g.timezone,
  }
}

export interface SettingsChange {
  readonly timezone?: string
  readonly response_target_minutes?: number
  readonly response_warn_percent?: number
  readonly business_hours?: BusinessHours
}

/** Applies a change; returns the updated workspace row (with `settings`) or null when it is gone. */
export const update = (workspaceId: number, change: SettingsChange) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const patch: Record<string, unknown> = {}
    if (change.response_target_minutes !== undefined)
      patch.response_target_minutes = change.response_target_minutes
    if (change.response_warn_percent !== undefined) patch.response_warn_percent = change.response_warn_percent
    if (change.business_hours !== undefined) patch.business_hours = normalizeHours(change.business_hours)
    return sql<WorkspaceRow & { settings: unknown }>`
      UPDATE workspaces SET
        timezone = COALESCE(${change.timezone ?? null}, timezone),
        settings = settings || ${JSON.stringify(patch)}::jsonb
      WHERE id = ${workspaceId} RETURNING *`.pipe(Effect.map((r) => r[0] ?? null))
  })

/** The workspace row with its settings column (the kernel's row type leaves it out). */
export const of = (workspaceId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<WorkspaceRow & { settings: unknown }>`SELECT * FROM workspaces WHERE id = ${workspaceId}`.pipe(
      Effect.map((r) => r[0] ?? null),
    ),
  )
