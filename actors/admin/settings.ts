import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { invalidateCredentials } from '../../engine/events'
import * as Settings from '../../store/settings'
import { notFound } from '../errors'
import { publish, topics } from '../events'
import { addMessages } from '../i18n'
import { audited, changes } from './audit'
import type { InWorkspace } from './caller'
import { reloadWorkspace } from './workspaces'

/**
 * Spec 1 §4.1 General settings: time zone, reply target (used by the inbox's SLA flag), business
 * hours (all plans) and whether the workspace is open now; the allowed values in `meta.choices`.
 */

addMessages({
  'settings.hours_order': {
    en: 'must open before it closes',
    id: 'harus buka sebelum tutup',
  },
  'settings.hours_days': {
    en: 'must name each day (1 to 7) at most once',
    id: 'setiap hari (1 sampai 7) paling banyak sekali',
  },
})

const HHMM = Schema.String.pipe(
  Schema.filter((s) => /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/.test(s), {
    jsonSchema: { pattern: '^([01]\\d|2[0-3]):[0-5]\\d$|^24:00$' },
  }),
)

const Day = Schema.Struct({
  day: Schema.Number.pipe(Schema.int(), Schema.between(1, 7)),
  open: Schema.Boolean,
  from: HHMM,
  to: HHMM,
}).pipe(
  Schema.filter((d) => !d.open || d.from < d.to, {
    message: () => 'settings.hours_order',
  }),
)

export const BusinessHoursSchema = Schema.Struct({
  enabled: Schema.Boolean,
  days: Schema.Array(Day).pipe(
    Schema.maxItems(7),
    Schema.filter((days) => new Set(days.map((d) => d.day)).size === days.length, {
      message: () => 'settings.hours_days',
    }),
  ),
})

export const SettingsSchema = Schema.Struct({
  name: Schema.String,
  timezone: Schema.String,
  response_target_minutes: Schema.Number,
  response_warn_percent: Schema.Number,
  business_hours: BusinessHoursSchema,
  open_now: Schema.Boolean,
})

const present = (w: Parameters<typeof Settings.generalOf>[0] & { readonly name: string }, now: Date) => {
  const g = Settings.generalOf(w)
  return {
    name: w.name,
    timezone: g.timezone,
    response_target_minutes: g.response_target_minutes,
    response_warn_percent: g.response_warn_percent,
    business_hours: g.business_hours,
    open_now: Settings.openAt(g.business_hours, g.timezone, now),
  } satisfies typeof SettingsSchema.Type
}

/** The allowed values (`meta.choices`). */
export const choices = () => ({
  timezone: Intl.supportedValuesOf('timeZone'),
  response_target_minutes: Settings.RESPONSE_TARGETS,
  response_warn_percent: Settings.WARN_PERCENTS,
  day: [1, 2, 3, 4, 5, 6, 7],
})

const current = (workspaceId: number) =>
  Effect.flatMap(Settings.of(workspaceId), (w) => (w ? Effect.succeed(w) : Effect.fail(notFound())))

export const get = (workspaceId: number) =>
  Effect.map(Effect.zip(current(workspaceId), currentTime), ([w, now]) => present(w, now))

/**
 * Applies a change and announces it (`settings.updated`). The zone decides quota periods and date
 * filters: when it moves, cached callers and the workspace's actor re-read it.
 */
export const update = (ctx: InWorkspace, body: Settings.SettingsChange) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const now = yield* currentTime
    const before = present(yield* current(workspace.id), now)
    const updated = yield* audited(
      ctx,
      Effect.flatMap(Settings.update(workspace.id, body), (w) =>
        w ? Effect.succeed(w) : Effect.fail(notFound()),
      ),
      (w) => {
        const after = present(w, now)
        return {
          action: 'settings.updated',
          workspaceId: workspace.id,
          target: w.name,
          details: changes([
            ['timezone', before.timezone, after.timezone],
            ['response_target_minutes', before.response_target_minutes, after.response_target_minutes],
            ['response_warn_percent', before.response_warn_percent, after.response_warn_percent],
            ['business_hours', JSON.stringify(before.business_hours), JSON.stringify(after.business_hours)],
          ]),
        }
      },
    )
    const after = present(updated, now)
    const changed = (Object.keys(body) as Array<keyof typeof body>).filter((k) => body[k] !== undefined)
    if (after.timezone !== before.timezone) {
      yield* invalidateCredentials({ workspaceId: workspace.id })
      yield* reloadWorkspace(workspace.id)
    }
    yield* publish(topics.workspace(workspace.id), 'settings.updated', { changed, settings: after })
    return after
  })
