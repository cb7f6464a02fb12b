import { useEffect, useRef, useState } from 'preact/hooks'
import { ConfirmButton, FailNotice, Notice, Panel, SelectField, TextAreaField, TextField } from '../kit/ui'
import { bytes, fullTime } from '../lib/format'
import { here, navigate } from '../lib/router'
import { use } from '../lib/state'
import { Dialog } from './common'
import {
  ACTIVITY_KINDS,
  type Activity,
  ApiError,
  api,
  can,
  EVENT_KINDS,
  failFields,
  fromLocalInput,
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
import { DateField, LeadForm } from './LeadForm'
import { MoveDialog, moveLead, needsDialog } from './move'
import { ensureStyles } from './styles'

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

  const load = () =>
    got<LeadDetail>(api.get('/v1/leads/{id}', { path: { id } })).then(
      (r) => {
        setLead(r.data)
        setError(null)
      },
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 404)
          setMissing((m) => (lead || m === 'gone' ? 'gone' : 'not_found'))
        else setError(e)
      },
    )
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

interface Part {
  lead: LeadDetail
  manage: boolean
  onChange: () => Promise<unknown>
  tr: Tr
}

const Details = ({ lead: l, tr, locale }: { lead: LeadDetail; tr: Tr; locale: string }) => {
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

/** Runs a write, shows the server's refusal in the part, reloads the lead after. */
const useWrite = (onChange: () => Promise<unknown>) => {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
      await onChange()
      return true
    } catch (e) {
      setError(e)
      return false
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run }
}

const Checklist = ({ lead, manage, onChange, tr }: Part) => {
  const [text, setText] = useState('')
  // A tick shows at once; the lead's reload confirms it (or the refusal shows and it is undone).
  const [ticks, setTicks] = useState<Readonly<Record<number, boolean>>>({})
  useEffect(() => setTicks({}), [lead.checklist])
  const w = useWrite(onChange)
  return (
    <Panel title={tr('pl.checklist')} id="pl-checklist">
      {lead.checklist.length === 0 ? <p class="k-muted">{tr('pl.checklist_empty')}</p> : null}
      <ul class="pl-list">
        {lead.checklist.map((c) => (
          <li key={c.id}>
            <label class="k-check">
              <input
                type="checkbox"
                checked={ticks[c.id] ?? c.done}
                disabled={!manage}
                onChange={(e) => {
                  const done = (e.currentTarget as HTMLInputElement).checked
                  setTicks((t) => ({ ...t, [c.id]: done }))
                  void w.run(() =>
                    api.patch('/v1/lead-checklist/{id}', { path: { id: c.id }, body: { done } }),
                  )
                }}
              />
              <span class={(ticks[c.id] ?? c.done) ? 'pl-done' : undefined}>{c.text}</span>
            </label>
            {manage ? (
              <button
                type="button"
                class="k-btn"
                aria-label={tr('pl.remove_x', { name: c.text })}
                onClick={() =>
                  void w.run(() => api.delete('/v1/lead-checklist/{id}', { path: { id: c.id } }))
                }
              >
                ×
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <form
          class="pl-inline"
          onSubmit={async (e) => {
            e.preventDefault()
            if (
              await w.run(() =>
                api.post('/v1/leads/{id}/checklist', { path: { id: lead.id }, body: { text } }),
              )
            )
              setText('')
          }}
        >
          <TextField
            label={tr('pl.checklist_new')}
            name="checklist"
            value={text}
            onValue={setText}
            error={failFields(w.error).text}
            maxLength={500}
          />
          <button type="submit" class="k-btn" disabled={w.busy}>
            {tr('pl.add')}
          </button>
        </form>
      ) : null}
      <FailNotice error={Object.keys(failFields(w.error)).length ? null : w.error} />
    </Panel>
  )
}

const Events = ({ lead, manage, onChange, tr }: Part) => {
  const [open, setOpen] = useState(false)
  const w = useWrite(onChange)
  return (
    <Panel title={tr('pl.events')} id="pl-events">
      {lead.events.length === 0 ? <p class="k-muted">{tr('pl.events_empty')}</p> : null}
      <ul class="pl-list">
        {lead.events.map((ev) => (
          <li key={ev.id}>
            <div>
              <strong>{ev.title}</strong> · {tr(`pl.ev.${ev.kind}` as TextKey)}
              <span class="pl-when">
                {fullTime(ev.starts_at)}
                {ev.location ? ` · ${ev.location}` : ''}
              </span>
              {ev.remind_at ? (
                <span class="pl-when">
                  {tr(ev.reminded ? 'pl.reminded' : 'pl.remind_at', { at: fullTime(ev.remind_at) })}
                </span>
              ) : null}
              {ev.notes ? <p class="pl-body">{ev.notes}</p> : null}
            </div>
            {manage ? (
              <ConfirmButton
                label={tr('pl.delete')}
                question={tr('pl.delete_event_q')}
                onConfirm={() =>
                  void w.run(() => api.delete('/v1/lead-events/{id}', { path: { id: ev.id } }))
                }
              />
            ) : null}
          </li>
        ))}
      </ul>
      <FailNotice error={w.error} />
      {manage ? (
        <button type="button" class="k-btn" onClick={() => setOpen(true)}>
          {tr('pl.event_new')}
        </button>
      ) : null}
      {open ? <EventDialog lead={lead} onClose={() => setOpen(false)} onSaved={onChange} tr={tr} /> : null}
    </Panel>
  )
}

const REMINDERS = [null, 0, 15, 30, 60, 1440] as const

const EventDialog = (props: { lead: Lead; onClose: () => void; onSaved: () => Promise<unknown>; tr: Tr }) => {
  const { tr } = props
  const [v, setV] = useState({
    kind: 'meeting',
    title: '',
    starts_at: '',
    location: '',
    notes: '',
    remind: '30',
  })
  const [error, setError] = useState<unknown>(null)
  const set = (k: keyof typeof v) => (x: string) => setV((o) => ({ ...o, [k]: x }))
  const fields = failFields(error)
  return (
    <Dialog label={tr('pl.event_new')} onClose={props.onClose}>
      <h2>{tr('pl.event_new')}</h2>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault()
          try {
            await api.post('/v1/leads/{id}/events', {
              path: { id: props.lead.id },
              body: {
                kind: v.kind as (typeof EVENT_KINDS)[number],
                title: v.title.trim(),
                starts_at: fromLocalInput(v.starts_at) ?? '',
                location: v.location.trim() || null,
                notes: v.notes.trim() || null,
                remind_minutes: v.remind === '' ? null : Number(v.remind),
              },
            })
            await props.onSaved()
            props.onClose()
          } catch (x) {
            setError(x)
          }
        }}
      >
        <SelectField
          label={tr('pl.ev.kind')}
          name="kind"
          value={v.kind}
          options={EVENT_KINDS.map((k) => [k, tr(`pl.ev.${k}` as TextKey)] as const)}
          onValue={set('kind')}
        />
        <TextField
          label={tr('pl.ev.title')}
          name="title"
          value={v.title}
          onValue={set('title')}
          error={fields.title}
        />
        <DateField
          label={tr('pl.ev.starts_at')}
          name="starts_at"
          type="datetime-local"
          value={v.starts_at}
          onValue={set('starts_at')}
          error={fields.starts_at}
        />
        <TextField
          label={tr('pl.ev.location')}
          name="location"
          value={v.location}
          onValue={set('location')}
          error={fields.location}
        />
        <SelectField
          label={tr('pl.ev.remind')}
          name="remind"
          value={v.remind}
          options={REMINDERS.map((m) => [m === null ? '' : String(m), remindLabel(m, tr)] as const)}
          onValue={set('remind')}
          error={fields.remind_minutes}
        />
        <TextAreaField
          label={tr('pl.ev.notes')}
          name="notes"
          rows={3}
          value={v.notes}
          onValue={set('notes')}
        />
        <FailNotice error={Object.keys(fields).length ? null : error} />
        <div class="k-row">
          <button type="submit" class="k-btn k-primary">
            {tr('pl.add')}
          </button>
          <button type="button" class="k-btn" onClick={props.onClose}>
            {tr('pl.cancel')}
          </button>
        </div>
      </form>
    </Dialog>
  )
}

const remindLabel = (m: number | null, tr: Tr) =>
  m === null
    ? tr('pl.remind.none')
    : m === 0
      ? tr('pl.remind.at_start')
      : m < 60
        ? tr('pl.remind.minutes', { n: m })
        : m < 1440
          ? tr('pl.remind.hours', { n: m / 60 })
          : tr('pl.remind.days', { n: m / 1440 })

const Expenses = ({
  lead,
  manage,
  onChange,
  tr,
  locale,
  settings,
}: Part & { locale: string; settings: PipelineSettings | null }) => {
  const w = useWrite(onChange)
  const categories = settings?.expense_categories ?? []
  const [v, setV] = useState({ category: '', amount: '', spent_on: '', note: '' })
  const receipt = useRef<HTMLInputElement>(null)
  const set = (k: keyof typeof v) => (x: string) => setV((o) => ({ ...o, [k]: x }))
  const fields = failFields(w.error)
  return (
    <Panel title={tr('pl.expenses')} id="pl-expenses">
      {lead.expenses.length === 0 ? (
        <p class="k-muted">{tr('pl.expenses_empty')}</p>
      ) : (
        <p class="k-muted" data-testid="expenses-total">
          {tr('pl.expenses_total', { total: money(lead.expenses_total, locale) })}
        </p>
      )}
      <ul class="pl-list">
        {lead.expenses.map((x) => (
          <li key={x.id}>
            <div>
              <strong>{money(x.amount, locale)}</strong> · {x.category}
              <span class="pl-when">
                {x.spent_on}
                {x.spent_by ? ` · ${x.spent_by.name}` : ''}
              </span>
              {x.note ? <p class="pl-body">{x.note}</p> : null}
              {x.receipt ? (
                <a href={x.receipt.url} target="_blank" rel="noreferrer">
                  {tr('pl.receipt', { name: x.receipt.name })}
                </a>
              ) : null}
            </div>
            {manage ? (
              <ConfirmButton
                label={tr('pl.delete')}
                question={tr('pl.delete_expense_q')}
                onConfirm={() =>
                  void w.run(() => api.delete('/v1/lead-expenses/{id}', { path: { id: x.id } }))
                }
              />
            ) : null}
          </li>
        ))}
      </ul>
      {manage ? (
        <form
          class="pl-inline"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault()
            const form = new FormData()
            form.set('category', v.category || categories[0] || '')
            form.set('amount', v.amount)
            if (v.spent_on) form.set('spent_on', v.spent_on)
            if (v.note.trim()) form.set('note', v.note.trim())
            const file = receipt.current?.files?.[0]
            if (file) form.set('receipt', file)
            if (
              await w.run(() => api.post('/v1/leads/{id}/expenses', { path: { id: lead.id }, body: form }))
            ) {
              setV({ category: v.category, amount: '', spent_on: '', note: '' })
              if (receipt.current) receipt.current.value = ''
            }
          }}
        >
          <SelectField
            label={tr('pl.x.category')}
            name="category"
            value={v.category || categories[0] || ''}
            options={categories.map((c) => [c, c] as const)}
            onValue={set('category')}
            error={fields.category}
          />
          <TextField
            label={tr('pl.x.amount')}
            name="amount"
            type="number"
            min={0}
            value={v.amount}
            onValue={set('amount')}
            error={fields.amount}
          />
          <DateField
            label={tr('pl.x.spent_on')}
            name="spent_on"
            type="date"
            value={v.spent_on}
            onValue={set('spent_on')}
            error={fields.spent_on}
          />
          <TextField
            label={tr('pl.x.note')}
            name="expense_note"
            value={v.note}
            onValue={set('note')}
            error={fields.note}
          />
          <div class="k-field">
            <label for="pl-receipt">{tr('pl.x.receipt')}</label>
            <input id="pl-receipt" type="file" ref={receipt} />
          </div>
          <button type="submit" class="k-btn" disabled={w.busy}>
            {tr('pl.x.add')}
          </button>
        </form>
      ) : null}
      <FailNotice error={Object.keys(fields).length ? null : w.error} />
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

const Timeline = ({ lead, manage, onChange, tr }: Part) => {
  const [kind, setKind] = useState<string>('note')
  const [body, setBody] = useState('')
  const [older, setOlder] = useState<readonly Activity[]>([])
  const [next, setNext] = useState<number | null>(null)
  const w = useWrite(onChange)
  const items = [...lead.activities, ...older.filter((o) => !lead.activities.some((a) => a.id === o.id))]
  const last = items[items.length - 1]
  useEffect(() => {
    setNext(lead.activities.length >= 30 && last ? last.id : null)
  }, [lead.activities.length])
  const fields = failFields(w.error)
  return (
    <Panel title={tr('pl.timeline')} id="pl-timeline">
      {manage ? (
        <form
          class="k-form"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault()
            if (
              await w.run(() =>
                api.post('/v1/leads/{id}/activities', {
                  path: { id: lead.id },
                  body: { kind: kind as (typeof ACTIVITY_KINDS)[number], body },
                }),
              )
            )
              setBody('')
          }}
        >
          <SelectField
            label={tr('pl.act.kind')}
            name="activity_kind"
            value={kind}
            options={ACTIVITY_KINDS.map((k) => [k, tr(`pl.act.${k}` as TextKey)] as const)}
            onValue={setKind}
          />
          <TextAreaField
            label={tr('pl.act.body')}
            name="activity_body"
            rows={3}
            value={body}
            onValue={setBody}
            error={fields.body}
            hint={tr('pl.act.hint')}
          />
          <FailNotice error={Object.keys(fields).length ? null : w.error} />
          <button type="submit" class="k-btn k-primary" disabled={w.busy}>
            {tr('pl.act.log')}
          </button>
        </form>
      ) : null}
      <ul class="pl-list" data-testid="lead-timeline" style={{ marginTop: '14px' }}>
        {items.map((a) => (
          <li key={a.id}>
            <div>
              <strong>{a.manual ? tr(`pl.act.${a.kind}` as TextKey) : changeText(a, tr)}</strong>
              <span class="pl-when">
                {fullTime(a.happened_at)}
                {a.author ? ` · ${a.author.name}` : ''}
                {a.duration_minutes ? ` · ${tr('pl.minutes', { n: a.duration_minutes })}` : ''}
              </span>
              {a.manual && a.body ? <p class="pl-body">{a.body}</p> : null}
            </div>
            {manage && a.manual && a.mine ? (
              <ConfirmButton
                label={tr('pl.delete')}
                question={tr('pl.delete_activity_q')}
                onConfirm={() =>
                  void w.run(async () => {
                    await api.delete('/v1/lead-activities/{id}', { path: { id: a.id } })
                    setOlder((o) => o.filter((x) => x.id !== a.id))
                  })
                }
              />
            ) : null}
          </li>
        ))}
      </ul>
      {next !== null ? (
        <button
          type="button"
          class="k-btn"
          onClick={async () => {
            const r = await got<Activity[]>(
              api.get('/v1/leads/{id}/activities', {
                path: { id: lead.id },
                query: { before: next } as never,
              }),
            )
            setOlder((o) => [...o, ...r.data])
            const more = r.meta.next_before
            setNext(typeof more === 'number' ? more : null)
          }}
        >
          {tr('pl.older')}
        </button>
      ) : null}
    </Panel>
  )
}

const CHANGES = [
  'created',
  'moved',
  'won',
  'lost',
  'reopened',
  'updated',
  'expense_added',
  'expense_removed',
  'file_added',
  'file_removed',
] as const

/** A recorded change in words ("Moved from New to Qualified"). */
const changeText = (a: Activity, tr: Tr) => {
  const d = a.data ?? {}
  const change = String(d.change ?? '')
  const label = (x: unknown) =>
    x && typeof x === 'object' && 'label' in x ? String((x as { label: unknown }).label) : ''
  if (change === 'moved' || change === 'won' || change === 'lost' || change === 'reopened')
    return tr(`pl.ch.${change}`, { from: label(d.from_stage), to: label(d.to_stage) })
  return (CHANGES as readonly string[]).includes(change)
    ? tr(`pl.ch.${change}` as TextKey, {})
    : tr('pl.ch.other')
}
