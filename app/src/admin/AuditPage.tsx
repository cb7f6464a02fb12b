import { useEffect, useState } from 'preact/hooks'
import { api, failFields, got, useKitTr, useLocale } from '../kit'
import { Field, MoreButton, SelectField, TextField } from '../kit/ui'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { SettingsPage } from '../settings/frame'
import { Failure } from './common'
import { useTr, whenIn } from './kit'
import { ensureStyles } from './styles'

type Category = 'workspace' | 'settings' | 'members' | 'roles' | 'teams' | 'api' | 'billing'

interface Entry {
  readonly id: number
  readonly action: string
  readonly label: string
  readonly category: Category
  readonly target: string
  readonly details: string
  readonly user: { readonly id: number; readonly name: string } | null
  readonly ip: string
  readonly created_at: string
}

interface Meta {
  readonly page: number
  readonly total: number
  readonly has_more: boolean
  readonly categories: readonly { readonly key: Category; readonly label: string }[]
  readonly users: readonly { readonly id: number; readonly name: string }[]
  readonly timezone: string
}

const FILTERS = ['category', 'user', 'from', 'to', 'q'] as const
type Filters = Record<(typeof FILTERS)[number], string>

const PATH = '/settings/audit'

const fromSearch = (search: string): Filters => {
  const sp = new URLSearchParams(search)
  return Object.fromEntries(FILTERS.map((k) => [k, sp.get(k) ?? ''])) as Filters
}

const toSearch = (f: Filters) => {
  const sp = new URLSearchParams()
  for (const k of FILTERS) if (f[k].trim()) sp.set(k, f[k].trim())
  const s = sp.toString()
  return s ? `?${s}` : ''
}

/** The API's query for these filters (its own checks answer anything malformed with a 422). */
const queryOf = (f: Filters, page: number) => ({
  page,
  ...(f.category ? { category: f.category as Category } : {}),
  ...(/^\d+$/.test(f.user) ? { user: Number(f.user) } : {}),
  ...(f.from ? { from: f.from } : {}),
  ...(f.to ? { to: f.to } : {}),
  ...(f.q.trim() ? { q: f.q.trim() } : {}),
})

const DateField = (props: {
  label: string
  name: 'from' | 'to'
  value: string
  onValue: (v: string) => void
  error?: string | undefined
}) => (
  <Field label={props.label} error={props.error}>
    {(id, described) => (
      <input
        type="date"
        id={id}
        name={props.name}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={described}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    )}
  </Field>
)

/**
 * `/app/settings/audit`: the log newest first, filtered by category, who, days (the reader's zone)
 * and words; the filters live in the address (`?category=api&from=2026-11-01`), so a reload or a
 * shared link shows the same entries. Pages of 50 as the API gives them, "Load more" for the next.
 */
const AuditPage = () => {
  ensureStyles()
  const tr = useTr()
  const kit = useKitTr()
  const locale = useLocale()
  const { search } = use(here)
  const applied = fromSearch(search)
  const key = toSearch(applied)
  // The form follows the address in the same render: a new address (Show, Clear filters, a link)
  // resets it at once. Reset by an effect, which runs after the paint, it wiped what was typed
  // in between on a busy machine.
  const [draft, setDraft] = useState<{ readonly key: string; readonly values: Filters }>({
    key,
    values: applied,
  })
  const form = draft.key === key ? draft.values : applied
  const [entries, setEntries] = useState<readonly Entry[] | null>(null)
  const [meta, setMeta] = useState<Meta | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)

  const fetchPage = (page: number) =>
    got<Entry[]>(api.get('/v1/audit-logs', { query: queryOf(applied, page) }))

  useEffect(() => {
    let alive = true
    setBusy(true)
    fetchPage(1).then(
      (r) => {
        if (!alive) return
        setEntries(r.data)
        setMeta(r.meta as unknown as Meta)
        setError(null)
        setBusy(false)
      },
      (e) => {
        if (!alive) return
        setEntries(null)
        setError(e)
        setBusy(false)
      },
    )
    return () => {
      alive = false
    }
  }, [key])

  const more = async () => {
    if (!meta) return
    setBusy(true)
    try {
      const r = await fetchPage(meta.page + 1)
      setEntries((es) => [...(es ?? []), ...r.data])
      setMeta(r.meta as unknown as Meta)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }

  const apply = (e: Event) => {
    e.preventDefault()
    navigate(PATH + toSearch(form))
  }
  const clear = () => navigate(PATH)
  const set = (k: keyof Filters) => (v: string) =>
    setDraft((d) => ({ key, values: { ...(d.key === key ? d.values : applied), [k]: v } }))
  const fields = failFields(error)
  const filtered = key !== ''
  // Before the first answer the choices are not known: a filter from the address still shows.
  const categories = meta?.categories ?? []
  const users = meta?.users ?? []

  return (
    <SettingsPage title={tr('adm.audit.title')} testId="admin-audit">
      <div class="k-stack">
        <p class="k-muted">{tr('adm.audit.intro')}</p>
        {error && Object.keys(fields).length === 0 && !meta ? (
          <Failure error={error} />
        ) : (
          <>
            <form
              class="k-panel k-form adm-filters"
              noValidate
              onSubmit={apply}
              aria-label={tr('adm.audit.filters')}
            >
              <SelectField
                label={tr('adm.audit.category')}
                name="category"
                value={form.category}
                options={[['', tr('adm.audit.all')], ...categories.map((c) => [c.key, c.label] as const)]}
                onValue={set('category')}
                error={fields.category}
              />
              <SelectField
                label={tr('adm.audit.user')}
                name="user"
                value={form.user}
                options={[['', tr('adm.audit.anyone')], ...users.map((u) => [String(u.id), u.name] as const)]}
                onValue={set('user')}
                error={fields.user}
              />
              <DateField
                label={tr('adm.audit.from')}
                name="from"
                value={form.from}
                onValue={set('from')}
                error={fields.from}
              />
              <DateField
                label={tr('adm.audit.to')}
                name="to"
                value={form.to}
                onValue={set('to')}
                error={fields.to}
              />
              <TextField
                label={tr('adm.audit.q')}
                name="q"
                value={form.q}
                onValue={set('q')}
                hint={tr('adm.audit.q_hint')}
                error={fields.q}
                maxLength={200}
              />
              <div class="k-row">
                <button class="k-btn k-primary" type="submit">
                  {tr('adm.audit.apply')}
                </button>
                {filtered ? (
                  <button class="k-btn" type="button" onClick={clear}>
                    {tr('adm.audit.clear')}
                  </button>
                ) : null}
                {meta ? <span class="k-muted">{tr('adm.audit.zone', { zone: meta.timezone })}</span> : null}
              </div>
            </form>
            {error ? <Failure error={error} /> : null}
            {entries === null && !error ? <p class="k-muted">{kit('k.loading')}</p> : null}
            {entries && meta ? (
              <section aria-labelledby="adm-entries" class="k-stack">
                <h2 class="k-sub" id="adm-entries">
                  {tr('adm.audit.entries')}{' '}
                  <span class="k-muted" data-testid="audit-total">
                    {tr('adm.audit.total', { shown: entries.length, total: meta.total })}
                  </span>
                </h2>
                {entries.length === 0 ? (
                  <p class="k-muted">{filtered ? tr('adm.audit.none') : tr('adm.audit.empty')}</p>
                ) : (
                  <ul class="adm-log" data-testid="audit-entries">
                    {entries.map((e) => (
                      <li key={e.id} data-category={e.category} data-action={e.action}>
                        <div class="adm-what">
                          <strong>{e.label}</strong>
                          {e.target ? <span>{e.target}</span> : null}
                        </div>
                        {e.details ? <div class="adm-details">{e.details}</div> : null}
                        <div class="adm-meta">
                          <span>
                            {e.user ? tr('adm.audit.by', { name: e.user.name }) : tr('adm.audit.by_system')}
                          </span>
                          {e.ip ? <span>{tr('adm.audit.ip', { ip: e.ip })}</span> : null}
                          <time dateTime={e.created_at}>{whenIn(e.created_at, locale, meta.timezone)}</time>
                        </div>
                      </li>
                    ))}
                  </ul>
                )}
                <MoreButton next={meta.has_more ? String(meta.page + 1) : null} busy={busy} onMore={more} />
              </section>
            ) : null}
          </>
        )}
      </div>
    </SettingsPage>
  )
}

export default AuditPage
