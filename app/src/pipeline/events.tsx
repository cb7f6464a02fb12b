import { useState } from 'preact/hooks'
import { FailNotice, Panel, SelectField, TextAreaField, TextField } from '../kit/ui'
import { fullTime } from '../lib/format'
import { Dialog, FormEnd, RowActions } from './common'
import {
  api,
  EVENT_KINDS,
  failFields,
  fromLocalInput,
  type Lead,
  type LeadEvent,
  localInput,
  type TextKey,
  type Tr,
} from './kit'
import { DateField } from './LeadForm'
import { type Part, useWrite } from './write'

/**
 * A lead's events with their reminders (`/leads/{id}/events`, `/lead-events/{id}`): planned,
 * changed in the same dialog (only what changed is sent: a start time left as it was keeps the
 * reminder's state), deleted.
 */
export const Events = ({ lead, manage, onChange, tr }: Part) => {
  const [open, setOpen] = useState<LeadEvent | 'new' | null>(null)
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
              <RowActions
                edit={{ label: tr('pl.edit_x', { name: ev.title }), onEdit: () => setOpen(ev) }}
                question={tr('pl.delete_event_q')}
                onDelete={() => void w.run(() => api.delete('/v1/lead-events/{id}', { path: { id: ev.id } }))}
              />
            ) : null}
          </li>
        ))}
      </ul>
      <FailNotice error={w.error} />
      {manage ? (
        <button type="button" class="k-btn" onClick={() => setOpen('new')}>
          {tr('pl.event_new')}
        </button>
      ) : null}
      {open ? (
        <EventDialog
          lead={lead}
          event={open === 'new' ? null : open}
          onClose={() => setOpen(null)}
          onSaved={onChange}
          tr={tr}
        />
      ) : null}
    </Panel>
  )
}

const REMINDERS = [null, 0, 15, 30, 60, 1440] as const

const EventDialog = (props: {
  lead: Lead
  event: LeadEvent | null
  onClose: () => void
  onSaved: () => Promise<unknown>
  tr: Tr
}) => {
  const { tr, event } = props
  const was = {
    kind: event?.kind ?? 'meeting',
    title: event?.title ?? '',
    starts_at: localInput(event?.starts_at),
    location: event?.location ?? '',
    notes: event?.notes ?? '',
    remind: event ? (event.remind_minutes === null ? '' : String(event.remind_minutes)) : '30',
  }
  const [v, setV] = useState(was)
  const [error, setError] = useState<unknown>(null)
  const set = (k: keyof typeof v) => (x: string) => setV((o) => ({ ...o, [k]: x }))
  const fields = failFields(error)
  const label = tr(event ? 'pl.event_edit' : 'pl.event_new')
  // A reminder set through the API to a time the list lacks stays choosable.
  const reminders: readonly (number | null)[] =
    v.remind !== '' && !(REMINDERS as readonly (number | null)[]).includes(Number(v.remind))
      ? [...REMINDERS, Number(v.remind)]
      : REMINDERS
  const body = {
    kind: v.kind as (typeof EVENT_KINDS)[number],
    title: v.title.trim(),
    starts_at: fromLocalInput(v.starts_at) ?? '',
    location: v.location.trim() || null,
    notes: v.notes.trim() || null,
    remind_minutes: v.remind === '' ? null : Number(v.remind),
  }
  const submit = async (e: Event) => {
    e.preventDefault()
    try {
      if (event) {
        const changed = Object.fromEntries(
          Object.entries(body).filter(([k]) =>
            k === 'remind_minutes'
              ? v.remind !== was.remind
              : v[k as keyof typeof v] !== was[k as keyof typeof was],
          ),
        )
        await api.patch('/v1/lead-events/{id}', { path: { id: event.id }, body: changed })
      } else await api.post('/v1/leads/{id}/events', { path: { id: props.lead.id }, body })
      await props.onSaved()
      props.onClose()
    } catch (x) {
      setError(x)
    }
  }
  return (
    <Dialog label={label} onClose={props.onClose}>
      <h2>{label}</h2>
      <form noValidate onSubmit={submit}>
        <SelectField
          label={tr('pl.ev.kind')}
          name="kind"
          value={v.kind}
          options={EVENT_KINDS.map((k) => [k, tr(`pl.ev.${k}` as TextKey)] as const)}
          onValue={set('kind')}
          error={fields.kind}
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
          options={reminders.map((m) => [m === null ? '' : String(m), remindLabel(m, tr)] as const)}
          onValue={set('remind')}
          error={fields.remind_minutes}
        />
        <TextAreaField
          label={tr('pl.ev.notes')}
          name="notes"
          rows={3}
          value={v.notes}
          onValue={set('notes')}
          error={fields.notes}
        />
        <FormEnd submit={tr(event ? 'pl.save' : 'pl.add')} error={error} onCancel={props.onClose} />
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
