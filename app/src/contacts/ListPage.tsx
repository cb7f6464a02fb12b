import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import { SelectField } from '../kit/ui'
import {
  api,
  type Contact,
  can,
  exportHref,
  type Filters,
  got,
  type LabelItem,
  Link,
  NO_FILTERS,
  num,
  queryOf,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/app/contacts`: the contact book. Search as you type, filters of GET /contacts (label, owner,
 * channel) and its orders; a virtual list whose scroll height is the whole result (`meta.total`)
 * and whose DOM holds only the rows in view, each page of 100 fetched by offset when the reader
 * rests on it, so 100,000 contacts scroll like 30 (a jump to the middle fetches the middle, not
 * everything above it). `contacts.changed` from anyone re-reads the pages in view.
 */
const ROW = 56
const PER_PAGE = 100
const OVERSCAN = 8

const ContactsPage = () => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const [filters, setFilters] = useState<Filters>(NO_FILTERS)
  const [q, setQ] = useState('')
  const [total, setTotal] = useState<number | null>(null)
  const [labels, setLabels] = useState<readonly LabelItem[]>([])
  const [channels, setChannels] = useState<readonly { id: number; name: string }[]>([])
  const manage = can('contacts.manage')

  const loadLabels = () =>
    got<LabelItem[]>(api.get('/v1/labels')).then(
      (r) => setLabels(r.data),
      () => null,
    )
  useEffect(() => {
    void loadLabels()
    void got<{ id: number; name: string }[]>(api.get('/v1/channels')).then(
      (r) => setChannels(r.data),
      () => null,
    )
  }, [])
  useWorkspaceEvents(['contacts.settings'], () => void loadLabels())

  // Search as you type, a moment after the last key.
  useEffect(() => {
    const timer = setTimeout(() => setFilters((f) => (f.q === q.trim() ? f : { ...f, q: q.trim() })), 300)
    return () => clearTimeout(timer)
  }, [q])

  const set = (k: keyof Filters) => (v: string) => setFilters((f) => ({ ...f, [k]: v }))
  const any: readonly [string, string] = ['', tr('ct.any')]
  return (
    <div class="k-page ct-list-page" data-testid="contacts-page">
      <div class="k-head">
        <h1>{tr('ct.title')}</h1>
        {manage && (
          <div class="ct-actions">
            <Link class="k-btn k-primary" to="/contacts/new">
              {tr('ct.new')}
            </Link>
            <Link class="k-btn" to="/contacts/import">
              {tr('ct.import')}
            </Link>
            <a class="k-btn" href={exportHref(filters)} download>
              {tr('ct.export')}
            </a>
          </div>
        )}
      </div>
      <search class="ct-filters">
        <div class="k-field ct-search">
          <label for="ct-q">{tr('ct.search')}</label>
          <input
            id="ct-q"
            type="search"
            value={q}
            placeholder={tr('ct.search_hint')}
            onInput={(e) => setQ(e.currentTarget.value)}
          />
        </div>
        <SelectField
          label={tr('ct.label')}
          name="label"
          value={filters.label}
          options={[any, ...labels.map((l) => [String(l.id), l.name] as const)]}
          onValue={set('label')}
        />
        <SelectField
          label={tr('ct.owner')}
          name="owner"
          value={filters.owner}
          options={[any, ['me', tr('ct.owner_me')], ['none', tr('ct.owner_none')]]}
          onValue={set('owner')}
        />
        {channels.length > 0 && (
          <SelectField
            label={tr('ct.channel')}
            name="channel"
            value={filters.channel}
            options={[any, ...channels.map((c) => [String(c.id), c.name] as const)]}
            onValue={set('channel')}
          />
        )}
        <SelectField
          label={tr('ct.sort')}
          name="sort"
          value={filters.sort}
          options={[
            ['recent', tr('ct.sort_recent')],
            ['name', tr('ct.sort_name')],
            ['created', tr('ct.sort_created')],
          ]}
          onValue={set('sort')}
        />
        {manage && (
          <Link class="k-btn" to="/settings/labels">
            {tr('ct.manage_labels')}
          </Link>
        )}
      </search>
      <p class="k-muted ct-count" role="status" data-testid="contacts-total">
        {total === null ? tr('ct.loading') : tr('ct.count', { n: num(total, locale) })}
      </p>
      <VirtualList filters={filters} onTotal={setTotal} />
    </div>
  )
}
export default ContactsPage

const VirtualList = ({ filters, onTotal }: { filters: Filters; onTotal: (n: number | null) => void }) => {
  const tr = useTr()
  const box = useRef<HTMLDivElement>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(600)
  const [total, setTotal] = useState<number | null>(null)
  const [, setVersion] = useState(0)
  const pages = useRef(new Map<number, readonly Contact[]>())
  const pending = useRef(new Set<number>())
  const generation = useRef(0)
  const filtersRef = useRef(filters)
  filtersRef.current = filters
  const range = useRef({ first: 0, last: 0 })

  const fetchPage = async (p: number, into: Map<number, readonly Contact[]>) => {
    const gen = generation.current
    pending.current.add(p)
    try {
      const r = await api.get('/v1/contacts', {
        query: { ...queryOf(filtersRef.current), page: p + 1, per_page: PER_PAGE },
      })
      if (gen !== generation.current) return
      into.set(p, r.data)
      pages.current = into
      const n = Number(r.meta.total ?? r.data.length)
      setTotal(n)
      onTotal(n)
      setVersion((v) => v + 1)
    } catch {
      // The next rest on this page asks again.
    } finally {
      if (gen === generation.current) pending.current.delete(p)
    }
  }

  /** Fetches the pages under the rows in view that are not held (or all of them, afresh). */
  const fill = (fresh: boolean) => {
    const { first, last } = range.current
    const from = Math.floor(first / PER_PAGE)
    const to = Math.max(from, Math.floor(Math.max(0, last - 1) / PER_PAGE))
    const into = fresh ? new Map<number, readonly Contact[]>() : pages.current
    for (let p = from; p <= to; p++)
      if (fresh || (!pages.current.has(p) && !pending.current.has(p))) void fetchPage(p, into)
  }

  // New filters: start over at the top.
  useLayoutEffect(() => {
    generation.current += 1
    pages.current = new Map()
    pending.current = new Set()
    setTotal(null)
    onTotal(null)
    if (box.current) box.current.scrollTop = 0
    setScrollTop(0)
    range.current = { first: 0, last: PER_PAGE }
    fill(true)
  }, [filters])

  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    const ro = new ResizeObserver(() => setHeight(el.clientHeight))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])

  const count = total ?? 0
  const first = Math.max(0, Math.floor(scrollTop / ROW) - OVERSCAN)
  const last = Math.min(count, Math.ceil((scrollTop + height) / ROW) + OVERSCAN)
  range.current = { first, last }

  // The pages under the rows in view, once the reader rests on them (not on every frame of a fling).
  useEffect(() => {
    const timer = setTimeout(() => fill(false), 90)
    return () => clearTimeout(timer)
  }, [first, last])

  // Anyone's change to contacts: the pages in view afresh (and the total).
  const live = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useWorkspaceEvents(['contacts.changed', 'contacts.settings'], () => {
    clearTimeout(live.current)
    live.current = setTimeout(() => fill(true), 250)
  })
  useEffect(() => () => clearTimeout(live.current), [])

  const rows = []
  for (let i = first; i < last; i++) {
    const c = pages.current.get(Math.floor(i / PER_PAGE))?.[i % PER_PAGE]
    rows.push(<Row key={c ? c.id : `g${i}`} c={c} i={i} total={count} />)
  }
  return (
    <section
      class="ct-scroller"
      ref={box}
      aria-label={tr('ct.list')}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the scrolling region takes the keyboard (arrows, Page Down)
      tabIndex={0}
      aria-busy={total === null}
      data-testid="contacts-list"
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      {total === 0 ? (
        <p class="ct-empty k-muted">{filters === NO_FILTERS ? tr('ct.empty') : tr('ct.none_found')}</p>
      ) : (
        <ul class="ct-space" style={{ height: `${count * ROW}px` }}>
          {rows}
        </ul>
      )}
    </section>
  )
}

const Row = ({ c, i, total }: { c: Contact | undefined; i: number; total: number }) => (
  <li
    class="ct-row"
    aria-posinset={i + 1}
    aria-setsize={total}
    style={{ top: `${i * ROW}px`, height: `${ROW}px` }}
    data-id={c?.id}
  >
    {c ? (
      <>
        <span>
          <Link to={`/contacts/${c.id}`}>{c.name || c.phone || c.email || `#${c.id}`}</Link>
          {(c.company || c.job_title) && (
            <span class="ct-sub">{[c.job_title, c.company].filter(Boolean).join(' · ')}</span>
          )}
        </span>
        <span>{c.phone ?? ''}</span>
        <span class="ct-wide">{c.email ?? ''}</span>
        <span class="ct-wide ct-labels">
          {c.labels.map((l) => (
            <span key={l.id} class="ct-label">
              <i style={{ background: l.color }} aria-hidden="true" />
              {l.name}
            </span>
          ))}
        </span>
      </>
    ) : (
      <span class="ct-ghost" aria-hidden="true" />
    )}
  </li>
)
