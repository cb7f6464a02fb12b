import { useEffect, useState } from 'preact/hooks'
import {
  type CustomDef,
  CustomFieldInput,
  type CustomInputValue,
  type CustomValue,
  customBodyValue,
  customInput,
} from '../kit/customFields'
import { FailNotice, SelectField, TextAreaField, TextField } from '../kit/ui'
import { Duplicates } from './duplicates'
import {
  api,
  type Candidate,
  failFields,
  fromLocalInput,
  got,
  type Lead,
  localInput,
  useTr,
  type Workflow,
} from './kit'

/**
 * A lead's fields (spec 2 §2) for `POST /leads` and `PATCH /leads/{id}`: a new lead also names its
 * workflow and its contact (found by phone, then e-mail, else created; the contact's open leads in
 * the workflow are shown before saving) and a client by name (found or created); an empty amount
 * or date clears it. The workspace's lead custom fields follow, by their type (a lead being changed
 * brings them with its values; a new one asks `GET /custom-fields?entity=lead`); only the values
 * changed are sent.
 */
export const LeadForm = (props: {
  lead?: Lead & { readonly custom_fields?: readonly CustomValue[] }
  workflowId?: number | null
  onSaved: (lead: Lead | null) => void
  onCancel: () => void
}) => {
  const tr = useTr()
  const l = props.lead
  const [workflows, setWorkflows] = useState<readonly Workflow[]>([])
  const [people, setPeople] = useState<readonly Candidate[]>([])
  const [v, setV] = useState({
    title: l?.title ?? '',
    pipeline_id: props.workflowId ? String(props.workflowId) : '',
    contact_name: '',
    contact_phone: '',
    contact_email: '',
    client_name: l?.client?.name ?? '',
    value_estimate: l?.value_estimate === null || l === undefined ? '' : String(l.value_estimate),
    budget: l?.budget === null || l === undefined ? '' : String(l.budget),
    expected_close: l?.expected_close ?? '',
    followup_at: localInput(l?.followup_at),
    followup_note: l?.followup_note ?? '',
    assignee_id: l?.assignee_id ? String(l.assignee_id) : '',
    note: l?.note ?? '',
  })
  const [defs, setDefs] = useState<readonly CustomDef[]>(l?.custom_fields ?? [])
  const [custom, setCustom] = useState<Readonly<Record<string, CustomInputValue>>>(() =>
    Object.fromEntries((l?.custom_fields ?? []).map((f) => [f.key, customInput(f, f.value)])),
  )
  const [duplicates, setDuplicates] = useState(0)
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  useEffect(() => {
    if (!l)
      void got<CustomDef[]>(api.get('/v1/custom-fields', { query: { entity: 'lead' } as never })).then(
        (r) => setDefs(r.data),
        () => null,
      )
    if (!l)
      void got<Workflow[]>(api.get('/v1/pipelines')).then(
        (r) => {
          setWorkflows(r.data)
          setV((x) => (x.pipeline_id || !r.data[0] ? x : { ...x, pipeline_id: String(r.data[0].id) }))
        },
        () => null,
      )
    void got<Candidate[]>(api.get('/v1/leads/candidates')).then(
      (r) => setPeople(r.data),
      () => null,
    )
  }, [])
  const set = (k: keyof typeof v) => (x: string) => setV((o) => ({ ...o, [k]: x }))
  const amount = (s: string) => (s.trim() === '' ? null : Number(s))
  const fields = failFields(error)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    // Only the custom values changed (all those filled in for a new lead).
    const was = (d: CustomDef) => customInput(d, l?.custom_fields?.find((f) => f.key === d.key)?.value)
    const customChanged = defs.filter((d) => (custom[d.key] ?? customInput(d, null)) !== was(d))
    const common = {
      ...(customChanged.length > 0
        ? { custom: Object.fromEntries(customChanged.map((d) => [d.key, customBodyValue(d, custom[d.key])])) }
        : {}),
      title: v.title.trim(),
      value_estimate: amount(v.value_estimate),
      budget: amount(v.budget),
      expected_close: v.expected_close || null,
      followup_at: fromLocalInput(v.followup_at),
      followup_note: v.followup_note.trim() || null,
      assignee_id: v.assignee_id ? Number(v.assignee_id) : null,
      note: v.note.trim() || null,
      ...(v.client_name.trim() && v.client_name.trim() !== l?.client?.name
        ? { client_name: v.client_name.trim() }
        : {}),
    }
    try {
      if (l) {
        // Only what changed: a follow-up left as it was is not cleared (`followup_at: null` clears
        // the note with it), an owner left as it was is not re-assigned.
        const before: Record<string, unknown> = {
          title: l.title,
          value_estimate: l.value_estimate,
          budget: l.budget,
          expected_close: l.expected_close,
          followup_at: l.followup_at,
          followup_note: l.followup_note,
          assignee_id: l.assignee_id,
          note: l.note,
        }
        const changed = Object.fromEntries(
          Object.entries(common).filter(([k, x]) =>
            k === 'followup_at'
              ? localInput(l.followup_at) !== v.followup_at
              : k === 'client_name' || k === 'custom' || x !== before[k],
          ),
        )
        const r = await got<Lead | { visible: false }>(
          api.patch('/v1/leads/{id}', { path: { id: l.id }, body: changed }),
        )
        props.onSaved('visible' in r.data ? null : r.data)
      } else {
        const contact = {
          ...(v.contact_name.trim() ? { name: v.contact_name.trim() } : {}),
          ...(v.contact_phone.trim() ? { phone: v.contact_phone.trim() } : {}),
          ...(v.contact_email.trim() ? { email: v.contact_email.trim() } : {}),
        }
        const r = await got<Lead>(
          api.post('/v1/leads', {
            body: {
              ...common,
              ...(v.pipeline_id ? { pipeline_id: Number(v.pipeline_id) } : {}),
              ...(Object.keys(contact).length > 0 ? { contact } : {}),
            },
          }),
        )
        props.onSaved(r.data)
      }
    } catch (x) {
      setError(x)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="k-form k-panel" onSubmit={submit} noValidate data-testid="lead-form">
      <TextField
        label={tr('pl.f.title')}
        name="title"
        value={v.title}
        onValue={set('title')}
        error={fields.title}
        required
        maxLength={200}
      />
      {l ? null : (
        <>
          <SelectField
            label={tr('pl.workflow')}
            name="pipeline_id"
            value={v.pipeline_id}
            options={workflows.map((w) => [String(w.id), w.name] as const)}
            onValue={set('pipeline_id')}
            error={fields.pipeline_id}
          />
          <fieldset class="k-fieldset">
            <legend>{tr('pl.f.contact')}</legend>
            <TextField
              label={tr('pl.f.contact_name')}
              name="contact_name"
              value={v.contact_name}
              onValue={set('contact_name')}
              error={fields['contact.name']}
            />
            <TextField
              label={tr('pl.f.contact_phone')}
              name="contact_phone"
              type="tel"
              value={v.contact_phone}
              onValue={set('contact_phone')}
              error={fields['contact.phone']}
            />
            <TextField
              label={tr('pl.f.contact_email')}
              name="contact_email"
              type="email"
              value={v.contact_email}
              onValue={set('contact_email')}
              error={fields['contact.email']}
            />
          </fieldset>
          <Duplicates
            pipelineId={v.pipeline_id ? Number(v.pipeline_id) : null}
            phone={v.contact_phone}
            email={v.contact_email}
            onFound={setDuplicates}
          />
        </>
      )}
      <TextField
        label={tr('pl.f.client')}
        name="client_name"
        value={v.client_name}
        onValue={set('client_name')}
        error={fields.client_name ?? fields.client_id}
        hint={tr('pl.f.client_hint')}
      />
      <div class="k-grid3eq">
        <TextField
          label={tr('pl.f.value_estimate')}
          name="value_estimate"
          type="number"
          min={0}
          value={v.value_estimate}
          onValue={set('value_estimate')}
          error={fields.value_estimate}
        />
        <TextField
          label={tr('pl.f.budget')}
          name="budget"
          type="number"
          min={0}
          value={v.budget}
          onValue={set('budget')}
          error={fields.budget}
        />
        <DateField
          label={tr('pl.f.expected_close')}
          name="expected_close"
          type="date"
          value={v.expected_close}
          onValue={set('expected_close')}
          error={fields.expected_close}
        />
      </div>
      <SelectField
        label={tr('pl.f.assignee')}
        name="assignee_id"
        value={v.assignee_id}
        options={[['', tr('pl.nobody')], ...people.map((p) => [String(p.id), p.name] as const)]}
        onValue={set('assignee_id')}
        error={fields.assignee_id}
      />
      <div class="k-grid3eq">
        <DateField
          label={tr('pl.f.followup_at')}
          name="followup_at"
          type="datetime-local"
          value={v.followup_at}
          onValue={set('followup_at')}
          error={fields.followup_at}
        />
      </div>
      <TextField
        label={tr('pl.f.followup_note')}
        name="followup_note"
        value={v.followup_note}
        onValue={set('followup_note')}
        error={fields.followup_note}
      />
      <TextAreaField
        label={tr('pl.f.note')}
        name="note"
        value={v.note}
        onValue={set('note')}
        error={fields.note}
        rows={3}
      />
      {defs.length > 0 ? (
        <fieldset class="k-fieldset pl-custom" data-testid="lead-custom-fields">
          <legend>{tr('pl.f.custom')}</legend>
          {defs.map((d) => (
            <CustomFieldInput
              key={d.key}
              def={d}
              value={custom[d.key]}
              error={fields[`custom.${d.key}`]}
              onValue={(x) => setCustom((c) => ({ ...c, [d.key]: x }))}
            />
          ))}
        </fieldset>
      ) : null}
      <FailNotice error={error} />
      <div class="k-row">
        <button type="submit" class="k-btn k-primary" disabled={busy}>
          {l ? tr('pl.save') : duplicates > 0 ? tr('pl.create_anyway') : tr('pl.create')}
        </button>
        <button type="button" class="k-btn" onClick={props.onCancel}>
          {tr('pl.cancel')}
        </button>
      </div>
    </form>
  )
}

/** A date or date-time input with its label and the server's message. */
export const DateField = (props: {
  label: string
  name: string
  type: 'date' | 'datetime-local'
  value: string
  onValue: (v: string) => void
  error?: string | undefined
}) => {
  const id = `pl-${props.name}`
  return (
    <div class={`k-field${props.error ? ' k-invalid' : ''}`}>
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? `${id}-err` : undefined}
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
      {props.error ? (
        <small id={`${id}-err`} class="k-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </div>
  )
}
