import type { ComponentChildren } from 'preact'
import { useState } from 'preact/hooks'
import { api, got, useKitTr, useLocale } from '../kit'
import { Chart, NumbersTable, ShareBar } from '../kit/charts'
import { meaningful } from '../lib/format'
import {
  callerZone,
  dayLabel,
  duration,
  Exports,
  FilterBar,
  type Filters,
  type Hours,
  longDay,
  num,
  previousOf,
  queryOf,
  RangeNote,
  ReportError,
  ReportTabs,
  ScrollTable,
  todayIn,
  useFilters,
  useReport,
} from './common'
import { ensureStyles } from './styles'
import { type RpKey, useTr } from './texts'

/**
 * `/reports` (`reports.view`): the summary cards with the previous period beside them, messages
 * and new conversations per day, messages by hour, a breakdown by channel, label, category or
 * team, and the CSV files, over the range and filters in the address (the caller's zone). A range
 * reaching today refreshes as messages and tickets come and go.
 */

interface Timing {
  readonly count: number
  readonly average_minutes: number | null
  readonly median_minutes?: number | null
  readonly within_target_percent: number | null
}
export interface Summary {
  readonly conversations: number
  readonly messages_in: number
  readonly messages_out: number
  readonly first_response: Timing
  readonly reply_time: Timing
  readonly resolution: Timing
  readonly unreplied_now: number
  readonly tickets: { readonly created: number; readonly resolved: number }
}
interface Day {
  readonly date: string
  readonly conversations: number
  readonly messages_in: number
  readonly messages_out: number
}
interface Hour {
  readonly hour: number
  readonly messages_in: number
}
type Kind = 'channel' | 'label' | 'category' | 'team'
const KINDS: readonly Kind[] = ['channel', 'label', 'category', 'team']
interface Row {
  readonly channel?: { readonly id: number; readonly name: string; readonly type: string }
  readonly label?: { readonly id: number; readonly name: string; readonly color: string | null }
  readonly category?: {
    readonly id: number
    readonly name: string
    readonly color: string | null
    readonly depth: number
  } | null
  readonly team?: { readonly id: number; readonly name: string; readonly type: string }
  readonly conversations: number
  readonly conversations_direct?: number
  readonly messages_in?: number
  readonly messages_out?: number
  readonly avg_first_response_minutes?: number | null
  readonly replies?: number
  readonly avg_reply_minutes?: number | null
  readonly tickets_created?: number
  readonly tickets_resolved?: number
}

interface Report {
  readonly summary: Summary
  readonly previous: Summary
  readonly daily: readonly Day[]
  readonly hourly: readonly Hour[]
  readonly zone: string
  /** The workspace's business hours, as the summary states them to every reader. */
  readonly hours: Hours | undefined
}

const COLORS = { in: '#0f6e5f', out: '#2563eb', conv: '#c2410c' }

export const OverviewPage = () => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  useLocale()
  const zone = callerZone()
  const f = useFilters(zone)
  const prev = previousOf(f)
  const live = f.to >= todayIn(zone)
  const { data: report, error } = useReport(
    `${f.from}|${f.to}|${f.channel}|${f.team}`,
    () => {
      const q = queryOf(f)
      return Promise.all([
        got<Summary>(api.get('/v1/reports/summary', { query: q })),
        got<Summary>(api.get('/v1/reports/summary', { query: queryOf(prev) })),
        got<Day[]>(api.get('/v1/reports/daily', { query: q })),
        got<Hour[]>(api.get('/v1/reports/hourly', { query: q })),
      ]).then(([summary, previous, daily, hourly]): Report => {
        meaningful()
        return {
          summary: summary.data,
          previous: previous.data,
          daily: daily.data,
          hourly: hourly.data,
          zone: String(summary.meta.timezone ?? zone),
          hours: summary.meta.business_hours as Hours | undefined,
        }
      })
    },
    live,
  )

  return (
    <div class="k-page rp-page" data-testid="reports">
      <div class="k-head">
        <h1>{tr('rp.title')}</h1>
      </div>
      <ReportTabs current="overview" filters={f} />
      <FilterBar filters={f} path="/reports" zone={zone} />
      <RangeNote filters={f} zone={report?.zone ?? zone} compare={prev} live={live} hours={report?.hours} />
      {error ? (
        <ReportError error={error} />
      ) : (
        // The breakdown is asked for beside the cards and charts, not after them.
        <div class="k-stack">
          {!report ? (
            <p class="k-muted">{kt('k.loading')}</p>
          ) : (
            <div class="k-stack" data-testid="report" data-from={f.from} data-to={f.to}>
              <Cards now={report.summary} before={report.previous} />
              <div class="rp-grid2">
                <Daily days={report.daily} />
                <Hourly hours={report.hourly} />
              </div>
            </div>
          )}
          <Breakdown filters={f} live={live} />
          <Exports
            base="/v1/reports/export"
            query={queryOf(f)}
            types={(['summary', 'daily', 'channel', 'label', 'category', 'agents', 'tickets'] as const).map(
              (t) => [t, `rp.x.${t}` as RpKey] as const,
            )}
          />
        </div>
      )}
    </div>
  )
}

/** `now` against `before`: up or down by how many percent, coloured when lower or higher is better. */
const Delta = (props: {
  now: number | null
  before: number | null
  better?: 'up' | 'down'
  fmt: (n: number) => string
}) => {
  const tr = useTr()
  const { now, before } = props
  if (now === null || before === null) {
    return (
      <small>{before === null ? tr('rp.was', { v: '–' }) : tr('rp.was', { v: props.fmt(before) })}</small>
    )
  }
  if (before === 0) {
    return (
      <small class="rp-delta rp-flat">{now === 0 ? tr('rp.same') : tr('rp.was', { v: props.fmt(0) })}</small>
    )
  }
  const p = Math.round(((now - before) / before) * 100)
  const cls =
    p === 0 || !props.better ? 'rp-flat' : p > 0 === (props.better === 'up') ? 'rp-better' : 'rp-worse'
  return (
    <small class={`rp-delta ${cls}`} title={tr('rp.was', { v: props.fmt(before) })}>
      {p === 0 ? tr('rp.same') : p > 0 ? tr('rp.up', { p }) : tr('rp.down', { p: -p })}
      <span class="sr-only"> ({tr('rp.was', { v: props.fmt(before) })})</span>
    </small>
  )
}

const Card = (props: { id: string; title: string; figure: string; children?: ComponentChildren }) => (
  <li class="rp-card" data-card={props.id}>
    <h3>{props.title}</h3>
    <span class="rp-fig" data-testid={`card-${props.id}`}>
      {props.figure}
    </span>
    {props.children}
  </li>
)

export const Cards = ({ now, before }: { now: Summary; before: Summary }) => {
  const tr = useTr()
  const locale = useLocale()
  const n = (x: number) => num(x, locale)
  const d = (x: number) => duration(x, locale)
  const within = (t: Timing) =>
    t.within_target_percent === null ? tr('rp.no_data') : tr('rp.within', { p: t.within_target_percent })
  return (
    <section aria-labelledby="rp-summary">
      <h2 id="rp-summary" class="k-sub rp-top0">
        {tr('rp.summary')}
      </h2>
      <ul class="rp-cards" data-testid="cards">
        <Card id="conversations" title={tr('rp.c.conversations')} figure={n(now.conversations)}>
          <Delta now={now.conversations} before={before.conversations} fmt={n} />
        </Card>
        <Card id="messages_in" title={tr('rp.c.messages_in')} figure={n(now.messages_in)}>
          <Delta now={now.messages_in} before={before.messages_in} fmt={n} />
        </Card>
        <Card id="messages_out" title={tr('rp.c.messages_out')} figure={n(now.messages_out)}>
          <Delta now={now.messages_out} before={before.messages_out} fmt={n} />
        </Card>
        <Card
          id="first_response"
          title={tr('rp.c.first_response')}
          figure={duration(now.first_response.average_minutes, locale)}
        >
          <small>
            {tr('rp.median', { v: duration(now.first_response.median_minutes, locale) })} ·{' '}
            {within(now.first_response)}
          </small>
          <Delta
            now={now.first_response.average_minutes}
            before={before.first_response.average_minutes}
            better="down"
            fmt={d}
          />
        </Card>
        <Card
          id="reply_time"
          title={tr('rp.c.reply_time')}
          figure={duration(now.reply_time.average_minutes, locale)}
        >
          <small>
            {tr('rp.measured', { n: n(now.reply_time.count) })} · {within(now.reply_time)}
          </small>
          <Delta
            now={now.reply_time.average_minutes}
            before={before.reply_time.average_minutes}
            better="down"
            fmt={d}
          />
        </Card>
        <Card
          id="resolution"
          title={tr('rp.c.resolution')}
          figure={duration(now.resolution.average_minutes, locale)}
        >
          <small>
            {tr('rp.measured', { n: n(now.resolution.count) })} · {within(now.resolution)}
          </small>
          <Delta
            now={now.resolution.average_minutes}
            before={before.resolution.average_minutes}
            better="down"
            fmt={d}
          />
        </Card>
        <Card id="unreplied" title={tr('rp.c.unreplied')} figure={n(now.unreplied_now)}>
          <small>{tr('rp.now_only')}</small>
        </Card>
        <Card
          id="tickets"
          title={tr('rp.c.tickets')}
          figure={`${n(now.tickets.created)} / ${n(now.tickets.resolved)}`}
        >
          <Delta now={now.tickets.resolved} before={before.tickets.resolved} fmt={n} />
        </Card>
      </ul>
    </section>
  )
}

const Daily = ({ days }: { days: readonly Day[] }) => {
  const tr = useTr()
  const locale = useLocale()
  const sum = (k: 'messages_in' | 'messages_out' | 'conversations') => days.reduce((a, d) => a + d[k], 0)
  const busiest = days.reduce<Day | null>(
    (b, d) => (b === null || d.messages_in > b.messages_in ? d : b),
    null,
  )
  const summary = tr('rp.daily_sum', {
    from: longDay(days[0]?.date ?? '', locale),
    to: longDay(days[days.length - 1]?.date ?? '', locale),
    in: num(sum('messages_in'), locale),
    out: num(sum('messages_out'), locale),
    conv: num(sum('conversations'), locale),
    top: busiest && busiest.messages_in > 0 ? longDay(busiest.date, locale) : '–',
  })
  return (
    <section class="k-panel" aria-labelledby="rp-daily">
      <h2 id="rp-daily">{tr('rp.daily')}</h2>
      <Chart
        testid="daily-chart"
        count={days.length}
        bars={days.length <= 31}
        summary={summary}
        series={[
          { key: 'in', label: tr('rp.in'), color: COLORS.in, values: days.map((d) => d.messages_in) },
          { key: 'out', label: tr('rp.out'), color: COLORS.out, values: days.map((d) => d.messages_out) },
          { key: 'conv', label: tr('rp.conv'), color: COLORS.conv, values: days.map((d) => d.conversations) },
        ]}
        tick={(i) => dayLabel(days[i]!.date, locale)}
        title={(i) => dayLabel(days[i]!.date, locale, true)}
        fmt={(x) => num(x, locale)}
      />
      <p class="k-muted" data-testid="daily-summary">
        {summary}
      </p>
      <NumbersTable
        label={tr('rp.daily')}
        testid="daily-table"
        first={tr('rp.date')}
        keyName="date"
        columns={[tr('rp.in'), tr('rp.out'), tr('rp.conv')]}
        rows={days.map((d) => ({
          key: d.date,
          head: dayLabel(d.date, locale, true),
          values: [d.messages_in, d.messages_out, d.conversations],
        }))}
      />
    </section>
  )
}

const Hourly = ({ hours }: { hours: readonly Hour[] }) => {
  const tr = useTr()
  const locale = useLocale()
  const total = hours.reduce((a, h) => a + h.messages_in, 0)
  const top = hours.reduce<Hour | null>((b, h) => (b === null || h.messages_in > b.messages_in ? h : b), null)
  const summary = tr('rp.hourly_sum', {
    hour: String(top?.hour ?? 0).padStart(2, '0'),
    n: num(top?.messages_in ?? 0, locale),
    total: num(total, locale),
  })
  const hh = (h: number) => String(h).padStart(2, '0')
  return (
    <section class="k-panel" aria-labelledby="rp-hourly">
      <h2 id="rp-hourly">{tr('rp.hourly')}</h2>
      <Chart
        testid="hourly-chart"
        count={hours.length}
        bars
        fromStart
        summary={summary}
        series={[
          { key: 'in', label: tr('rp.in'), color: COLORS.in, values: hours.map((h) => h.messages_in) },
        ]}
        tick={(i) => hh(hours[i]!.hour)}
        title={(i) => `${hh(hours[i]!.hour)}:00–${hh(hours[i]!.hour)}:59`}
        fmt={(x) => num(x, locale)}
      />
      <p class="k-muted" data-testid="hourly-summary">
        {summary}
      </p>
      <NumbersTable
        label={tr('rp.hourly')}
        testid="hourly-table"
        first={tr('rp.hour')}
        keyName="hour"
        columns={[tr('rp.in')]}
        rows={hours.map((h) => ({ key: String(h.hour), head: `${hh(h.hour)}:00`, values: [h.messages_in] }))}
      />
    </section>
  )
}

const nameOf = (r: Row, none: string) =>
  r.channel?.name ?? r.label?.name ?? r.team?.name ?? (r.category ? r.category.name : none)

const Breakdown = ({ filters, live }: { filters: Filters; live: boolean }) => {
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const [kind, setKind] = useState<Kind>('channel')
  const { data: rows, error } = useReport(
    `${kind}|${filters.from}|${filters.to}|${filters.channel}|${filters.team}`,
    () =>
      got<Row[]>(api.get('/v1/reports/breakdown', { query: { ...queryOf(filters), type: kind } })).then(
        (r) => r.data,
      ),
    live,
  )
  const n = (x: number | undefined) => num(x ?? 0, locale)
  const d = (x: number | null | undefined) => duration(x, locale)
  const top = Math.max(0, ...(rows ?? []).map((r) => r.conversations))
  const cols: readonly (readonly [string, (r: Row) => string])[] =
    kind === 'channel'
      ? [
          ['rp.in', (r) => n(r.messages_in)],
          ['rp.out', (r) => n(r.messages_out)],
          ['rp.b.avg_first', (r) => d(r.avg_first_response_minutes)],
        ]
      : kind === 'team'
        ? [
            ['rp.b.replies', (r) => n(r.replies)],
            ['rp.b.avg_reply', (r) => d(r.avg_reply_minutes)],
            ['rp.b.tickets_created', (r) => n(r.tickets_created)],
            ['rp.b.tickets_resolved', (r) => n(r.tickets_resolved)],
          ]
        : kind === 'category'
          ? [['rp.b.direct', (r) => n(r.conversations_direct)]]
          : []
  return (
    <section class="k-panel" aria-labelledby="rp-breakdown" data-testid="breakdown" data-kind={kind}>
      <h2 id="rp-breakdown">{tr('rp.breakdown')}</h2>
      <ul class="rp-by" aria-label={tr('rp.by')}>
        {KINDS.map((k) => (
          <li key={k}>
            <button type="button" aria-pressed={k === kind} onClick={() => setKind(k)}>
              {tr(`rp.by.${k}` as RpKey)}
            </button>
          </li>
        ))}
      </ul>
      {error ? (
        <ReportError error={error} />
      ) : !rows ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : rows.length === 0 ? (
        <p class="k-muted">{tr('rp.b.empty')}</p>
      ) : (
        <ScrollTable label={tr('rp.breakdown')}>
          <table class="k-table" data-testid="breakdown-table">
            <thead>
              <tr>
                <th scope="col">{tr(`rp.by.${kind}` as RpKey)}</th>
                <th scope="col" class="rp-num">
                  {tr('rp.b.conversations')}
                </th>
                <th scope="col">
                  <span class="sr-only">{tr('rp.b.share')}</span>
                </th>
                {cols.map(([label]) => (
                  <th scope="col" class="rp-num" key={label}>
                    {tr(label as RpKey)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => {
                const color = r.label?.color ?? r.category?.color ?? null
                const id = r.channel?.id ?? r.label?.id ?? r.team?.id ?? r.category?.id ?? 'none'
                return (
                  <tr key={`${id}-${i}`} data-row={id}>
                    <th scope="row">
                      <span class="rp-indent" style={{ paddingLeft: `${(r.category?.depth ?? 0) * 16}px` }}>
                        {color ? (
                          <span class="rp-dot" style={{ background: color }} aria-hidden="true" />
                        ) : null}
                        {nameOf(r, tr('rp.b.none_category'))}
                      </span>
                    </th>
                    <td class="rp-num">{n(r.conversations)}</td>
                    <td>
                      <ShareBar value={r.conversations} top={top} />
                    </td>
                    {cols.map(([label, f]) => (
                      <td class="rp-num" key={label}>
                        {f(r)}
                      </td>
                    ))}
                  </tr>
                )
              })}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {kind === 'team' ? <p class="k-muted">{tr('rp.b.team_conv')}</p> : null}
    </section>
  )
}
