import { useEffect, useRef, useState } from 'preact/hooks'
import { useCustomText } from '../kit/customFields'
import { ConfirmButton, FailNotice, Notice, Panel } from '../kit/ui'
import { bytes, fullTime } from '../lib/format'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { Checklist } from './checklist'
import { Events } from './events'
import { Expenses } from './expenses'
import {
  ApiError,
  api,
  can,
  got,
  type Lead,
  type LeadDetail,
  Link,
  money,
  type PageProps,
  type PipelineSettings,
  type Stage,
  type TextKey,
  type Tr,
  useLocale,
  useTr,
  useWorkspaceEvents,
  type Workflow,
} from './kit'
import { LeadForm } from './LeadForm'
import { MoveDialog, moveLead, needsDialog } from './move'
import { ensureStyles } from './styles'
import { Timeline } from './timeline'
import { type Part, useWrite } from './write'

/**
 * `/app/pipeline/leads/:id` (the path notifications of a lead link to): a lead with its stage
 * (moved from here too), its fields (edited in place), the timeline with logged activities, the
 * checklist, events with reminders, expenses with receipts and files. `pipeline.changed` of this
 * lead from anyone reloads it; a lead deleted meanwhile says so.
 */
const LeadPage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const locale = useLocale()
  const id = Number(params.id)
  const [lead, setLead] = useState<LeadDetail | null>(null)
  const [missing, setMissing] = useState<'none' | 'gone' | 'not_found'>('none')
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState(false)
  const [stages, setStages] = useState<readonly Stage[]>([])
  const [pending, setPending] = useState<Stage | null>(null)
  const [settings, setSettings] = useState<PipelineSettings | null>(null)

  // Reloads overlap (a write's own, a live event's); the latest asked wins, so an earlier one that
  // answers later cannot put an older lead back.
  const seq = useRef(0)
  const load = () => {
    const mine = ++seq.current
    return got<LeadDetail>(api.get('/v1/leads/{id}', { path: { id } })).then(
      (r) => {
        if (mine !== seq.current) return
        setLead(r.data)
        setError(null)
      },
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 404)
          setMissing((m) => (lead || m === 'gone' ? 'gone' : 'not_found'))
        else setError(e)
      },
    )
  }
  useEffect(() => {
    if (!Number.isSafeInteger(id) || id <= 0) {
      setMissing('not_found')
      return
    }
    void load()
    void got<PipelineSettings>(api.get('/v1/pipeline/settings')).then(
      (r) => setSettings(r.data),
      () => null,
    )
  }, [id])
  useEffect(() => {
    if (!lead) return
    void got<Workflow>(api.get('/v1/pipelines/{id}', { path: { id: lead.pipeline_id } })).then(
      (r) => setStages(r.data.stages),
      () => null,
    )
  }, [lead?.pipeline_id])

  const live = useRef<ReturnType<typeof setTimeout> | undefined>(undefined)
  useWorkspaceEvents(['pipeline.changed'], (data) => {
    if (data.lead_id !== undefined && data.lead_id !== null && data.lead_id !== id) return
    clearTimeout(live.current)
    live.current = setTimeout(() => void load(), 150)
  })
  useEffect(() => () => clearTimeout(live.current), [])

  if (missing !== 'none')
    return (
      <div class="k-page pl-page">
        <Link class="k-back" to="/pipeline">
          ← {tr('pl.title')}
        </Link>
        <Notice kind="info">{tr(missing === 'gone' ? 'pl.lead_gone' : 'pl.lead_not_found')}</Notice>
      </div>
    )
  if (!lead)
    return (
      <div class="k-page pl-page">
        <FailNotice error={error} />
        <p class="k-muted">{tr('pl.loading')}</p>
      </div>
    )

  const manage = can('leads.manage')
  const changeStage = async (to: Stage) => {
    if (needsDialog(to, lead)) {
      setPending(to)
      return
    }
    try {
      await moveLead(lead.id, { stage_id: to.id })
      await load()
    } catch (e) {
      setError(e)
    }
  }
  return (
    <div class="k-page pl-page" data-testid="lead-page">
      <Link class="k-back" to={`/pipeline?workflow=${lead.pipeline_id}`}>
        ← {lead.pipeline.name}
      </Link>
      <div class="pl-head">
        <h1>{lead.title}</h1>
        <span class="k-muted">{lead.identifier}</span>
        <span class="pl-stage" data-testid="lead-stage">
          <i style={{ background: lead.stage.color }} aria-hidden="true" />
          {lead.stage.label}
        </span>
        <span
          class={`k-badge ${lead.status === 'won' ? 'k-ok' : lead.status === 'lost' ? 'k-bad' : 'k-wait'}`}
        >
          {tr(`pl.status.${lead.status}` as TextKey)}
        </span>
        <div class="pl-actions">
          {lead.can.move && stages.length > 0 ? (
            <div class="k-field">
              <label for="pl-stage-move">{tr('pl.stage')}</label>
              <select
                id="pl-stage-move"
                value={String(lead.stage_id)}
                onChange={(e) => {
                  const to = stages.find((s) => String(s.id) === e.currentTarget.value)
                  e.currentTarget.value = String(lead.stage_id)
                  if (to) void changeStage(to)
                }}
              >
                {stages.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.label}
                  </option>
                ))}
              </select>
            </div>
          ) : null}
          {lead.can.update && !editing ? (
            <button type="button" class="k-btn k-end" onClick={() => setEditing(true)}>
              {tr('pl.edit')}
            </button>
          ) : null}
          {lead.can.delete ? (
            <ConfirmButton
              label={tr('pl.delete')}
              question={tr('pl.delete_q')}
              onConfirm={async () => {
                try {
                  await api.delete('/v1/leads/{id}', { path: { id: lead.id } })
                  navigate(`/pipeline?workflow=${lead.pipeline_id}`)
                } catch (e) {
                  setError(e)
                }
              }}
            />
          ) : null}
        </div>
      </div>
      <FailNotice error={error} />
      {editing ? (
        <LeadForm
          lead={lead}
          onSaved={() => {
            setEditing(false)
            void load()
          }}
          onCancel={() => setEditing(false)}
        />
      ) : null}
      <div class="pl-cols">
        <div class="k-stack">
          {editing ? null : <Details lead={lead} tr={tr} locale={locale} />}
          <Checklist lead={lead} manage={manage} onChange={load} tr={tr} />
          <Events lead={lead} manage={manage} onChange={load} tr={tr} />
          <Expenses lead={lead} manage={manage} onChange={load} tr={tr} locale={locale} settings={settings} />
          <Files lead={lead} manage={manage} onChange={load} tr={tr} />
        </div>
        <Timeline lead={lead} manage={manage} onChange={load} tr={tr} />
      </div>
      {pending ? (
        <MoveDialog
          lead={lead}
          to={pending}
          onClose={() => setPending(null)}
          onMoved={() => {
            setPending(null)
            void load()
          }}
        />
      ) : null}
    </div>
  )
}
export default LeadPage

/** `/app/pipeline/leads/new`: a new lead, in the workflow the board showed. */
export const NewLeadPage = () => {
  ensureStyles()
  const tr = useTr()
  const { search } = use(here)
  const workflow = Number(new URLSearchParams(search).get('workflow')) || null
  return (
    <div class="k-page pl-page k-narrow">
      <Link class="k-back" to="/pipeline">
        ← {tr('pl.title')}
      </Link>
      <div class="k-head">
        <h1>{tr('pl.new_lead')}</h1>
      </div>
      <LeadForm
        workflowId={workflow}
        onSaved={(l: Lead | null) => navigate(l ? `/pipeline/leads/${l.id}` : '/pipeline')}
        onCancel={() => navigate('/pipeline')}
      />
    </div>
  )
}

/** The lead's fields and its custom fields (those with a value), as words. */
const Details = ({ lead: l, tr, locale }: { lead: LeadDetail; tr: Tr; locale: string }) => {
  const custom = useCustomText()
  const rows: [string, preact.ComponentChildren][] = []
  const add = (k: TextKey, v: preact.ComponentChildren) => {
    if (v !== null && v !== undefined && v !== '') rows.push([tr(k), v])
  }
  add('pl.f.value_estimate', money(l.value_estimate, locale))
  add('pl.f.value_won', money(l.value_won, locale))
  add('pl.f.budget', money(l.budget, locale))
  add('pl.f.expected_close', l.expected_close)
  add('pl.f.followup_at', l.followup_at ? fullTime(l.followup_at) : null)
  add('pl.f.followup_note', l.followup_note)
  add(
    'pl.f.contact',
    l.contact ? (
      <Link to={`/contacts/${l.contact.id}`}>{l.contact.name || l.contact.phone || l.contact.email}</Link>
    ) : null,
  )
  add('pl.f.client', l.client ? <Link to={`/pipeline/clients/${l.client.id}`}>{l.client.name}</Link> : null)
  add(
    'pl.f.conversation',
    l.interaction_id ? <Link to={`/inbox/${l.interaction_id}`}>#{l.interaction_id}</Link> : null,
  )
  add('pl.f.assignee', l.assignee?.name)
  add('pl.f.team', l.team?.name)
  add('pl.f.lost_reason', l.lost_reason)
  add('pl.f.lost_note', l.lost_note)
  add('pl.f.source', tr(`pl.src.${l.source}` as TextKey))
  add('pl.f.created', `${fullTime(l.created_at)}${l.created_by ? ` · ${l.created_by.name}` : ''}`)
  for (const f of l.custom_fields) {
    const v = custom(f.value)
    if (v !== '') rows.push([f.label, v])
  }
  return (
    <Panel title={tr('pl.details')} id="pl-details">
      <dl class="k-dl">
        {rows.map(([k, v]) => (
          <>
            <dt key={`t${k}`}>{k}</dt>
            <dd key={`d${k}`}>{v}</dd>
          </>
        ))}
      </dl>
      {l.note ? <p class="pl-body">{l.note}</p> : null}
    </Panel>
  )
}

const Files = ({ lead, manage, onChange, tr }: Part) => {
  const w = useWrite(onChange)
  return (
    <Panel title={tr('pl.files')} id="pl-files">
      {lead.files.length === 0 ? <p class="k-muted">{tr('pl.files_empty')}</p> : null}
      <ul class="pl-list">
        {lead.files.map((f) => (
          <li key={f.id}>
            <div>
              <a href={f.url} target="_blank" rel="noreferrer">
                {f.name}
              </a>
              <span class="pl-when">
                {bytes(f.size)}
                {f.uploaded_by ? ` · ${f.uploaded_by.name}` : ''} · {fullTime(f.created_at)}
              </span>
            </div>
            {manage ? (
              <ConfirmButton
                label={tr('pl.delete')}
                question={tr('pl.delete_file_q', { name: f.name })}
                onConfirm={() => void w.run(() => api.delete('/v1/lead-files/{id}', { path: { id: f.id } }))}
              />
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <div class="k-field pl-inline">
          <label for="pl-file">{tr('pl.file_add')}</label>
          <input
            id="pl-file"
            type="file"
            disabled={w.busy}
            onChange={(e) => {
              const input = e.currentTarget as HTMLInputElement
              const file = input.files?.[0]
              if (!file) return
              const form = new FormData()
              form.set('file', file)
              void w
                .run(() => api.post('/v1/leads/{id}/files', { path: { id: lead.id }, body: form }))
                .then(() => {
                  input.value = ''
                })
            }}
          />
        </div>
      ) : null}
      <FailNotice error={w.error} />
    </Panel>
  )
}
