import { Effect, Schema } from 'effect'
import { holds } from '../../actors/admin/caller'
import { addMessages, t } from '../../actors/i18n'
import * as Audit from '../../store/audit'
import * as Dashboard from '../../store/dashboard'
import { ok, type Route, route } from '../route'
import { presentEntry } from './auditLogs'
import { usageOf } from './billing'

/**
 * Spec 1 §4.1 dashboard. Every member with `dashboard.view` sees the team summary; the other parts
 * need the permission that governs their subject and are `null` without it (named in
 * `meta.hidden`): getting started `settings.workspace`, quota usage `settings.billing` or
 * `settings.workspace`, 14-day activity `reports.view`, recent activity `settings.audit`.
 */

addMessages({
  'dashboard.step.channel': { en: 'Connect a channel', id: 'Hubungkan kanal' },
  'dashboard.step.team': { en: 'Create a team', id: 'Buat tim' },
  'dashboard.step.invite': { en: 'Invite your team mates', id: 'Undang rekan tim Anda' },
  'dashboard.step.business_hours': { en: 'Set your business hours', id: 'Atur jam kerja' },
  'dashboard.step.first_reply': { en: 'Reply to a customer', id: 'Balas pelanggan' },
})

const parts = ['getting_started', 'quota', 'activity', 'recent', 'teams'] as const

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/dashboard',
    access: 'K',
    permission: 'dashboard.view',
    tag: 'Dashboard',
    summary: 'Getting-started steps, quota usage, 14-day activity, recent activity, team summary',
    response: Schema.Struct({
      getting_started: Schema.NullOr(Schema.Unknown),
      quota: Schema.NullOr(Schema.Unknown),
      activity: Schema.NullOr(Schema.Unknown),
      recent: Schema.NullOr(Schema.Unknown),
      teams: Schema.Unknown,
    }),
    handler: ({ caller, workspace, locale }) =>
      Effect.gen(function* () {
        const now = new Date()
        const zone = caller.user.timezone ?? workspace.timezone
        const gettingStarted = holds(caller, 'settings.workspace')
          ? yield* Effect.map(Dashboard.steps(workspace.id), (done) => {
              const steps = Dashboard.stepKeys.map((key) => ({
                key,
                label: t(locale, `dashboard.step.${key}`),
                done: done[key] === true,
              }))
              return { steps, done: steps.filter((s) => s.done).length, total: steps.length }
            })
          : null
        const quota = holds(caller, ['settings.billing', 'settings.workspace'])
          ? yield* usageOf(workspace)
          : null
        const activity = holds(caller, 'reports.view')
          ? { timezone: zone, days: yield* Dashboard.activity(workspace.id, zone, now) }
          : null
        const recent = holds(caller, 'settings.audit')
          ? yield* Effect.map(Audit.list(workspace.id, {}, 10, 0), ({ rows }) =>
              rows.map((r) => presentEntry(r, locale)),
            )
          : null
        const teams = yield* Dashboard.teamSummary(workspace.id)
        const data = { getting_started: gettingStarted, quota, activity, recent, teams }
        return ok(data, { hidden: parts.filter((p) => data[p] === null) })
      }),
  }),
]
