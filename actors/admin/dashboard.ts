import { Effect } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Conversations from '../../store/conversations'
import * as Dashboard from '../../store/dashboard'
import { addMessages, type Locale, t } from '../i18n'
import { latest } from './audit'
import { usageOf } from './billing'
import { holds, type InWorkspace } from './caller'

/**
 * Spec 1 §4.1 dashboard. Every member with `dashboard.view` sees the team summary; the other parts
 * need the permission that governs their subject and are `null` without it (named in `hidden`):
 * getting started `settings.workspace`, quota usage `settings.billing` or `settings.workspace`,
 * 14-day activity `reports.view`, recent activity `settings.audit`.
 */

addMessages({
  'dashboard.step.channel': { en: 'Connect a channel', id: 'Hubungkan kanal' },
  'dashboard.step.team': { en: 'Create a team', id: 'Buat tim' },
  'dashboard.step.invite': { en: 'Invite your team mates', id: 'Undang rekan tim Anda' },
  'dashboard.step.business_hours': { en: 'Set your business hours', id: 'Atur jam kerja' },
  'dashboard.step.first_reply': { en: 'Reply to a customer', id: 'Balas pelanggan' },
})

export const parts = ['getting_started', 'quota', 'activity', 'recent', 'teams'] as const
export type Part = (typeof parts)[number]

/**
 * The parts asked for (`?parts=getting_started,quota`; all without it): the others are `null` and
 * not computed, and `hidden` names only asked-for parts the caller may not see.
 */
export const summary = (ctx: InWorkspace, locale: Locale, asked: readonly Part[] = parts) =>
  Effect.gen(function* () {
    const { caller, workspace } = ctx
    const now = yield* currentTime
    const zone = caller.user.timezone ?? workspace.timezone
    const want = (p: Part) => asked.includes(p)
    // Activity and the teams' open conversations count only the channels the caller has access
    // to, as reports do (docs/decisions.md, "Reports and KPIs").
    // (The conversation viewer's rule, store/conversations.ts `viewerOf`; a key sees every channel.)
    const channelIds =
      caller.via === 'key'
        ? null
        : caller.member && caller.role
          ? Conversations.viewerOf(caller.member, caller.role, workspace.owner_user_id).channelIds
          : []
    const gettingStarted =
      want('getting_started') && holds(caller, 'settings.workspace')
        ? yield* Effect.map(Dashboard.steps(workspace.id), (done) => {
            const steps = Dashboard.stepKeys.map((key) => ({
              key,
              label: t(locale, `dashboard.step.${key}`),
              done: done[key] === true,
            }))
            return { steps, done: steps.filter((s) => s.done).length, total: steps.length }
          })
        : null
    const quota =
      want('quota') && holds(caller, ['settings.billing', 'settings.workspace'])
        ? yield* usageOf(workspace)
        : null
    const activity =
      want('activity') && holds(caller, 'reports.view')
        ? { timezone: zone, days: yield* Dashboard.activity(workspace.id, channelIds, zone, now) }
        : null
    const recent =
      want('recent') && holds(caller, 'settings.audit') ? yield* latest(workspace.id, 10, locale) : null
    const teams = want('teams') ? yield* Dashboard.teamSummary(workspace.id, channelIds) : null
    const data = { getting_started: gettingStarted, quota, activity, recent, teams }
    return { data, hidden: parts.filter((p) => want(p) && data[p] === null) }
  })
