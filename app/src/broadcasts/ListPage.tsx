import { useEffect, useRef, useState } from 'preact/hooks'
import { FailNotice, ListState, Notice, TextField } from '../kit/ui'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { AreaTabs, Progress, StatusBadge } from './common'
import {
  api,
  at,
  type Broadcast,
  can,
  got,
  Link,
  num,
  type Options,
  STATUSES,
  type Status,
  useCall,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/broadcasts`: the workspace's broadcasts, newest first, with the status as tabs carrying their
 * counts (`meta.stats`), a search by name, each one's progress, and the month's quota; the area's
 * tabs lead to the dashboard and the segments. A new
 * broadcast starts as a named draft and opens in its editor. `broadcasts.changed` (a change, a
 * running one's progress) reloads the list, so the bars move while they send.
 */
type Tab = 'all' | Status

const PER_PAGE = 25

export default function BroadcastsListPage() {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const loc = use(here)
  const sp = new URLSearchParams(loc.search)
  const tab = (
    (STATUSES as readonly string[]).includes(sp.get('status') ?? '') ? sp.get('status') : 'all'
  ) as Tab
  const q = sp.get('q') ?? ''
  const page = Math.max(1, Number(sp.get('page')) || 1)
  const [items, setItems] = useState<readonly Broadcast[] | null>(null)
  const [stats, setStats] = useState<Readonly<Record<string, number>>>({})
  const [pages, setPages] = useState(1)
  const [options, setOptions] = useState<Options | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [search, setSearch] = useState(q)
  const [name, setName] = useState('')
  const creating = useCall()
  const seq = useRef(0)
  const manage = can('broadcasts.manage')

  const load = async () => {
    const mine = ++seq.current
    try {
      const r = await got<Broadcast[]>(
        api.get('/v1/broadcasts', {
          query: { page, per_page: PER_PAGE, ...(tab !== 'all' ? { status: tab } : {}), ...(q ? { q } : {}) },
        }),
      )
      if (mine !== seq.current) return
      setItems(r.data)
      setStats((r.meta.stats ?? {}) as Record<string, number>)
      setPages(typeof r.meta.pages === 'number' ? Math.max(1, r.meta.pages) : 1)
      setError(null)
    } catch (e) {
      if (mine === seq.current) setError(e)
    }
  }
  const loadOptions = () =>
    got<Options>(api.get('/v1/broadcasts/options'))
      .then((r) => setOptions(r.data))
      .catch(() => undefined)

  useEffect(() => {
    setSearch(q)
    void load()
  }, [loc.search])
  useEffect(() => void loadOptions(), [])
  const loadRef = useRef(load)
  loadRef.current = load
  useWorkspaceEvents(['broadcasts.changed'], () => void loadRef.current())

  // The search follows typing, a moment after the last key.
  useEffect(() => {
    if (search.trim() === q) return
    const t = setTimeout(() => set({ q: search.trim(), page: 1 }), 300)
    return () => clearTimeout(t)
  }, [search])

  const set = (patch: { status?: Tab; q?: string; page?: number }) => {
    const next = new URLSearchParams()
    const s = patch.status ?? tab
    const qq = patch.q ?? q
    const p = patch.page ?? page
    if (s !== 'all') next.set('status', s)
    if (qq) next.set('q', qq)
    if (p > 1) next.set('page', String(p))
    const str = next.toString()
    navigate(`/broadcasts${str ? `?${str}` : ''}`, true)
  }

  const create = async (e: Event) => {
    e.preventDefault()
    await creating.run(async () => {
      const r = await got<Broadcast>(api.post('/v1/broadcasts', { body: { name: name.trim() } }))
      navigate(`/broadcasts/${r.data.id}`)
    })
  }

  const quota = options?.quota
  return (
    <div class="k-page" data-testid="broadcasts">
      <div class="k-head">
        <h1>{tr('bc.title')}</h1>
      </div>
      <AreaTabs current="list" tr={tr} />
      {options && !options.plan_allows ? <Notice kind="info">{tr('bc.plan')}</Notice> : null}
      {options?.plan_allows && options.numbers.length === 0 && manage ? (
        <Notice kind="info">
          {tr('bc.no_numbers')} <Link to="/channels">{tr('bc.channels')}</Link>
        </Notice>
      ) : null}
      {quota ? (
        <p class="k-muted" data-testid="broadcasts-quota">
          {quota.limit > 0
            ? tr('bc.quota', { used: num(quota.used, locale), limit: num(quota.limit, locale) })
            : tr('bc.quota_unlimited', { used: num(quota.used, locale) })}
        </p>
      ) : null}
      {manage && options?.plan_allows ? (
        <form class="bc-filters" onSubmit={create} data-testid="broadcast-new">
          <TextField
            label={tr('bc.new')}
            name="name"
            value={name}
            onValue={setName}
            maxLength={120}
            required
            placeholder={tr('bc.name')}
            error={creating.fields.name}
          />
          <button type="submit" class="k-btn k-primary k-end" disabled={creating.busy || !name.trim()}>
            {tr('bc.new')}
          </button>
        </form>
      ) : null}
      <FailNotice error={creating.error} />
      <ul class="bc-tabs" aria-label={tr('bc.col.status')}>
        {(['all', ...STATUSES] as const).map((s) => (
          <li key={s}>
            <button type="button" aria-pressed={tab === s} onClick={() => set({ status: s, page: 1 })}>
              {s === 'all' ? tr('bc.all') : tr(`bc.s.${s}`)} ({num(stats[s] ?? 0, locale)})
            </button>
          </li>
        ))}
      </ul>
      <div class="bc-filters">
        <TextField
          label={tr('bc.search')}
          name="q"
          value={search}
          onValue={setSearch}
          placeholder={tr('bc.search_hint')}
        />
      </div>
      <FailNotice error={error} />
      <ListState
        items={items}
        empty={q || tab !== 'all' ? tr('bc.none_found') : tr('bc.empty')}
        emptyTestid="broadcasts-empty"
      >
        {(items) => (
          <div class="k-table-wrap">
            <table class="k-table bc-table" data-testid="broadcasts-list">
              <thead>
                <tr>
                  <th scope="col">{tr('bc.col.name')}</th>
                  <th scope="col">{tr('bc.col.status')}</th>
                  <th scope="col">{tr('bc.col.progress')}</th>
                  <th scope="col" class="bc-wide">
                    {tr('bc.col.updated')}
                  </th>
                </tr>
              </thead>
              <tbody>
                {items.map((b) => (
                  <tr key={b.id} data-id={b.id}>
                    <td>
                      <Link to={`/broadcasts/${b.id}`}>{b.name}</Link>
                      <span class="bc-sub">{b.channel?.name ?? tr('bc.no_number')}</span>
                    </td>
                    <td>
                      <StatusBadge status={b.status} tr={tr} />
                    </td>
                    <td>
                      {b.status === 'draft' ? (
                        <span class="k-muted">—</span>
                      ) : (
                        <>
                          <Progress counts={b.counts} label={`${b.name}: ${tr('bc.col.progress')}`} />
                          <span class="bc-sub" data-testid="broadcast-sent">
                            {tr('bc.sent_of', {
                              sent: num(b.counts.sent, locale),
                              total: num(b.counts.total, locale),
                            })}
                          </span>
                        </>
                      )}
                    </td>
                    <td class="bc-wide">{at(b.updated_at, locale)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
      {pages > 1 ? (
        <div class="bc-pager">
          <button type="button" class="k-btn" disabled={page <= 1} onClick={() => set({ page: page - 1 })}>
            {tr('bc.prev')}
          </button>
          <span class="k-muted">{tr('bc.page', { n: page, of: pages })}</span>
          <button
            type="button"
            class="k-btn"
            disabled={page >= pages}
            onClick={() => set({ page: page + 1 })}
          >
            {tr('bc.next')}
          </button>
        </div>
      ) : null}
    </div>
  )
}
