import { iso } from '../../engine/time'
import type { FieldRow } from '../../store/customFields'
import type { LeadView } from '../../store/leads'
import type * as Work from '../../store/leadWork'
import type { PipelineRow, StageRow } from '../../store/pipelines'
import { shownValues } from '../customValues'

/** The resource shapes of spec 2 §2 for workflows, stages, leads and the work on a lead. */

export const presentStage = (s: StageRow, leadsCount?: number) => ({
  id: s.id,
  kind: s.kind,
  label: s.label,
  color: s.color,
  probability: s.probability,
  position: s.position,
  ...(leadsCount !== undefined ? { leads_count: leadsCount } : {}),
})

export const presentPipeline = (
  p: PipelineRow,
  stages: readonly StageRow[],
  counts?: ReadonlyMap<number, number>,
) => ({
  id: p.id,
  name: p.name,
  description: p.description,
  position: p.position,
  team_ids: p.team_ids,
  archived: p.archived_at !== null,
  archived_at: iso(p.archived_at),
  stages: stages
    .filter((s) => s.pipeline_id === p.id)
    .map((s) => presentStage(s, counts ? (counts.get(s.id) ?? 0) : undefined)),
  created_at: iso(p.created_at)!,
  updated_at: iso(p.updated_at)!,
})

/** What the caller may do with a lead (spec 2 §2 `can`). */
export interface LeadCan {
  readonly update: boolean
  readonly move: boolean
  readonly delete: boolean
}

export const identifier = (n: number) => `LEAD-${n}`

/** A lead as lists, the board and writes answer it; `custom` holds values of current definitions. */
export const presentLead = (l: LeadView, defs: readonly FieldRow[], can: LeadCan) => ({
  id: l.id,
  number: l.number,
  identifier: identifier(l.number),
  title: l.title,
  status: l.status,
  pipeline_id: l.pipeline_id,
  pipeline: { id: l.pipeline_id, name: l.pipeline_name },
  stage_id: l.stage_id,
  stage: {
    id: l.stage_id,
    kind: l.stage_kind,
    label: l.stage_label,
    color: l.stage_color,
    probability: l.stage_probability,
  },
  team_id: l.team_id,
  team: l.team_id === null ? null : { id: l.team_id, name: l.team_name ?? '' },
  assignee_id: l.assignee_id,
  assignee:
    l.assignee_id === null
      ? null
      : { id: l.assignee_id, name: l.assignee_name ?? '', avatar_url: l.assignee_avatar_url },
  contact_id: l.contact_id,
  contact:
    l.contact_id === null
      ? null
      : { id: l.contact_id, name: l.contact_name ?? '', phone: l.contact_phone, email: l.contact_email },
  client_id: l.client_id,
  client: l.client_id === null ? null : { id: l.client_id, name: l.client_name ?? '' },
  interaction_id: l.interaction_id,
  value_estimate: l.value_estimate,
  value_won: l.value_won,
  budget: l.budget,
  expected_close: l.expected_close,
  followup_at: iso(l.followup_at),
  followup_note: l.followup_note,
  lost_reason: l.lost_reason,
  lost_note: l.lost_note,
  note: l.note,
  custom: shownValues(defs, l.custom),
  source: l.source,
  created_by: l.created_by === null ? null : { id: l.created_by, name: l.creator_name ?? '' },
  closed_at: iso(l.closed_at),
  stage_changed_at: iso(l.stage_changed_at)!,
  created_at: iso(l.created_at)!,
  updated_at: iso(l.updated_at)!,
  can,
})

export const presentActivity = (a: Work.ActivityRow, viewerId: number) => ({
  id: a.id,
  lead_id: a.lead_id,
  kind: a.kind,
  body: a.body,
  happened_at: iso(a.happened_at)!,
  duration_minutes: a.duration_minutes,
  data: a.data,
  author: a.author_id === null ? null : { id: a.author_id, name: a.author_name ?? '' },
  mine: a.author_id === viewerId,
  manual: a.kind !== 'change',
  created_at: iso(a.created_at)!,
  updated_at: iso(a.updated_at)!,
})

export const presentFile = (f: Work.LeadFileRow) => ({
  id: f.id,
  lead_id: f.lead_id,
  name: f.name,
  mime: f.mime,
  size: f.size,
  url: `/v1/lead-files/${f.id}`,
  uploaded_by: f.uploaded_by === null ? null : { id: f.uploaded_by, name: f.uploader_name ?? '' },
  created_at: iso(f.created_at)!,
})

export const presentChecklist = (c: Work.ChecklistRow) => ({
  id: c.id,
  lead_id: c.lead_id,
  text: c.text,
  done: c.done,
  done_at: iso(c.done_at),
  done_by: c.done_by,
  position: c.position,
  created_at: iso(c.created_at)!,
  updated_at: iso(c.updated_at)!,
})

export const presentEvent = (e: Work.EventRow) => ({
  id: e.id,
  lead_id: e.lead_id,
  kind: e.kind,
  title: e.title,
  starts_at: iso(e.starts_at)!,
  ends_at: iso(e.ends_at),
  location: e.location,
  notes: e.notes,
  remind_minutes: e.remind_minutes,
  remind_at: iso(e.remind_at),
  reminded: e.reminded_at !== null,
  created_by: e.created_by,
  created_at: iso(e.created_at)!,
  updated_at: iso(e.updated_at)!,
})

export const presentExpense = (x: Work.ExpenseRow) => ({
  id: x.id,
  lead_id: x.lead_id,
  spent_on: x.spent_on,
  category: x.category,
  amount: x.amount,
  note: x.note,
  spent_by: x.spent_by === null ? null : { id: x.spent_by, name: x.spent_by_name ?? '' },
  recorded_by: x.recorded_by === null ? null : { id: x.recorded_by, name: x.recorded_by_name ?? '' },
  receipt:
    x.receipt_file_id === null
      ? null
      : {
          name: x.receipt_name ?? '',
          mime: x.receipt_mime ?? '',
          size: x.receipt_size ?? 0,
          url: `/v1/lead-expenses/${x.id}/receipt`,
        },
  created_at: iso(x.created_at)!,
  updated_at: iso(x.updated_at)!,
})
