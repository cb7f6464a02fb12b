import { useState } from 'preact/hooks'
import { api, got, Link, useKitTr, useLocale } from '../kit'
import {
  duration,
  Exports,
  FilterBar,
  num,
  queryOf,
  RangeNote,
  ReportError,
  ReportTabs,
  ScrollTable,
  searchOf,
  todayIn,
  useFilters,
  useReport,
  workspaceZone,
} from './common'
import { ensureStyles } from './styles'
import { type RpKey, useTr } from './texts'

/**
 * `/reports/agents` (`reports.view`): one row per active member over the range (days of the
 * workspace zone, as the API counts people), sortable by any column, each name opening that
 * person's KPIs; the CSV of the same table. Refreshes while the range reaches today.
 */

export interface AgentRow {
  readonly user: { readonly id: number; readonly name: string; readonly avatar_url: string | null }
  readonly replies: number
  readonly conversations: number
  readonly first_responses: number
  readonly avg_first_response_minutes: number | null
  readonly avg_reply_minutes: number | null
  readonly resolutions: number
  readonly tickets_resolved: number
}

type Col = Exclude<keyof AgentRow, 'user'>
const COLS: readonly (readonly [Col, RpKey, 'n' | 'd'])[] = [
  ['replies', 'rp.a.replies', 'n'],
  ['conversations', 'rp.a.conversations', 'n'],
  ['first_responses', 'rp.a.first_responses', 'n'],
  ['avg_first_response_minutes', 'rp.a.avg_first', 'd'],
  ['avg_reply_minutes', 'rp.a.avg_reply', 'd'],
  ['resolutions', 'rp.a.resolutions', 'n'],
  ['tickets_resolved', 'rp.a.tickets', 'n'],
]

export const AgentsPage = () => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const zone = workspaceZone()
  const f = useFilters(zone)
  const [sort, setSort] = useState<{ col: Col | 'name'; desc: boolean }>({ col: 'replies', desc: true })
  const live = f.to >= todayIn(zone)
  const { data: rows, error } = useReport(
    `${f.from}|${f.to}|${f.channel}|${f.team}`,
    () => got<AgentRow[]>(api.get('/v1/reports/agents', { query: queryOf(f) })).then((r) => r.data),
    live,
  )

  const sorted = (rows ?? []).slice().sort((a, b) => {
    const dir = sort.desc ? -1 : 1
    if (sort.col === 'name') return dir * a.user.name.localeCompare(b.user.name)
    const x = a[sort.col] ?? -1
    const y = b[sort.col] ?? -1
    return x === y ? a.user.name.localeCompare(b.user.name) : dir * (x - y)
  })
  const header = (col: Col | 'name', label: string, numeric: boolean) => {
    const active = sort.col === col
    return (
      <th
        scope="col"
        class={numeric ? 'rp-num' : undefined}
        aria-sort={active ? (sort.desc ? 'descending' : 'ascending') : undefined}
      >
        <button
          type="button"
          class="rp-sort"
          onClick={() => setSort({ col, desc: active ? !sort.desc : col !== 'name' })}
        >
          {label}
          <span aria-hidden="true">{active ? (sort.desc ? ' ▼' : ' ▲') : ''}</span>
        </button>
      </th>
    )
  }
  const search = searchOf(f)
  return (
    <div class="k-page rp-page" data-testid="agents-report">
      <div class="k-head">
        <h1>{tr('rp.title')}</h1>
      </div>
      <ReportTabs current="agents" filters={f} />
      <FilterBar filters={f} path="/reports/agents" zone={zone} />
      <RangeNote filters={f} zone={zone} live={live} />
      {error ? (
        <ReportError error={error} />
      ) : !rows ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <div class="k-stack">
          <section class="k-panel" aria-labelledby="rp-agents">
            <h2 id="rp-agents">{tr('rp.a.title')}</h2>
            <p class="k-muted rp-gap">
              {tr('rp.a.zone', { zone: zone.replace(/_/g, ' ') })} {tr('rp.a.kpi_hint')}
            </p>
            {rows.length === 0 ? (
              <p class="k-muted">{tr('rp.a.none')}</p>
            ) : (
              <ScrollTable label={tr('rp.a.title')}>
                <table class="k-table" data-testid="agents-table">
                  <thead>
                    <tr>
                      {header('name', tr('rp.a.name'), false)}
                      {COLS.map(([col, label]) => header(col, tr(label), true))}
                    </tr>
                  </thead>
                  <tbody>
                    {sorted.map((r) => (
                      <tr key={r.user.id} data-user={r.user.id}>
                        <th scope="row">
                          <Link to={`/reports/agents/${r.user.id}${search}`}>{r.user.name}</Link>
                        </th>
                        {COLS.map(([col, , kind]) => (
                          <td class="rp-num" key={col} data-col={col}>
                            {kind === 'n' ? num(r[col] ?? 0, locale) : duration(r[col], locale)}
                          </td>
                        ))}
                      </tr>
                    ))}
                  </tbody>
                </table>
              </ScrollTable>
            )}
          </section>
          <Exports base="/v1/reports/export" query={queryOf(f)} types={[['agents', 'rp.x.agents']]} />
        </div>
      )}
    </div>
  )
}
