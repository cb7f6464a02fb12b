import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { iso, localDate, localParts, startOfLocalDay } from '../../engine/time'
import type { ListFilter } from '../../store/leads'
import * as Reports from '../../store/pipelineReports'
import * as Pipelines from '../../store/pipelines'
import { WorkspaceActor } from '../admin/WorkspaceActor'
import { reply } from '../answer'
import { invalid, notFound } from '../errors'
import { IdFromString } from '../fields'
import { addMessages } from '../i18n'
import { type Ctx, leadViewerFor, pipelineViewerFor } from './access'
import { dayStart, LocalDate } from './dates'
import { statusOf } from './moves'

/**
 * `GET /pipeline/dashboard` (spec 2 §4.7): the month at a glance over only the leads the caller may
 * see (the lead rule), for a workflow (`pipeline_id`; default all visible ones, the funnel then
 * the first visible workflow), a range of days `from`..`to` in the workspace's zone (default the
 * current month), a team and an owner. Figures (docs/decisions.md, "Clients, dashboard…"):
 * - `tiles`: leads created in the range; open now (count, prospect value, weighted by the stage's
 *   probability); Won and Lost closed in the range (count, value), win rate, average deal.
 * - `funnel`: the leads created in the range by the stage they are at now, and `reached`: how many
 *   are at that stage or further along (Won counts as past every In progress stage; Lost reached
 *   only itself).
 * - `weekly`: 8 weeks (Monday to Sunday) ending with the week of `to`: created, Won (and value), Lost.
 * - `by_assignee`: the tiles per owner (`null` = no owner).
 * - `expenses`: spent in the range per category, over the same leads.
 * - `agenda`: events and follow-ups of the next 7 days (from now), at most 20, and `overdue`.
 * - `quota`: the monthly lead quota (used, limit, reset).
 */
addMessages({
  'pipeline.range': {
    en: 'must be on or after `from`, at most 366 days later',
    id: 'harus sama atau setelah `from`, paling lama 366 hari',
  },
})

export const DashboardQuery = Schema.Struct({
  pipeline_id: Schema.optional(IdFromString),
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
  team_id: Schema.optional(IdFromString),
  assignee_id: Schema.optional(Schema.Union(Schema.Literal('me', 'none'), IdFromString)),
})

export const WEEKS = 8
const AGENDA_DAYS = 7
const AGENDA_MAX = 20
const MAX_RANGE_DAYS = 366
const DAY = 86_400_000

const round = (n: number) => Math.round(n * 100) / 100

/** Monday of the week holding `date` (a `YYYY-MM-DD`), as `YYYY-MM-DD`. */
const mondayOf = (date: string) => {
  const d = new Date(`${date}T00:00:00Z`)
  const back = (d.getUTCDay() + 6) % 7
  return new Date(d.getTime() - back * DAY).toISOString().slice(0, 10)
}
const plusDays = (date: string, n: number) =>
  new Date(new Date(`${date}T00:00:00Z`).getTime() + n * DAY).toISOString().slice(0, 10)

export const dashboard = (ctx: Ctx, q: typeof DashboardQuery.Type) =>
  Effect.gen(function* () {
    const zone = ctx.workspace.timezone
    const now = yield* currentTime
    const l = localParts(now, zone)
    const monthFirst = `${l.year}-${String(l.month).padStart(2, '0')}-01`
    const from = q.from ?? monthFirst
    const to = q.to ?? localDate(new Date(startOfLocalDay(l.year, l.month + 1, 1, zone).getTime() - 1), zone)
    const span = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY
    if (span < 0 || span >= MAX_RANGE_DAYS)
      return yield* Effect.fail(invalid({ to: { key: 'pipeline.range' } }))
    const pViewer = pipelineViewerFor(ctx.caller, ctx.workspace)
    const pipeline =
      q.pipeline_id !== undefined
        ? yield* Pipelines.visibleById(pViewer, q.pipeline_id)
        : ((yield* Pipelines.list(pViewer, false))[0] ?? null)
    if (q.pipeline_id !== undefined && !pipeline) return yield* Effect.fail(notFound())
    const viewer = leadViewerFor(ctx.caller, ctx.workspace)
    const filter: ListFilter = {
      ...(q.pipeline_id !== undefined ? { pipelineId: q.pipeline_id } : {}),
      ...(q.team_id !== undefined ? { teamId: q.team_id } : {}),
      ...(q.assignee_id !== undefined
        ? { assignee: q.assignee_id === 'me' ? ctx.caller.user.id : q.assignee_id }
        : {}),
    }
    const start = dayStart(from, zone)
    const end = dayStart(to, zone, 1)
    const firstWeek = plusDays(mondayOf(to), -7 * (WEEKS - 1))
    const weekStarts = Array.from({ length: WEEKS }, (_, i) => plusDays(firstWeek, 7 * i))
    // From day numbers: the end of the last week may fall past 9999-12-31, which has no date text.
    const bounds = Array.from({ length: WEEKS + 1 }, (_, i) => dayStart(firstWeek, zone, 7 * i))
    const agendaEnd = new Date(now.getTime() + AGENDA_DAYS * DAY)
    const funnelPipeline = pipeline
    const [people, stagesFig, weeks, expenses, agenda, overdue, stages, usage] = yield* Effect.all(
      [
        Reports.byAssignee(viewer, filter, start, end),
        funnelPipeline
          ? Reports.byStage(viewer, { ...filter, pipelineId: funnelPipeline.id }, start, end)
          : Effect.succeed([] as Reports.StageFigures[]),
        Reports.weekly(viewer, filter, bounds),
        Reports.expensesByCategory(viewer, filter, from, to),
        Reports.agenda(viewer, filter, now, agendaEnd, AGENDA_MAX),
        Reports.overdueFollowups(viewer, filter, now),
        funnelPipeline ? Pipelines.stagesOf([funnelPipeline.id]) : Effect.succeed([] as Pipelines.StageRow[]),
        Effect.flatMap(WorkspaceActor, (a) => a.ask(ctx.workspace.id, { _tag: 'Usage', now })),
      ],
      { concurrency: 'unbounded' },
    )
    const sum = (k: keyof Omit<Reports.AssigneeFigures, 'assignee_id' | 'assignee_name'>) =>
      people.reduce((s, p) => s + p[k], 0)
    const won = sum('won')
    const lost = sum('lost')
    const wonValue = sum('won_value')
    const tiles = {
      created: sum('created'),
      open: sum('open'),
      open_value: round(sum('open_value')),
      weighted_value: round(sum('weighted_value')),
      won,
      won_value: round(wonValue),
      lost,
      lost_value: round(sum('lost_value')),
      win_rate: won + lost === 0 ? null : round((won * 100) / (won + lost)),
      average_won: won === 0 ? null : round(wonValue / won),
      overdue_followups: overdue,
    }
    // The funnel: New, In progress in order, Won, then Lost; `reached` = at this stage or beyond.
    const byStage = new Map(stagesFig.map((f) => [f.stage_id, f]))
    const ordered = [...stages].sort((a, b) => a.position - b.position)
    const openStages = ordered.filter((s) => statusOf(s.kind) === 'open')
    const wonStage = ordered.find((s) => s.kind === 'won')
    const lostStage = ordered.find((s) => s.kind === 'lost')
    const flow = [...openStages, ...(wonStage ? [wonStage] : [])]
    const countOf = (id: number | undefined) => (id === undefined ? 0 : (byStage.get(id)?.count ?? 0))
    const funnel = [...flow, ...(lostStage ? [lostStage] : [])].map((s) => {
      const i = flow.indexOf(s)
      const reached = i < 0 ? countOf(s.id) : flow.slice(i).reduce((n, x) => n + countOf(x.id), 0)
      return {
        stage_id: s.id,
        label: s.label,
        kind: s.kind,
        color: s.color,
        probability: s.probability,
        count: countOf(s.id),
        value: round(byStage.get(s.id)?.value ?? 0),
        reached,
      }
    })
    const weekly = weekStarts.map((startDay, i) => {
      const w = weeks.find((x) => x.bucket === i + 1)
      return {
        week_start: startDay,
        created: w?.created ?? 0,
        won: w?.won ?? 0,
        won_value: round(w?.won_value ?? 0),
        lost: w?.lost ?? 0,
      }
    })
    const quota = usage.leads_per_month
    return reply({
      range: { from, to, timezone: zone },
      pipeline: funnelPipeline ? { id: funnelPipeline.id, name: funnelPipeline.name } : null,
      tiles,
      funnel,
      weekly,
      by_assignee: people.map((p) => ({
        assignee: p.assignee_id === null ? null : { id: p.assignee_id, name: p.assignee_name ?? '' },
        created: p.created,
        open: p.open,
        open_value: round(p.open_value),
        weighted_value: round(p.weighted_value),
        won: p.won,
        won_value: round(p.won_value),
        lost: p.lost,
        lost_value: round(p.lost_value),
      })),
      expenses: {
        total: round(expenses.reduce((s, x) => s + x.amount, 0)),
        count: expenses.reduce((s, x) => s + x.count, 0),
        by_category: expenses.map((x) => ({ category: x.category, count: x.count, amount: round(x.amount) })),
      },
      agenda: {
        items: agenda.map((a) => ({
          kind: a.kind,
          id: a.id,
          lead: { id: a.lead_id, identifier: `LEAD-${a.lead_number}`, title: a.lead_title },
          title: a.title,
          at: iso(a.at)!,
          assignee_id: a.assignee_id,
        })),
        overdue_followups: overdue,
      },
      quota: { used: quota.used, limit: quota.limit, resets_at: iso(quota.endsAt) },
    })
  })
