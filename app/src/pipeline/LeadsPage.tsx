import { useEffect, useState } from 'preact/hooks'
import { FailNotice, Notice, SelectField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { AreaTabs } from './common'
import {
  api,
  type Candidate,
  can,
  fromLocalInput,
  got,
  type Lead,
  Link,
  money,
  type TextKey,
  useLocale,
  useTr,
  useWorkspaceEvents,
  type Workflow,
} from './kit'
import { DateField } from './LeadForm'
import { ensureStyles } from './styles'

/**
 * `/app/pipeline/leads`: the leads as a list (spec 2 §4.7 `GET /leads`) with its filters and
 * totals, paged; leads ticked on the page get a bulk action (`POST /leads/bulk`: move, assign,
 * follow-up), whose answer per lead shows what was refused and why. The CSV export takes the
 * workflow and status filters.
 */
interface BulkResult {
  readonly id: number
  readonly ok: boolean
  readonly error?: { readonly message: string; readonly fields?: Readonly<Record<string, string>> }
}

const PER_PAGE = 50

const LeadsPage = () => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const [workflows, setWorkflows] = useState<readonly Workflow[]>([])
  const [people, setPeople] = useState<readonly Candidate[]>([])
  const [f, setF] = useState({ pipeline_id: '', status: '', assignee: '', followup: '', q: '' })
  const [q, setQ] = useState('')
  const [page, setPage] = useState(1)
  const [rows, setRows] = useState<readonly Lead[] | null>(null)
  const [meta, setMeta] = useState<{ total: number; value: number; won: number }>({
    total: 0,
    value: 0,
    won: 0,
  })
  const [error, setError] = useState<unknown>(null)
  const [picked, setPicked] = useState<ReadonlySet<number>>(new Set())
  useEffect(() => {
    void got<Workflow[]>(api.get('/v1/pipelines')).then(
      (r) => setWorkflows(r.data),
      () => null,
    )
    void got<Candidate[]>(api.get('/v1/leads/candidates')).then(
      (r) => setPeople(r.data),
      () => null,
    )
  }, [])
  const load = () =>
    got<Lead[]>(
      api.get('/v1/leads', {
        query: {
          ...Object.fromEntries(Object.entries(f).filter(([, v]) => v !== '')),
          page,
          per_page: PER_PAGE,
        } as never,
      }),
    ).then(
      (r) => {
        setRows(r.data)
        const totals = (r.meta.totals ?? {}) as Record<string, number>
        setMeta({
          total: Number(r.meta.total ?? totals.count ?? r.data.length),
          value: totals.value_estimate ?? 0,
          won: totals.value_won ?? 0,
        })
        setError(null)
      },
      (e: unknown) => setError(e),
    )
  useEffect(() => void load(), [f, page])
  useEffect(() => {
    const t = setTimeout(() => setF((o) => (o.q === q.trim() ? o : { ...o, q: q.trim() })), 300)
    return () => clearTimeout(t)
  }, [q])
  useWorkspaceEvents(['pipeline.changed'], () => void load())
  const set = (k: keyof typeof f) => (v: string) => {
    setF((o) => ({ ...o, [k]: v }))
    setPage(1)
    setPicked(new Set())
  }
  const pages = Math.max(1, Math.ceil(meta.total / PER_PAGE))
  const manage = can('leads.manage')
  const exportHref = () => {
    const sp = new URLSearchParams({ type: 'leads' })
    if (f.pipeline_id) sp.set('pipeline_id', f.pipeline_id)
    if (f.status) sp.set('status', f.status)
    return `/v1/pipeline/export?${sp.toString()}`
  }
  const toggle = (id: number, on: boolean) =>
    setPicked((old) => {
      const next = new Set(old)
      if (on) next.add(id)
      else next.delete(id)
      return next
    })
  const all = rows !== null && rows.length > 0 && rows.every((r) => picked.has(r.id))
  return (
    <div class="k-page pl-page" data-testid="leads-page">
      <div class="k-head">
        <h1>{tr('pl.tab.leads')}</h1>
        <div class="pl-actions">
          {manage ? (
            <Link class="k-btn k-primary" to="/pipeline/leads/new">
              {tr('pl.new_lead')}
            </Link>
          ) : null}
          {can('reports.view') ? (
            <a class="k-btn" href={exportHref()} download>
              {tr('pl.export.leads')}
            </a>
          ) : null}
        </div>
      </div>
      <AreaTabs current="leads" />
      <search class="pl-filters">
        <div class="k-field">
          <label for="pl-leads-q">{tr('pl.search')}</label>
          <input id="pl-leads-q" type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </div>
        <SelectField
          label={tr('pl.workflow')}
          name="pipeline_id"
          value={f.pipeline_id}
          options={[['', tr('pl.all')], ...workflows.map((w) => [String(w.id), w.name] as const)]}
          onValue={set('pipeline_id')}
        />
        <SelectField
          label={tr('pl.status')}
          name="status"
          value={f.status}
          options={[
            ['', tr('pl.all')],
            ['open', tr('pl.status.open')],
            ['won', tr('pl.status.won')],
            ['lost', tr('pl.status.lost')],
          ]}
          onValue={set('status')}
        />
        <SelectField
          label={tr('pl.assignee')}
          name="assignee"
          value={f.assignee}
          options={[
            ['', tr('pl.anyone')],
            ['me', tr('pl.me')],
            ['none', tr('pl.nobody')],
            ...people.map((p) => [String(p.id), p.name] as const),
          ]}
          onValue={set('assignee')}
        />
        <SelectField
          label={tr('pl.f.followup_at')}
          name="followup"
          value={f.followup}
          options={[
            ['', tr('pl.all')],
            ...(['overdue', 'today', 'upcoming', 'none'] as const).map(
              (k) => [k, tr(`pl.fu.${k}` as TextKey)] as const,
            ),
          ]}
          onValue={set('followup')}
        />
      </search>
      <FailNotice error={error} />
      <p class="k-muted" role="status" data-testid="leads-total">
        {rows === null
          ? tr('pl.loading')
          : tr('pl.leads_total', {
              n: meta.total,
              value: money(meta.value, locale),
              won: money(meta.won, locale),
            })}
      </p>
      {manage && picked.size > 0 ? (
        <BulkBar
          ids={[...picked]}
          names={new Map((rows ?? []).map((r) => [r.id, `${r.identifier} ${r.title}`]))}
          workflows={workflows}
          people={people}
          pipelineId={
            f.pipeline_id ? Number(f.pipeline_id) : (rows?.find((r) => picked.has(r.id))?.pipeline_id ?? null)
          }
          onDone={() => {
            setPicked(new Set())
            void load()
          }}
        />
      ) : null}
      {rows !== null && rows.length === 0 ? (
        <p class="k-muted">{tr('pl.leads_empty')}</p>
      ) : rows !== null ? (
        <div class="pl-scroll">
          <table
            class="k-table pl-table"
            // biome-ignore lint/a11y/noNoninteractiveTabindex: on a phone the table scrolls sideways and takes the keyboard
            tabIndex={0}
          >
            <thead>
              <tr>
                {manage ? (
                  <th scope="col">
                    <input
                      type="checkbox"
                      aria-label={tr('pl.pick_all')}
                      checked={all}
                      onChange={(e) =>
                        setPicked(
                          (e.currentTarget as HTMLInputElement).checked
                            ? new Set(rows.map((r) => r.id))
                            : new Set(),
                        )
                      }
                    />
                  </th>
                ) : null}
                <th scope="col">{tr('pl.f.title')}</th>
                <th scope="col">{tr('pl.stage')}</th>
                <th scope="col">{tr('pl.f.value_estimate')}</th>
                <th scope="col">{tr('pl.f.assignee')}</th>
                <th scope="col">{tr('pl.f.followup_at')}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((l) => (
                <tr key={l.id} data-lead={l.id}>
                  {manage ? (
                    <td>
                      <input
                        type="checkbox"
                        aria-label={tr('pl.pick', { title: l.title })}
                        checked={picked.has(l.id)}
                        onChange={(e) => toggle(l.id, (e.currentTarget as HTMLInputElement).checked)}
                      />
                    </td>
                  ) : null}
                  <td class="pl-wrap">
                    <Link to={`/pipeline/leads/${l.id}`}>{l.title}</Link>
                    <span class="pl-when">
                      {l.identifier}
                      {l.client ? ` · ${l.client.name}` : ''}
                    </span>
                  </td>
                  <td>
                    {l.stage.label}
                    <span class="pl-when">{l.pipeline.name}</span>
                  </td>
                  <td>{money(l.value_won ?? l.value_estimate, locale)}</td>
                  <td>{l.assignee?.name ?? ''}</td>
                  <td>{l.followup_at ? fullTime(l.followup_at) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
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
export default LeadsPage

const BulkBar = (props: {
  ids: readonly number[]
  names: ReadonlyMap<number, string>
  workflows: readonly Workflow[]
  people: readonly Candidate[]
  pipelineId: number | null
  onDone: () => void
}) => {
  const tr = useTr()
  const [action, setAction] = useState<'move' | 'assign' | 'followup'>('move')
  const stages = props.workflows.find((w) => w.id === props.pipelineId)?.stages ?? []
  const [stage, setStage] = useState('')
  const [assignee, setAssignee] = useState('')
  const [followup, setFollowup] = useState('')
  const [results, setResults] = useState<readonly BulkResult[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const apply = async () => {
    setBusy(true)
    setError(null)
    setResults(null)
    const body =
      action === 'move'
        ? { action, lead_ids: props.ids, stage_id: Number(stage || stages[0]?.id) }
        : action === 'assign'
          ? { action, lead_ids: props.ids, assignee_id: assignee ? Number(assignee) : null }
          : { action, lead_ids: props.ids, followup_at: fromLocalInput(followup) }
    try {
      const r = await got<BulkResult[]>(api.post('/v1/leads/bulk', { body: body as never }))
      setResults(r.data)
      if (r.data.every((x) => x.ok)) props.onDone()
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const failed = results?.filter((x) => !x.ok) ?? []
  return (
    <div class="k-stack" style={{ marginBottom: '10px' }}>
      <div class="pl-bulk" data-testid="bulk-bar">
        <strong>{tr('pl.bulk.picked', { n: props.ids.length })}</strong>
        <SelectField
          label={tr('pl.bulk.action')}
          name="bulk_action"
          value={action}
          options={[
            ['move', tr('pl.bulk.move')],
            ['assign', tr('pl.bulk.assign')],
            ['followup', tr('pl.bulk.followup')],
          ]}
          onValue={(v) => setAction(v as typeof action)}
        />
        {action === 'move' ? (
          <SelectField
            label={tr('pl.stage')}
            name="bulk_stage"
            value={stage}
            options={stages.map((s) => [String(s.id), s.label] as const)}
            onValue={setStage}
          />
        ) : action === 'assign' ? (
          <SelectField
            label={tr('pl.f.assignee')}
            name="bulk_assignee"
            value={assignee}
            options={[['', tr('pl.nobody')], ...props.people.map((p) => [String(p.id), p.name] as const)]}
            onValue={setAssignee}
          />
        ) : (
          <DateField
            label={tr('pl.f.followup_at')}
            name="bulk_followup"
            type="datetime-local"
            value={followup}
            onValue={setFollowup}
          />
        )}
        <button type="button" class="k-btn k-primary" disabled={busy} onClick={apply}>
          {tr('pl.bulk.apply')}
        </button>
      </div>
      <FailNotice error={error} />
      {results && failed.length > 0 ? (
        <Notice kind="bad">
          {tr('pl.bulk.failed', { ok: results.length - failed.length, failed: failed.length })}
          <ul>
            {failed.map((x) => (
              <li key={x.id}>
                {props.names.get(x.id) ?? `#${x.id}`}: {x.error?.message}
                {x.error?.fields ? ` (${Object.values(x.error.fields).join('; ')})` : ''}
              </li>
            ))}
          </ul>
        </Notice>
      ) : null}
    </div>
  )
}
