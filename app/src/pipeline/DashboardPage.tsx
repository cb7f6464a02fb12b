import { useEffect, useState } from 'preact/hooks'
import { FailNotice, Panel, QuotaMeter, SelectField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { AreaTabs } from './common'
import {
  api,
  type Candidate,
  can,
  got,
  Link,
  money,
  type Named,
  useLocale,
  useTr,
  useWorkspaceEvents,
  type Workflow,
} from './kit'
import { DateField } from './LeadForm'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline/dashboard` (spec 2 §4.7 `GET /pipeline/dashboard`): tiles, the funnel of one
 * workflow, eight weeks, figures per owner, expenses by category, the agenda and the monthly lead
 * quota, over the leads the reader may see; filters workflow, range, Back Office team (shown to
 * those who may list teams) and owner. The CSV exports (`reports.view`) take the same workflow and
 * range (the spec gives them no team or owner).
 */
interface Dashboard {
  readonly range: { readonly from: string; readonly to: string }
  readonly pipeline: { readonly id: number; readonly name: string } | null
  readonly tiles: {
    readonly created: number
    readonly open: number
    readonly open_value: number
    readonly weighted_value: number
    readonly won: number
    readonly won_value: number
    readonly lost: number
    readonly win_rate: number | null
    readonly average_won: number | null
    readonly overdue_followups: number
  }
  readonly funnel: readonly {
    readonly stage_id: number
    readonly label: string
    readonly color: string
    readonly count: number
    readonly value: number
    readonly reached: number
  }[]
  readonly weekly: readonly {
    readonly week_start: string
    readonly created: number
    readonly won: number
    readonly won_value: number
    readonly lost: number
  }[]
  readonly by_assignee: readonly {
    readonly assignee: { readonly id: number; readonly name: string } | null
    readonly created: number
    readonly open: number
    readonly won: number
    readonly won_value: number
    readonly lost: number
  }[]
  readonly expenses: {
    readonly total: number
    readonly count: number
    readonly by_category: readonly {
      readonly category: string
      readonly count: number
      readonly amount: number
    }[]
  }
  readonly agenda: {
    readonly items: readonly {
      readonly kind: string
      readonly id: number
      readonly lead: { readonly id: number; readonly identifier: string; readonly title: string }
      readonly title: string | null
      readonly at: string
    }[]
  }
  readonly quota: { readonly used: number; readonly limit: number | null; readonly resets_at: string | null }
}

const DashboardPage = () => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const [workflows, setWorkflows] = useState<readonly Workflow[]>([])
  const [f, setF] = useState({ pipeline_id: '', from: '', to: '', team_id: '', assignee_id: '' })
  const [teams, setTeams] = useState<readonly Named[]>([])
  const [people, setPeople] = useState<readonly Candidate[]>([])
  const [d, setD] = useState<Dashboard | null>(null)
  const [error, setError] = useState<unknown>(null)
  useEffect(() => {
    void got<Workflow[]>(api.get('/v1/pipelines')).then(
      (r) => setWorkflows(r.data),
      () => null,
    )
    void got<Named[]>(api.get('/v1/teams', { query: { type: 'backoffice' } as never })).then(
      (r) => setTeams(r.data),
      () => null,
    )
    void got<Candidate[]>(api.get('/v1/leads/candidates')).then(
      (r) => setPeople(r.data),
      () => null,
    )
  }, [])
  const load = () =>
    got<Dashboard>(
      api.get('/v1/pipeline/dashboard', {
        query: Object.fromEntries(Object.entries(f).filter(([, v]) => v !== '')) as never,
      }),
    ).then(
      (r) => {
        setD(r.data)
        setError(null)
      },
      (e: unknown) => setError(e),
    )
  useEffect(() => void load(), [f])
  useWorkspaceEvents(['pipeline.changed'], () => void load())
  const set = (k: keyof typeof f) => (v: string) => setF((o) => ({ ...o, [k]: v }))
  const exportHref = (type: string) => {
    const sp = new URLSearchParams({ type })
    if (f.pipeline_id) sp.set('pipeline_id', f.pipeline_id)
    if (d) {
      sp.set('from', d.range.from)
      sp.set('to', d.range.to)
    }
    return `/v1/pipeline/export?${sp.toString()}`
  }
  const n = (x: number | null) => (x === null ? '–' : money(x, locale))
  const top = Math.max(1, ...(d?.funnel.map((s) => s.reached) ?? [1]))
  const topX = Math.max(1, ...(d?.expenses.by_category.map((x) => x.amount) ?? [1]))
  return (
    <div class="k-page pl-page" data-testid="pipeline-dashboard">
      <div class="k-head">
        <h1>{tr('pl.dashboard')}</h1>
        {can('reports.view') ? (
          <div class="pl-actions">
            <a class="k-btn" href={exportHref('leads')} download>
              {tr('pl.export.leads')}
            </a>
            <a class="k-btn" href={exportHref('activities')} download>
              {tr('pl.export.activities')}
            </a>
            <a class="k-btn" href={exportHref('expenses')} download>
              {tr('pl.export.expenses')}
            </a>
          </div>
        ) : null}
      </div>
      <AreaTabs current="dashboard" />
      <search class="pl-filters">
        <SelectField
          label={tr('pl.workflow')}
          name="pipeline_id"
          value={f.pipeline_id}
          options={[['', tr('pl.all')], ...workflows.map((w) => [String(w.id), w.name] as const)]}
          onValue={set('pipeline_id')}
        />
        <DateField label={tr('pl.from')} name="from" type="date" value={f.from} onValue={set('from')} />
        <DateField label={tr('pl.to')} name="to" type="date" value={f.to} onValue={set('to')} />
        {teams.length > 0 ? (
          <SelectField
            label={tr('pl.f.team')}
            name="team_id"
            value={f.team_id}
            options={[['', tr('pl.all')], ...teams.map((t) => [String(t.id), t.name] as const)]}
            onValue={set('team_id')}
          />
        ) : null}
        <SelectField
          label={tr('pl.assignee')}
          name="assignee_id"
          value={f.assignee_id}
          options={[
            ['', tr('pl.anyone')],
            ['me', tr('pl.me')],
            ['none', tr('pl.nobody')],
            ...people.map((p) => [String(p.id), p.name] as const),
          ]}
          onValue={set('assignee_id')}
        />
      </search>
      <FailNotice error={error} />
      {d === null ? (
        <p class="k-muted">{tr('pl.loading')}</p>
      ) : (
        <div class="k-stack">
          <p class="k-muted">{tr('pl.range', { from: d.range.from, to: d.range.to })}</p>
          <dl class="pl-tiles" data-testid="dashboard-tiles">
            <div>
              <dt>{tr('pl.t.created')}</dt>
              <dd>{d.tiles.created}</dd>
            </div>
            <div>
              <dt>{tr('pl.t.open')}</dt>
              <dd>
                {d.tiles.open} · {n(d.tiles.open_value)}
              </dd>
            </div>
            <div>
              <dt>{tr('pl.sum.weighted')}</dt>
              <dd>{n(d.tiles.weighted_value)}</dd>
            </div>
            <div>
              <dt>{tr('pl.status.won')}</dt>
              <dd>
                {d.tiles.won} · {n(d.tiles.won_value)}
              </dd>
            </div>
            <div>
              <dt>{tr('pl.status.lost')}</dt>
              <dd>{d.tiles.lost}</dd>
            </div>
            <div>
              <dt>{tr('pl.t.win_rate')}</dt>
              <dd>{d.tiles.win_rate === null ? '–' : `${d.tiles.win_rate}%`}</dd>
            </div>
            <div>
              <dt>{tr('pl.t.average_won')}</dt>
              <dd>{n(d.tiles.average_won)}</dd>
            </div>
            <div>
              <dt>{tr('pl.t.overdue')}</dt>
              <dd>{d.tiles.overdue_followups}</dd>
            </div>
          </dl>
          <div class="pl-cols">
            <Panel title={tr('pl.funnel', { name: d.pipeline?.name ?? '' })} id="pl-funnel">
              {d.funnel.length === 0 ? <p class="k-muted">{tr('pl.no_data')}</p> : null}
              <ul class="pl-bars">
                {d.funnel.map((s) => (
                  <li key={s.stage_id}>
                    <span>{s.label}</span>
                    <div class="k-bar" aria-hidden="true">
                      <span style={{ width: `${Math.round((s.reached / top) * 100)}%`, '--bar': s.color }} />
                    </div>
                    <span>{tr('pl.reached', { n: s.reached, here: s.count })}</span>
                  </li>
                ))}
              </ul>
            </Panel>
            <Panel title={tr('pl.agenda')} id="pl-agenda">
              {d.agenda.items.length === 0 ? <p class="k-muted">{tr('pl.agenda_empty')}</p> : null}
              <ul class="pl-list">
                {d.agenda.items.map((a) => (
                  <li key={`${a.kind}${a.id}`}>
                    <div>
                      <Link to={`/pipeline/leads/${a.lead.id}`}>{a.title || a.lead.title}</Link>
                      <span class="pl-when">
                        {fullTime(a.at)} · {a.lead.identifier} {a.lead.title}
                      </span>
                    </div>
                  </li>
                ))}
              </ul>
            </Panel>
          </div>
          <Panel title={tr('pl.weekly')} id="pl-weekly">
            <div class="pl-scroll">
              <table
                class="k-table pl-table"
                // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
                tabIndex={0}
              >
                <thead>
                  <tr>
                    <th scope="col">{tr('pl.week')}</th>
                    <th scope="col">{tr('pl.t.created')}</th>
                    <th scope="col">{tr('pl.status.won')}</th>
                    <th scope="col">{tr('pl.f.value_won')}</th>
                    <th scope="col">{tr('pl.status.lost')}</th>
                  </tr>
                </thead>
                <tbody>
                  {d.weekly.map((w) => (
                    <tr key={w.week_start}>
                      <td>{w.week_start}</td>
                      <td>{w.created}</td>
                      <td>{w.won}</td>
                      <td>{money(w.won_value, locale)}</td>
                      <td>{w.lost}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </Panel>
          <Panel title={tr('pl.by_assignee')} id="pl-people">
            {d.by_assignee.length === 0 ? (
              <p class="k-muted">{tr('pl.no_data')}</p>
            ) : (
              <div class="pl-scroll">
                <table
                  class="k-table pl-table"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
                  tabIndex={0}
                >
                  <thead>
                    <tr>
                      <th scope="col">{tr('pl.f.assignee')}</th>
                      <th scope="col">{tr('pl.t.created')}</th>
                      <th scope="col">{tr('pl.t.open')}</th>
                      <th scope="col">{tr('pl.status.won')}</th>
                      <th scope="col">{tr('pl.f.value_won')}</th>
                      <th scope="col">{tr('pl.status.lost')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {d.by_assignee.map((p) => (
                      <tr key={p.assignee?.id ?? 0}>
                        <td>{p.assignee?.name ?? tr('pl.nobody')}</td>
                        <td>{p.created}</td>
                        <td>{p.open}</td>
                        <td>{p.won}</td>
                        <td>{money(p.won_value, locale)}</td>
                        <td>{p.lost}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Panel>
          <div class="pl-cols">
            <Panel title={tr('pl.expenses_by', { total: money(d.expenses.total, locale) })} id="pl-x">
              {d.expenses.by_category.length === 0 ? <p class="k-muted">{tr('pl.expenses_empty')}</p> : null}
              <ul class="pl-bars">
                {d.expenses.by_category.map((x) => (
                  <li key={x.category}>
                    <span>{x.category}</span>
                    <div class="k-bar" aria-hidden="true">
                      <span style={{ width: `${Math.round((x.amount / topX) * 100)}%` }} />
                    </div>
                    <span>{money(x.amount, locale)}</span>
                  </li>
                ))}
              </ul>
            </Panel>
            <Panel title={tr('pl.quota')} id="pl-quota">
              <ul class="pl-list">
                <QuotaMeter
                  label={<span>{tr('pl.quota_leads')}</span>}
                  figure={
                    <span>
                      {d.quota.limit === null
                        ? tr('pl.quota_unlimited', { used: d.quota.used })
                        : tr('pl.quota_of', { used: d.quota.used, limit: d.quota.limit })}
                    </span>
                  }
                  used={d.quota.used}
                  limit={d.quota.limit ?? 0}
                />
              </ul>
            </Panel>
          </div>
        </div>
      )}
    </div>
  )
}
export default DashboardPage
