import { Schema } from 'effect'
import { iso } from '../../engine/time'
import { inGrace, limitsOf } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'

/** Response shapes shared by several routes, as schemas (for the OpenAPI document and tests). */
export const Timestamp = Schema.String.annotations({ description: 'ISO 8601 UTC, `YYYY-MM-DDTHH:MM:SSZ`' })

export const LimitsSchema = Schema.Struct({
  channels: Schema.Number,
  users: Schema.Number,
  tickets_per_month: Schema.Number,
  leads_per_month: Schema.Number,
  replies_per_day: Schema.Number,
  ai_per_month: Schema.Number,
  ai: Schema.Boolean,
  api: Schema.Boolean,
})

export const WorkspaceSchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  slug: Schema.String,
  plan: Schema.Literal('free', 'pro', 'custom'),
  pro_until: Schema.NullOr(Timestamp),
  in_grace: Schema.Boolean,
  timezone: Schema.String,
  limits: LimitsSchema,
  created_at: Timestamp,
})

export const presentWorkspace = (w: WorkspaceRow, now: Date): typeof WorkspaceSchema.Type => ({
  id: w.id,
  name: w.name,
  slug: w.slug,
  plan: w.plan,
  pro_until: iso(w.pro_until),
  in_grace: inGrace(w, now),
  timezone: w.timezone,
  limits: limitsOf(w),
  created_at: iso(w.created_at)!,
})
