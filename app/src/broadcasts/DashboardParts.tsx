import type { ComponentChildren } from 'preact'
import { Chart, NumbersTable, ShareBar } from '../kit/charts'
import { dayLabel } from '../kit/period'
import { Panel, QuotaMeter, ScrollTable } from '../kit/ui'
import { StatusBadge } from './common'
import {
  at,
  type Dashboard,
  type DashboardBroadcast,
  Link,
  num,
  type Options,
  type TextKey,
  textOr,
  useLocale,
  useTr,
} from './kit'

/**
 * The broadcasts dashboard's sections (DashboardPage.tsx asks and lays them out): the funnel, the
 * day and hour charts with their numbers as tables (the kit's charts, as the reports draw them),
 * the failure and skip reasons, each number's use today, the latest and most replied broadcasts.
 */
const COLORS = { sent: '#0f6e5f', replied: '#2563eb', failed: '#b91c1c', skipped: '#b45309' } as const
const SERIES = ['sent', 'replied', 'failed'] as const

const lang = (locale: string) => (locale === 'id' ? 'id-ID' : 'en-GB')
const share = (n: number, of: number, locale: string) =>
  of > 0 ? (n / of).toLocaleString(lang(locale), { style: 'percent', maximumFractionDigits: 1 }) : '–'
const hh = (h: number) => String(h).padStart(2, '0')

/** A table of the dashboard in its sideways-scrolling region, with its column heads (`[text, class]`). */
const Table = (props: {
  label: string
  testid: string
  class?: string
  cols: readonly (readonly [ComponentChildren, string?])[]
  children: ComponentChildren
}) => (
  <ScrollTable label={props.label} class="k-table-wrap bc-scroll">
    <table class={props.class ? `k-table ${props.class}` : 'k-table'} data-testid={props.testid}>
      <thead>
        <tr>
          {props.cols.map(([text, cls], i) => (
            <th key={i} scope="col" class={cls}>
              {text}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{props.children}</tbody>
    </table>
  </ScrollTable>
)

type Funnel = Dashboard['funnel']
const STEPS = ['recipients', 'sent', 'delivered', 'read', 'replied'] as const

/** Recipients → sent → delivered → read → replied, each with its share of the recipients. */
export const Funnel = ({ funnel }: { funnel: Funnel }) => {
  const tr = useTr()
  const locale = useLocale()
  const waiting = Math.max(0, funnel.recipients - funnel.sent - funnel.failed)
  return (
    <Panel title={tr('bc.d.funnel')} id="bc-funnel">
      <Table
        label={tr('bc.d.funnel')}
        testid="dashboard-funnel"
        cols={[
          [tr('bc.d.step')],
          [tr('bc.d.count'), 'k-num'],
          [tr('bc.d.share'), 'k-num'],
          [<span class="sr-only">{tr('bc.d.share')}</span>, 'bc-bar-col'],
        ]}
      >
        {STEPS.map((k) => (
          <tr key={k} data-step={k}>
            <th scope="row">{tr(`bc.d.f.${k}`)}</th>
            <td class="k-num" data-testid={`funnel-${k}`}>
              {num(funnel[k], locale)}
            </td>
            <td class="k-num">{share(funnel[k], funnel.recipients, locale)}</td>
            <td class="bc-bar-col">
              <ShareBar value={funnel[k]} top={funnel.recipients} />
            </td>
          </tr>
        ))}
      </Table>
      <dl class="bc-aside">
        {(
          [
            ['failed', funnel.failed],
            ['waiting', waiting],
            ['skipped', funnel.skipped],
          ] as const
        ).map(([k, n]) => (
          <div key={k}>
            <dt>{tr(`bc.d.f.${k}`)}</dt>
            <dd data-testid={`funnel-${k}`}>{num(n, locale)}</dd>
          </div>
        ))}
      </dl>
    </Panel>
  )
}

type Times = Dashboard['daily'][number]

/** One point of a timeline: its figures, its key (`data-date`, `data-hour`) and its names. */
interface Slot extends Omit<Times, 'date'> {
  readonly key: string
  /** On the axis; heading the value box and the table's row. */
  readonly tick: string
  readonly head: string
  readonly title: string
}

/**
 * Sent, replied among them, and failed over days or hours: the kit's chart, its summary, and its
 * numbers as a table.
 */
const Timeline = (props: { kind: 'daily' | 'hourly'; slots: readonly Slot[]; summary: string }) => {
  const tr = useTr()
  const locale = useLocale()
  const { kind, slots } = props
  const hourly = kind === 'hourly'
  return (
    <Panel title={tr(`bc.d.${kind}`)} id={`bc-${kind}`}>
      <Chart
        testid={`dashboard-${kind}-chart`}
        count={slots.length}
        bars={hourly || slots.length <= 31}
        fromStart={hourly}
        summary={props.summary}
        series={SERIES.map((k) => ({
          key: k,
          label: tr(`bc.d.f.${k}`),
          color: COLORS[k],
          values: slots.map((x) => x[k]),
        }))}
        tick={(i) => slots[i]!.tick}
        title={(i) => slots[i]!.title}
        fmt={(x) => num(x, locale)}
      />
      <p class="k-muted" data-testid={`dashboard-${kind}-summary`}>
        {props.summary}
      </p>
      <NumbersTable
        label={tr(`bc.d.${kind}`)}
        testid={`dashboard-${kind}-table`}
        first={tr(hourly ? 'bc.d.hour' : 'bc.d.date')}
        keyName={hourly ? 'hour' : 'date'}
        columns={SERIES.map((k) => tr(`bc.d.f.${k}`))}
        rows={slots.map((x) => ({ key: x.key, head: x.head, values: SERIES.map((k) => x[k]) }))}
      />
    </Panel>
  )
}

const sumOf = (rows: readonly Omit<Times, 'date'>[], k: (typeof SERIES)[number]) =>
  rows.reduce((a, r) => a + r[k], 0)
/** The row that sent the most (the first of equals), if any sent. */
const busiest = <T extends Omit<Times, 'date'>>(rows: readonly T[]) =>
  rows.reduce<T | null>((b, r) => (r.sent > (b?.sent ?? 0) ? r : b), null)

export const Daily = ({ days }: { days: Dashboard['daily'] }) => {
  const tr = useTr()
  const locale = useLocale()
  const top = busiest(days)
  const summary = tr('bc.d.daily_sum', {
    from: dayLabel(days[0]?.date ?? '', locale, true),
    to: dayLabel(days[days.length - 1]?.date ?? '', locale, true),
    sent: num(sumOf(days, 'sent'), locale),
    replied: num(sumOf(days, 'replied'), locale),
    failed: num(sumOf(days, 'failed'), locale),
    top: top ? dayLabel(top.date, locale, true) : '–',
  })
  const slots = days.map((d) => {
    const long = dayLabel(d.date, locale, true)
    return { ...d, key: d.date, tick: dayLabel(d.date, locale), head: long, title: long }
  })
  return <Timeline kind="daily" slots={slots} summary={summary} />
}

export const Hourly = ({ hours }: { hours: Dashboard['hourly'] }) => {
  const tr = useTr()
  const locale = useLocale()
  const top = busiest(hours)
  const summary = top
    ? tr('bc.d.hourly_sum', {
        hour: hh(top.hour),
        n: num(top.sent, locale),
        total: num(sumOf(hours, 'sent'), locale),
      })
    : tr('bc.d.hourly_none')
  const slots = hours.map((h) => ({
    ...h,
    key: String(h.hour),
    tick: hh(h.hour),
    head: `${hh(h.hour)}:00`,
    title: `${hh(h.hour)}:00–${hh(h.hour)}:59`,
  }))
  return <Timeline kind="hourly" slots={slots} summary={summary} />
}

/** Why messages failed (the service's words) or were skipped (in the reader's words). */
export const Reasons = ({ reasons }: { reasons: Dashboard['reasons'] }) => {
  const tr = useTr()
  const locale = useLocale()
  const top = Math.max(0, ...reasons.map((r) => r.count))
  return (
    <Panel title={tr('bc.d.reasons')} id="bc-reasons">
      {reasons.length === 0 ? (
        <p class="k-muted" data-testid="dashboard-reasons-none">
          {tr('bc.d.reasons_none')}
        </p>
      ) : (
        <Table
          label={tr('bc.d.reasons')}
          testid="dashboard-reasons"
          cols={[[tr('bc.d.reason')], [tr('bc.d.kind')], [tr('bc.d.count'), 'k-num']]}
        >
          {reasons.map((r) => (
            <tr key={`${r.kind}:${r.reason}`} data-kind={r.kind} data-reason={r.reason}>
              <th scope="row">
                {r.kind === 'skipped' ? textOr(tr, `bc.skip.${r.reason}`, r.reason) : r.reason}
              </th>
              <td>
                <span class={`k-badge ${r.kind === 'failed' ? 'k-bad' : 'k-wait'}`}>
                  {tr(`bc.r.${r.kind}`)}
                </span>
              </td>
              <td class="k-num">
                <span class="bc-count-cell">
                  <ShareBar value={r.count} top={top} color={COLORS[r.kind]} />
                  <span data-testid="reason-count">{num(r.count, locale)}</span>
                </span>
              </td>
            </tr>
          ))}
        </Table>
      )}
    </Panel>
  )
}

/** Each number's messages of the last 24 hours against its warm-up limit, and today's broadcast sends. */
export const NumbersToday = ({ numbers, zone }: { numbers: Dashboard['numbers']; zone: string }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <Panel title={tr('bc.d.numbers')} id="bc-numbers">
      {numbers.length === 0 ? (
        <p class="k-muted">{tr('bc.d.numbers_none')}</p>
      ) : (
        <ul class="bc-meters" data-testid="dashboard-numbers">
          {numbers.map((n) => (
            <QuotaMeter
              key={n.channel_id}
              item={{ 'data-channel': String(n.channel_id) }}
              label={
                <span class="bc-number">
                  <strong>{n.name}</strong>{' '}
                  <span class={`k-badge ${n.status === 'active' ? 'k-ok' : 'k-wait'}`}>
                    {textOr(tr, `bc.d.n.status.${n.status}`, n.status)}
                  </span>
                </span>
              }
              figure={
                <span data-testid="number-24h">
                  {n.warmup
                    ? tr('bc.d.n.of_limit', {
                        used: num(n.sent_24h, locale),
                        limit: num(n.warmup.limit, locale),
                      })
                    : tr('bc.d.n.no_limit', { used: num(n.sent_24h, locale) })}
                </span>
              }
              used={n.sent_24h}
              limit={n.warmup?.limit ?? 0}
              notes={
                <>
                  <span class="bc-sub" data-testid="number-today">
                    {tr('bc.d.n.today', { n: num(n.broadcast_sent_today, locale) })}
                  </span>
                  {n.warmup ? (
                    <span class="bc-sub">
                      {tr('bc.d.n.warmup', {
                        until: at(n.warmup.ends_at, locale, zone),
                        remaining: num(n.warmup.remaining, locale),
                      })}
                    </span>
                  ) : null}
                </>
              }
            />
          ))}
        </ul>
      )}
    </Panel>
  )
}

const Broadcasts = (props: {
  title: TextKey
  id: string
  items: readonly DashboardBroadcast[]
  empty: string
  numbers: Options['numbers']
  /** The number chosen in the filters, whose name each row would repeat. */
  number: string
  zone: string
}) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <Panel title={tr(props.title)} id={props.id}>
      {props.items.length === 0 ? (
        <p class="k-muted">{props.empty}</p>
      ) : (
        <Table
          label={tr(props.title)}
          testid={props.id}
          class="bc-table"
          cols={[
            [tr('bc.col.name')],
            [tr('bc.d.f.sent'), 'k-num'],
            [tr('bc.d.rate'), 'k-num'],
            [tr('bc.d.started'), 'bc-wide'],
          ]}
        >
          {props.items.map((b) => (
            <tr key={b.id} data-id={b.id}>
              <td>
                <Link to={`/broadcasts/${b.id}`}>{b.name}</Link>
                <span class="bc-meta">
                  <StatusBadge status={b.status} tr={tr} />
                  {props.number ? null : (
                    <span>{props.numbers.find((n) => n.id === b.channel_id)?.name ?? ''}</span>
                  )}
                </span>
              </td>
              <td class="k-num">{num(b.counts.sent, locale)}</td>
              <td class="k-num" data-testid="reply-rate">
                {share(b.reply_rate, 100, locale)}
              </td>
              <td class="bc-wide">{at(b.started_at, locale, props.zone)}</td>
            </tr>
          ))}
        </Table>
      )}
    </Panel>
  )
}

/** The five latest broadcasts of the period and the five with the most replies per message sent. */
export const LatestAndBest = (props: {
  latest: readonly DashboardBroadcast[]
  best: readonly DashboardBroadcast[]
  numbers: Options['numbers']
  number: string
  zone: string
}) => {
  const tr = useTr()
  const shared = { numbers: props.numbers, number: props.number, zone: props.zone }
  return (
    <div class="bc-dash2">
      <Broadcasts
        title="bc.d.latest"
        id="dashboard-latest"
        items={props.latest}
        empty={tr('bc.d.none_in_range', { number: '' })}
        {...shared}
      />
      <Broadcasts
        title="bc.d.best"
        id="dashboard-best"
        items={props.best}
        empty={tr('bc.d.best_none')}
        {...shared}
      />
    </div>
  )
}
