import { useEffect, useRef, useState } from 'preact/hooks'
import { failFields, me, useWorkspaceEvents } from '../kit'
import { isDate, longDay, type Period, PeriodForm, presetRange, spanOf, todayIn } from '../kit/period'
import { Notice, SelectField } from '../kit/ui'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { ActionFailure, AreaTabs } from './common'
import { Daily, Funnel, Hourly, LatestAndBest, NumbersToday, Reasons } from './DashboardParts'
import {
  api,
  can,
  type Dashboard,
  got,
  Link,
  num,
  type Options,
  type TextKey,
  type Tr,
  useLocale,
  useTr,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/broadcasts/dashboard` (spec 2 §4.8 `GET /broadcasts/dashboard`): what the broadcasts started
 * in a period did, over all numbers or one: the funnel from recipients to replies, messages per
 * day and by hour, why messages failed or were skipped, each number's use today against its
 * warm-up limit, and the latest and most replied broadcasts. The period (at most 92 days, the
 * API's limit) and the number are in the address, so a reload or a shared link shows the same;
 * days and hours are the workspace's. `broadcasts.changed` (a send, a receipt, a reply) asks
 * again, one answer at a time. Without a Pro or Custom plan it still shows what was sent, as the
 * list does; a member without `broadcasts.view` is told so instead of being asked for nothing.
 */
const PRESETS = ['7', '30', '90', 'month'] as const

interface Filters extends Period {
  readonly channel: string
}

/** The filters in the address, with the API's default period (the last 30 days) filled in. */
const useFilters = (today: string): Filters => {
  const sp = new URLSearchParams(use(here).search)
  const from = sp.get('from')
  const to = sp.get('to')
  const period = isDate(from) && isDate(to) ? { from, to } : presetRange('30', today)
  return { ...period, channel: sp.get('channel') ?? '' }
}

const go = (f: Filters) => {
  const sp = new URLSearchParams({ from: f.from, to: f.to })
  if (f.channel) sp.set('channel', f.channel)
  navigate(`/broadcasts/dashboard?${sp.toString()}`, true)
}

export default function BroadcastDashboardPage() {
  ensureStyles()
  const tr = useTr()
  const allowed = can('broadcasts.view') || can('broadcasts.manage')
  return (
    <div class="k-page" data-testid="broadcast-dashboard">
      <div class="k-head">
        <h1>{tr('bc.d.title')}</h1>
      </div>
      <AreaTabs current="dashboard" tr={tr} />
      {allowed ? (
        <Board tr={tr} />
      ) : (
        <p class="k-notice k-notice-info" data-testid="dashboard-no-access">
          {tr('bc.d.no_access')}
        </p>
      )}
    </div>
  )
}

const Board = ({ tr }: { tr: Tr }) => {
  const locale = useLocale()
  const who = me.get()
  const zone = who ? who.workspace.timezone : 'UTC'
  const today = todayIn(zone)
  const f = useFilters(today)
  const [d, setD] = useState<Dashboard | null>(null)
  const [total, setTotal] = useState<number | null>(null)
  const [options, setOptions] = useState<Options | null>(null)
  const [error, setError] = useState<unknown>(null)
  const key = `${f.from}|${f.to}|${f.channel}`
  // One question at a time: a change while one is out asks once more when it is answered, and
  // an answer for other filters than those shown is dropped.
  const state = useRef({ key, busy: false, again: false })
  state.current.key = key
  const load = async () => {
    const s = state.current
    if (s.busy) {
      s.again = true
      return
    }
    s.busy = true
    const asked = s.key
    try {
      const [r, list] = await Promise.all([
        got<Dashboard>(
          api.get('/v1/broadcasts/dashboard', {
            query: {
              from: f.from,
              to: f.to,
              ...(f.channel ? { channel_id: Number(f.channel) } : {}),
            } as never,
          }),
        ),
        got<unknown[]>(api.get('/v1/broadcasts', { query: { per_page: 1 } })),
      ])
      if (asked === s.key) {
        setD(r.data)
        setTotal(typeof list.meta.total === 'number' ? list.meta.total : null)
        setError(null)
      }
    } catch (e) {
      if (asked === s.key) setError(e)
    } finally {
      s.busy = false
      if (s.again || asked !== s.key) {
        s.again = false
        void loadRef.current()
      }
    }
  }
  const loadRef = useRef(load)
  loadRef.current = load
  useEffect(() => {
    setD(null)
    void load()
  }, [key])
  useEffect(() => {
    got<Options>(api.get('/v1/broadcasts/options')).then(
      (r) => setOptions(r.data),
      () => undefined,
    )
  }, [])
  useWorkspaceEvents(['broadcasts.changed'], () => void loadRef.current())

  const numbers = options?.numbers ?? []
  const number = numbers.find((n) => String(n.id) === f.channel)
  return (
    <>
      {options && !options.plan_allows ? <Notice kind="info">{tr('bc.plan')}</Notice> : null}
      <FilterBar filters={f} today={today} numbers={numbers} tr={tr} />
      {error ? <RangeFailure error={error} tr={tr} /> : null}
      {d === null ? (
        error ? null : (
          <p class="k-muted">{tr('bc.loading')}</p>
        )
      ) : total === 0 ? (
        <div class="k-panel" data-testid="dashboard-empty">
          <p class="bc-empty">{tr('bc.d.empty')}</p>
          {can('broadcasts.manage') && options?.plan_allows ? (
            <Link class="k-btn k-primary" to="/broadcasts">
              {tr('bc.d.write')}
            </Link>
          ) : null}
        </div>
      ) : (
        <div class="k-stack" data-testid="dashboard-figures">
          <p class="k-muted bc-range" data-testid="dashboard-range">
            {tr('bc.d.range', {
              from: longDay(d.from, locale),
              to: longDay(d.to, locale),
              days: num(spanOf(d.from, d.to), locale),
              zone: zone.replace(/_/g, ' '),
            })}{' '}
            {tr('bc.d.live')}
          </p>
          {d.latest.length === 0 ? (
            <Notice kind="info">
              {tr('bc.d.none_in_range', {
                number: number ? tr('bc.d.on_number', { name: number.name }) : '',
              })}
            </Notice>
          ) : null}
          <div class="bc-dash2">
            <Funnel funnel={d.funnel} />
            <div class="k-stack">
              <NumbersToday numbers={d.numbers} zone={zone} />
              <Reasons reasons={d.reasons} />
            </div>
          </div>
          <Daily days={d.daily} />
          <Hourly hours={d.hourly} />
          <LatestAndBest latest={d.latest} best={d.best} numbers={numbers} number={f.channel} zone={zone} />
        </div>
      )}
    </>
  )
}

/** The period (presets, or two dates with Show) and the number; each change goes to the address. */
const FilterBar = (props: { filters: Filters; today: string; numbers: Options['numbers']; tr: Tr }) => {
  const { filters: f, tr } = props
  return (
    <PeriodForm
      class="bc-filters"
      label={tr('bc.d.filters')}
      testid="dashboard-filters"
      period={f}
      today={props.today}
      presets={PRESETS}
      text={(k) => tr(`bc.d.${k}` as TextKey)}
      onPeriod={(p) => go({ ...f, ...p })}
    >
      <SelectField
        label={tr('bc.d.number')}
        name="channel"
        value={f.channel}
        options={[
          ['', tr('bc.d.any_number')],
          ...props.numbers.map((n) => [String(n.id), n.phone ? `${n.name} · ${n.phone}` : n.name] as const),
        ]}
        onValue={(v) => go({ ...f, channel: v })}
      />
    </PeriodForm>
  )
}

/** A refused period (422) names the date and says what is wrong in the server's words. */
const RangeFailure = ({ error, tr }: { error: unknown; tr: Tr }) => {
  const fields = Object.entries(failFields(error))
  if (fields.length === 0) return <ActionFailure error={error} />
  const label = (k: string) => (k === 'from' ? tr('bc.d.from') : k === 'to' ? tr('bc.d.to') : k)
  return <Notice kind="bad">{fields.map(([k, m]) => `${label(k)}: ${m}`).join(' ')}</Notice>
}
