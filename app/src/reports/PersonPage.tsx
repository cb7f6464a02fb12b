import { ApiError, api, can, got, Link, useKitTr, useLocale } from '../kit'
import { Chart, NumbersTable } from '../kit/charts'
import { when } from '../kit/ui'
import type { PageProps } from '../routes'
import {
  addDays,
  dayLabel,
  duration,
  Exports,
  FilterBar,
  type Filters,
  longDay,
  num,
  RangeNote,
  ReportError,
  ScrollTable,
  searchOf,
  spanOf,
  todayIn,
  useFilters,
  useReport,
  workspaceZone,
} from './common'
import { ensureStyles } from './styles'
import { type RpKey, useTr } from './texts'

/**
 * `/reports/agents/:id`: one person's KPIs (`GET /v1/kpi/users/{id}`, Pro and Custom; the Free
 * plan reads the API's refusal in words): the Frontline and Back Office cards, replies and
 * breaches per day, the breaches with links to their conversation or ticket, the targets in force
 * and where each comes from, and the KPI CSV files for that person. KPIs span at most 93 days of
 * the workspace zone: a longer range keeps its last 93 days, and says so.
 */

const MAX_KPI_DAYS = 93

interface Block {
  readonly count: number
  readonly average_minutes: number | null
  readonly within_target_percent: number | null
}
interface Person {
  readonly user: { readonly id: number; readonly name: string }
  readonly frontline: {
    readonly replies: number
    readonly conversations: number
    readonly first_response: Block
    readonly reply_time: Block
    readonly resolution: Block
  }
  readonly backoffice: {
    readonly tickets_created: number
    readonly first_response: Block
    readonly resolution: Block
  }
  readonly daily: readonly {
    readonly date: string
    readonly replies: number
    readonly breaches: number
  }[]
  readonly breaches: readonly {
    readonly kind: string
    readonly at: string
    readonly minutes: number | null
    readonly conversation_id: number | null
    readonly ticket_id: number | null
    readonly channel_type: string | null
  }[]
  readonly targets: readonly {
    readonly metric: string
    readonly value: number
    readonly unit: 'minutes' | 'hours'
    readonly source: string
  }[]
}

/** The range asked, or its last 93 days. */
const capped = (f: Filters): Filters =>
  spanOf(f.from, f.to) > MAX_KPI_DAYS ? { ...f, from: addDays(f.to, -(MAX_KPI_DAYS - 1)) } : f

export const PersonPage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const zone = workspaceZone()
  const asked = useFilters(zone)
  const f = capped(asked)
  const id = params.id ?? ''
  const query = { from: f.from, to: f.to, ...(f.team ? { team_id: Number(f.team) } : {}) }
  const live = f.to >= todayIn(zone)
  const { data, error } = useReport(
    `${id}|${f.from}|${f.to}|${f.team}`,
    () => got<Person>(api.get('/v1/kpi/users/{id}', { path: { id }, query })).then((r) => r.data),
    live,
  )

  return (
    <div class="k-page rp-page" data-testid="person-report">
      <Link class="k-back" to={`/reports/agents${searchOf(asked)}`}>
        {tr('rp.k.back')}
      </Link>
      <div class="k-head">
        <h1>{data ? tr('rp.k.title', { name: data.user.name }) : tr('rp.title')}</h1>
      </div>
      <FilterBar
        filters={asked}
        path={`/reports/agents/${encodeURIComponent(id)}`}
        zone={zone}
        channel={false}
      />
      <RangeNote filters={f} zone={zone} live={live} />
      {f !== asked ? (
        <p class="k-notice k-notice-info rp-gap" data-testid="capped">
          {tr('rp.k.capped', { from: longDay(f.from, locale), to: longDay(f.to, locale) })}
        </p>
      ) : null}
      {error ? (
        <>
          <ReportError error={error} />
          {error instanceof ApiError && error.code === 'plan_required' && can('settings.billing') ? (
            <p>
              <Link to="/settings/billing">{tr('rp.k.plans')}</Link>
            </p>
          ) : null}
        </>
      ) : !data ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <div class="k-stack" data-testid="kpi">
          <KpiCards data={data} />
          <Daily data={data} />
          <Breaches data={data} />
          <Targets data={data} />
          <Exports
            base="/v1/kpi/export"
            query={{ ...query, user_id: data.user.id }}
            types={[
              ['summary', 'rp.x.kpi_summary'],
              ['conversations', 'rp.x.conversations'],
              ['replies', 'rp.x.replies'],
              ['tickets', 'rp.x.kpi_tickets'],
            ]}
          />
        </div>
      )}
    </div>
  )
}

const KpiCards = ({ data }: { data: Person }) => {
  const tr = useTr()
  const locale = useLocale()
  const block = (id: string, title: RpKey, b: Block) => (
    <li class="rp-card" data-card={id}>
      <h3>{tr(title)}</h3>
      <span class="rp-fig" data-testid={`kpi-${id}`}>
        {duration(b.average_minutes, locale)}
      </span>
      <small>
        {tr('rp.measured', { n: num(b.count, locale) })} ·{' '}
        {b.within_target_percent === null
          ? tr('rp.no_data')
          : tr('rp.within', { p: b.within_target_percent })}
      </small>
    </li>
  )
  const count = (id: string, title: RpKey, n: number) => (
    <li class="rp-card" data-card={id}>
      <h3>{tr(title)}</h3>
      <span class="rp-fig" data-testid={`kpi-${id}`}>
        {num(n, locale)}
      </span>
    </li>
  )
  const fl = data.frontline
  const bo = data.backoffice
  return (
    <>
      <section aria-labelledby="rp-frontline">
        <h2 id="rp-frontline" class="k-sub rp-top0">
          {tr('rp.k.frontline')}
        </h2>
        <ul class="rp-cards" data-testid="frontline">
          {count('replies', 'rp.k.replies', fl.replies)}
          {count('conversations', 'rp.k.conversations', fl.conversations)}
          {block('first_response', 'rp.k.first_response', fl.first_response)}
          {block('reply_time', 'rp.k.reply_time', fl.reply_time)}
          {block('resolution', 'rp.k.resolution', fl.resolution)}
        </ul>
      </section>
      <section aria-labelledby="rp-backoffice">
        <h2 id="rp-backoffice" class="k-sub rp-top0">
          {tr('rp.k.backoffice')}
        </h2>
        <ul class="rp-cards" data-testid="backoffice">
          {count('tickets_created', 'rp.k.tickets_created', bo.tickets_created)}
          {block('ticket_first_response', 'rp.k.ticket_first', bo.first_response)}
          {block('ticket_resolution', 'rp.k.ticket_resolution', bo.resolution)}
        </ul>
      </section>
    </>
  )
}

const Daily = ({ data }: { data: Person }) => {
  const tr = useTr()
  const locale = useLocale()
  const days = data.daily
  const summary = tr('rp.k.daily_sum', {
    replies: num(
      days.reduce((a, d) => a + d.replies, 0),
      locale,
    ),
    breaches: num(
      days.reduce((a, d) => a + d.breaches, 0),
      locale,
    ),
    from: longDay(days[0]?.date ?? '', locale),
    to: longDay(days[days.length - 1]?.date ?? '', locale),
  })
  return (
    <section class="k-panel" aria-labelledby="rp-kdaily">
      <h2 id="rp-kdaily">{tr('rp.k.daily')}</h2>
      <Chart
        testid="kpi-chart"
        count={days.length}
        bars={days.length <= 31}
        summary={summary}
        series={[
          { key: 'replies', label: tr('rp.k.replies'), color: '#0f6e5f', values: days.map((d) => d.replies) },
          {
            key: 'breaches',
            label: tr('rp.k.breach_n'),
            color: '#b91c1c',
            values: days.map((d) => d.breaches),
          },
        ]}
        tick={(i) => dayLabel(days[i]!.date, locale)}
        title={(i) => dayLabel(days[i]!.date, locale, true)}
        fmt={(x) => num(x, locale)}
      />
      <p class="k-muted">{summary}</p>
      <NumbersTable
        label={tr('rp.k.daily')}
        testid="kpi-daily-table"
        first={tr('rp.date')}
        keyName="date"
        columns={[tr('rp.k.replies'), tr('rp.k.breach_n')]}
        rows={days.map((d) => ({
          key: d.date,
          head: dayLabel(d.date, locale, true),
          values: [d.replies, d.breaches],
        }))}
      />
    </section>
  )
}

const Breaches = ({ data }: { data: Person }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <section class="k-panel" aria-labelledby="rp-breaches">
      <h2 id="rp-breaches">{tr('rp.k.breaches')}</h2>
      {data.breaches.length === 0 ? (
        <p class="k-muted">{tr('rp.k.breaches_none')}</p>
      ) : (
        <>
          <ScrollTable label={tr('rp.k.breaches')}>
            <table class="k-table" data-testid="breaches">
              <thead>
                <tr>
                  <th scope="col">{tr('rp.k.at')}</th>
                  <th scope="col">{tr('rp.k.kind')}</th>
                  <th scope="col" class="rp-num">
                    {tr('rp.k.took')}
                  </th>
                  <th scope="col">{tr('rp.k.where')}</th>
                </tr>
              </thead>
              <tbody>
                {data.breaches.map((b, i) => (
                  <tr key={i}>
                    <td>{when(b.at, locale)}</td>
                    <td>{tr(`rp.k.kind.${b.kind}` as RpKey)}</td>
                    <td class="rp-num">{duration(b.minutes, locale)}</td>
                    <td>
                      {b.ticket_id !== null ? (
                        <Link to={`/tickets/${b.ticket_id}`}>{tr('rp.k.ticket', { id: b.ticket_id })}</Link>
                      ) : b.conversation_id !== null ? (
                        <Link to={`/inbox/${b.conversation_id}`}>
                          {tr('rp.k.conversation', { id: b.conversation_id })}
                        </Link>
                      ) : (
                        '–'
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
          {data.breaches.length >= 100 ? <p class="k-muted">{tr('rp.k.max_shown')}</p> : null}
        </>
      )}
    </section>
  )
}

const Targets = ({ data }: { data: Person }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <section class="k-panel" aria-labelledby="rp-targets">
      <h2 id="rp-targets">{tr('rp.k.targets')}</h2>
      <ScrollTable label={tr('rp.k.targets')}>
        <table class="k-table" data-testid="targets">
          <thead>
            <tr>
              <th scope="col">{tr('rp.k.metric')}</th>
              <th scope="col" class="rp-num">
                {tr('rp.k.target')}
              </th>
              <th scope="col">{tr('rp.k.source')}</th>
            </tr>
          </thead>
          <tbody>
            {data.targets.map((t) => (
              <tr key={t.metric} data-metric={t.metric}>
                <th scope="row">{tr(`rp.m.${t.metric}` as RpKey)}</th>
                <td class="rp-num">
                  {tr(t.unit === 'hours' ? 'rp.u.hours' : 'rp.u.minutes', { n: num(t.value, locale) })}
                </td>
                <td>{tr(`rp.k.src.${t.source}` as RpKey)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </section>
  )
}
