import type { LeadFields, LeadStatus } from '../../store/leads'
import type { StageKind } from '../../store/pipelines'
import type { FieldMessage } from '../errors'

/**
 * Lead moves (spec 2 §3), as a pure decision over the lead as it is (read under its row lock) and
 * the target stage: to Won from an open stage needs `value_won` (default: the prospect value); to
 * Lost from an open stage needs a `lost_reason` of the settings list; Won or Lost back to New or
 * In progress reopens. Won and Lost do not turn into each other directly: reopen first (409).
 */
export interface MoveInput {
  readonly value_won?: number | undefined
  readonly lost_reason?: string | undefined
  readonly lost_note?: string | null | undefined
}

export interface LeadState {
  readonly stage_id: number
  readonly pipeline_id: number
  readonly status: LeadStatus
  readonly value_estimate: number | null
}

export interface Target {
  readonly id: number
  readonly pipeline_id: number
  readonly kind: StageKind
  readonly label: string
}

export type MoveDecision =
  | { readonly _tag: 'Unchanged' }
  | { readonly _tag: 'Invalid'; readonly fields: Record<string, FieldMessage> }
  | { readonly _tag: 'Conflict' }
  | {
      readonly _tag: 'Move'
      readonly fields: LeadFields
      /** What the lead's history records. */
      readonly change: 'moved' | 'won' | 'lost' | 'reopened'
    }

export const statusOf = (kind: StageKind): LeadStatus =>
  kind === 'won' ? 'won' : kind === 'lost' ? 'lost' : 'open'

export const decideMove = (
  lead: LeadState,
  target: Target,
  input: MoveInput,
  lostReasons: readonly string[],
  now: Date,
): MoveDecision => {
  const to = statusOf(target.kind)
  if (target.id === lead.stage_id) return { _tag: 'Unchanged' }
  const base: LeadFields = { stage_id: target.id, pipeline_id: target.pipeline_id, stage_changed_at: now }
  if (to === 'open') {
    if (lead.status === 'open') return { _tag: 'Move', fields: { ...base, status: 'open' }, change: 'moved' }
    return {
      _tag: 'Move',
      fields: {
        ...base,
        status: 'open',
        closed_at: null,
        value_won: null,
        lost_reason: null,
        lost_note: null,
      },
      change: 'reopened',
    }
  }
  if (lead.status !== 'open') return { _tag: 'Conflict' }
  if (to === 'won') {
    const value = input.value_won ?? lead.value_estimate
    if (value === null || value === undefined)
      return { _tag: 'Invalid', fields: { value_won: { key: 'leads.value_won_required' } } }
    return {
      _tag: 'Move',
      fields: { ...base, status: 'won', value_won: value, closed_at: now },
      change: 'won',
    }
  }
  const reason = input.lost_reason?.trim()
  if (!reason) return { _tag: 'Invalid', fields: { lost_reason: { key: 'field.required' } } }
  const known = lostReasons.find((r) => r.toLowerCase() === reason.toLowerCase())
  if (known === undefined)
    return {
      _tag: 'Invalid',
      fields: { lost_reason: { key: 'leads.lost_reason', params: { reasons: lostReasons.join(', ') } } },
    }
  const note = input.lost_note?.trim()
  return {
    _tag: 'Move',
    fields: { ...base, status: 'lost', lost_reason: known, lost_note: note ? note : null, closed_at: now },
    change: 'lost',
  }
}
