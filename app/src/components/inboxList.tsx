import type { JSX } from 'preact'
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { InteractionItem, Tab } from '../api/types'
import { api } from '../lib/api'
import { compact, meaningful, when } from '../lib/format'
import { t } from '../lib/i18n'
import { navigate } from '../lib/router'
import * as Session from '../lib/session'
import * as Socket from '../lib/socket'
import { GettingStarted } from './gettingStarted'

/**
 * The conversation list: views by assignee (All, Mine, Unassigned), status tabs with live counts
 * under the view, the filters of GET /interactions, and a virtualised list (only the rows in view
 * are in the DOM) that loads pages of 100 as the reader scrolls, so 10,000 conversations cost what
 * 30 do. `inbox.changed` (no content) re-reads the first page and the counts a quarter of a second
 * after a burst, and merges it into what is loaded (`mergeHead`): new rows on top, loaded rows
 * kept, none twice. The open conversation stays in the list until the agent moves on, even when
 * it no longer matches the tab (replying to it in Unreplied, say).
 */
export type View = 'all' | 'mine' | 'unassigned'
const VIEWS: readonly View[] = ['all', 'mine', 'unassigned']
/** '' is every status (the default: replying never takes a conversation out of it). */
const TABS: readonly (Tab | '')[] = ['', 'unreplied', 'new', 'waiting', 'replied', 'solved', 'closed']
const ROW = 68
const PER_PAGE = 100
const OVERSCAN = 6

export interface Filters {
  readonly view: View
  readonly tab: Tab | ''
  readonly q: string
  readonly channel: string
  readonly team: string
  readonly label: string
  readonly category: string
}

const initial: Filters = {
  view: 'all',
  tab: '',
  q: '',
  channel: '',
  team: '',
  label: '',
  category: '',
}

interface Option {
  readonly id: number
  readonly name: string
}

/** The list's query: the first page, or (`cursor`) the page after the rows held. */
const queryOf = (f: Filters, cursor: string | null) => ({
  ...(f.tab ? { tab: f.tab } : {}),
  ...(cursor ? { cursor } : {}),
  per_page: PER_PAGE,
  ...(f.q ? { q: f.q } : {}),
  ...(f.channel ? { channel_ids: f.channel } : {}),
  ...(f.team
    ? { team: f.team === 'mine' || f.team === 'none' ? (f.team as 'mine' | 'none') : Number(f.team) }
    : {}),
  ...(f.view === 'mine'
    ? { assignee: 'me' as const }
    : f.view === 'unassigned'
      ? { assignee: 'none' as const }
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

/** The list's order (the API's): latest activity first, then the higher id. */
const order = (a: InteractionItem, b: InteractionItem) => {
  const x = a.last_message_at ? Date.parse(a.last_message_at) : null
  const y = b.last_message_at ? Date.parse(b.last_message_at) : null
  if (x !== y) return x === null ? 1 : y === null ? -1 : y - x
  return b.id - a.id
}

/**
 * A fresh first page merged into the loaded rows. Rows of the fresh page win and come first; a loaded row missing from it stays when it sorts
 * after the page's last row (pushed down by newer ones, still reachable), and goes when it sorts
 * before it (it left the tab or the filters), except `keep`, the open conversation. `complete`:
 * the fresh page is the whole list (shorter than a page), so nothing else remains.
 */
export const mergeHead = (
  old: readonly InteractionItem[],
  fresh: readonly InteractionItem[],
  complete: boolean,
  keep: number | null,
): { readonly items: readonly InteractionItem[]; readonly kept: boolean } => {
  const ids = new Set(fresh.map((i) => i.id))
  const edge = fresh[fresh.length - 1]
  let kept = false
  const rest = old.filter((i) => {
    if (ids.has(i.id)) return false
    if (!complete && edge !== undefined && order(edge, i) < 0) return true
    if (i.id === keep) kept = true
    return i.id === keep
  })
  return { items: rest.length === 0 ? fresh : [...fresh, ...rest].sort(order), kept }
}

/** Where to go on when a text field has the focus: keys there are typing. */
const typingIn = (el: EventTarget | null) =>
  el instanceof HTMLElement &&
  (el.isContentEditable || el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT')

/**
 * The searched words marked in a search's fragment: each as the start of a word, as the server
 * matches them (store/textSearch.ts), so "retur" marks "returnya". Text only, never markup.
 */
const marked = (text: string, q: string) => {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu)
  if (!words) return text
  const find = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.join('|')})[\\p{L}\\p{N}]*`, 'giu')
  const parts: (string | JSX.Element)[] = []
  let from = 0
  for (const m of text.matchAll(find)) {
    parts.push(text.slice(from, m.index), <mark key={m.index}>{m[0]}</mark>)
    from = m.index + m[0].length
  }
  parts.push(text.slice(from))
  return parts
}

const Row = ({
  item,
  active,
  selected,
  top,
  open,
  q,
}: {
  item: InteractionItem
  active: boolean
  selected: boolean
  top: number
  open: (item: InteractionItem) => void
  /** The search the list was asked with: a row found by a message shows where. */
  q: string
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
      onClick={() => open(item)}
    >
      <div class="row-top">
        <span class="row-name">{name}</span>
        <span class="row-time">{when(item.last_message_at ?? item.created_at)}</span>
      </div>
      <div class="row-bottom">
        <span class="row-preview">
          {item.match ? (
            <>
              <span class="sr-only">{t('filter.found_in')} </span>
              {marked(item.match.snippet, q)}
            </>
          ) : (
            <>
              {item.subject ? `${item.subject} · ` : ''}
              {item.preview ?? ''}
            </>
          )}
        </span>
        {item.channel?.type === 'livechat' && !item.picked_up && item.status === 'open' && (
          <span class="chip queue">{t('conv.in_queue')}</span>
        )}
        {item.status !== 'open' && <span class="chip">{t(`status.${item.status}`)}</span>}
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
  const [activeId, setActiveId] = useState<number | null>(selected)
  const [loads, setLoads] = useState(0)
  const [q, setQ] = useState('')
  const list = useRef<readonly InteractionItem[]>([])
  /**
   * Where the next page starts (`meta.next_cursor` of the last page held), or null before the
   * first page and after the last. A cursor names the last row held, so rows that arrive on top
   * meanwhile never shift what comes next.
   */
  const nextCursor = useRef<string | null>(null)
  const fetching = useRef(false)
  const generation = useRef(0)
  /** The open conversation kept in the list although it left the tab, until the agent moves on. */
  const pinned = useRef<number | null>(null)
  const selectedRef = useRef(selected)
  selectedRef.current = selected
  /** The first row in view and how far it was scrolled, to keep it in place when rows go above. */
  const anchor = useRef<{ readonly id: number; readonly offset: number } | null>(null)
  const box = useRef<HTMLDivElement>(null)
  const options = useOptions()

  const commit = (next: readonly InteractionItem[]) => {
    const el = box.current
    const old = list.current
    if (el && el.scrollTop > 0 && old.length > 0) {
      const at = Math.min(old.length - 1, Math.floor(el.scrollTop / ROW))
      anchor.current = { id: old[at]!.id, offset: el.scrollTop - at * ROW }
    }
    list.current = next
    setItems(next)
  }

  const load = useCallback(async (cursor: string | null, f: Filters) => {
    const gen = generation.current
    fetching.current = true
    try {
      const r = await api.get('/v1/interactions', { query: queryOf(f, cursor) })
      if (gen !== generation.current) return
      const got = r.data
      setTotal(Number(r.meta.total ?? got.length))
      setCounts((r.meta.counts ?? {}) as Record<string, number>)
      setTeams((r.meta.teams ?? []) as readonly Option[])
      const old = list.current
      const next = (r.meta.next_cursor ?? null) as string | null
      if (cursor === null) {
        const merged = mergeHead(old, got, next === null, selectedRef.current)
        pinned.current = merged.kept ? selectedRef.current : null
        commit(merged.items)
        // Rows held below the fresh page keep the cursor that follows them; a list that is the
        // fresh page (the first load, or everything fits) goes on after it.
        const below = merged.items.length > got.length + (merged.kept ? 1 : 0)
        if (!below || next === null) nextCursor.current = next
      } else {
        // A row that moved on top since is held already: never twice.
        const have = new Set(old.map((i) => i.id))
        const more = got.filter((i) => !have.has(i.id))
        if (more.length > 0) commit([...old, ...more])
        nextCursor.current = next
      }
    } finally {
      if (gen === generation.current) {
        fetching.current = false
        setLoading(false)
        setLoads((n) => n + 1)
        meaningful()
      }
    }
  }, [])

  // New filters: start over, before the browser paints, so the rows of the old view never show
  // under the new one's tab.
  useLayoutEffect(() => {
    generation.current += 1
    nextCursor.current = null
    pinned.current = null
    anchor.current = null
    list.current = []
    setItems([])
    setLoading(true)
    box.current?.scrollTo({ top: 0 })
    void load(null, filters)
  }, [filters, load])

  // The agent moved on: the conversation kept although it had left the tab goes.
  useEffect(() => {
    if (selected !== null) setActiveId(selected)
    const gone = pinned.current
    if (gone !== null && gone !== selected) {
      pinned.current = null
      commit(list.current.filter((i) => i.id !== gone))
    }
  }, [selected])

  // Rows added above the first in view: it stays where the reader had it.
  useLayoutEffect(() => {
    const a = anchor.current
    const el = box.current
    anchor.current = null
    if (!a || !el) return
    const at = items.findIndex((i) => i.id === a.id)
    if (at < 0) return
    const top = at * ROW + a.offset
    if (Math.abs(el.scrollTop - top) >= 1) {
      el.scrollTop = top
      setScrollTop(el.scrollTop)
    }
  }, [items])

  // Live: refresh the head after changes (and whatever the socket could not replay).
  useEffect(() => {
    if (!me) return
    let timer: ReturnType<typeof setTimeout> | undefined
    const refresh = () => {
      clearTimeout(timer)
      timer = setTimeout(() => void load(null, filtersRef.current), 250)
    }
    const release = Socket.hold(Socket.topics.workspace(me.workspace.id), refresh)
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
    if (!fetching.current && nextCursor.current && end > items.length - 20)
      void load(nextCursor.current, filters)
  }, [scrollTop, height, items.length, total, filters, load, loads])

  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN)
  const last = Math.min(items.length, Math.ceil((scrollTop + height) / ROW) + OVERSCAN)
  const found = activeId === null ? -1 : items.findIndex((i) => i.id === activeId)
  const active = Math.max(found, 0)

  const moveTo = (i: number) => {
    const n = Math.max(0, Math.min(items.length - 1, i))
    const item = items[n]
    if (!item) return
    setActiveId(item.id)
    const el = box.current
    if (!el) return
    if (n * ROW < el.scrollTop) el.scrollTop = n * ROW
    else if ((n + 1) * ROW > el.scrollTop + el.clientHeight) el.scrollTop = (n + 1) * ROW - el.clientHeight
  }
  const open = (item: InteractionItem) => {
    setActiveId(item.id)
    // The list keeps the keyboard: j/k go on from here after the conversation opens.
    box.current?.focus({ preventScroll: true })
    navigate(`/inbox/${item.id}`)
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return
    const page = Math.max(1, Math.floor(height / ROW) - 1)
    if (e.key === 'ArrowDown' || e.key === 'j') moveTo(active + 1)
    else if (e.key === 'ArrowUp' || e.key === 'k') moveTo(active - 1)
    else if (e.key === 'PageDown') moveTo(active + page)
    else if (e.key === 'PageUp') moveTo(active - page)
    else if (e.key === 'Home') moveTo(0)
    else if (e.key === 'End') moveTo(items.length - 1)
    else if (e.key === 'Enter' || e.key === ' ') {
      const item = items[active]
      if (item) open(item)
    } else return
    e.preventDefault()
  }
  const onKeyRef = useRef(onKey)
  onKeyRef.current = onKey
  // j/k anywhere on the page but a text field (or the list itself) move through the list and
  // give it the focus back, wherever a click or the conversation left it.
  useEffect(() => {
    const onDoc = (e: KeyboardEvent) => {
      if (e.defaultPrevented || (e.key !== 'j' && e.key !== 'k') || typingIn(e.target)) return
      const el = box.current
      if (!el || (e.target instanceof Node && el.contains(e.target))) return
      el.focus({ preventScroll: true })
      onKeyRef.current(e)
    }
    document.addEventListener('keydown', onDoc)
    return () => document.removeEventListener('keydown', onDoc)
  }, [])
  const set = (k: keyof Filters) => (v: string) => setFilters((f) => ({ ...f, [k]: v }))
  const activeItem = items[active]
  const allCount = (['new', 'waiting', 'replied', 'solved', 'closed'] as const).reduce(
    (n, k) => n + (counts[k] ?? 0),
    0,
  )

  return (
    <section class="list-pane" aria-label={t('list.label')}>
      <div class="views" role="tablist" aria-label={t('views.label')}>
        {VIEWS.map((view) => (
          <button
            key={view}
            type="button"
            role="tab"
            aria-selected={filters.view === view}
            class={filters.view === view ? 'view on' : 'view'}
            onClick={() => setFilters((f) => ({ ...f, view }))}
            data-testid={`view-${view}`}
          >
            {t(`view.${view}`)}
          </button>
        ))}
      </div>
      <div class="tabs" role="tablist" aria-label={t('tabs.label')}>
        {TABS.map((tab) => (
          <button
            key={tab}
            type="button"
            role="tab"
            aria-selected={filters.tab === tab}
            class={filters.tab === tab ? 'tab on' : 'tab'}
            onClick={() => setFilters((f) => ({ ...f, tab }))}
            data-testid={`tab-${tab || 'all'}`}
          >
            {t(`tab.${tab || 'all'}`)}{' '}
            <span class="tab-count">{compact(tab ? (counts[tab] ?? 0) : allCount)}</span>
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
            {t('filter.channel')}, {t('filter.team').toLowerCase()}, {t('filter.label').toLowerCase()}…
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
        aria-busy={loading}
      >
        <div class="rows-space" style={{ height: `${items.length * ROW}px` }}>
          {items.slice(first, last).map((item, i) => (
            <Row
              key={item.id}
              item={item}
              top={(first + i) * ROW}
              active={first + i === active}
              selected={item.id === selected}
              open={open}
              q={filters.q}
            />
          ))}
        </div>
        {!loading && items.length === 0 && (
          <GettingStarted fallback={<p class="muted pad">{t('list.empty')}</p>} />
        )}
        {loading && <p class="muted pad">{t('list.loading')}</p>}
      </div>
    </section>
  )
}
