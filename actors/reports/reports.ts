import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { localDate, startOfLocalDay } from '../../engine/time'
import * as Categories from '../../store/categories'
import * as Reports from '../../store/reports'
import * as Settings from '../../store/settings'
import * as Teams from '../../store/teams'
import { reply } from '../answer'
import { type Cell, csv } from '../cells'
import { type FieldMessage, invalid } from '../errors'
import { IdFromString, LocalDate } from '../fields'
import { addMessages } from '../i18n'
import { type Ctx, viewerFor, zoneOf } from '../inbox/conversations'
import * as Metrics from '../metrics'
import { catchUp } from './rollup'

/**
 * Spec 2 §4.6 reports: summary, daily, hourly, breakdown, agents and their CSV export, over a
 * range of dates in the caller's zone (inclusive; default the last 30 days; at most 366), for the
 * channels the caller has access to, optionally one channel and one team. Figures come from the
 * roll-ups (store/reports.ts), brought up to date first (`catchUp`); their definitions are in
 * ./metrics.ts.
 */
addMessages({
  'reports.range': {
    en: 'must not be before from, and the range may span at most {days} days',
    id: 'tidak boleh sebelum from, dan rentang paling banyak {days} hari',
  },
  'reports.channel': {
    en: 'must be a channel of this workspace you have access to',
    id: 'harus kanal workspace ini yang dapat Anda akses',
  },
  'reports.team': { en: 'must be a team of this workspace', id: 'harus tim di workspace ini' },
})

export const MAX_REPORT_DAYS = 366
export const DEFAULT_DAYS = 30

/** A calendar date `YYYY-MM-DD` that exists (no 30 February). */
export { LocalDate } from '../fields'

export const RangeQuery = {
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
  channel_id: Schema.optional(IdFromString),
  team_id: Schema.optional(IdFromString),
}
export const ReportQuery = Schema.Struct(RangeQuery)
export const BreakdownQuery = Schema.Struct({
  ...RangeQuery,
  type: Schema.Literal('channel', 'label', 'category', 'team'),
})
export const ExportQuery = Schema.Struct({
  ...RangeQuery,
  type: Schema.Literal('summary', 'daily', 'channel', 'label', 'category', 'agents', 'tickets'),
})
type Range = { readonly from?: string | undefined; readonly to?: string | undefined }
type Filters = Range & { readonly channel_id?: number | undefined; readonly team_id?: number | undefined }

const parts = (date: string) => date.split('-').map(Number) as [number, number, number]

/** A date's place in the calendar, for comparing (text fails past 9999: `10000-01-01` < `9999-12-31`). */
const dayNumber = (date: string) => {
  const [y, m, d] = parts(date)
  return new Date(0).setUTCFullYear(y, m - 1, d)
}

/** The dates from..to, inclusive. */
export const datesOf = (from: string, to: string, zone: string): string[] => {
  const out: string[] = []
  const [y, m, d] = parts(from)
  const last = dayNumber(to)
  for (let i = 0; ; i++) {
    const date = localDate(startOfLocalDay(y, m, d + i, zone), zone)
    if (dayNumber(date) > last) return out
    out.push(date)
  }
}

/** `from`–`to` in `zone` (defaults: `to` today, `from` 29 days before `to`), or 422. */
export const rangeOf = (q: Range, zone: string, now: Date, maxDays: number) => {
  const to = q.to ?? localDate(now, zone)
  const [ty, tm, td] = parts(to)
  const from = q.from ?? localDate(startOfLocalDay(ty, tm, td - (DEFAULT_DAYS - 1), zone), zone)
  const [fy, fm, fd] = parts(from)
  const days = Math.round((Date.UTC(ty, tm - 1, td) - Date.UTC(fy, fm - 1, fd)) / 86_400_000) + 1
  if (from > to || days > maxDays) {
    return Effect.fail(invalid({ to: { key: 'reports.range', params: { days: maxDays } } }))
  }
  return Effect.succeed({
    from,
    to,
    start: startOfLocalDay(fy, fm, fd, zone),
    end: startOfLocalDay(ty, tm, td + 1, zone),
    zone,
  })
}

/** What a report over `q` may count: the caller's channels (and the one asked for), the team. */
export const scopeOf = (ctx: Ctx, q: Filters, maxDays = MAX_REPORT_DAYS, zone = zoneOf(ctx)) =>
  Effect.gen(function* () {
    const { workspace } = ctx
    const range = yield* rangeOf(q, zone, yield* currentTime, maxDays)
    const metrics = yield* Metrics.contextOf(workspace)
    const access = viewerFor(ctx.caller, workspace).channelIds
    const problems: Record<string, FieldMessage> = {}
    let channelIds: readonly number[] | null = access
    if (q.channel_id !== undefined) {
      const known = metrics.channels.some((c) => c.id === q.channel_id)
      if (!known || (access !== null && !access.includes(q.channel_id))) {
        problems.channel_id = { key: 'reports.channel' }
      }
      channelIds = [q.channel_id]
    }
    if (q.team_id !== undefined && !(yield* Teams.byId(workspace.id, q.team_id))) {
      problems.team_id = { key: 'reports.team' }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    yield* catchUp(workspace.id)
    const scope: Reports.Scope = {
      workspaceId: workspace.id,
      start: range.start,
      end: range.end,
      zone,
      days: zone === workspace.timezone ? { from: range.from, to: range.to } : null,
      channelIds,
      teamId: q.team_id ?? null,
    }
    return { scope, range, metrics }
  })

const zero = Object.fromEntries(Reports.MEASURES.map((m) => [m, 0])) as unknown as Reports.Measures
const byKey = (rows: readonly Reports.Row[]) => new Map(rows.map((r) => [r.k, r]))
const total = (rows: readonly Reports.Row[]): Reports.Measures => rows[0] ?? zero

const rangeMeta = (range: { from: string; to: string; zone: string }) => ({
  from: range.from,
  to: range.to,
  timezone: range.zone,
})

export const summaryOf = (ctx: Ctx, q: Filters) =>
  Effect.gen(function* () {
    const { scope, range } = yield* scopeOf(ctx, q)
    const [rows, median, unreplied] = yield* Effect.all([
      Reports.sums(scope, 'none'),
      Reports.medianFirstResponse(scope),
      Reports.unrepliedNow(scope),
    ])
    const t = total(rows)
    return {
      data: {
        conversations: t.conversations,
        messages_in: t.messages_in,
        messages_out: t.messages_out,
        first_response: {
          count: t.first_responses,
          average_minutes: Metrics.average(t.first_minutes, t.first_responses),
          median_minutes: median,
          within_target_percent: Metrics.percent(t.first_met, t.first_responses),
        },
        reply_time: {
          count: t.replies,
          average_minutes: Metrics.average(t.reply_minutes, t.replies),
          within_target_percent: Metrics.percent(t.replies_met, t.replies),
        },
        resolution: {
          count: t.resolutions,
          average_minutes: Metrics.average(t.resolution_minutes, t.resolutions),
          within_target_percent: Metrics.percent(t.resolutions_met, t.resolutions),
        },
        unreplied_now: unreplied,
        tickets: { created: t.tickets_created, resolved: t.tickets_resolved },
      },
      // The hours the times count in (channels without their own), for every reader of the
      // report: the settings that hold them need `settings.workspace` (docs/decisions.md).
      meta: { ...rangeMeta(range), business_hours: Settings.generalOf(ctx.workspace).business_hours },
    }
  })

export const summary = (ctx: Ctx, q: Filters) => Effect.map(summaryOf(ctx, q), (r) => reply(r.data, r.meta))

const dailyOf = (ctx: Ctx, q: Filters) =>
  Effect.gen(function* () {
    const { scope, range } = yield* scopeOf(ctx, q)
    const rows = byKey(yield* Reports.sums(scope, 'date'))
    return {
      data: datesOf(range.from, range.to, range.zone).map((date) => {
        const r = rows.get(date) ?? zero
        return {
          date,
          conversations: r.conversations,
          messages_in: r.messages_in,
          messages_out: r.messages_out,
        }
      }),
      meta: rangeMeta(range),
    }
  })

export const daily = (ctx: Ctx, q: Filters) => Effect.map(dailyOf(ctx, q), (r) => reply(r.data, r.meta))

export const hourly = (ctx: Ctx, q: Filters) =>
  Effect.gen(function* () {
    const { scope, range } = yield* scopeOf(ctx, q)
    const rows = new Map((yield* Reports.inByHourOfDay(scope)).map((r) => [r.k, r.messages_in]))
    return reply(
      Array.from({ length: 24 }, (_, hour) => ({
        hour,
        messages_in: rows.get(String(hour)) ?? 0,
      })),
      rangeMeta(range),
    )
  })

const breakdownOf = (ctx: Ctx, q: typeof BreakdownQuery.Type) =>
  Effect.gen(function* () {
    const { scope, range, metrics } = yield* scopeOf(ctx, q)
    const meta = { ...rangeMeta(range), type: q.type }
    const { workspace } = ctx
    switch (q.type) {
      case 'channel': {
        const rows = byKey(yield* Reports.sums(scope, 'channel'))
        const shown = metrics.channels.filter(
          (c) => scope.channelIds === null || scope.channelIds.includes(c.id),
        )
        return {
          data: shown.map((c) => {
            const r = rows.get(String(c.id)) ?? zero
            return {
              channel: { id: c.id, name: c.name, type: c.type },
              conversations: r.conversations,
              messages_in: r.messages_in,
              messages_out: r.messages_out,
              first_responses: r.first_responses,
              avg_first_response_minutes: Metrics.average(r.first_minutes, r.first_responses),
            }
          }),
          meta,
        }
      }
      case 'team': {
        const rows = byKey(yield* Reports.sums(scope, 'team'))
        const teams = (yield* Teams.list(workspace.id)).filter(
          (t) => scope.teamId === null || t.id === scope.teamId,
        )
        return {
          data: teams.map((t) => {
            const r = rows.get(String(t.id)) ?? zero
            return {
              team: { id: t.id, name: t.name, type: t.type },
              conversations: r.assigned,
              messages_in: r.messages_in,
              messages_out: r.messages_out,
              replies: r.replies,
              avg_reply_minutes: Metrics.average(r.reply_minutes, r.replies),
              tickets_created: r.tickets_created,
              tickets_resolved: r.tickets_resolved,
            }
          }),
          meta,
        }
      }
      case 'label': {
        const [labels, counts] = yield* Effect.all([
          Reports.labels(workspace.id),
          Reports.conversationsByLabel(scope),
        ])
        const n = new Map(counts.map((c) => [c.label_id, c.n]))
        return {
          data: labels.map((l) => ({
            label: { id: l.id, name: l.name, color: l.color },
            conversations: n.get(l.id) ?? 0,
          })),
          meta,
        }
      }
      case 'category': {
        const [all, counts] = yield* Effect.all([
          Categories.all(workspace.id),
          Reports.conversationsByCategory(scope),
        ])
        const direct = new Map(counts.map((c) => [c.category_id, c.n]))
        const tree = Categories.treeOf(all)
        const rows = tree.map((c) => ({
          category: {
            id: c.id,
            name: c.name,
            color: c.color,
            parent_id: c.parent_id,
            depth: c.depth,
            path_text: c.path_text,
          },
          conversations: Categories.subtreeIds(all, c.id).reduce((sum, id) => sum + (direct.get(id) ?? 0), 0),
          conversations_direct: direct.get(c.id) ?? 0,
        }))
        const none = direct.get(null) ?? 0
        return {
          data: [...rows, { category: null, conversations: none, conversations_direct: none }],
          meta,
        }
      }
    }
  })

export const breakdown = (ctx: Ctx, q: typeof BreakdownQuery.Type) =>
  Effect.map(breakdownOf(ctx, q), (r) => reply(r.data, r.meta))

const agentsOf = (ctx: Ctx, q: Filters) =>
  Effect.gen(function* () {
    // People are kept per day of the workspace zone: this report reads its days in that zone.
    const { scope, range } = yield* scopeOf(ctx, q, MAX_REPORT_DAYS, ctx.workspace.timezone)
    const [rows, people] = yield* Effect.all([
      Reports.sums(scope, 'user'),
      Reports.activePeople(ctx.workspace.id),
    ])
    const by = byKey(rows)
    return {
      data: people.map((p) => {
        const r = by.get(String(p.id)) ?? zero
        return {
          user: { id: p.id, name: p.name, avatar_url: p.avatar_url },
          replies: r.messages_out,
          conversations: r.taken,
          first_responses: r.first_responses,
          avg_first_response_minutes: Metrics.average(r.first_minutes, r.first_responses),
          avg_reply_minutes: Metrics.average(r.reply_minutes, r.replies),
          resolutions: r.resolutions,
          tickets_resolved: r.tickets_resolved,
        }
      }),
      meta: rangeMeta(range),
    }
  })

export const agents = (ctx: Ctx, q: Filters) => Effect.map(agentsOf(ctx, q), (r) => reply(r.data, r.meta))

// ---------------------------------------------------------------------------------------------
// CSV
// ---------------------------------------------------------------------------------------------

const BOM = '\uFEFF'
const cell = (v: Cell) => (v === null || v === undefined ? '' : v)

/** The CSV of a report (UTF-8 with BOM); a year of days is a few hundred rows, made at once. */
export const exportCsv = (ctx: Ctx, q: typeof ExportQuery.Type) =>
  Effect.gen(function* () {
    let table: Cell[][]
    switch (q.type) {
      case 'summary': {
        const s = (yield* summaryOf(ctx, q)).data
        table = [
          ['metric', 'value'],
          ['conversations', s.conversations],
          ['messages_in', s.messages_in],
          ['messages_out', s.messages_out],
          ['first_responses', s.first_response.count],
          ['first_response_average_minutes', cell(s.first_response.average_minutes)],
          ['first_response_median_minutes', cell(s.first_response.median_minutes)],
          ['first_response_within_target_percent', cell(s.first_response.within_target_percent)],
          ['replies', s.reply_time.count],
          ['reply_average_minutes', cell(s.reply_time.average_minutes)],
          ['reply_within_target_percent', cell(s.reply_time.within_target_percent)],
          ['resolutions', s.resolution.count],
          ['resolution_average_minutes', cell(s.resolution.average_minutes)],
          ['unreplied_now', s.unreplied_now],
          ['tickets_created', s.tickets.created],
          ['tickets_resolved', s.tickets.resolved],
        ]
        break
      }
      case 'daily': {
        const rows = (yield* dailyOf(ctx, q)).data
        table = [
          ['date', 'conversations', 'messages_in', 'messages_out'],
          ...rows.map((r) => [r.date, r.conversations, r.messages_in, r.messages_out]),
        ]
        break
      }
      case 'channel': {
        const rows = (yield* breakdownOf(ctx, { ...q, type: 'channel' })).data as Array<{
          channel: { id: number; name: string; type: string }
          conversations: number
          messages_in: number
          messages_out: number
          first_responses: number
          avg_first_response_minutes: number | null
        }>
        table = [
          [
            'channel_id',
            'channel',
            'type',
            'conversations',
            'messages_in',
            'messages_out',
            'first_responses',
            'avg_first_response_minutes',
          ],
          ...rows.map((r) => [
            r.channel.id,
            r.channel.name,
            r.channel.type,
            r.conversations,
            r.messages_in,
            r.messages_out,
            r.first_responses,
            cell(r.avg_first_response_minutes),
          ]),
        ]
        break
      }
      case 'label': {
        const rows = (yield* breakdownOf(ctx, { ...q, type: 'label' })).data as Array<{
          label: { id: number; name: string }
          conversations: number
        }>
        table = [
          ['label_id', 'label', 'conversations'],
          ...rows.map((r) => [r.label.id, r.label.name, r.conversations]),
        ]
        break
      }
      case 'category': {
        const rows = (yield* breakdownOf(ctx, { ...q, type: 'category' })).data as Array<{
          category: { id: number; path_text: string; depth: number } | null
          conversations: number
          conversations_direct: number
        }>
        table = [
          ['category_id', 'category', 'depth', 'conversations', 'conversations_direct'],
          ...rows.map((r) => [
            cell(r.category?.id),
            r.category?.path_text ?? '',
            cell(r.category?.depth),
            r.conversations,
            r.conversations_direct,
          ]),
        ]
        break
      }
      case 'agents': {
        const rows = (yield* agentsOf(ctx, q)).data
        table = [
          [
            'user_id',
            'name',
            'replies',
            'conversations',
            'first_responses',
            'avg_first_response_minutes',
            'avg_reply_minutes',
            'resolutions',
            'tickets_resolved',
          ],
          ...rows.map((r) => [
            r.user.id,
            r.user.name,
            r.replies,
            r.conversations,
            r.first_responses,
            cell(r.avg_first_response_minutes),
            cell(r.avg_reply_minutes),
            r.resolutions,
            r.tickets_resolved,
          ]),
        ]
        break
      }
      case 'tickets': {
        const rows = (yield* breakdownOf(ctx, { ...q, type: 'team' })).data as Array<{
          team: { id: number; name: string; type: string }
          tickets_created: number
          tickets_resolved: number
        }>
        table = [
          ['team_id', 'team', 'type', 'tickets_created', 'tickets_resolved'],
          ...rows.map((r) => [r.team.id, r.team.name, r.team.type, r.tickets_created, r.tickets_resolved]),
        ]
        break
      }
    }
    const range = yield* rangeOf(q, zoneOf(ctx), yield* currentTime, MAX_REPORT_DAYS)
    return {
      filename: `report-${q.type}-${range.from}-${range.to}.csv`,
      body: BOM + csv(table),
    }
  })
