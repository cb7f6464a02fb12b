import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { InteractionItem, Tab } from '../api/types'
import { api } from '../lib/api'
import { compact, meaningful, when } from '../lib/format'
import { t } from '../lib/i18n'
import { navigate } from '../lib/router'
import * as Session from '../lib/session'
import * as Socket from '../lib/socket'

/**
 * The conversation list: tabs with live counts, the filters of GET /interactions, and a
 * virtualised list (only the rows in view are in the DOM) that loads pages of 100 as the reader
 * scrolls, so 10,000 conversations cost what 30 do. `inbox.changed` (no content) refreshes the
 * first page and the counts, a quarter of a second after a burst.
 */
const TABS: readonly Tab[] = ['unreplied', 'new', 'waiting', 'replied', 'solved', 'closed']
const ROW = 68
const PER_PAGE = 100
const OVERSCAN = 6

export interface Filters {
  readonly tab: Tab
  readonly q: string
  readonly channel: string
  readonly team: string
  readonly assignee: string
  readonly label: string
  readonly category: string
}

const initial: Filters = {
  tab: 'unreplied',
  q: '',
  channel: '',
  team: '',
  assignee: '',
  label: '',
  category: '',
}

interface Option {
  readonly id: number
  readonly name: string
}

const queryOf = (f: Filters, page: number) => ({
  tab: f.tab,
  page,
  per_page: PER_PAGE,
  ...(f.q ? { q: f.q } : {}),
  ...(f.channel ? { channel_ids: f.channel } : {}),
  ...(f.team
    ? { team: f.team === 'mine' || f.team === 'none' ? (f.team as 'mine' | 'none') : Number(f.team) }
    : {}),
  ...(f.assignee
    ? {
        assignee:
          f.assignee === 'me' || f.assignee === 'none' ? (f.assignee as 'me' | 'none') : Number(f.assignee),
      }
    : {}),
  ...(f.label ? { label_id: Number(f.label) } : {}),
  ...(f.category ? { category: f.category === 'none' ? ('none' as const) : Number(f.category) } : {}),
})

const useOptions = () => {
  const [channels, setChannels] = useState<readonly Option[]>([])
  const [labels, setLabels] = useState<readonly Option[]>([])
  const [categories, setCategories] = useState<readonly Option[]>([])
  useEffect(() => {
    void api
      .get('/v1/channels')
      .then((r) => setChannels(r.data as readonly Option[]))
      .catch(() => null)
    if (Session.can('contacts.view'))
      void api
        .get('/v1/labels')
        .then((r) => setLabels(r.data as readonly Option[]))
        .catch(() => null)
    void api
      .get('/v1/conversation-categories')
      .then((r) => setCategories(r.data as readonly Option[]))
      .catch(() => null)
  }, [])
  return { channels, labels, categories }
}

const Select = (p: {
  label: string
  value: string
  onChange: (v: string) => void
  options: readonly { value: string; label: string }[]
}) => (
  <label class="filter">
    <span>{p.label}</span>
    <select value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)}>
      <option value="">{t('filter.any')}</option>
      {p.options.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  </label>
)

const Row = ({
  item,
  active,
  selected,
  top,
}: {
  item: InteractionItem
  active: boolean
  selected: boolean
  top: number
}) => {
  const name = item.contact?.name || item.group?.name || `#${item.id}`
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the listbox above handles the keyboard for every row
    <div
      id={`conv-${item.id}`}
      role="option"
      tabIndex={-1}
      aria-selected={selected}
      class={`row${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      style={{ top: `${top}px`, height: `${ROW}px` }}
      data-id={item.id}
      onClick={() => navigate(`/inbox/${item.id}`)}
    >
      <div class="row-top">
        <span class="row-name">{name}</span>
        <span class="row-time">{when(item.last_message_at ?? item.created_at)}</span>
      </div>
      <div class="row-bottom">
        <span class="row-preview">
          {item.subject ? `${item.subject} · ` : ''}
          {item.preview ?? ''}
        </span>
        {item.channel?.type === 'livechat' && !item.picked_up && item.status === 'open' && (
          <span class="chip queue">{t('conv.in_queue')}</span>
        )}
        {item.sla && <span class={`chip sla-${item.sla.level}`}>SLA</span>}
        {item.unread_count > 0 && (
          <span class="count" title={`${item.unread_count} unread`}>
            {item.unread_count}
          </span>
        )}
      </div>
      <div class="row-meta">
        {item.channel?.name}
        {item.assignee ? ` · ${item.assignee.name}` : ''}
      </div>
    </div>
  )
}

export const InboxList = ({ selected }: { selected: number | null }) => {
  const me = Session.me.get()
  const [filters, setFilters] = useState<Filters>(initial)
  const [items, setItems] = useState<readonly InteractionItem[]>([])
  const [total, setTotal] = useState(0)
  const [counts, setCounts] = useState<Readonly<Record<string, number>>>({})
  const [teams, setTeams] = useState<readonly Option[]>([])
  const [loading, setLoading] = useState(true)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(600)
  const [active, setActive] = useState(0)
  const [q, setQ] = useState('')
  const pages = useRef(0)
  const fetching = useRef(false)
  const generation = useRef(0)
  const box = useRef<HTMLDivElement>(null)
  const options = useOptions()

  const load = useCallback(async (page: number, f: Filters) => {
    const gen = generation.current
    fetching.current = true
    try {
      const r = await api.get('/v1/interactions', { query: queryOf(f, page) })
      if (gen !== generation.current) return
      const got = r.data
      setTotal(Number(r.meta.total ?? got.length))
      setCounts((r.meta.counts ?? {}) as Record<string, number>)
      setTeams((r.meta.teams ?? []) as readonly Option[])
      if (page === 1) {
        // A refresh of the head: the first page replaces the old one, later pages stay.
        setItems((old) => {
          const fresh = new Set(got.map((i) => i.id))
          return pages.current <= 1 ? got : [...got, ...old.slice(PER_PAGE).filter((i) => !fresh.has(i.id))]
        })
        pages.current = Math.max(pages.current, 1)
      } else {
        setItems((old) => {
          const have = new Set(old.map((i) => i.id))
          return [...old, ...got.filter((i) => !have.has(i.id))]
        })
        pages.current = page
      }
    } finally {
      if (gen === generation.current) {
        fetching.current = false
        setLoading(false)
        meaningful()
      }
    }
  }, [])

  // New filters: start over.
  useEffect(() => {
    generation.current += 1
    pages.current = 0
    setItems([])
    setLoading(true)
    setActive(0)
    box.current?.scrollTo({ top: 0 })
    void load(1, filters)
  }, [filters, load])

  // Live: refresh the head after changes (and whatever the socket could not replay).
  useEffect(() => {
    if (!me) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const refresh = () => {
      clearTimeout(timer)
      timer = setTimeout(() => void load(1, filtersRef.current), 250)
    }
    const release = Socket.hold(`ws:${me.workspace.id}`, refresh)
    const off = Socket.onEvent((e) => {
      if (e.event === 'inbox.changed') refresh()
    })
    return () => {
      clearTimeout(timer)
      release()
      off()
    }
  }, [me, load])
  const filtersRef = useRef(filters)
  filtersRef.current = filters

  // Search as you type, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setFilters((f) => (f.q === q ? f : { ...f, q })), 300)
    return () => clearTimeout(timer)
  }, [q])

  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    const ro = new ResizeObserver(() => setHeight(el.clientHeight))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])

  // More rows when the reader nears the end of what is loaded.
  useEffect(() => {
    const end = Math.ceil((scrollTop + height) / ROW)
    if (!fetching.current && items.length < total && end > items.length - 20 && pages.current > 0)
      void load(pages.current + 1, filters)
  }, [scrollTop, height, items.length, total, filters, load])

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN)
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN)

  const moveTo = (i: number) => {
    const n = Math.max(0, Math.min(items.length - 1, i))
    setActive(n)
    const el = box.current
    if (!el) return
    if (n * ROW < el.scrollTop) el.scrollTop = n * ROW
    else if ((n + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (n + 1) * ROW - el.clientHeight
  }
  const onKey = (e: KeyboardEvent) => {
    const page = Math.max(1, Math.floor(height / ROW) - 1)
    if (e.key === 'ArrowDown' || e.key === 'j') moveTo(active + 1)
    else if (e.key === 'ArrowUp' || e.key === 'k') moveTo(active - 1)
    else if (e.key === 'PageDown') moveTo(active + page)
    else if (e.key === 'PageUp') moveTo(active - page)
    else if (e.key === 'Home') moveTo(0)
    else if (e.key === 'End') moveTo(items.length - 1)
    else if (e.key === 'Enter' || e.key === ' ') {
      const item = items[active]
      if (item) navigate(`/inbox/${item.id}`)
    } else return
    e.preventDefault()
  }
  const set = (k: keyof Filters) => (v: string) => setFilters((f) => ({ ...f, [k]: v }))
  const activeItem = items[active]

  return (
    <section class="list-pane" aria-label={t('list.label')}>
      <div class="tabs" role="tablist" aria-label={t('tabs.label')}>
        {TABS.map((tab) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={filters.tab === tab}
            class={filters.tab === tab ? 'tab on' : 'tab'}
            onClick={() => setFilters((f) => ({ ...f, tab }))}
            data-testid={`tab-${tab}`}
          >
            {t(`tab.${tab}`)} <span class="tab-count">{compact(counts[tab] ?? 0)}</span>
          </button>
        ))}
      </div>
      <div class="filters">
        <input
          type="search"
          placeholder={t('filter.search')}
          aria-label={t('filter.search')}
          value={q}
          onInput={(e) => setQ(e.currentTarget.value)}
        />
        <details class="more-filters">
          <summary>
            {t('filter.channel')}, {t('filter.team').toLowerCase()}, {t('filter.assignee').toLowerCase()}…
          </summary>
          <Select
            label={t('filter.channel')}
            value={filters.channel}
            onChange={set('channel')}
            options={options.channels.map((c) => ({ value: String(c.id), label: c.name }))}
          />
          <Select
            label={t('filter.team')}
            value={filters.team}
            onChange={set('team')}
            options={[
              { value: 'mine', label: t('filter.mine') },
              { value: 'none', label: t('filter.none') },
              ...teams.map((x) => ({ value: String(x.id), label: x.name })),
            ]}
          />
          <Select
            label={t('filter.assignee')}
            value={filters.assignee}
            onChange={set('assignee')}
            options={[
              { value: 'me', label: t('filter.me') },
              { value: 'none', label: t('filter.none') },
            ]}
          />
          {options.labels.length > 0 && (
            <Select
              label={t('filter.label')}
              value={filters.label}
              onChange={set('label')}
              options={options.labels.map((l) => ({ value: String(l.id), label: l.name }))}
            />
          )}
          <Select
            label={t('filter.category')}
            value={filters.category}
            onChange={set('category')}
            options={[
              { value: 'none', label: t('filter.none') },
              ...options.categories.map((c) => ({ value: String(c.id), label: c.name })),
            ]}
          />
        </details>
      </div>
      {/* An empty listbox is invalid ARIA: without rows the same element is a region with its message. */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: the role is listbox or region, chosen at run time */}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: listbox and region both take aria-label */}
      <div
        class="rows"
        ref={box}
        role={items.length > 0 ? 'listbox' : 'region'}
        tabIndex={0}
        aria-label={t('list.label')}
        aria-activedescendant={
          activeItem && active >= first && active < last ? `conv-${activeItem.id}` : undefined
        }
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onKeyDown={onKey}
        data-testid="inbox-list"
        data-total={total}
      >
        <div class="rows-space" style={{ height: `${items.length * ROW}px` }}>
          {items.slice(first, last).map((item, i) => (
            <Row
              key={item.id}
              item={item}
              top={(first + i) * ROW}
              active={first + i === active}
              selected={item.id === selected}
            />
          ))}
        </div>
        {!loading && items.length === 0 && <p class="muted pad">{t('list.empty')}</p>}
        {loading && <p class="muted pad">{t('list.loading')}</p>}
      </div>
    </section>
  )
}
