import { useEffect, useRef, useState } from 'preact/hooks'
import { api, can, failFields, got, Link, me, useLocale, useWorkspaceEvents } from '../kit'
import { addDays, dayLabel, isDate, longDay, PeriodForm, presetRange, spanOf, todayIn } from '../kit/period'
import { FailNotice, ScrollTable as KitScrollTable, Notice, SelectField } from '../kit/ui'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { type RpKey, useTr } from './texts'

type TableProps = Parameters<typeof KitScrollTable>[0]

/**
 * What the reports pages share: the range and filters (kept in the address, so a reload or a
 * shared link shows the same report), their form, the page's tabs, durations and dates as people
 * read them, the live refresh and the CSV links.
 */

// ---------------------------------------------------------------------------------------------
// Dates: `YYYY-MM-DD` strings (the kit's period: app/src/kit/period.tsx).
// ---------------------------------------------------------------------------------------------

export { addDays, dayLabel, longDay, spanOf, todayIn }
export const callerZone = () => {
  const m = me.get()
  return m ? m.timezone : 'UTC'
}
export const workspaceZone = () => {
  const m = me.get()
  return m ? m.workspace.timezone : 'UTC'
}

const lang = (locale: string) => (locale === 'id' ? 'id-ID' : 'en-GB')
export const num = (n: number, locale: string) => n.toLocaleString(lang(locale))

/** Minutes as people read them: 45 min, 3 h 20 min, 2 d 4 h; `null` (nothing measured) as a dash. */
export const duration = (minutes: number | null | undefined, locale: string) => {
  if (minutes === null || minutes === undefined) return '–'
  const id = locale === 'id'
  const m = Math.round(minutes)
  if (m < 60) return id ? `${m} mnt` : `${m} min`
  const h = Math.floor(m / 60)
  const rest = m % 60
  if (h < 48) return id ? `${h} jam${rest ? ` ${rest} mnt` : ''}` : `${h} h${rest ? ` ${rest} min` : ''}`
  const d = Math.floor(h / 24)
  const hh = h % 24
  return id ? `${d} hr${hh ? ` ${hh} jam` : ''}` : `${d} d${hh ? ` ${hh} h` : ''}`
}

// ---------------------------------------------------------------------------------------------
// Range and filters
// ---------------------------------------------------------------------------------------------

export const PRESETS = ['7', '30', '90', '365', 'month'] as const

export interface Filters {
  readonly from: string
  readonly to: string
  readonly channel: string
  readonly team: string
}

/** The filters in the address, with the default (the last 30 days, as the API's) filled in. */
export const useFilters = (zone: string): Filters => {
  const { search } = use(here)
  const sp = new URLSearchParams(search)
  const today = todayIn(zone)
  const from = sp.get('from')
  const to = sp.get('to')
  const range = isDate(from) && isDate(to) ? { from, to } : presetRange('30', today)
  return { ...range, channel: sp.get('channel') ?? '', team: sp.get('team') ?? '' }
}

export const searchOf = (f: Filters) => {
  const sp = new URLSearchParams({ from: f.from, to: f.to })
  if (f.channel) sp.set('channel', f.channel)
  if (f.team) sp.set('team', f.team)
  return `?${sp.toString()}`
}

/** The API's query for `f`. */
export const queryOf = (f: Filters) => ({
  from: f.from,
  to: f.to,
  ...(f.channel ? { channel_id: Number(f.channel) } : {}),
  ...(f.team ? { team_id: Number(f.team) } : {}),
})

/** The period just before `f`, as long. */
export const previousOf = (f: Filters): Filters => {
  const days = spanOf(f.from, f.to)
  return { ...f, from: addDays(f.from, -days), to: addDays(f.from, -1) }
}

interface Named {
  readonly id: number
  readonly name: string
}

/** Channels the caller may see and the workspace's teams, for the filters. */
const useChoices = () => {
  const [channels, setChannels] = useState<readonly Named[]>([])
  const [teams, setTeams] = useState<readonly Named[]>([])
  useEffect(() => {
    got<Named[]>(api.get('/v1/channels')).then(
      (r) => setChannels(r.data),
      () => undefined,
    )
    got<Named[]>(api.get('/v1/teams')).then(
      (r) => setTeams(r.data),
      () => undefined,
    )
  }, [])
  return { channels, teams }
}

/**
 * The period (presets, or two dates), the channel and the team; changing one changes the address,
 * which the page reads. `channels: false` leaves the channel out (the agents report has no channel
 * filter that a person's KPIs would follow).
 */
export const FilterBar = (props: { filters: Filters; path: string; zone: string; channel?: boolean }) => {
  const tr = useTr()
  useLocale()
  const { channels, teams } = useChoices()
  const today = todayIn(props.zone)
  const f = props.filters
  const go = (next: Filters) => navigate(`${props.path}${searchOf(next)}`)
  return (
    <PeriodForm
      class="rp-filters"
      label={tr('rp.filters')}
      period={f}
      today={today}
      presets={PRESETS}
      text={(k) => tr(`rp.${k}` as RpKey)}
      onPeriod={(p) => go({ ...f, ...p })}
    >
      {props.channel === false ? null : (
        <SelectField
          label={tr('rp.channel')}
          name="channel"
          value={f.channel}
          options={[['', tr('rp.channel.any')], ...channels.map((c) => [String(c.id), c.name] as const)]}
          onValue={(v) => go({ ...f, channel: v })}
        />
      )}
      <SelectField
        label={tr('rp.team')}
        name="team"
        value={f.team}
        options={[['', tr('rp.team.any')], ...teams.map((t) => [String(t.id), t.name] as const)]}
        onValue={(v) => go({ ...f, team: v })}
      />
    </PeriodForm>
  )
}

/** Overview and Agents as tabs (links keeping the range), and a link to the dashboard. */
export const ReportTabs = (props: { current: 'overview' | 'agents'; filters: Filters }) => {
  const tr = useTr()
  const s = searchOf(props.filters)
  return (
    <nav class="rp-tabs" aria-label={tr('rp.tabs')}>
      <Link to={`/reports${s}`} aria-current={props.current === 'overview' ? 'page' : undefined}>
        {tr('rp.tab.overview')}
      </Link>
      <Link to={`/reports/agents${s}`} aria-current={props.current === 'agents' ? 'page' : undefined}>
        {tr('rp.tab.agents')}
      </Link>
      {can('dashboard.view') ? (
        <Link class="rp-aside" to="/dashboard">
          {tr('rp.dashboard')}
        </Link>
      ) : null}
    </nav>
  )
}

// ---------------------------------------------------------------------------------------------
// Business hours, live refresh, CSV
// ---------------------------------------------------------------------------------------------

export interface Hours {
  readonly enabled: boolean
  readonly days: readonly {
    readonly day: number
    readonly open: boolean
    readonly from: string
    readonly to: string
  }[]
}

/**
 * The zone of the figures and the workspace's business hours, stated under the filters. The
 * overview has the hours from the summary's `meta` (every reader); the agents and person pages ask
 * the general settings, which only members holding `settings.workspace` may read: the others read
 * that times count business hours.
 */
export const RangeNote = (props: {
  filters: Filters
  zone: string
  compare?: Filters
  live?: boolean
  hours?: Hours | undefined
}) => {
  const tr = useTr()
  const locale = useLocale()
  const [fetched, setFetched] = useState<Hours | null>(null)
  const given = 'hours' in props
  useEffect(() => {
    if (given || !can('settings.workspace')) return
    got<{ business_hours: Hours }>(api.get('/v1/settings')).then(
      (r) => setFetched(r.data.business_hours),
      () => undefined,
    )
  }, [given])
  const hours = given ? (props.hours ?? null) : fetched
  const f = props.filters
  const hoursText = (h: Hours) =>
    h.days
      .slice()
      .sort((a, b) => a.day - b.day)
      .map((d) => `${tr(`rp.day.${d.day}` as RpKey)} ${d.open ? `${d.from}–${d.to}` : tr('rp.closed')}`)
      .join(', ')
  return (
    <div class="rp-note" data-testid="range-note">
      <p>
        <strong data-testid="range">
          {tr('rp.range', {
            from: longDay(f.from, locale),
            to: longDay(f.to, locale),
            days: spanOf(f.from, f.to),
          })}
        </strong>{' '}
        <span data-testid="zone">{tr('rp.zone', { zone: props.zone.replace(/_/g, ' ') })}</span>
        {props.compare ? (
          <>
            {' '}
            {tr('rp.compare', {
              from: longDay(props.compare.from, locale),
              to: longDay(props.compare.to, locale),
            })}
          </>
        ) : null}
      </p>
      <p class="k-muted" data-testid="hours">
        {hours === null
          ? tr('rp.hours_unknown')
          : hours.enabled
            ? tr('rp.hours', { hours: hoursText(hours) })
            : tr('rp.hours_off')}
        {props.live ? ` ${tr('rp.live')}` : ''}
      </p>
    </div>
  )
}

/**
 * Reloads (at most every 2 s) when the workspace's figures may have changed: a message, a new or
 * changed conversation (`inbox.changed`), a ticket (`tickets.changed`), and after a gap the
 * server could not replay. Only a range reaching today changes; the roll-up is exact when asked.
 */
export const useLiveRefresh = (active: boolean, reload: () => void) => {
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  const fresh = useRef({ active, reload })
  fresh.current = { active, reload }
  useEffect(() => () => clearTimeout(timer.current), [])
  useWorkspaceEvents(['inbox.changed', 'tickets.changed'], () => {
    if (!fresh.current.active || timer.current !== undefined) return
    timer.current = setTimeout(() => {
      timer.current = undefined
      fresh.current.reload()
    }, 2000)
  })
}

/**
 * A report's answer for `key` (its range and filters): `null` while asked, the failure if it
 * failed; an answer to an older key is dropped. Asked again on live changes while `live`.
 */
export const useReport = <T,>(key: string, fetch: () => Promise<T>, live: boolean) => {
  const [data, setData] = useState<T | null>(null)
  const [error, setError] = useState<unknown>(null)
  const shown = useRef('')
  const latest = useRef(fetch)
  latest.current = fetch
  const load = () => {
    const asked = shown.current
    latest.current().then(
      (d) => {
        if (asked !== shown.current) return
        setData(d)
        setError(null)
      },
      (e) => {
        if (asked === shown.current) setError(e)
      },
    )
  }
  useEffect(() => {
    shown.current = key
    setData(null)
    load()
  }, [key])
  useLiveRefresh(live, load)
  return { data, error }
}

/** Links to the CSV files (the browser downloads them with the session's cookie). */
export const Exports = (props: {
  base: '/v1/reports/export' | '/v1/kpi/export'
  query: Readonly<Record<string, string | number>>
  types: readonly (readonly [string, RpKey])[]
}) => {
  const tr = useTr()
  return (
    <section class="k-panel" aria-labelledby="rp-exports">
      <h2 id="rp-exports">{tr('rp.exports')}</h2>
      <p class="k-muted rp-gap">{tr('rp.exports_note')}</p>
      <ul class="rp-exports" data-testid="exports">
        {props.types.map(([type, label]) => {
          const sp = new URLSearchParams({ ...stringify(props.query), type })
          return (
            <li key={type}>
              <a class="k-btn" href={`${props.base}?${sp.toString()}`} download data-type={type}>
                ⬇ {tr(label)}
              </a>
            </li>
          )
        })}
      </ul>
    </section>
  )
}

const stringify = (q: Readonly<Record<string, string | number>>) =>
  Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)]))

/** The kit's sideways-scrolling table in the reports' look. */
export const ScrollTable = (props: Omit<TableProps, 'class'>) => (
  <KitScrollTable {...props} class="rp-scroll" />
)

const FIELD: Readonly<Record<string, RpKey>> = {
  from: 'rp.from',
  to: 'rp.to',
  channel_id: 'rp.channel',
  team_id: 'rp.team',
}

/**
 * A failed report: a refused range or filter (422) names the field and says what is wrong in the
 * server's words ("To: the range may span at most 366 days"); anything else as the kit tells it.
 */
export const ReportError = ({ error }: { error: unknown }) => {
  const tr = useTr()
  const fields = Object.entries(failFields(error))
  if (fields.length === 0) return <FailNotice error={error} />
  return (
    <Notice kind="bad">{fields.map(([k, m]) => `${FIELD[k] ? tr(FIELD[k]) : k}: ${m}`).join(' ')}</Notice>
  )
}
