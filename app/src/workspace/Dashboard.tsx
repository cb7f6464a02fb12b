import { useEffect, useState } from 'preact/hooks'
import { Checklist, type Steps } from '../components/gettingStarted'
import { api, can, failText, got, Link, useKitTr, useLocale, useWorkspaceEvents } from '../kit'
import { ensureKitStyles } from '../kit/styles'
import { Notice, Panel, QuotaMeter, when } from '../kit/ui'
import { IncomingNotice, ScrollTable } from './common'
import { useTr, type WsKey } from './texts'

/**
 * `/app/dashboard` (`dashboard.view`): getting started while steps are left, plan usage, the last
 * 14 days, recent activity and the teams. The server leaves out (`null`) what the member's role
 * may not see; the page shows only what it got. Reloaded on the workspace's changes.
 */

interface Counter {
  readonly used: number
  readonly limit: number
  readonly resets_at?: string | null
  readonly suspended?: number
}
type Quota = Readonly<Record<string, Counter>>
interface Day {
  readonly date: string
  readonly conversations: number
  readonly messages_in: number
  readonly messages_out: number
}
interface Entry {
  readonly id: number
  readonly label: string
  readonly target: string | null
  readonly details: string | null
  readonly user: { readonly name: string } | null
  readonly created_at: string
}
interface Team {
  readonly id: number
  readonly name: string
  readonly members: number
  readonly open_conversations: number
}
interface Summary {
  readonly getting_started: Steps | null
  readonly quota: Quota | null
  readonly activity: { readonly timezone: string; readonly days: readonly Day[] } | null
  readonly recent: readonly Entry[] | null
  readonly teams: readonly Team[] | null
}

export const DashboardPage = () => {
  ensureKitStyles()
  const tr = useTr()
  const kt = useKitTr()
  useLocale()
  const [data, setData] = useState<Summary | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    got<Summary>(api.get('/v1/dashboard')).then(
      (r) => {
        setData(r.data)
        setError(null)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(
    ['channel.updated', 'settings.updated', 'members.changed', 'teams.changed', 'billing.updated'],
    () => void load(),
  )

  return (
    <div class="k-page" data-testid="dashboard">
      <div class="k-head">
        <h1>{tr('db.title')}</h1>
        <Link class="wsx-aside" to="/workspaces">
          {tr('ws.your_workspaces')}
        </Link>
      </div>
      {error && !data ? (
        <Notice kind="bad">{failText(error)}</Notice>
      ) : !data ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <div class="k-stack">
          <IncomingNotice />
          {data.getting_started && data.getting_started.done < data.getting_started.total ? (
            <Checklist steps={data.getting_started} />
          ) : null}
          <div class="wsx-grid">
            {data.quota ? <QuotaPanel quota={data.quota} /> : null}
            {data.teams ? <TeamsPanel teams={data.teams} /> : null}
          </div>
          {data.activity ? <Activity days={data.activity.days} /> : null}
          {data.recent ? <Recent entries={data.recent} /> : null}
        </div>
      )}
    </div>
  )
}

const COUNTERS = [
  'channels',
  'users',
  'replies_per_day',
  'tickets_per_month',
  'leads_per_month',
  'ai_per_month',
] as const

const QuotaPanel = ({ quota }: { quota: Quota }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <Panel title={tr('db.quota')} id="db-quota">
      <ul class="wsx-meters" data-testid="quota">
        {COUNTERS.filter((k) => quota[k]).map((k) => {
          const c = quota[k]!
          return (
            <QuotaMeter
              key={k}
              item={{ 'data-counter': k }}
              label={<span>{tr(`db.q.${k}` as WsKey)}</span>}
              figure={
                <span class="wsx-num">
                  {c.limit > 0
                    ? tr('db.used_of', { used: c.used, limit: c.limit })
                    : tr('db.used_unlimited', { used: c.used })}
                </span>
              }
              used={c.used}
              limit={c.limit}
              notes={
                <>
                  {c.suspended ? (
                    <small class="k-error">{tr('db.suspended', { n: c.suspended })}</small>
                  ) : null}
                  {c.resets_at && c.limit > 0 ? (
                    <small class="k-muted">{tr('db.resets', { at: when(c.resets_at, locale) })}</small>
                  ) : null}
                </>
              }
            />
          )
        })}
      </ul>
      {can('settings.billing') ? <Link to="/settings/billing">{tr('db.billing')}</Link> : null}
    </Panel>
  )
}

const dayLabel = (date: string, locale: string, long = false) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(locale === 'id' ? 'id-ID' : 'en-GB', {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(long ? { weekday: 'short' } : {}),
  })

/** Received and sent messages per day as bars (drawn with CSS), the numbers in a table below. */
const Activity = ({ days }: { days: readonly Day[] }) => {
  const tr = useTr()
  const locale = useLocale()
  const sum = (f: (d: Day) => number) => days.reduce((n, d) => n + f(d), 0)
  const top = Math.max(1, ...days.map((d) => Math.max(d.messages_in, d.messages_out)))
  const pct = (n: number) => `${Math.round((n / top) * 100)}%`
  /** Every other day's date under the bars (every fourth on a phone), always today's. */
  const tick = (i: number) => {
    const fromEnd = days.length - 1 - i
    return fromEnd % 2 ? 'wsx-tick wsx-t2' : fromEnd % 4 ? 'wsx-tick wsx-t4' : 'wsx-tick'
  }
  return (
    <Panel title={tr('db.activity')} id="db-activity">
      <figure class="wsx-chart" data-testid="activity">
        <figcaption id="db-activity-sum">
          {tr('db.activity_summary', {
            in: sum((d) => d.messages_in),
            out: sum((d) => d.messages_out),
            conv: sum((d) => d.conversations),
          })}
        </figcaption>
        <p class="wsx-legend" aria-hidden="true">
          <span class="wsx-key wsx-in" /> {tr('db.in')} <span class="wsx-key wsx-out" /> {tr('db.out')}
        </p>
        <div class="wsx-bars" role="img" aria-labelledby="db-activity-sum">
          {days.map((d, i) => (
            <div class="wsx-day" key={d.date}>
              <div class="wsx-cols">
                <span class="wsx-in" style={{ height: pct(d.messages_in) }} />
                <span class="wsx-out" style={{ height: pct(d.messages_out) }} />
              </div>
              <span class={tick(i)}>{dayLabel(d.date, locale)}</span>
            </div>
          ))}
        </div>
      </figure>
      <details class="wsx-details">
        <summary>{tr('db.as_table')}</summary>
        <ScrollTable label={tr('db.as_table')}>
          <table class="k-table" data-testid="activity-table">
            <thead>
              <tr>
                <th scope="col">{tr('db.date')}</th>
                <th scope="col">{tr('db.in')}</th>
                <th scope="col">{tr('db.out')}</th>
                <th scope="col">{tr('db.conversations')}</th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date} data-date={d.date}>
                  <th scope="row">{dayLabel(d.date, locale, true)}</th>
                  <td>{d.messages_in}</td>
                  <td>{d.messages_out}</td>
                  <td>{d.conversations}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      </details>
    </Panel>
  )
}

const Recent = ({ entries }: { entries: readonly Entry[] }) => {
  const tr = useTr()
  const locale = useLocale()
  return (
    <Panel title={tr('db.recent')} id="db-recent">
      {entries.length === 0 ? (
        <p class="k-muted">{tr('db.recent_none')}</p>
      ) : (
        <ul class="wsx-list" data-testid="recent">
          {entries.map((e) => (
            <li key={e.id}>
              <span>
                <strong>{e.user?.name ?? tr('db.system')}</strong> {e.label}
                {e.target ? <span class="k-muted"> · {e.target}</span> : null}
              </span>
              <time class="k-muted" dateTime={e.created_at}>
                {when(e.created_at, locale)}
              </time>
            </li>
          ))}
        </ul>
      )}
      {can('settings.audit') ? <Link to="/settings/audit">{tr('db.audit')}</Link> : null}
    </Panel>
  )
}

const TeamsPanel = ({ teams }: { teams: readonly Team[] }) => {
  const tr = useTr()
  return (
    <Panel title={tr('db.teams')} id="db-teams">
      {teams.length === 0 ? (
        <p class="k-muted">{tr('db.teams_none')}</p>
      ) : (
        <ScrollTable label={tr('db.teams')}>
          <table class="k-table" data-testid="teams">
            <thead>
              <tr>
                <th scope="col">{tr('db.team')}</th>
                <th scope="col">{tr('db.members')}</th>
                <th scope="col">{tr('db.open')}</th>
              </tr>
            </thead>
            <tbody>
              {teams.map((t) => (
                <tr key={t.id} data-team={t.id}>
                  <th scope="row">{t.name}</th>
                  <td>{t.members}</td>
                  <td>{t.open_conversations}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>
      )}
      {can('settings.members') ? <Link to="/settings/teams">{tr('db.manage_teams')}</Link> : null}
    </Panel>
  )
}
