import { type ComponentChildren, Fragment } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { CheckField, FailNotice, Notice, TextAreaField, TextField } from './common'
import { api, failFields, got, useLocale, useTr } from './kit'
import type { AutoReply, Channel, Day, Hours, NumberSettings } from './types'

/**
 * What every channel type shares, edited on its page (`PATCH /channels/{id}`, spec 1 §4.4): the
 * name, business hours (the workspace's, open around the clock, or the channel's own week), and
 * the automatic replies. Each panel saves its own part; a change saved by someone else (the page
 * reloads the channel on `channel.updated`) reaches a form that has not been edited here.
 */

/**
 * A form over a saved value: it follows the saved value while it is unedited, and keeps what the
 * person typed otherwise. `reset` takes the saved value again (after a save).
 */
export const useSynced = <T,>(saved: T) => {
  const [form, setForm] = useState(saved)
  const base = useRef(saved)
  const key = JSON.stringify(saved)
  // `key` stands for `saved`, compared by value: a reload with the same settings changes nothing.
  useEffect(() => {
    const was = JSON.stringify(base.current)
    base.current = saved
    setForm((f) => (JSON.stringify(f) === was ? saved : f))
  }, [key])
  return [form, setForm, () => setForm(saved)] as const
}

/** A panel's save: busy, the failure (its per-field messages), and "Saved." after success. */
export const useSave = (
  send: (body: Record<string, unknown>) => Promise<Channel>,
  onSaved: (c: Channel) => void,
) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  const save = async (body: Record<string, unknown>, after?: () => void) => {
    setBusy(true)
    setError(null)
    setDone(false)
    try {
      onSaved(await send(body))
      after?.()
      setDone(true)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, fields: failFields(error), done, save }
}

/** `PATCH /channels/{id}`: the settings every type has. */
const patchCommon = (id: number) => async (body: Record<string, unknown>) =>
  (await got<Channel>(api.patch('/v1/channels/{id}', { path: { id }, body }))).data

/** A panel that is a form of its own: its heading, what it is for, its fields, its save. */
export const PanelForm = (props: {
  id: string
  title: string
  hint?: string
  testId?: string
  saveLabel: string
  state: ReturnType<typeof useSave>
  onSubmit: () => void
  children: ComponentChildren
}) => {
  const tr = useTr()
  return (
    <form
      class={`k-form k-panel ${props.id}`}
      aria-labelledby={props.id}
      data-testid={props.testId}
      onSubmit={(e) => {
        e.preventDefault()
        props.onSubmit()
      }}
    >
      <h2 id={props.id}>{props.title}</h2>
      {props.hint ? <p class="k-muted">{props.hint}</p> : null}
      {props.children}
      <FailNotice error={props.state.error} />
      {props.state.done ? <Notice kind="ok">{tr('ch.saved')}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={props.state.busy}>
        {props.saveLabel}
      </button>
    </form>
  )
}

const NamePanel = ({ channel, onSaved }: { channel: Channel; onSaved: (c: Channel) => void }) => {
  const tr = useTr()
  const [name, setName, reset] = useSynced(channel.name)
  const s = useSave(patchCommon(channel.id), onSaved)
  return (
    <PanelForm
      id="chs-name"
      testId="channel-name"
      title={tr('ch.set.name_title')}
      saveLabel={tr('ch.set.save_name')}
      state={s}
      onSubmit={() => void s.save({ name }, reset)}
    >
      <TextField
        label={tr('ch.name')}
        name="name"
        value={name}
        onValue={setName}
        error={s.fields.name}
        maxLength={100}
        required
      />
    </PanelForm>
  )
}

// ---- Business hours --------------------------------------------------------------------------

type HoursMode = 'workspace' | 'always' | 'own'
interface HoursForm {
  readonly mode: HoursMode
  readonly days: readonly Day[]
}

/** A new week of own hours: Monday to Friday, nine to five. */
const standardDay = (day: number): Day => ({ day, open: day <= 5, from: '09:00', to: '17:00' })
const WEEK = [1, 2, 3, 4, 5, 6, 7] as const

const hoursForm = (hours: Hours | null): HoursForm => ({
  mode: hours === null ? 'workspace' : hours.enabled ? 'own' : 'always',
  // Every day once, Monday first; a day the object leaves out is closed.
  days: WEEK.map((d) =>
    hours === null
      ? standardDay(d)
      : (hours.days.find((x) => x.day === d) ?? { day: d, open: false, from: '09:00', to: '17:00' }),
  ),
})

const hoursBody = (f: HoursForm): Hours | null =>
  f.mode === 'workspace' ? null : { enabled: f.mode === 'own', days: f.days }

/** The day's name in the page's language (1 = Monday: 1 January 2024 was one). */
const dayName = (day: number, locale: string) =>
  new Date(Date.UTC(2024, 0, day)).toLocaleDateString(locale === 'id' ? 'id-ID' : 'en-GB', {
    weekday: 'long',
    timeZone: 'UTC',
  })

const TimeInput = (props: {
  label: string
  name: string
  value: string
  error: string | undefined
  onValue: (v: string) => void
}) => {
  const errId = `${props.name}-err`
  return (
    <span class={`chs-time${props.error ? ' k-invalid' : ''}`}>
      <input
        name={props.name}
        aria-label={props.label}
        inputMode="numeric"
        placeholder="09:00"
        maxLength={5}
        autoComplete="off"
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? errId : undefined}
        onInput={(e) => props.onValue(e.currentTarget.value.trim())}
      />
      {props.error ? (
        <small id={errId} class="k-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </span>
  )
}

const HoursPanel = ({ channel, onSaved }: { channel: Channel; onSaved: (c: Channel) => void }) => {
  const tr = useTr()
  const locale = useLocale()
  const [form, setForm, reset] = useSynced(hoursForm(channel.hours))
  const s = useSave(patchCommon(channel.id), onSaved)
  const setDay = (i: number, change: Partial<Day>) =>
    setForm((f) => ({ ...f, days: f.days.map((d, j) => (j === i ? { ...d, ...change } : d)) }))
  const modes: readonly (readonly [HoursMode, string])[] = [
    ['workspace', tr('ch.set.hours_workspace')],
    ['always', tr('ch.set.hours_always')],
    ['own', tr('ch.set.hours_own')],
  ]
  return (
    <PanelForm
      id="chs-hours"
      testId="channel-hours"
      title={tr('ch.set.hours_title')}
      hint={tr('ch.set.hours_hint')}
      saveLabel={tr('ch.set.save_hours')}
      state={s}
      onSubmit={() => void s.save({ hours: hoursBody(form) }, reset)}
    >
      <fieldset class="k-fieldset">
        <legend>{tr('ch.set.hours_which')}</legend>
        {modes.map(([mode, label]) => (
          <label key={mode} class="k-check">
            <input
              type="radio"
              name="hours_mode"
              value={mode}
              checked={form.mode === mode}
              onChange={() => setForm((f) => ({ ...f, mode }))}
            />
            {label}
          </label>
        ))}
      </fieldset>
      {form.mode === 'own' ? (
        <fieldset class="k-fieldset chs-week" data-testid="week">
          <legend>{tr('ch.set.week')}</legend>
          <p class="k-hint">{tr('ch.set.week_hint')}</p>
          {form.days.map((d, i) => {
            const name = dayName(d.day, locale)
            const key = `hours.days.${i}`
            return (
              <div key={d.day} class="chs-day" data-day={d.day}>
                <label class="k-check chs-day-name">
                  <input
                    type="checkbox"
                    name={`open_${d.day}`}
                    checked={d.open}
                    onChange={(e) => setDay(i, { open: e.currentTarget.checked })}
                  />
                  {name}
                </label>
                {d.open ? (
                  <span class="chs-day-times">
                    <TimeInput
                      label={tr('ch.set.opens', { day: name })}
                      name={`from_${d.day}`}
                      value={d.from}
                      error={s.fields[`${key}.from`]}
                      onValue={(from) => setDay(i, { from })}
                    />
                    <span aria-hidden="true">–</span>
                    <TimeInput
                      label={tr('ch.set.closes', { day: name })}
                      name={`to_${d.day}`}
                      value={d.to}
                      error={s.fields[`${key}.to`] ?? s.fields[key]}
                      onValue={(to) => setDay(i, { to })}
                    />
                  </span>
                ) : (
                  <span class="k-muted chs-day-times">{tr('ch.set.closed')}</span>
                )}
              </div>
            )
          })}
          {s.fields['hours.days'] ? <small class="k-error">{s.fields['hours.days']}</small> : null}
        </fieldset>
      ) : null}
    </PanelForm>
  )
}

// ---- Automatic replies -----------------------------------------------------------------------

const awayWhen = (hours: Hours | null) =>
  hours === null ? 'ch.set.away_workspace' : hours.enabled ? 'ch.set.away_own' : 'ch.set.away_never'

/** Each reply: its switch, its text, and when it goes out (the away message's: by the hours). */
const REPLIES = [
  ['greeting', 'ch.set.greeting_on', 'ch.set.greeting', 'ch.set.greeting_when'],
  ['away', 'ch.set.away_on', 'ch.set.away', null],
] as const

const RepliesPanel = ({ channel, onSaved }: { channel: Channel; onSaved: (c: Channel) => void }) => {
  const tr = useTr()
  const [form, setForm, reset] = useSynced<AutoReply>(channel.auto_reply)
  const s = useSave(patchCommon(channel.id), onSaved)
  const set =
    <K extends keyof AutoReply>(k: K) =>
    (v: AutoReply[K]) =>
      setForm((f) => ({ ...f, [k]: v }))
  return (
    <PanelForm
      id="chs-replies"
      testId="channel-replies"
      title={tr('ch.set.replies_title')}
      hint={tr('ch.set.replies_hint')}
      saveLabel={tr('ch.set.save_replies')}
      state={s}
      onSubmit={() => void s.save({ auto_reply: form }, reset)}
    >
      {REPLIES.map(([kind, on, label, when]) => (
        <Fragment key={kind}>
          <CheckField
            name={`${kind}_on`}
            label={tr(on)}
            checked={form[`${kind}_on`]}
            onValue={set(`${kind}_on`)}
          />
          <TextAreaField
            label={tr(label)}
            name={kind}
            rows={3}
            maxLength={1000}
            value={form[kind]}
            onValue={set(kind)}
            error={s.fields[`auto_reply.${kind}`]}
            hint={tr(when ?? awayWhen(channel.hours))}
          />
        </Fragment>
      ))}
    </PanelForm>
  )
}

// ---- A number's own --------------------------------------------------------------------------

const NumberPanel = ({ channel, onSaved }: { channel: Channel; onSaved: (c: Channel) => void }) => {
  const tr = useTr()
  const [form, setForm, reset] = useSynced<NumberSettings>(
    channel.msgapp ?? { groups: true, reject_calls: false, call_reply: '', agent_initial: true },
  )
  const s = useSave(patchCommon(channel.id), onSaved)
  const set =
    <K extends keyof NumberSettings>(k: K) =>
    (v: NumberSettings[K]) =>
      setForm((f) => ({ ...f, [k]: v }))
  return (
    <PanelForm
      id="chs-number"
      testId="channel-number"
      title={tr('ch.set.number_title')}
      saveLabel={tr('ch.set.save_number')}
      state={s}
      onSubmit={() => void s.save({ ...form }, reset)}
    >
      <CheckField name="groups" label={tr('ch.set.groups')} checked={form.groups} onValue={set('groups')} />
      <CheckField
        name="agent_initial"
        label={tr('ch.set.agent_initial')}
        checked={form.agent_initial}
        onValue={set('agent_initial')}
      />
      <CheckField
        name="reject_calls"
        label={tr('ch.set.reject_calls')}
        checked={form.reject_calls}
        onValue={set('reject_calls')}
      />
      {form.reject_calls ? (
        <TextAreaField
          label={tr('ch.set.call_reply')}
          name="call_reply"
          rows={2}
          maxLength={1000}
          value={form.call_reply}
          onValue={set('call_reply')}
          error={s.fields.call_reply}
          hint={tr('ch.set.call_reply_hint')}
        />
      ) : null}
    </PanelForm>
  )
}

/** The settings every channel type has, under the type's own page. */
export const CommonSettings = (props: { channel: Channel; onSaved: (c: Channel) => void }) => (
  <div class="k-stack chs-settings">
    <NamePanel {...props} />
    {props.channel.type === 'msgapp' ? <NumberPanel {...props} /> : null}
    <HoursPanel {...props} />
    <RepliesPanel {...props} />
  </div>
)
