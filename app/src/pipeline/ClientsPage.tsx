import { useEffect, useState } from 'preact/hooks'
import {
  ConfirmButton,
  FailNotice,
  ListState,
  Notice,
  Panel,
  SelectField,
  TextAreaField,
  TextField,
} from '../kit/ui'
import { navigate } from '../lib/router'
import { type ClientContact, ClientContacts } from './ClientContacts'
import { AreaTabs } from './common'
import {
  ApiError,
  api,
  can,
  failFields,
  got,
  type Lead,
  Link,
  money,
  type PageProps,
  type TextKey,
  type Tr,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline/clients` and `/app/pipeline/clients/:id` (spec 2 §4.7): the companies leads are
 * for, searched by name and filtered by industry; a client's profile with its contacts, the leads
 * the reader may see and their deal summary; create, change, delete with `clients.manage`.
 */
interface Client {
  readonly id: number
  readonly name: string
  readonly industry: string | null
  readonly phone: string | null
  readonly email: string | null
  readonly website: string | null
  readonly address: string | null
  readonly city: string | null
  readonly notes: string | null
  readonly contacts_count: number
}

interface ClientDetail extends Client {
  readonly contacts: readonly ClientContact[]
  readonly leads: readonly Lead[]
  readonly leads_total: number
  readonly deals: {
    readonly open: number
    readonly open_value: number
    readonly won: number
    readonly won_value: number
    readonly lost: number
    readonly lost_value: number
  }
}

const PER_PAGE = 50
const FIELDS = ['name', 'industry', 'phone', 'email', 'website', 'city', 'address'] as const

const ClientsPage = () => {
  ensureStyles()
  const tr = useTr()
  const [q, setQ] = useState('')
  const [query, setQuery] = useState('')
  const [industry, setIndustry] = useState('')
  const [page, setPage] = useState(1)
  const [rows, setRows] = useState<readonly Client[] | null>(null)
  const [total, setTotal] = useState(0)
  const [industries, setIndustries] = useState<readonly string[]>([])
  const [error, setError] = useState<unknown>(null)
  const [adding, setAdding] = useState(false)
  const load = () =>
    got<Client[]>(
      api.get('/v1/clients', {
        query: {
          page,
          per_page: PER_PAGE,
          ...(query ? { q: query } : {}),
          ...(industry ? { industry } : {}),
        } as never,
      }),
    ).then(
      (r) => {
        setRows(r.data)
        setTotal(Number(r.meta.total ?? r.data.length))
        setIndustries((r.meta.industries as string[] | undefined) ?? [])
        setError(null)
      },
      (e: unknown) => setError(e),
    )
  useEffect(() => void load(), [query, industry, page])
  useEffect(() => {
    const t = setTimeout(() => {
      setQuery(q.trim())
      setPage(1)
    }, 300)
    return () => clearTimeout(t)
  }, [q])
  useWorkspaceEvents(['clients.changed'], () => void load())
  const pages = Math.max(1, Math.ceil(total / PER_PAGE))
  return (
    <div class="k-page pl-page" data-testid="clients-page">
      <div class="k-head">
        <h1>{tr('pl.clients')}</h1>
        {can('clients.manage') && !adding ? (
          <div class="pl-actions">
            <button type="button" class="k-btn k-primary" onClick={() => setAdding(true)}>
              {tr('pl.client_new')}
            </button>
          </div>
        ) : null}
      </div>
      <AreaTabs current="clients" />
      {adding ? (
        <ClientForm
          tr={tr}
          onSaved={(c) => navigate(`/pipeline/clients/${c.id}`)}
          onCancel={() => setAdding(false)}
        />
      ) : null}
      <search class="pl-filters">
        <div class="k-field">
          <label for="pl-client-q">{tr('pl.search')}</label>
          <input id="pl-client-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </div>
        <SelectField
          label={tr('pl.c.industry')}
          name="industry"
          value={industry}
          options={[['', tr('pl.all')], ...industries.map((i) => [i, i] as const)]}
          onValue={(v) => {
            setIndustry(v)
            setPage(1)
          }}
        />
      </search>
      <FailNotice error={error} />
      <ListState items={rows} empty={tr(query || industry ? 'pl.clients_none_found' : 'pl.clients_empty')}>
        {(rows) => (
          <div class="pl-scroll">
            <table
              class="k-table pl-table"
              // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
              tabIndex={0}
            >
              <thead>
                <tr>
                  <th scope="col">{tr('pl.c.name')}</th>
                  <th scope="col">{tr('pl.c.industry')}</th>
                  <th scope="col">{tr('pl.c.city')}</th>
                  <th scope="col">{tr('pl.c.contacts')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((c) => (
                  <tr key={c.id}>
                    <td class="pl-wrap">
                      <Link to={`/pipeline/clients/${c.id}`}>{c.name}</Link>
                    </td>
                    <td>{c.industry ?? ''}</td>
                    <td>{c.city ?? ''}</td>
                    <td>{c.contacts_count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
      {pages > 1 ? (
        <div class="k-row" style={{ marginTop: '12px' }}>
          <button type="button" class="k-btn" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {tr('pl.prev')}
          </button>
          <span class="k-muted">{tr('pl.page_of', { page, pages })}</span>
          <button type="button" class="k-btn" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {tr('pl.next')}
          </button>
        </div>
      ) : null}
    </div>
  )
}
export default ClientsPage

const ClientForm = (props: {
  client?: Client
  tr: Tr
  onSaved: (c: Client) => void
  onCancel: () => void
}) => {
  const { tr, client } = props
  const [v, setV] = useState<Record<string, string>>(() => {
    const o: Record<string, string> = { notes: client?.notes ?? '' }
    for (const f of FIELDS) o[f] = client?.[f] ?? ''
    return o
  })
  const [error, setError] = useState<unknown>(null)
  const fields = failFields(error)
  return (
    <form
      class="k-form k-panel"
      noValidate
      data-testid="client-form"
      onSubmit={async (e) => {
        e.preventDefault()
        const body: Record<string, string | null> = {}
        for (const [k, x] of Object.entries(v)) body[k] = k === 'name' ? x.trim() : x.trim() || null
        try {
          const r = client
            ? await got<Client>(
                api.patch('/v1/clients/{id}', { path: { id: client.id }, body: body as never }),
              )
            : await got<Client>(api.post('/v1/clients', { body: body as never }))
          props.onSaved(r.data)
        } catch (x) {
          setError(x)
        }
      }}
    >
      {FIELDS.map((f) => (
        <TextField
          key={f}
          label={tr(`pl.c.${f}` as TextKey)}
          name={`client_${f}`}
          value={v[f] ?? ''}
          onValue={(x) => setV((o) => ({ ...o, [f]: x }))}
          error={fields[f]}
        />
      ))}
      <TextAreaField
        label={tr('pl.c.notes')}
        name="client_notes"
        rows={3}
        value={v.notes ?? ''}
        onValue={(x) => setV((o) => ({ ...o, notes: x }))}
        error={fields.notes}
      />
      <FailNotice error={error} />
      <div class="k-row">
        <button type="submit" class="k-btn k-primary">
          {client ? tr('pl.save') : tr('pl.client_create')}
        </button>
        <button type="button" class="k-btn" onClick={props.onCancel}>
          {tr('pl.cancel')}
        </button>
      </div>
    </form>
  )
}

export const ClientPage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const id = Number(params.id)
  const [c, setC] = useState<ClientDetail | null>(null)
  const [missing, setMissing] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState(false)
  const load = () =>
    got<ClientDetail>(api.get('/v1/clients/{id}', { path: { id } })).then(
      (r) => setC(r.data),
      (e: unknown) => (e instanceof ApiError && e.status === 404 ? setMissing(true) : setError(e)),
    )
  useEffect(() => {
    if (!Number.isSafeInteger(id) || id <= 0) setMissing(true)
    else void load()
  }, [id])
  useWorkspaceEvents(['clients.changed', 'pipeline.changed'], () => void load())
  if (missing)
    return (
      <div class="k-page pl-page">
        <Link class="k-back" to="/pipeline/clients">
          ← {tr('pl.clients')}
        </Link>
        <Notice kind="info">{tr('pl.client_not_found')}</Notice>
      </div>
    )
  if (!c)
    return (
      <div class="k-page pl-page">
        <FailNotice error={error} />
        <p class="k-muted">{tr('pl.loading')}</p>
      </div>
    )
  const manage = can('clients.manage')
  return (
    <div class="k-page pl-page" data-testid="client-page">
      <Link class="k-back" to="/pipeline/clients">
        ← {tr('pl.clients')}
      </Link>
      <div class="pl-head">
        <h1>{c.name}</h1>
        {c.industry ? <span class="k-muted">{c.industry}</span> : null}
        {manage ? (
          <div class="pl-actions">
            {editing ? null : (
              <button type="button" class="k-btn" onClick={() => setEditing(true)}>
                {tr('pl.edit')}
              </button>
            )}
            <ConfirmButton
              label={tr('pl.delete')}
              question={tr('pl.client_delete_q')}
              onConfirm={async () => {
                try {
                  await api.delete('/v1/clients/{id}', { path: { id: c.id } })
                  navigate('/pipeline/clients')
                } catch (e) {
                  setError(e)
                }
              }}
            />
          </div>
        ) : null}
      </div>
      <FailNotice error={error} />
      {editing ? (
        <ClientForm
          client={c}
          tr={tr}
          onSaved={() => {
            setEditing(false)
            void load()
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      <dl class="pl-tiles">
        <div>
          <dt>{tr('pl.sum.open')}</dt>
          <dd>
            {c.deals.open} · {money(c.deals.open_value, locale)}
          </dd>
        </div>
        <div>
          <dt>{tr('pl.status.won')}</dt>
          <dd>
            {c.deals.won} · {money(c.deals.won_value, locale)}
          </dd>
        </div>
        <div>
          <dt>{tr('pl.status.lost')}</dt>
          <dd>{c.deals.lost}</dd>
        </div>
      </dl>
      <div class="pl-cols">
        <div class="k-stack">
          {editing ? null : (
            <Panel title={tr('pl.details')} id="pl-client-details">
              {FIELDS.every((f) => f === 'name' || !c[f]) && !c.notes ? (
                <p class="k-muted">{tr('pl.client_no_details')}</p>
              ) : null}
              <dl class="k-dl">
                {FIELDS.filter((f) => f !== 'name' && c[f]).map((f) => (
                  <>
                    <dt key={`t${f}`}>{tr(`pl.c.${f}` as TextKey)}</dt>
                    <dd key={`d${f}`}>{c[f]}</dd>
                  </>
                ))}
              </dl>
              {c.notes ? <p class="pl-body">{c.notes}</p> : null}
            </Panel>
          )}
          <ClientContacts clientId={c.id} contacts={c.contacts} onChange={load} tr={tr} />
        </div>
        <Panel title={tr('pl.tab.leads')} id="pl-client-leads">
          {c.leads.length === 0 ? <p class="k-muted">{tr('pl.client_no_leads')}</p> : null}
          <ul class="pl-list">
            {c.leads.map((l) => (
              <li key={l.id}>
                <div>
                  <Link to={`/pipeline/leads/${l.id}`}>{l.title}</Link>
                  <span class="pl-when">
                    {l.identifier} · {l.pipeline.name} · {l.stage.label}
                    {(l.value_won ?? l.value_estimate)
                      ? ` · ${money(l.value_won ?? l.value_estimate, locale)}`
                      : ''}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        </Panel>
      </div>
    </div>
  )
}
