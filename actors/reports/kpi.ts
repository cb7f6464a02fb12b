import { Chunk, Effect, Option, Schema, Stream } from 'effect'
import { currentTime } from '../../engine/clock'
import { iso, localDate, localParts, startOfLocalDay } from '../../engine/time'
import { isPaidActive } from '../../store/plans'
import * as Reports from '../../store/reports'
import * as Settings from '../../store/settings'
import * as Teams from '../../store/teams'
import { audited } from '../admin/audit'
import type { Caller } from '../admin/caller'
import { reply } from '../answer'
import { type Cell, csv } from '../cells'
import { ApiError, type FieldMessage, forbidden, invalid, notFound } from '../errors'
import { Id, IdFromString } from '../fields'
import { addMessages } from '../i18n'
import { type Ctx, viewerFor } from '../inbox/conversations'
import * as Metrics from '../metrics'
import { datesOf, LocalDate, rangeOf } from './reports'
import { catchUp } from './rollup'

/**
 * Spec 2 §4.6 KPIs (Pro and Custom; Free gets 402): per-person cards (`frontline`: conversations
 * answered, first response, reply time, resolution; `backoffice`: tickets), one person's days,
 * breaches and targets with their source, your own today and last 7 days, the targets
 * configuration and the raw rows as CSV. Ranges are dates of the workspace zone, at most 93 days.
 * Definitions: ./metrics.ts.
 */
addMessages({
  'kpi.metric': { en: 'is not a KPI metric', id: 'bukan metrik KPI' },
  'kpi.member': { en: 'must be an active member of this workspace', id: 'harus anggota aktif workspace ini' },
  'kpi.self_only': {
    en: 'Seeing the KPIs of someone else needs the reports.view permission.',
    id: 'Melihat KPI orang lain memerlukan izin reports.view.',
  },
})

export const MAX_KPI_DAYS = 93
const MAX_TARGET = 100_000

export const ChannelType = Schema.Literal('msgapp', 'email', 'livechat', 'api')

export const KpiQuery = Schema.Struct({
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
  team_id: Schema.optional(IdFromString),
  channel_type: Schema.optional(ChannelType),
})
export const KpiExportQuery = Schema.Struct({
  from: Schema.optional(LocalDate),
  to: Schema.optional(LocalDate),
  team_id: Schema.optional(IdFromString),
  channel_type: Schema.optional(ChannelType),
  user_id: Schema.optional(IdFromString),
  type: Schema.Literal('summary', 'conversations', 'replies', 'tickets'),
})
const TargetValue = Schema.Number.pipe(Schema.int(), Schema.between(1, MAX_TARGET))
export const ConfigBody = Schema.Struct({
  targets: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.NullOr(TargetValue) })),
  overrides: Schema.optional(
    Schema.Array(
      Schema.Struct({
        scope: Schema.Literal('team', 'user'),
        id: Id,
        metric: Schema.String,
        value: TargetValue,
      }),
    ).pipe(Schema.maxItems(2000)),
  ),
  /** The older form (spec 1 §9): business hours now live in `PATCH /settings`. */
  business_hours: Schema.optional(Schema.Unknown),
})

const paid = (ctx: Ctx) =>
  Effect.flatMap(currentTime, (now) =>
    isPaidActive(ctx.workspace, now)
      ? Effect.succeed(now)
      : Effect.fail(new ApiError({ code: 'plan_required' })),
  )

const kpiRange = (
  ctx: Ctx,
  q: { readonly from?: string | undefined; readonly to?: string | undefined },
  now: Date,
) => rangeOf(q, ctx.workspace.timezone, now, MAX_KPI_DAYS)

const scopeOf = (
  ctx: Ctx,
  range: { from: string; to: string; start: Date; end: Date },
  q: { readonly team_id?: number | undefined; readonly channel_type?: string | undefined },
  userId: number | null = null,
): Reports.Scope => ({
  workspaceId: ctx.workspace.id,
  start: range.start,
  end: range.end,
  zone: ctx.workspace.timezone,
  days: { from: range.from, to: range.to },
  // The channels the caller has access to, as in the reports (tickets are not limited by channel).
  channelIds: viewerFor(ctx.caller, ctx.workspace).channelIds,
  teamId: q.team_id ?? null,
  userId,
  channelType: q.channel_type ?? null,
})

const block = (count: number, minutes: number, met: number) => {
  const avg = Metrics.average(minutes, count)
  return {
    count,
    average_minutes: avg,
    average_hours: avg === null ? null : Math.round((avg / 60) * 10) / 10,
    within_target_percent: Metrics.percent(met, count),
  }
}

const add = (a: Reports.Measures, b: Reports.Measures): Reports.Measures =>
  Object.fromEntries(Reports.MEASURES.map((m) => [m, a[m] + b[m]])) as unknown as Reports.Measures
const zero = Object.fromEntries(Reports.MEASURES.map((m) => [m, 0])) as unknown as Reports.Measures

const frontlineCard = (r: Reports.Measures) => ({
  replies: r.messages_out,
  conversations: r.taken,
  first_response: block(r.first_responses, r.first_minutes, r.first_met),
  reply_time: block(r.replies, r.reply_minutes, r.replies_met),
  resolution: block(r.resolutions, r.resolution_minutes, r.resolutions_met),
})
const backofficeCard = (r: Reports.Measures) => ({
  tickets_created: r.tickets_created,
  first_response: block(r.ticket_first_responses, r.ticket_first_minutes, r.ticket_first_met),
  resolution: block(r.tickets_resolved, r.ticket_minutes, r.tickets_met),
})

/** Measures per person over a scope (every channel type of the filter added together). */
const perPerson = (scope: Reports.Scope) =>
  Effect.map(Reports.sumsByPersonAndType(scope), (rows) => {
    const out = new Map<number, Reports.Measures>()
    for (const r of rows) out.set(r.user_id, add(out.get(r.user_id) ?? zero, r))
    return out
  })

const rangeMeta = (range: { from: string; to: string }, ctx: Ctx) => ({
  from: range.from,
  to: range.to,
  timezone: ctx.workspace.timezone,
})

export const cards = (ctx: Ctx, q: typeof KpiQuery.Type) =>
  Effect.gen(function* () {
    const now = yield* paid(ctx)
    const range = yield* kpiRange(ctx, q, now)
    if (q.team_id !== undefined && !(yield* Teams.byId(ctx.workspace.id, q.team_id))) {
      return yield* Effect.fail(invalid({ team_id: { key: 'reports.team' } }))
    }
    yield* catchUp(ctx.workspace.id)
    const [people, teams, by] = yield* Effect.all([
      Reports.activePeople(ctx.workspace.id),
      Reports.teamsOf(ctx.workspace.id),
      perPerson(scopeOf(ctx, range, q)),
    ])
    const teamIds = (userId: number, type: 'frontline' | 'backoffice') =>
      teams.filter((t) => t.user_id === userId && t.type === type).map((t) => t.team_id)
    const inTeam = (userId: number, type: 'frontline' | 'backoffice') =>
      q.team_id === undefined ? teamIds(userId, type).length > 0 : teamIds(userId, type).includes(q.team_id)
    const person = (p: { id: number; name: string; avatar_url: string | null }) => ({
      id: p.id,
      name: p.name,
      avatar_url: p.avatar_url,
    })
    const frontline = people
      .filter(
        (p) =>
          inTeam(p.id, 'frontline') || (q.team_id === undefined && (by.get(p.id)?.messages_out ?? 0) > 0),
      )
      .map((p) => ({
        user: person(p),
        team_ids: teamIds(p.id, 'frontline'),
        ...frontlineCard(by.get(p.id) ?? zero),
      }))
    const backoffice = people
      .filter((p) => inTeam(p.id, 'backoffice'))
      .map((p) => ({
        user: person(p),
        team_ids: teamIds(p.id, 'backoffice'),
        ...backofficeCard(by.get(p.id) ?? zero),
      }))
    return reply({ frontline, backoffice }, rangeMeta(range, ctx))
  })

/** Every metric's target for a person, with where it comes from. */
const targetsOf = (metrics: Metrics.Context, userId: number, teamIds: readonly number[]) =>
  Metrics.METRICS.map((m) => {
    const t = Metrics.targetFor(metrics, m.key, userId, teamIds)
    return { metric: m.key, value: t.value, unit: t.unit, source: t.source, team_id: t.team_id ?? null }
  })

const BREACHES_SHOWN = 100

const isSelfOrViewer = (caller: Caller, userId: number) =>
  caller.user.id === userId || caller.permissions.has('reports.view')

export const person = (ctx: Ctx, params: { readonly id: number }, q: typeof KpiQuery.Type) =>
  Effect.gen(function* () {
    const now = yield* paid(ctx)
    if (!isSelfOrViewer(ctx.caller, params.id)) return yield* Effect.fail(forbidden('kpi.self_only'))
    const people = yield* Reports.activePeople(ctx.workspace.id)
    const p = people.find((x) => x.id === params.id)
    if (!p) return yield* Effect.fail(notFound())
    const range = yield* kpiRange(ctx, q, now)
    yield* catchUp(ctx.workspace.id)
    const scope = scopeOf(ctx, range, q, p.id)
    const [metrics, teams, days, totals, breaches] = yield* Effect.all([
      Metrics.contextOf(ctx.workspace),
      Reports.teamsOf(ctx.workspace.id),
      Reports.personDaily(scope, p.id),
      perPerson(scope),
      Reports.facts(scope, 'breaches', { limit: BREACHES_SHOWN }),
    ])
    const teamIds = teams.filter((t) => t.user_id === p.id).map((t) => t.team_id)
    const byDate = new Map(days.map((d) => [d.k, d]))
    const total = totals.get(p.id) ?? zero
    const dates = datesOf(range.from, range.to, range.zone)
    return reply(
      {
        user: { id: p.id, name: p.name, avatar_url: p.avatar_url },
        team_ids: teamIds,
        frontline: frontlineCard(total),
        backoffice: backofficeCard(total),
        daily: dates.map((date) => {
          const r = byDate.get(date) ?? zero
          return {
            date,
            replies: r.messages_out,
            first_responses: r.first_responses,
            avg_first_response_minutes: Metrics.average(r.first_minutes, r.first_responses),
            replies_measured: r.replies,
            avg_reply_minutes: Metrics.average(r.reply_minutes, r.replies),
            resolutions: r.resolutions,
            tickets_resolved: r.tickets_resolved,
            breaches:
              r.first_responses -
              r.first_met +
              (r.replies - r.replies_met) +
              (r.resolutions - r.resolutions_met) +
              (r.ticket_first_responses - r.ticket_first_met) +
              (r.tickets_resolved - r.tickets_met),
          }
        }),
        breaches: breaches.map((b) => ({
          kind: b.kind === 'out' ? (b.first ? 'first_response' : 'reply') : b.kind,
          at: iso(b.at),
          since: iso(b.since),
          minutes: b.minutes,
          conversation_id: b.conversation_id,
          ticket_id: b.ticket_id,
          channel_type: b.channel_type,
        })),
        targets: targetsOf(metrics, p.id, teamIds),
      },
      rangeMeta(range, ctx),
    )
  })

export const me = (ctx: Ctx) =>
  Effect.gen(function* () {
    const now = yield* paid(ctx)
    yield* catchUp(ctx.workspace.id)
    const zone = ctx.workspace.timezone
    const today = localDate(now, zone)
    const l = localParts(now, zone)
    const weekAgo = localDate(startOfLocalDay(l.year, l.month, l.day - 6, zone), zone)
    const userId = ctx.caller.user.id
    const of = (from: string) =>
      Effect.gen(function* () {
        const range = yield* kpiRange(ctx, { from, to: today }, now)
        const total = (yield* perPerson(scopeOf(ctx, range, {}, userId))).get(userId) ?? zero
        return {
          from: range.from,
          to: range.to,
          frontline: frontlineCard(total),
          backoffice: backofficeCard(total),
        }
      })
    const [metrics, teams, todayCard, week, unreplied] = yield* Effect.all([
      Metrics.contextOf(ctx.workspace),
      Reports.teamsOf(ctx.workspace.id),
      of(today),
      of(weekAgo),
      Reports.unrepliedNow({
        workspaceId: ctx.workspace.id,
        channelIds: null,
        teamId: null,
        assigneeId: userId,
      }),
    ])
    const teamIds = teams.filter((t) => t.user_id === userId).map((t) => t.team_id)
    return reply(
      {
        today: todayCard,
        last_7_days: week,
        unreplied_now: unreplied,
        targets: targetsOf(metrics, userId, teamIds),
      },
      { timezone: zone },
    )
  })

const presentConfig = (ctx: Ctx, metrics: Metrics.Context) => ({
  metrics: Metrics.METRICS.map((m) => ({
    key: m.key,
    unit: m.unit,
    card: m.card,
    channel_type: m.channelType,
    default: Metrics.targetFor({ ...metrics, targets: [] }, m.key, null, []).value,
  })),
  targets: Object.fromEntries(
    Metrics.METRICS.map((m) => [
      m.key,
      metrics.targets.find((t) => t.scope === 'workspace' && t.metric === m.key)?.value ?? null,
    ]),
  ),
  overrides: metrics.targets
    .filter((t) => t.scope !== 'workspace')
    .map((t) => ({ scope: t.scope, id: t.scope_id, metric: t.metric, value: t.value })),
  business_hours: metrics.general.business_hours,
  timezone: ctx.workspace.timezone,
})

export const config = (ctx: Ctx) =>
  Effect.gen(function* () {
    yield* paid(ctx)
    return reply(presentConfig(ctx, yield* Metrics.contextOf(ctx.workspace)))
  })

export const saveConfig = (ctx: Ctx & { readonly ip: () => string }, body: typeof ConfigBody.Type) =>
  Effect.gen(function* () {
    yield* paid(ctx)
    const problems: Record<string, FieldMessage> = {}
    for (const key of Object.keys(body.targets ?? {})) {
      if (!Metrics.metricOf(key)) problems[`targets.${key}`] = { key: 'kpi.metric' }
    }
    const [teams, people] = yield* Effect.all([
      Teams.list(ctx.workspace.id),
      Reports.activePeople(ctx.workspace.id),
    ])
    ;(body.overrides ?? []).forEach((o, i) => {
      if (!Metrics.metricOf(o.metric)) problems[`overrides.${i}.metric`] = { key: 'kpi.metric' }
      const known = o.scope === 'team' ? teams.some((t) => t.id === o.id) : people.some((p) => p.id === o.id)
      if (!known) problems[`overrides.${i}.id`] = { key: o.scope === 'team' ? 'reports.team' : 'kpi.member' }
    })
    if (body.business_hours !== undefined) {
      const hours = Schema.decodeUnknownOption(HoursInput)(body.business_hours)
      if (Option.isNone(hours)) problems.business_hours = { key: 'field.invalid' }
    }
    if (Object.keys(problems).length > 0) return yield* Effect.fail(invalid(problems))
    yield* audited(
      ctx,
      Effect.gen(function* () {
        yield* Reports.saveTargets(
          ctx.workspace.id,
          body.targets,
          body.overrides?.map((o) => ({ scope: o.scope, scope_id: o.id, metric: o.metric, value: o.value })),
        )
        if (body.business_hours !== undefined) {
          const hours = Schema.decodeUnknownSync(HoursInput)(body.business_hours)
          yield* Settings.update(ctx.workspace.id, { business_hours: hours })
        }
      }),
      () => ({
        action: 'settings.updated',
        workspaceId: ctx.workspace.id,
        target: 'KPI targets',
        details: [
          ...Object.entries(body.targets ?? {}).map(([k, v]) => `${k}: ${v ?? '-'}`),
          ...(body.overrides ? [`overrides: ${body.overrides.length}`] : []),
        ].join('; '),
      }),
    )
    const fresh = yield* Settings.of(ctx.workspace.id)
    return reply(presentConfig(ctx, yield* Metrics.contextOf(fresh ?? ctx.workspace)))
  })

const HHMM = Schema.String.pipe(Schema.pattern(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/))
const HoursInput = Schema.Struct({
  enabled: Schema.Boolean,
  days: Schema.Array(
    Schema.Struct({
      day: Schema.Number.pipe(Schema.int(), Schema.between(1, 7)),
      open: Schema.Boolean,
      from: HHMM,
      to: HHMM,
    }),
  ).pipe(Schema.maxItems(7)),
})

// ---------------------------------------------------------------------------------------------
// The raw rows, streamed
// ---------------------------------------------------------------------------------------------

export const EXPORT_PAGE = 2000
const BOM = new Uint8Array([0xef, 0xbb, 0xbf])
const encoder = new TextEncoder()

const rawHeader = {
  replies: [
    'at',
    'conversation_id',
    'user_id',
    'user',
    'team_id',
    'team',
    'first_response',
    'waiting_since',
    'business_minutes',
    'within_target',
    'channel_type',
  ],
  conversations: [
    'at',
    'conversation_id',
    'user_id',
    'user',
    'team_id',
    'team',
    'episode_started_at',
    'business_minutes',
    'within_target',
    'channel_type',
  ],
  tickets: [
    'at',
    'kind',
    'ticket_id',
    'conversation_id',
    'user_id',
    'user',
    'team_id',
    'team',
    'since',
    'business_minutes',
    'within_target',
    'channel_type',
  ],
} as const

const rawLine = (type: 'replies' | 'conversations' | 'tickets', f: Reports.FactRow): Cell[] => {
  const met = f.met === null ? '' : f.met ? 'yes' : 'no'
  switch (type) {
    case 'replies':
      return [
        iso(f.at),
        f.conversation_id,
        f.user_id ?? '',
        f.user_name ?? '',
        f.team_id ?? '',
        f.team_name ?? '',
        f.first ? 'yes' : 'no',
        iso(f.since) ?? '',
        f.minutes ?? '',
        met,
        f.channel_type ?? '',
      ]
    case 'conversations':
      return [
        iso(f.at),
        f.conversation_id,
        f.user_id ?? '',
        f.user_name ?? '',
        f.team_id ?? '',
        f.team_name ?? '',
        iso(f.since) ?? '',
        f.minutes ?? '',
        met,
        f.channel_type ?? '',
      ]
    case 'tickets':
      return [
        iso(f.at),
        f.kind,
        f.ticket_id ?? '',
        f.conversation_id ?? '',
        f.user_id ?? '',
        f.user_name ?? '',
        f.team_id ?? '',
        f.team_name ?? '',
        iso(f.since) ?? '',
        f.minutes ?? '',
        met,
        f.channel_type ?? '',
      ]
  }
}

/**
 * `GET /kpi/export`: CSV (UTF-8 with BOM). `summary` is one row per person; the raw types are one
 * row per fact, read by keyset in pages of `EXPORT_PAGE` and written page by page, so memory stays
 * flat whatever the range holds.
 */
export const exportCsv = (ctx: Ctx, q: typeof KpiExportQuery.Type) =>
  Effect.gen(function* () {
    const now = yield* paid(ctx)
    const userId = q.user_id ?? null
    if (!ctx.caller.permissions.has('reports.view') && userId !== ctx.caller.user.id) {
      return yield* Effect.fail(forbidden('kpi.self_only'))
    }
    const range = yield* kpiRange(ctx, q, now)
    yield* catchUp(ctx.workspace.id)
    const scope = scopeOf(ctx, range, q, userId)
    const filename = `kpi-${q.type}-${range.from}-${range.to}.csv`
    if (q.type === 'summary') {
      const [people, by] = yield* Effect.all([Reports.activePeople(ctx.workspace.id), perPerson(scope)])
      const rows = people
        .filter((p) => userId === null || p.id === userId)
        .map((p) => {
          const f = frontlineCard(by.get(p.id) ?? zero)
          const b = backofficeCard(by.get(p.id) ?? zero)
          return [
            p.id,
            p.name,
            f.replies,
            f.conversations,
            f.first_response.count,
            f.first_response.average_minutes ?? '',
            f.first_response.within_target_percent ?? '',
            f.reply_time.count,
            f.reply_time.average_minutes ?? '',
            f.reply_time.within_target_percent ?? '',
            f.resolution.count,
            f.resolution.average_minutes ?? '',
            b.tickets_created,
            b.resolution.count,
            b.resolution.average_minutes ?? '',
            q.channel_type ?? '',
          ]
        })
      const head = [
        'user_id',
        'name',
        'replies',
        'conversations',
        'first_responses',
        'avg_first_response_minutes',
        'first_response_within_target_percent',
        'replies_measured',
        'avg_reply_minutes',
        'reply_within_target_percent',
        'resolutions',
        'avg_resolution_minutes',
        'tickets_created',
        'tickets_resolved',
        'avg_ticket_resolution_minutes',
        'channel_type',
      ]
      return { filename, stream: Stream.make(BOM, encoder.encode(csv([head, ...rows]))) }
    }
    const type = q.type
    const head = Stream.make(BOM, encoder.encode(csv([rawHeader[type]])))
    const pages = Stream.paginateChunkEffect(undefined as { at: Date; id: number } | undefined, (after) =>
      Effect.map(Reports.facts(scope, type, { limit: EXPORT_PAGE, ...(after ? { after } : {}) }), (rows) => {
        const last = rows[rows.length - 1]
        const chunk =
          rows.length === 0
            ? Chunk.empty<Uint8Array>()
            : Chunk.of(encoder.encode(csv(rows.map((f) => rawLine(type, f)))))
        const next =
          rows.length === EXPORT_PAGE && last
            ? Option.some<{ at: Date; id: number } | undefined>({ at: last.at, id: last.id })
            : Option.none()
        return [chunk, next] as const
      }),
    )
    return { filename, stream: Stream.concat(head, pages) }
  })
