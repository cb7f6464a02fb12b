import { defineTexts } from '../kit'
import type { CustomValue } from '../kit/customFields'
import { texts } from './texts'

/**
 * What the pipeline pages take beyond the kit (app/src/kit): their texts and the shapes of the
 * answers of spec 2 §4.7 that the generated schema leaves open (workflows, the board, a lead with
 * its work, clients, the dashboard).
 */
export { ApiError, api, can, failFields, failText, got, Link, useLocale, useWorkspaceEvents } from '../kit'

export const useTr = defineTexts(texts)
export type Tr = ReturnType<typeof useTr>
export type TextKey = keyof typeof texts

export type StageKind = 'new' | 'progress' | 'won' | 'lost'

export interface Stage {
  readonly id: number
  readonly kind: StageKind
  readonly label: string
  readonly color: string
  readonly probability: number
  readonly position: number
  readonly leads_count?: number
}

export interface Workflow {
  readonly id: number
  readonly name: string
  readonly description: string | null
  readonly team_ids: readonly number[]
  readonly archived: boolean
  readonly stages: readonly Stage[]
}

export interface Named {
  readonly id: number
  readonly name: string
}

export interface Lead {
  readonly id: number
  readonly number: number
  readonly identifier: string
  readonly title: string
  readonly status: 'open' | 'won' | 'lost'
  readonly pipeline_id: number
  readonly pipeline: Named
  readonly stage_id: number
  readonly stage: Omit<Stage, 'position'>
  readonly team_id: number | null
  readonly team: Named | null
  readonly assignee_id: number | null
  readonly assignee: (Named & { readonly avatar_url: string | null }) | null
  readonly contact_id: number | null
  readonly contact: (Named & { readonly phone: string | null; readonly email: string | null }) | null
  readonly client_id: number | null
  readonly client: Named | null
  readonly interaction_id: number | null
  readonly value_estimate: number | null
  readonly value_won: number | null
  readonly budget: number | null
  readonly expected_close: string | null
  readonly followup_at: string | null
  readonly followup_note: string | null
  readonly lost_reason: string | null
  readonly lost_note: string | null
  readonly note: string | null
  readonly source: string
  readonly created_by: Named | null
  readonly closed_at: string | null
  readonly stage_changed_at: string
  readonly created_at: string
  readonly updated_at: string
  readonly can: { readonly update: boolean; readonly move: boolean; readonly delete: boolean }
  /** Custom field values by key (only those set). */
  readonly custom?: Readonly<Record<string, unknown>>
}

export interface BoardStage extends Stage {
  readonly count: number
  readonly value: number
  readonly more: boolean
  readonly cards: readonly Lead[]
}

export interface Board {
  readonly pipeline: { readonly id: number; readonly name: string; readonly archived: boolean }
  readonly stages: readonly BoardStage[]
  readonly summary: {
    readonly open: number
    readonly open_value: number
    readonly weighted_value: number
    readonly won: number
    readonly won_value: number
    readonly lost: number
    readonly lost_value: number
  }
}

export interface Activity {
  readonly id: number
  readonly kind: string
  readonly body: string | null
  readonly happened_at: string
  readonly duration_minutes: number | null
  readonly data: Readonly<Record<string, unknown>> | null
  readonly author: Named | null
  readonly mine: boolean
  readonly manual: boolean
}

export interface LeadFile {
  readonly id: number
  readonly name: string
  readonly mime: string
  readonly size: number
  readonly url: string
  readonly uploaded_by: Named | null
  readonly created_at: string
}

export interface CheckItem {
  readonly id: number
  readonly text: string
  readonly done: boolean
  readonly position: number
}

export interface LeadEvent {
  readonly id: number
  readonly kind: string
  readonly title: string
  readonly starts_at: string
  readonly ends_at: string | null
  readonly location: string | null
  readonly notes: string | null
  readonly remind_minutes: number | null
  readonly remind_at: string | null
  readonly reminded: boolean
}

export interface Expense {
  readonly id: number
  readonly spent_on: string
  readonly category: string
  readonly amount: number
  readonly note: string | null
  readonly spent_by: Named | null
  readonly recorded_by: Named | null
  readonly receipt: { readonly name: string; readonly size: number; readonly url: string } | null
}

export interface LeadDetail extends Lead {
  readonly custom_fields: readonly CustomValue[]
  readonly activities: readonly Activity[]
  readonly checklist: readonly CheckItem[]
  readonly events: readonly LeadEvent[]
  readonly files: readonly LeadFile[]
  readonly expenses: readonly Expense[]
  readonly expenses_total: number
}

export interface PipelineSettings {
  readonly lost_reasons: readonly string[]
  readonly expense_categories: readonly string[]
}

export interface Candidate extends Named {
  readonly team_ids: readonly number[]
  readonly is_admin: boolean
}

export const ACTIVITY_KINDS = ['call', 'chat', 'email', 'meeting', 'visit', 'note', 'other'] as const
export const EVENT_KINDS = ['meeting', 'call', 'visit', 'demo', 'deadline', 'other'] as const

/** An amount as the reader writes it (no currency: the workspace's is not in the API). */
export const money = (n: number | null | undefined, locale: string) =>
  n === null || n === undefined ? '' : n.toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB')

/** A date-time input's value (local time) from an ISO instant, and back. */
export const localInput = (iso: string | null | undefined) => {
  if (!iso) return ''
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}
export const fromLocalInput = (v: string) => (v ? new Date(v).toISOString() : null)

/** A page's props as the shell gives them (routes.ts `PageProps`, without importing the registry). */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}

/** The last workflow the person looked at, so the board opens on it again. */
export const lastWorkflow = {
  get: () => Number(localStorage.getItem('kotak.pipeline') ?? 0) || null,
  set: (id: number) => localStorage.setItem('kotak.pipeline', String(id)),
}
