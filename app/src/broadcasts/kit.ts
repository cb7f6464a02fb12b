import { defineTexts } from '../kit'
import { texts } from './texts'

/**
 * What the broadcasts pages take beyond the kit (app/src/kit): their texts and the shapes of the
 * API's answers (spec 2 §4.8; actors/broadcasts present them), which the generated schema leaves
 * open.
 */
export { useCall } from '../inboxSettings/kit'
export { ApiError, api, can, failText, got, Link, useLocale, useWorkspaceEvents } from '../kit'

export const useTr = defineTexts(texts)
export type Tr = ReturnType<typeof useTr>
export type TextKey = keyof typeof texts

export const STATUSES = ['draft', 'scheduled', 'running', 'paused', 'completed', 'cancelled'] as const
export type Status = (typeof STATUSES)[number]
export const OUTCOMES = ['queued', 'sent', 'delivered', 'read', 'replied', 'failed', 'skipped'] as const
export type Outcome = (typeof OUTCOMES)[number]
export const SKIPS = ['opted_out', 'no_phone', 'invalid_number', 'duplicate', 'recent', 'cancelled'] as const

export interface Counts {
  readonly total: number
  readonly queued: number
  readonly sent: number
  readonly delivered: number
  readonly read: number
  readonly replied: number
  readonly failed: number
  readonly skipped: number
}

export interface Settings {
  readonly pace_per_minute: number
  readonly random_delay_seconds: number
  readonly daily_cap: number
  readonly quiet_hours: { readonly from: string; readonly to: string } | null
  readonly skip_recent_hours: number
  readonly send_at: string | null
}

export type RiskLevel = 'low' | 'medium' | 'high'
export interface Risk {
  readonly level: RiskLevel
  readonly reasons: readonly { readonly code: string; readonly level: RiskLevel; readonly message: string }[]
}

export type Action =
  | 'edit'
  | 'delete'
  | 'schedule'
  | 'pause'
  | 'resume'
  | 'cancel'
  | 'retry'
  | 'unschedule'
  | 'duplicate'
  | 'test'

export interface Variant {
  readonly text: string
  readonly footer: string | null
}

export interface Broadcast {
  readonly id: number
  readonly name: string
  readonly channel_id: number | null
  readonly channel: { readonly id: number; readonly name: string; readonly status: string } | null
  readonly status: Status
  readonly pause_reason: string | null
  readonly audience: {
    readonly segment_ids: readonly number[]
    readonly label_ids: readonly number[]
    readonly contact_ids: readonly number[]
  }
  readonly messages: readonly Variant[]
  readonly settings: Settings
  readonly attachment: {
    readonly id: number
    readonly name: string
    readonly mime: string
    readonly size: number
    readonly url: string
  } | null
  readonly counts: Counts
  readonly skip_reasons: Readonly<Record<string, number>>
  readonly risk: Risk | null
  readonly risk_ack: boolean
  readonly wait: { readonly reason: string; readonly until: string | null } | null
  readonly can: Readonly<Record<Action, boolean>>
  readonly send_at: string | null
  readonly started_at: string | null
  readonly completed_at: string | null
  readonly cancelled_at: string | null
  readonly created_at: string
  readonly updated_at: string
}

export interface NumberOption {
  readonly id: number
  readonly name: string
  readonly status: string
  readonly phone: string | null
  readonly sent_24h: number
  readonly warmup: { readonly limit: number; readonly remaining: number; readonly ends_at: string } | null
}

export interface Options {
  readonly numbers: readonly NumberOption[]
  readonly segments: readonly { readonly id: number; readonly name: string; readonly last_count: number }[]
  readonly defaults: Settings
  readonly limits: Readonly<Record<string, number>>
  readonly quota: {
    readonly used: number
    readonly limit: number
    readonly remaining: number | null
    readonly resets_at: string
  }
  readonly variables: readonly { readonly name: string; readonly label: string; readonly token: string }[]
  readonly plan_allows: boolean
}

export interface Estimate {
  readonly audience: number
  readonly recipients: number
  readonly skipped: Readonly<Record<string, number>>
  readonly quota: {
    readonly used: number
    readonly limit: number
    readonly remaining: number | null
    readonly after: number | null
    readonly enough: boolean
    readonly resets_at: string
  }
  readonly starts_at: string
  readonly finish_at: string
  readonly duration_minutes: number
  readonly warmup: { readonly limit: number; readonly remaining: number; readonly ends_at: string } | null
  readonly unsaved_contacts: number
  readonly risk: Risk
}

export interface Recipient {
  readonly id: number
  readonly position: number
  readonly contact_id: number
  readonly name: string
  readonly phone: string | null
  readonly status: Outcome
  readonly reason: string | null
  readonly error: string | null
  readonly variant: number
  readonly message: string | null
  readonly interaction_id: number | null
  readonly sent_at: string | null
  readonly failed_at: string | null
  readonly replied_at: string | null
}

export interface Rule {
  readonly field: string
  readonly op: string
  readonly value?: string | number | boolean | null
  readonly value2?: string | number | null
}

export interface Segment {
  readonly id: number
  readonly name: string
  readonly description: string
  readonly match: 'all' | 'any'
  readonly rules: readonly Rule[]
  readonly summary: string
  readonly last_count: number
  readonly last_counted_at: string | null
  readonly broadcasts_count: number
}

export interface SegmentPreview {
  readonly count: number
  readonly with_phone: number
  readonly unsubscribed: number
  readonly samples: readonly {
    readonly id: number
    readonly name: string
    readonly phone: string | null
    readonly email: string | null
  }[]
}

export interface CatalogueField {
  readonly field: string
  readonly label: string
  readonly group: 'contact' | 'labels' | 'channels' | 'activity' | 'broadcasts' | 'custom'
  readonly type: string
  readonly ops: readonly string[]
  readonly values?: readonly { readonly value: string | number; readonly label: string }[]
}

export interface Catalogue {
  readonly fields: readonly CatalogueField[]
  readonly max_rules: number
}

export interface LabelItem {
  readonly id: number
  readonly name: string
  readonly color: string
}

/** One broadcast as the dashboard lists it (`latest`, `best`). */
export interface DashboardBroadcast {
  readonly id: number
  readonly name: string
  readonly status: Status
  readonly channel_id: number | null
  readonly started_at: string | null
  readonly counts: Counts
  /** Replies per hundred sent, one decimal. */
  readonly reply_rate: number
  readonly pace_per_minute: number
}

type PerTime = { readonly sent: number; readonly failed: number; readonly replied: number }

/** `GET /broadcasts/dashboard`: broadcasts started from `from` to `to` (local days, both counted). */
export interface Dashboard {
  readonly from: string
  readonly to: string
  /** Cumulative as `Counts` (a reply is also read, delivered and sent); `recipients` leaves out the skipped. */
  readonly funnel: Omit<Counts, 'total' | 'queued'> & { readonly recipients: number }
  readonly daily: readonly (PerTime & { readonly date: string })[]
  readonly hourly: readonly (PerTime & { readonly hour: number })[]
  readonly reasons: readonly {
    readonly kind: 'failed' | 'skipped'
    readonly reason: string
    readonly count: number
  }[]
  /** Each number's usage: broadcast sends since the local midnight, all sends of 24 h, warm-up. */
  readonly numbers: readonly {
    readonly channel_id: number
    readonly name: string
    readonly status: string
    readonly broadcast_sent_today: number
    readonly sent_24h: number
    readonly warmup: { readonly limit: number; readonly remaining: number; readonly ends_at: string } | null
  }[]
  readonly latest: readonly DashboardBroadcast[]
  readonly best: readonly DashboardBroadcast[]
}

/** A number as the reader writes it. */
export const num = (n: number, locale: string) => n.toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB')

/** A date and time as the reader writes it (in `zone` when given, else the browser's). */
export const at = (iso: string | null | undefined, locale: string, zone?: string) =>
  iso
    ? new Date(iso).toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
        ...(zone ? { timeZone: zone } : {}),
      })
    : ''

/** A duration in minutes as the reader says it. */
export const duration = (minutes: number, tr: Tr) => {
  if (minutes < 60) return tr('bc.est.minutes', { n: Math.max(1, minutes) })
  if (minutes < 1440) return tr('bc.est.hours', { h: Math.floor(minutes / 60), m: minutes % 60 })
  return tr('bc.est.days', { d: Math.floor(minutes / 1440), h: Math.floor((minutes % 1440) / 60) })
}

/** A key of this area's texts when it exists (`bc.f.city`), else the API's own words. */
export const textOr = (
  tr: Tr,
  key: string,
  fallback: string,
  params: Record<string, string | number> = {},
) => (key in texts ? tr(key as TextKey, params) : fallback)

/** Recipients handled so far (sent or failed) of all it sends to (`total` leaves out the skipped). */
export const handled = (c: Counts) => ({ done: c.total - c.queued, all: c.total })

/** A page's props as the shell gives them (routes.ts `PageProps`, without importing the registry). */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}
