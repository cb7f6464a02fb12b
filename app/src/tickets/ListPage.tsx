import { useEffect, useRef, useState } from 'preact/hooks'
import { api, can, got, Link, useLocale, useWorkspaceEvents } from '../kit'
import { CheckField, FailNotice, MoreButton, SelectField, TextField } from '../kit/ui'
import { when } from '../lib/format'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { PriorityBadge, SlaBadge, StatusBadge, slaLine } from './common'
import { RaiseDialog } from './RaiseDialog'
import { ensureStyles } from './styles'
import { useTr } from './texts'
import {
  PRIORITIES,
  type Priority,
  STATUSES,
  type TeamBrief,
  type TicketItem,
  type TicketStatus,
} from './types'

/**
 * `/tickets`: the visible tickets with the spec's filters (status as tabs with their counts,
 * priority, assignee, team, search, overdue), kept in the address so a reload or a shared link
 * shows the same list, paged by the API's `page` and `has_more`. Another person's change
 * (`tickets.changed`) reloads what is shown.
 */
type Tab = 'active' | 'all' | TicketStatus
const TABS: readonly Tab[] = ['active', 'all', ...STATUSES]

interface Filters {
  readonly status: Tab
  readonly priority: string
  readonly assignee: string
  readonly team: string
  readonly q: string
  readonly overdue: boolean
}

const fromSearch = (search: string): Filters => {
  const sp = new URLSearchParams(search)
  const status = sp.get('status') ?? 'active'
  return {
    status: (TABS as readonly string[]).includes(status) ? (status as Tab) : 'active',
    priority: sp.get('priority') ?? '',
    assignee: sp.get('assignee') ?? '',
    team: sp.get('team') ?? '',
    q: sp.get('q') ?? '',
    overdue: sp.get('overdue') === '1',
  }
}

const toSearch = (f: Filters) => {
  const sp = new URLSearchParams()
  if (f.status !== 'active') sp.set('status', f.status)
  if (f.priority) sp.set('priority', f.priority)
  if (f.assignee) sp.set('assignee', f.assignee)
  if (f.team) sp.set('team', f.team)
  if (f.q.trim()) sp.set('q', f.q.trim())
  if (f.overdue) sp.set('overdue', '1')
  const s = sp.toString()
  return s ? `?${s}` : ''
}

const idOr = <T extends string>(v: string, words: readonly T[]): T | number | undefined =>
  (words as readonly string[]).includes(v) ? (v as T) : /^\d+$/.test(v) ? Number(v) : undefined

const queryOf = (f: Filters, page: number) => {
  const assignee = idOr(f.assignee, ['me', 'none'] as const)
  const team = idOr(f.team, ['mine'] as const)
  return {
    page,
    per_page: 25,
    ...(f.status !== 'all' ? { status: f.status } : {}),
    ...((PRIORITIES as readonly string[]).includes(f.priority) ? { priority: f.priority as Priority } : {}),
    ...(assignee !== undefined ? { assignee } : {}),
    ...(team !== undefined ? { team } : {}),
    ...(f.q.trim() ? { q: f.q.trim() } : {}),
    ...(f.overdue ? { overdue: '1' as const } : {}),
  }
}

type Counts = Partial<Record<Exclude<Tab, 'all'>, number>>

export default function TicketsListPage() {
  ensureStyles()
  const tr = useTr()
  useLocale()
  const loc = use(here)
  const filters = fromSearch(loc.search)
  const [items, setItems] = useState<readonly TicketItem[]>([])
  const [counts, setCounts] = useState<Counts>({})
  const [teams, setTeams] = useState<readonly TeamBrief[]>([])
  const [total, setTotal] = useState(0)
  const [page, setPage] = useState(1)
  const [more, setMore] = useState(false)
  const [busy, setBusy] = useState(true)
  const [error, setError] = useState<unknown>(null)
  const [q, setQ] = useState(filters.q)
  const [raising, setRaising] = useState(false)
  const seq = useRef(0)

  /** Pages 1..`upTo` again (a change elsewhere may move a ticket between pages). */
  const load = async (upTo: number) => {
    const mine = ++seq.current
    setBusy(true)
    try {
      let all: TicketItem[] = []
      let meta: Readonly<Record<string, unknown>> = {}
      for (let p = 1; p <= upTo; p++) {
        const r = await got<TicketItem[]>(api.get('/v1/tickets', { query: queryOf(filters, p) }))
        all = [...all, ...r.data]
        meta = r.meta
        if (r.meta.has_more !== true) break
      }
      if (mine !== seq.current) return
      setItems(all)
      setCounts((meta.counts ?? {}) as Counts)
      setTeams((meta.teams ?? []) as readonly TeamBrief[])
      setTotal(typeof meta.total === 'number' ? meta.total : all.length)
      setMore(meta.has_more === true)
      setPage(upTo)
      setError(null)
    } catch (e) {
      if (mine === seq.current) setError(e)
    } finally {
      if (mine === seq.current) setBusy(false)
    }
  }

  useEffect(() => {
    setQ(filters.q)
    void load(1)
  }, [loc.search])
  const pageRef = useRef(page)
  pageRef.current = page
  // The events' handler is registered once: it calls the latest `load`, with the filters shown now.
  const loadRef = useRef(load)
  loadRef.current = load
  useWorkspaceEvents(['tickets.changed'], () => void loadRef.current(pageRef.current))

  const set = (patch: Partial<Filters>) => navigate(`/tickets${toSearch({ ...filters, ...patch })}`)
  const allCount = STATUSES.reduce((n, s) => n + (counts[s] ?? 0), 0)

  return (
    <div class="k-page" data-testid="tickets">
      <div class="k-head">
        <h1>{tr('tk.title')}</h1>
        {can('tickets.create') ? (
          <button type="button" class="k-btn k-primary" onClick={() => setRaising(true)}>
            {tr('tk.new')}
          </button>
        ) : null}
      </div>
      <nav aria-label={tr('tk.tabs')}>
        <ul class="tk-tabs">
          {TABS.map((tab) => (
            <li key={tab}>
              <Link
                to={`/tickets${toSearch({ ...filters, status: tab })}`}
                aria-current={filters.status === tab ? 'page' : undefined}
                data-tab={tab}
              >
                {tab === 'active' || tab === 'all' ? tr(`tk.tab.${tab}`) : tr(`tk.status.${tab}`)}
                <span class="tk-n">{tab === 'all' ? allCount : (counts[tab] ?? 0)}</span>
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <form
        class="tk-filters"
        aria-label={tr('tk.filter')}
        onSubmit={(e) => {
          e.preventDefault()
          set({ q })
        }}
      >
        <TextField label={tr('tk.search')} name="q" value={q} onValue={setQ} type="text" />
        <SelectField
          label={tr('tk.priority')}
          name="priority"
          value={filters.priority}
          onValue={(v) => set({ priority: v })}
          options={[
            ['', tr('tk.priority.any')],
            ...PRIORITIES.map((p) => [p, tr(`tk.priority.${p}`)] as const),
          ]}
        />
        <SelectField
          label={tr('tk.assignee')}
          name="assignee"
          value={filters.assignee}
          onValue={(v) => set({ assignee: v })}
          options={[
            ['', tr('tk.assignee.any')],
            ['me', tr('tk.assignee.me')],
            ['none', tr('tk.assignee.none')],
          ]}
        />
        <SelectField
          label={tr('tk.team')}
          name="team"
          value={filters.team}
          onValue={(v) => set({ team: v })}
          options={[
            ['', tr('tk.team.any')],
            ['mine', tr('tk.team.mine')],
            ...teams.map((t) => [String(t.id), t.name] as const),
          ]}
        />
        <CheckField
          label={tr('tk.overdue')}
          name="overdue"
          checked={filters.overdue}
          onValue={(v) => set({ overdue: v })}
        />
      </form>
      <FailNotice error={error} />
      <p class="k-muted" role="status" aria-live="polite" data-testid="tickets-total">
        {busy ? '' : tr('tk.count', { n: total })}
      </p>
      <ul class="tk-list" data-testid="ticket-list" aria-busy={busy ? 'true' : 'false'}>
        {!busy && items.length === 0 ? <li class="k-muted">{tr('tk.empty')}</li> : null}
        {items.map((t) => (
          <li key={t.id} class="tk-item" data-ticket={t.number}>
            <Link to={`/tickets/${t.id}`}>
              #{t.number} {t.subject}
            </Link>
            <div class="tk-meta">
              <StatusBadge status={t.status} tr={tr} />
              <PriorityBadge priority={t.priority} tr={tr} />
              <span>{t.team.name}</span>
              <span>
                {tr('tk.assignee')}: {t.assignees.map((a) => a.name).join(', ') || tr('tk.nobody')}
              </span>
              {t.contact ? <span>{t.contact.name}</span> : null}
              {t.due_date ? <span>{tr('tk.due_on', { date: t.due_date })}</span> : null}
              {t.overdue ? <span class="k-badge k-bad">{tr('tk.overdue_badge')}</span> : null}
              {t.sla ? (
                <span>
                  <SlaBadge sla={t.sla} tr={tr} /> {slaLine(t.sla, tr)}
                </span>
              ) : null}
              <span>
                {tr('tk.updated')} {when(t.updated_at)}
              </span>
            </div>
          </li>
        ))}
      </ul>
      <div class="k-row" style={{ marginTop: '12px' }}>
        <MoreButton next={more ? String(page + 1) : null} busy={busy} onMore={() => void load(page + 1)} />
      </div>
      {raising ? <RaiseDialog onClose={() => setRaising(false)} /> : null}
    </div>
  )
}
