import { Effect, Schema } from 'effect'
import * as Pipelines from '../../store/pipelines'
import { reply } from '../answer'
import { type FieldMessage, invalid } from '../errors'
import { Text } from '../fields'
import { addMessages } from '../i18n'
import type { Ctx } from './access'
import { pipelineChanged } from './events'
import { COLORS, MAX_PROGRESS } from './layout'

/**
 * The workspace's pipeline settings (spec 2 §4.7 `/pipeline/settings`): lost reasons (a Lost move
 * names one) and expense categories (an expense names one), with the colour palette and the
 * In-progress stage limit beside them. A workspace that never saved them has the defaults.
 */
addMessages({
  'pipeline.list_unique': { en: 'must not repeat an entry', id: 'tidak boleh ada entri ganda' },
})

export const DEFAULT_LOST_REASONS = [
  'Price too high',
  'Chose a competitor',
  'No budget',
  'No response',
  'Not a fit',
  'Other',
] as const
export const DEFAULT_EXPENSE_CATEGORIES = [
  'Transport',
  'Meals',
  'Accommodation',
  'Entertainment',
  'Samples',
  'Other',
] as const

export const settingsOf = (workspaceId: number) =>
  Effect.map(
    Pipelines.settings(workspaceId),
    (s): Pipelines.SettingsRow =>
      s ?? { lost_reasons: [...DEFAULT_LOST_REASONS], expense_categories: [...DEFAULT_EXPENSE_CATEGORIES] },
  )

export const present = (s: Pipelines.SettingsRow) => ({
  lost_reasons: s.lost_reasons,
  expense_categories: s.expense_categories,
  colors: COLORS,
  max_progress_stages: MAX_PROGRESS,
})

const Entries = Schema.Array(Text(1, 100)).pipe(Schema.minItems(1), Schema.maxItems(50))

export const SettingsBody = Schema.Struct({
  lost_reasons: Schema.optional(Entries),
  expense_categories: Schema.optional(Entries),
})

export const get = (ctx: Ctx) => Effect.map(settingsOf(ctx.workspace.id), (s) => reply(present(s)))

const clean = (xs: readonly string[]) => xs.map((x) => x.trim())
const repeats = (xs: readonly string[]) => new Set(xs.map((x) => x.toLowerCase())).size !== xs.length

export const put = (ctx: Ctx, body: typeof SettingsBody.Type) =>
  Effect.gen(function* () {
    const now = yield* settingsOf(ctx.workspace.id)
    const next: Pipelines.SettingsRow = {
      lost_reasons: body.lost_reasons ? clean(body.lost_reasons) : now.lost_reasons,
      expense_categories: body.expense_categories ? clean(body.expense_categories) : now.expense_categories,
    }
    const problems: Record<string, FieldMessage> = {}
    if (repeats(next.lost_reasons)) problems.lost_reasons = { key: 'pipeline.list_unique' }
    if (repeats(next.expense_categories)) problems.expense_categories = { key: 'pipeline.list_unique' }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    yield* Pipelines.saveSettings(ctx.workspace.id, next)
    yield* pipelineChanged(ctx.workspace.id, null, null, 'settings')
    return reply(present(next))
  })
