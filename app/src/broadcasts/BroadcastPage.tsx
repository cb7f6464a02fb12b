import { useEffect, useRef, useState } from 'preact/hooks'
import { failFields } from '../kit'
import {
  CheckField,
  ConfirmButton,
  FailNotice,
  Field,
  ListState,
  Notice,
  SelectField,
  TextField,
} from '../kit/ui'
import { navigate } from '../lib/router'
import { ContactPicks } from './ContactPicks'
import { ActionFailure, Progress, StatusBadge } from './common'
import {
  ApiError,
  api,
  at,
  type Broadcast,
  can,
  duration,
  type Estimate,
  got,
  handled,
  type LabelItem,
  Link,
  num,
  type Options,
  OUTCOMES,
  type PageProps,
  type Recipient,
  type Risk,
  SKIPS,
  type Tr,
  textOr,
  useCall,
  useLocale,
  useTr,
  useWorkspaceEvents,
} from './kit'
import { ensureStyles } from './styles'

/**
 * `/broadcasts/:id`. A draft: its editor (name, number, audience of segments and labels, up to 5
 * message variants with a live preview for sample contacts, an attachment, the sending settings),
 * the estimate of the saved draft (recipients after skips, quota, finish time, risk with its
 * reasons), a test send, and the schedule with the risk acknowledgement. Once scheduled: its live
 * progress (`broadcasts.changed` reloads it, about once a second while it sends), pause, resume,
 * cancel, resend the failed, back to draft, and the per-recipient outcomes with their messages.
 */
export default function BroadcastPage({ params }: PageProps) {
  ensureStyles()
  const tr = useTr()
  const id = Number(params.id)
  const [b, setB] = useState<Broadcast | null>(null)
  const [missing, setMissing] = useState<'missing' | 'gone' | null>(null)
  const [options, setOptions] = useState<Options | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [tick, setTick] = useState(0)
  const acting = useCall()

  const load = async () => {
    if (!Number.isInteger(id) || id < 1) return setMissing('missing')
    try {
      const r = await got<Broadcast>(api.get('/v1/broadcasts/{id}', { path: { id } }))
      setB(r.data)
      setError(null)
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setMissing((m) => (m ? m : 'missing'))
      else setError(e)
    }
  }
  useEffect(() => {
    setB(null)
    setMissing(null)
    void load()
    got<Options>(api.get('/v1/broadcasts/options'))
      .then((r) => setOptions(r.data))
      .catch(setError)
  }, [params.id])
  const loadRef = useRef(load)
  loadRef.current = load
  useWorkspaceEvents(['broadcasts.changed'], (d) => {
    if (d.broadcast_id !== undefined && d.broadcast_id !== id) return
    if (d.reason === 'deleted') return setMissing('gone')
    void loadRef.current()
    setTick((n) => n + 1)
  })

  if (missing)
    return (
      <div class="k-page">
        <Link class="k-back" to="/broadcasts">
          ← {tr('bc.back')}
        </Link>
        <Notice kind="bad">{missing === 'gone' ? tr('bc.gone') : tr('bc.not_found')}</Notice>
      </div>
    )
  if (!b)
    return (
      <div class="k-page">
        <FailNotice error={error} />
        {error ? null : <p class="k-muted">{tr('bc.loading')}</p>}
      </div>
    )

  const act = (name: 'pause' | 'resume' | 'cancel' | 'retry' | 'unschedule') =>
    acting.run(async () => {
      const r = await got<Broadcast>(api.post(`/v1/broadcasts/{id}/${name}`, { path: { id } }))
      setB(r.data)
    })
  const duplicate = () =>
    acting.run(async () => {
      const r = await got<Broadcast>(api.post('/v1/broadcasts/{id}/duplicate', { path: { id } }))
      navigate(`/broadcasts/${r.data.id}`)
    })
  const manage = can('broadcasts.manage')
  const isDraft = b.status === 'draft'

  return (
    <div class="k-page" data-testid="broadcast">
      <Link class="k-back" to="/broadcasts">
        ← {tr('bc.back')}
      </Link>
      <div class="k-head">
        <h1>{b.name}</h1>
        <StatusBadge status={b.status} tr={tr} />
        {manage ? (
          <div class="bc-actions">
            {b.can.pause ? (
              <button type="button" class="k-btn" disabled={acting.busy} onClick={() => void act('pause')}>
                {tr('bc.pause')}
              </button>
            ) : null}
            {b.can.resume ? (
              <button
                type="button"
                class="k-btn k-primary"
                disabled={acting.busy}
                onClick={() => void act('resume')}
              >
                {tr('bc.resume')}
              </button>
            ) : null}
            {b.can.retry ? (
              <button type="button" class="k-btn" disabled={acting.busy} onClick={() => void act('retry')}>
                {tr('bc.retry', { n: b.counts.failed })}
              </button>
            ) : null}
            {b.can.unschedule ? (
              <button
                type="button"
                class="k-btn"
                disabled={acting.busy}
                onClick={() => void act('unschedule')}
              >
                {tr('bc.unschedule')}
              </button>
            ) : null}
            {b.can.cancel ? (
              <ConfirmButton
                label={tr('bc.cancel')}
                question={tr('bc.cancel_q')}
                onConfirm={async () => void (await act('cancel'))}
              />
            ) : null}
            <button type="button" class="k-btn" disabled={acting.busy} onClick={() => void duplicate()}>
              {tr('bc.duplicate')}
            </button>
            {b.can.delete ? (
              <ConfirmButton
                label={tr('bc.delete')}
                question={tr('bc.delete_q')}
                onConfirm={async () => {
                  const ok = await acting.run(() => api.delete('/v1/broadcasts/{id}', { path: { id } }))
                  if (ok) navigate('/broadcasts', true)
                }}
              />
            ) : null}
          </div>
        ) : null}
      </div>
      <ActionFailure error={acting.error} />
      <FailNotice error={error} />
      {options && !options.plan_allows && isDraft ? <Notice kind="info">{tr('bc.plan')}</Notice> : null}
      {isDraft && manage && options ? (
        <DraftEditor b={b} options={options} onSaved={setB} />
      ) : isDraft ? (
        <DraftSummary b={b} />
      ) : (
        <RunView b={b} tick={tick} />
      )}
    </div>
  )
}

// ---- The draft ------------------------------------------------------------------------------

/** `YYYY-MM-DDTHH:mm` in the browser's zone, as a datetime-local input holds it. */
const localInput = (iso: string | null) => {
  if (!iso) return ''
  const d = new Date(iso)
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

interface Form {
  readonly name: string
  readonly channel: string
  readonly segments: readonly number[]
  readonly labels: readonly number[]
  readonly contacts: readonly number[]
  readonly messages: readonly { readonly text: string; readonly footer: string }[]
  readonly pace: string
  readonly delay: string
  readonly cap: string
  readonly recent: string
  readonly quiet: boolean
  readonly quietFrom: string
  readonly quietTo: string
  readonly sendAt: string
}

const formOf = (b: Broadcast): Form => ({
  name: b.name,
  channel: b.channel_id === null ? '' : String(b.channel_id),
  segments: b.audience.segment_ids,
  labels: b.audience.label_ids,
  contacts: b.audience.contact_ids,
  messages: b.messages.length > 0 ? b.messages.map((m) => ({ text: m.text, footer: m.footer ?? '' })) : [],
  pace: String(b.settings.pace_per_minute),
  delay: String(b.settings.random_delay_seconds),
  cap: String(b.settings.daily_cap),
  recent: String(b.settings.skip_recent_hours),
  quiet: b.settings.quiet_hours !== null,
  quietFrom: b.settings.quiet_hours?.from ?? '21:00',
  quietTo: b.settings.quiet_hours?.to ?? '08:00',
  sendAt: localInput(b.settings.send_at),
})

const bodyOf = (f: Form) => ({
  name: f.name.trim(),
  channel_id: f.channel ? Number(f.channel) : null,
  audience: { segment_ids: [...f.segments], label_ids: [...f.labels], contact_ids: [...f.contacts] },
  messages: f.messages
    .filter((m) => m.text.trim() !== '')
    .map((m) => ({ text: m.text, ...(m.footer.trim() ? { footer: m.footer } : {}) })),
  settings: {
    pace_per_minute: Number(f.pace),
    random_delay_seconds: Number(f.delay),
    daily_cap: Number(f.cap),
    skip_recent_hours: Number(f.recent),
    quiet_hours: f.quiet ? { from: f.quietFrom, to: f.quietTo } : null,
    send_at: f.sendAt ? new Date(f.sendAt).toISOString() : null,
  },
})

const NumberInput = (props: {
  label: string
  name: string
  value: string
  onValue: (v: string) => void
  min: number
  max: number
  error?: string | undefined
}) => (
  <TextField
    label={props.label}
    name={props.name}
    type="number"
    inputMode="numeric"
    min={props.min}
    max={props.max}
    value={props.value}
    onValue={props.onValue}
    error={props.error}
  />
)

const DraftEditor = (props: { b: Broadcast; options: Options; onSaved: (b: Broadcast) => void }) => {
  const tr = useTr()
  const { b, options } = props
  const [form, setForm] = useState<Form>(() => formOf(b))
  const [dirty, setDirty] = useState(false)
  const [savedNote, setSavedNote] = useState(false)
  const [labels, setLabels] = useState<readonly LabelItem[]>([])
  const [estimate, setEstimate] = useState<Estimate | null>(null)
  const [estimating, setEstimating] = useState(false)
  const saving = useCall()
  const estimateCall = useCall()
  const file = useCall()

  useEffect(() => {
    got<LabelItem[]>(api.get('/v1/labels'))
      .then((r) => setLabels(r.data))
      .catch(() => undefined)
  }, [])
  const reestimate = async () => {
    setEstimating(true)
    await estimateCall.run(async () => {
      const r = await got<Estimate>(api.post('/v1/broadcasts/{id}/estimate', { path: { id: b.id } }))
      setEstimate(r.data)
    })
    setEstimating(false)
  }
  // The estimate follows the saved draft: after each save (counted: a save in the same instant
  // as the one before, as on a server whose clock stands still, leaves updated_at as it was),
  // and when another person changes it.
  const [saves, setSaves] = useState(0)
  useEffect(() => void reestimate(), [b.updated_at, saves])
  useEffect(() => {
    if (!dirty) setForm(formOf(b))
  }, [b.updated_at])

  const change = (patch: Partial<Form>) => {
    setForm({ ...form, ...patch })
    setDirty(true)
    setSavedNote(false)
  }
  const toggle = (list: readonly number[], v: number, on: boolean) =>
    on ? [...list.filter((x) => x !== v), v] : list.filter((x) => x !== v)

  const save = async (e?: Event) => {
    e?.preventDefault()
    const ok = await saving.run(async () => {
      const r = await got<Broadcast>(
        api.patch('/v1/broadcasts/{id}', { path: { id: b.id }, body: bodyOf(form) }),
      )
      setDirty(false)
      props.onSaved(r.data)
      setSaves((n) => n + 1)
    })
    setSavedNote(ok)
  }

  const upload = (f: File) =>
    file.run(async () => {
      const data = new FormData()
      data.append('file', f)
      const r = await got<Broadcast>(
        api.post('/v1/broadcasts/{id}/media', { path: { id: b.id }, body: data }),
      )
      props.onSaved(r.data)
    })
  const detach = () =>
    file.run(async () => {
      const r = await got<Broadcast>(api.delete('/v1/broadcasts/{id}/media', { path: { id: b.id } }))
      props.onSaved(r.data)
    })

  const f = saving.fields
  const messages = form.messages.length > 0 ? form.messages : [{ text: '', footer: '' }]
  const setMessage = (i: number, patch: Partial<{ text: string; footer: string }>) =>
    change({ messages: messages.map((m, j) => (j === i ? { ...m, ...patch } : m)) })
  const maxVariants = options.limits.max_variants ?? 5
  const number = options.numbers.find((n) => String(n.id) === form.channel)

  return (
    <div class="bc-cols">
      <form class="k-panel k-form" onSubmit={save} data-testid="broadcast-form" aria-label={tr('bc.title')}>
        <TextField
          label={tr('bc.name')}
          name="name"
          value={form.name}
          onValue={(name) => change({ name })}
          maxLength={120}
          required
          error={f.name}
        />
        <SelectField
          label={tr('bc.number')}
          name="channel"
          value={form.channel}
          options={[
            ['', tr('bc.choose_number')],
            ...options.numbers.map(
              (n) => [String(n.id), `${n.name}${n.phone ? ` (${n.phone})` : ''}`] as const,
            ),
          ]}
          onValue={(channel) => change({ channel })}
          error={f.channel_id}
        />
        {number?.warmup ? (
          <p class="k-hint">{textOr(tr, 'bc.rr.new_number', '')}</p>
        ) : options.numbers.length === 0 ? (
          <p class="k-hint">
            {tr('bc.no_numbers')} <Link to="/channels">{tr('bc.channels')}</Link>
          </p>
        ) : null}
        <h2>{tr('bc.audience')}</h2>
        <p class="k-hint">{tr('bc.audience_hint')}</p>
        <fieldset class="bc-picks" data-testid="audience-segments">
          <legend>{tr('bc.audience_segments')}</legend>
          {options.segments.length === 0 ? (
            <p class="k-muted">
              {tr('bc.no_segments')} <Link to="/broadcasts/segments/new">{tr('bc.build_segment')}</Link>
            </p>
          ) : (
            options.segments.map((s) => (
              <CheckField
                key={s.id}
                name="segment"
                label={`${s.name} · ${tr('bc.members', { n: s.last_count })}`}
                checked={form.segments.includes(s.id)}
                onValue={(on) => change({ segments: toggle(form.segments, s.id, on) })}
              />
            ))
          )}
          {f['audience.segment_ids'] ? <small class="k-error">{f['audience.segment_ids']}</small> : null}
        </fieldset>
        {labels.length > 0 ? (
          <fieldset class="bc-picks">
            <legend>{tr('bc.audience_labels')}</legend>
            {labels.map((l) => (
              <CheckField
                key={l.id}
                name="label"
                label={l.name}
                checked={form.labels.includes(l.id)}
                onValue={(on) => change({ labels: toggle(form.labels, l.id, on) })}
              />
            ))}
          </fieldset>
        ) : null}
        {can('contacts.view') ? (
          <ContactPicks
            ids={form.contacts}
            onIds={(contacts) => change({ contacts })}
            error={f['audience.contact_ids']}
          />
        ) : null}
        <h2>{tr('bc.messages')}</h2>
        <p class="k-hint">
          {tr('bc.variants_hint', { vars: options.variables.map((v) => v.token).join(' ') })}
        </p>
        {messages.map((m, i) => (
          <div class="bc-variant" key={i}>
            <div class="bc-variant-head">
              <span>{tr('bc.variant', { n: i + 1 })}</span>
              {messages.length > 1 ? (
                <button
                  type="button"
                  class="k-btn"
                  onClick={() => change({ messages: messages.filter((_, j) => j !== i) })}
                >
                  ✕<span class="sr-only"> {tr('bc.remove_variant', { n: i + 1 })}</span>
                </button>
              ) : null}
            </div>
            <Field label={tr('bc.text', { n: i + 1 })} error={f[`messages.${i}.text`]}>
              {(fid, described) => (
                <textarea
                  id={fid}
                  name={`text-${i}`}
                  rows={4}
                  maxLength={options.limits.max_text_length ?? 4096}
                  class="k-prose"
                  value={m.text}
                  aria-describedby={described}
                  onInput={(e) => setMessage(i, { text: e.currentTarget.value })}
                />
              )}
            </Field>
            <TextField
              label={tr('bc.footer', { n: i + 1 })}
              name={`footer-${i}`}
              value={m.footer}
              maxLength={options.limits.max_footer_length ?? 200}
              onValue={(footer) => setMessage(i, { footer })}
              error={f[`messages.${i}.footer`]}
            />
          </div>
        ))}
        {messages.length < maxVariants ? (
          <button
            type="button"
            class="k-btn"
            onClick={() => change({ messages: [...messages, { text: '', footer: '' }] })}
          >
            {tr('bc.add_variant')}
          </button>
        ) : null}
        <h2>{tr('bc.attachment')}</h2>
        {b.attachment ? (
          <div class="k-row">
            <a href={b.attachment.url} target="_blank" rel="noreferrer">
              {b.attachment.name}
            </a>
            <button type="button" class="k-btn" disabled={file.busy} onClick={() => void detach()}>
              {tr('bc.detach')}
            </button>
          </div>
        ) : (
          <Field label={tr('bc.attach')} error={file.fields.file}>
            {(fid, described) => (
              <input
                id={fid}
                type="file"
                name="file"
                aria-describedby={described}
                disabled={file.busy}
                onChange={(e) => {
                  const picked = e.currentTarget.files?.[0]
                  if (picked) void upload(picked)
                }}
              />
            )}
          </Field>
        )}
        {Object.keys(file.fields).length === 0 ? <FailNotice error={file.error} /> : null}
        <h2>{tr('bc.settings')}</h2>
        <div class="bc-grid">
          <NumberInput
            label={tr('bc.pace')}
            name="pace"
            min={1}
            max={options.limits.max_pace_per_minute ?? 30}
            value={form.pace}
            onValue={(pace) => change({ pace })}
            error={f['settings.pace_per_minute']}
          />
          <NumberInput
            label={tr('bc.delay')}
            name="delay"
            min={0}
            max={options.limits.max_random_delay_seconds ?? 120}
            value={form.delay}
            onValue={(delay) => change({ delay })}
            error={f['settings.random_delay_seconds']}
          />
          <NumberInput
            label={tr('bc.daily_cap')}
            name="cap"
            min={0}
            max={options.limits.max_daily_cap ?? 100000}
            value={form.cap}
            onValue={(cap) => change({ cap })}
            error={f['settings.daily_cap']}
          />
          <NumberInput
            label={tr('bc.skip_recent')}
            name="recent"
            min={0}
            max={options.limits.max_skip_recent_hours ?? 720}
            value={form.recent}
            onValue={(recent) => change({ recent })}
            error={f['settings.skip_recent_hours']}
          />
        </div>
        <CheckField
          name="quiet"
          label={tr('bc.quiet')}
          checked={form.quiet}
          onValue={(quiet) => change({ quiet })}
        />
        {form.quiet ? (
          <div class="bc-grid">
            {(['quietFrom', 'quietTo'] as const).map((k) => (
              <Field
                key={k}
                label={k === 'quietFrom' ? tr('bc.quiet_from') : tr('bc.quiet_to')}
                error={f[`settings.quiet_hours.${k === 'quietFrom' ? 'from' : 'to'}`]}
              >
                {(fid, described) => (
                  <input
                    id={fid}
                    type="time"
                    name={k}
                    value={form[k]}
                    aria-describedby={described}
                    onInput={(e) => change({ [k]: e.currentTarget.value })}
                  />
                )}
              </Field>
            ))}
          </div>
        ) : null}
        <Field label={tr('bc.send_at')} error={f['settings.send_at']}>
          {(fid, described) => (
            <input
              id={fid}
              type="datetime-local"
              name="send_at"
              value={form.sendAt}
              aria-describedby={described}
              onInput={(e) => change({ sendAt: e.currentTarget.value })}
            />
          )}
        </Field>
        <div class="k-row">
          <button type="submit" class="k-btn k-primary" disabled={saving.busy}>
            {tr('bc.save')}
          </button>
          {dirty ? <span class="k-muted">{tr('bc.unsaved')}</span> : null}
        </div>
        {savedNote ? <Notice kind="ok">{tr('bc.saved')}</Notice> : null}
        <FailNotice error={saving.error} />
      </form>
      <div>
        <EstimatePanel
          b={b}
          estimate={estimate}
          busy={estimating}
          error={estimateCall.error}
          dirty={dirty}
          onRecount={() => void reestimate()}
          onScheduled={props.onSaved}
        />
        <PreviewPanel b={b} messages={messages} />
        <TestPanel b={b} variants={messages.length} />
      </div>
    </div>
  )
}

/** A draft as someone who may only look at broadcasts sees it: its messages and its estimate. */
const DraftSummary = ({ b }: { b: Broadcast }) => {
  const tr = useTr()
  const [estimate, setEstimate] = useState<Estimate | null>(null)
  const call = useCall()
  const load = () =>
    call.run(async () => {
      const r = await got<Estimate>(api.post('/v1/broadcasts/{id}/estimate', { path: { id: b.id } }))
      setEstimate(r.data)
    })
  useEffect(() => void load(), [b.updated_at])
  return (
    <div class="bc-cols">
      <section class="k-panel" aria-labelledby="bc-messages">
        <h2 id="bc-messages">{tr('bc.messages')}</h2>
        <dl class="k-dl">
          <dt>{tr('bc.number')}</dt>
          <dd>{b.channel?.name ?? tr('bc.no_number')}</dd>
        </dl>
        <ul class="bc-preview" style={{ marginTop: '10px' }}>
          {b.messages.map((m, i) => (
            <li key={i}>
              <strong>{tr('bc.variant', { n: i + 1 })}</strong>
              <div class="bc-bubble">{m.footer ? `${m.text}\n\n${m.footer}` : m.text}</div>
            </li>
          ))}
        </ul>
      </section>
      <div>
        <EstimatePanel
          b={b}
          estimate={estimate}
          busy={call.busy}
          error={call.error}
          dirty={false}
          onRecount={() => void load()}
          onScheduled={() => undefined}
        />
      </div>
    </div>
  )
}

const RiskList = ({ risk, tr }: { risk: Risk; tr: Tr }) =>
  risk.reasons.length === 0 ? (
    <p class="k-muted">{tr('bc.risk.none')}</p>
  ) : (
    <ul class="bc-risk" data-testid="broadcast-risks">
      {risk.reasons.map((r) => (
        <li key={r.code} class={`bc-${r.level}`}>
          {textOr(tr, `bc.rr.${r.code}`, r.message)}
        </li>
      ))}
    </ul>
  )

const EstimatePanel = (props: {
  b: Broadcast
  estimate: Estimate | null
  busy: boolean
  error: unknown
  dirty: boolean
  onRecount: () => void
  onScheduled: (b: Broadcast) => void
}) => {
  const tr = useTr()
  const locale = useLocale()
  const [ack, setAck] = useState(false)
  const scheduling = useCall()
  const e = props.estimate
  const sendAt = props.b.settings.send_at
  const schedule = () =>
    scheduling.run(async () => {
      const r = await got<Broadcast>(
        api.post('/v1/broadcasts/{id}/schedule', { path: { id: props.b.id }, body: { risk_ack: ack } }),
      )
      props.onScheduled(r.data)
    })
  const skipped = e ? SKIPS.filter((k) => (e.skipped[k] ?? 0) > 0) : []
  return (
    <section
      class="k-panel"
      aria-labelledby="bc-estimate"
      data-testid="broadcast-estimate"
      aria-busy={props.busy}
    >
      <h2 id="bc-estimate">{tr('bc.estimate')}</h2>
      <p class="k-hint">{tr('bc.estimate_hint')}</p>
      <FailNotice error={props.error} />
      {e ? (
        <>
          <dl class="bc-stats">
            <div>
              <dt>{tr('bc.est.recipients')}</dt>
              <dd data-testid="estimate-recipients">{num(e.recipients, locale)}</dd>
            </div>
            <div>
              <dt>{tr('bc.est.audience')}</dt>
              <dd>{num(e.audience, locale)}</dd>
            </div>
            <div>
              <dt>{tr('bc.est.skipped')}</dt>
              <dd>{num(e.audience - e.recipients, locale)}</dd>
            </div>
          </dl>
          {skipped.length > 0 ? (
            <ul class="k-muted" data-testid="estimate-skips">
              {skipped.map((k) => (
                <li key={k}>
                  {tr(`bc.skip.${k}`)}: {num(e.skipped[k] ?? 0, locale)}
                </li>
              ))}
            </ul>
          ) : null}
          <dl class="k-dl" style={{ marginTop: '10px' }}>
            <dt>{tr('bc.est.quota')}</dt>
            <dd>
              {e.quota.after === null ? tr('bc.est.unlimited') : num(e.quota.after, locale)}
              {!e.quota.enough ? (
                <span class="k-error" style={{ display: 'block' }}>
                  {tr('bc.est.quota_short', { remaining: num(e.quota.remaining ?? 0, locale) })}
                </span>
              ) : null}
            </dd>
            <dt>{tr('bc.est.duration')}</dt>
            <dd>{e.recipients > 0 ? duration(e.duration_minutes, tr) : '—'}</dd>
            <dt>{tr('bc.est.finish')}</dt>
            <dd data-testid="estimate-finish">{e.recipients > 0 ? at(e.finish_at, locale) : '—'}</dd>
            <dt>{tr('bc.est.cold')}</dt>
            <dd>{num(e.unsaved_contacts, locale)}</dd>
            <dt>{tr('bc.risk')}</dt>
            <dd>
              <span class={`k-badge bc-level-${e.risk.level}`} data-testid="estimate-risk">
                {tr(`bc.risk.${e.risk.level}`)}
              </span>
            </dd>
          </dl>
          <div style={{ marginTop: '10px' }}>
            <RiskList risk={e.risk} tr={tr} />
          </div>
        </>
      ) : props.busy ? (
        <p class="k-muted">{tr('bc.loading')}</p>
      ) : null}
      <div class="k-row">
        <button type="button" class="k-btn" disabled={props.busy} onClick={props.onRecount}>
          {tr('bc.refresh')}
        </button>
      </div>
      {can('broadcasts.manage') ? (
        <div class="k-stack" style={{ marginTop: '14px', gap: '10px' }}>
          <CheckField name="risk_ack" label={tr('bc.ack')} checked={ack} onValue={setAck} />
          <button
            type="button"
            class="k-btn k-primary"
            disabled={!ack || props.dirty || scheduling.busy}
            onClick={() => void schedule()}
          >
            {sendAt ? tr('bc.schedule_at', { at: at(sendAt, locale) }) : tr('bc.schedule')}
          </button>
          {props.dirty ? <p class="k-hint">{tr('bc.save_first')}</p> : null}
          <ActionFailure error={scheduling.error} />
        </div>
      ) : null}
    </section>
  )
}

const PreviewPanel = (props: {
  b: Broadcast
  messages: readonly { readonly text: string; readonly footer: string }[]
}) => {
  const tr = useTr()
  const [variant, setVariant] = useState(0)
  const [items, setItems] = useState<readonly { contact: { id: number; name: string }; text: string }[]>([])
  const [error, setError] = useState<unknown>(null)
  const v = props.messages[Math.min(variant, props.messages.length - 1)] ?? { text: '', footer: '' }
  // The preview follows the text as it is typed (unsaved), for the saved audience.
  useEffect(() => {
    if (!v.text.trim()) {
      setItems([])
      return
    }
    const t = setTimeout(async () => {
      try {
        const r = await got<{ contact: { id: number; name: string }; text: string }[]>(
          api.post('/v1/broadcasts/{id}/preview', {
            path: { id: props.b.id },
            body: { text: v.text, footer: v.footer },
          }),
        )
        setItems(r.data)
        setError(null)
      } catch (e) {
        setError(e)
      }
    }, 400)
    return () => clearTimeout(t)
  }, [v.text, v.footer, props.b.updated_at])
  return (
    <section class="k-panel" aria-labelledby="bc-preview" data-testid="broadcast-preview">
      <h2 id="bc-preview">{tr('bc.preview')}</h2>
      {props.messages.length > 1 ? (
        <SelectField
          label={tr('bc.test_variant')}
          name="preview-variant"
          value={String(variant)}
          options={props.messages.map((_, i) => [String(i), tr('bc.variant', { n: i + 1 })] as const)}
          onValue={(x) => setVariant(Number(x))}
        />
      ) : null}
      {Object.keys(failFields(error)).length === 0 ? <FailNotice error={error} /> : null}
      {items.length === 0 ? (
        <p class="k-muted">{tr('bc.preview_none')}</p>
      ) : (
        <ul class="bc-preview">
          {items.map((x) => (
            <li key={x.contact.id}>
              <strong>{x.contact.name}</strong>
              <div class="bc-bubble">{x.text}</div>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

const TestPanel = (props: { b: Broadcast; variants: number }) => {
  const tr = useTr()
  const [phone, setPhone] = useState('')
  const [variant, setVariant] = useState('0')
  const [done, setDone] = useState<string | null>(null)
  const call = useCall()
  if (!can('broadcasts.manage')) return null
  const send = async (e: Event) => {
    e.preventDefault()
    setDone(null)
    await call.run(async () => {
      const r = await got<{ phone: string }>(
        api.post('/v1/broadcasts/{id}/test', {
          path: { id: props.b.id },
          body: { phone: phone.trim(), variant: Number(variant) },
        }),
      )
      const tests = (r.meta.tests ?? {}) as { used?: number; limit?: number }
      setDone(tr('bc.test_sent', { phone: r.data.phone, used: tests.used ?? 1, limit: tests.limit ?? 10 }))
    })
  }
  return (
    <form class="k-panel k-form" onSubmit={send} aria-labelledby="bc-test" data-testid="broadcast-test">
      <h2 id="bc-test">{tr('bc.test')}</h2>
      <TextField
        label={tr('bc.test_phone')}
        name="test-phone"
        type="tel"
        value={phone}
        onValue={setPhone}
        required
        error={call.fields.phone}
      />
      {props.variants > 1 ? (
        <SelectField
          label={tr('bc.test_variant')}
          name="test-variant"
          value={variant}
          options={Array.from(
            { length: props.variants },
            (_, i) => [String(i), tr('bc.variant', { n: i + 1 })] as const,
          )}
          onValue={setVariant}
          error={call.fields.variant}
        />
      ) : null}
      <button type="submit" class="k-btn" disabled={call.busy || !phone.trim()}>
        {tr('bc.test_send')}
      </button>
      {done ? <Notice kind="ok">{done}</Notice> : null}
      {call.fields.channel_id ? <Notice kind="bad">{call.fields.channel_id}</Notice> : null}
      {call.fields.phone || call.fields.channel_id ? null : <FailNotice error={call.error} />}
    </form>
  )
}

// ---- Sending and sent ------------------------------------------------------------------------

const PER_PAGE = 25

const waitText = (tr: Tr, b: Broadcast, locale: string) => {
  if (b.status === 'paused')
    return textOr(tr, `bc.pause.${b.pause_reason}`, tr('bc.pause.other', { reason: b.pause_reason ?? '' }))
  if (b.status !== 'running' || !b.wait) return null
  return textOr(tr, `bc.wait.${b.wait.reason}`, b.wait.reason, { until: at(b.wait.until, locale) })
}

const RunView = ({ b, tick }: { b: Broadcast; tick: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const c = b.counts
  const h = handled(c)
  const wait = waitText(tr, b, locale)
  const stats = [
    ['bc.est.recipients', c.total],
    ['bc.r.sent', c.sent],
    ['bc.r.delivered', c.delivered],
    ['bc.r.read', c.read],
    ['bc.r.replied', c.replied],
    ['bc.r.failed', c.failed],
    ['bc.r.skipped', c.skipped],
  ] as const
  return (
    <div class="k-stack">
      <section class="k-panel" aria-labelledby="bc-progress" data-testid="broadcast-progress">
        <h2 id="bc-progress">{tr('bc.progress')}</h2>
        <Progress counts={c} label={tr('bc.progress')} />
        <p class="k-muted" data-testid="progress-text" aria-live="polite">
          {tr('bc.progress_bar', { done: num(h.done, locale), total: num(h.all, locale) })}
          {wait ? ` · ${wait}` : ''}
        </p>
        <dl class="bc-stats" style={{ marginTop: '10px' }}>
          {stats.map(([k, n]) => (
            <div key={k} data-testid={`stat-${k.split('.').pop()}`}>
              <dt>{tr(k)}</dt>
              <dd>{num(n, locale)}</dd>
            </div>
          ))}
        </dl>
        {c.skipped > 0 ? (
          <ul class="k-muted">
            {SKIPS.filter((k) => (b.skip_reasons[k] ?? 0) > 0).map((k) => (
              <li key={k}>
                {tr(`bc.skip.${k}`)}: {num(b.skip_reasons[k] ?? 0, locale)}
              </li>
            ))}
          </ul>
        ) : null}
        <dl class="k-dl" style={{ marginTop: '10px' }}>
          <dt>{tr('bc.number')}</dt>
          <dd>{b.channel?.name ?? tr('bc.no_number')}</dd>
          {b.send_at && b.status === 'scheduled' ? (
            <>
              <dt>{tr('bc.starts')}</dt>
              <dd>{at(b.send_at, locale)}</dd>
            </>
          ) : null}
          {b.started_at ? (
            <>
              <dt>{tr('bc.started')}</dt>
              <dd>{at(b.started_at, locale)}</dd>
            </>
          ) : null}
          {b.completed_at ? (
            <>
              <dt>{tr('bc.completed_at')}</dt>
              <dd>{at(b.completed_at, locale)}</dd>
            </>
          ) : null}
          {b.cancelled_at ? (
            <>
              <dt>{tr('bc.cancelled_at')}</dt>
              <dd>{at(b.cancelled_at, locale)}</dd>
            </>
          ) : null}
          {b.risk ? (
            <>
              <dt>{tr('bc.risk')}</dt>
              <dd>
                <span class={`k-badge bc-level-${b.risk.level}`}>{tr(`bc.risk.${b.risk.level}`)}</span>
                {b.risk_ack ? ` · ${tr('bc.risk_acked')}` : ''}
              </dd>
            </>
          ) : null}
        </dl>
      </section>
      {b.status === 'draft' ? null : <Recipients b={b} tick={tick} />}
    </div>
  )
}

const Recipients = ({ b, tick }: { b: Broadcast; tick: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const [status, setStatus] = useState('')
  const [q, setQ] = useState('')
  const [page, setPage] = useState(1)
  const [rows, setRows] = useState<readonly Recipient[] | null>(null)
  const [total, setTotal] = useState(0)
  const [pages, setPages] = useState(1)
  const [error, setError] = useState<unknown>(null)
  const seq = useRef(0)
  useEffect(() => {
    const mine = ++seq.current
    const t = setTimeout(async () => {
      try {
        const r = await got<Recipient[]>(
          api.get('/v1/broadcasts/{id}/recipients', {
            path: { id: b.id },
            query: {
              page,
              per_page: PER_PAGE,
              ...((OUTCOMES as readonly string[]).includes(status)
                ? { status: status as (typeof OUTCOMES)[number] }
                : {}),
              ...(q.trim() ? { q: q.trim() } : {}),
            },
          }),
        )
        if (mine !== seq.current) return
        setRows(r.data)
        setTotal(typeof r.meta.total === 'number' ? r.meta.total : r.data.length)
        setPages(typeof r.meta.pages === 'number' ? Math.max(1, r.meta.pages) : 1)
        setError(null)
      } catch (e) {
        if (mine === seq.current) setError(e)
      }
    }, 200)
    return () => clearTimeout(t)
  }, [b.id, status, q, page, tick])
  return (
    <section class="k-panel" aria-labelledby="bc-recipients" data-testid="broadcast-recipients">
      <div class="k-head" style={{ margin: '0 0 10px' }}>
        <h2 id="bc-recipients" style={{ margin: 0 }}>
          {tr('bc.recipients')}
        </h2>
        <div class="bc-actions">
          <a class="k-btn" href={`/v1/broadcasts/${b.id}/export?format=xlsx`} download>
            {tr('bc.export_xlsx')}
          </a>
          <a class="k-btn" href={`/v1/broadcasts/${b.id}/export?format=csv`} download>
            {tr('bc.export_csv')}
          </a>
        </div>
      </div>
      <div class="bc-filters">
        <SelectField
          label={tr('bc.rec.filter')}
          name="outcome"
          value={status}
          options={[['', tr('bc.all')], ...OUTCOMES.map((o) => [o, tr(`bc.r.${o}`)] as const)]}
          onValue={(v) => {
            setStatus(v)
            setPage(1)
          }}
        />
        <TextField
          label={tr('bc.rec.search')}
          name="recipient-q"
          value={q}
          onValue={(v) => {
            setQ(v)
            setPage(1)
          }}
        />
      </div>
      <FailNotice error={error} />
      <p class="k-muted" data-testid="recipients-total">
        {tr('bc.rec.count', { n: num(total, locale) })}
      </p>
      <ListState items={rows} empty={tr('bc.rec.none')}>
        {(rows) => (
          <div class="k-table-wrap">
            <table class="k-table bc-table" data-testid="recipients-list">
              <thead>
                <tr>
                  <th scope="col">{tr('bc.rec.contact')}</th>
                  <th scope="col">{tr('bc.rec.outcome')}</th>
                  <th scope="col">{tr('bc.rec.message')}</th>
                  <th scope="col">{tr('bc.rec.when')}</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.id} data-status={r.status}>
                    <td>
                      <Link to={`/contacts/${r.contact_id}`}>{r.name}</Link>
                      <span class="bc-sub">{r.phone ?? ''}</span>
                    </td>
                    <td>
                      <span
                        class={`k-badge ${r.status === 'failed' ? 'k-bad' : r.status === 'skipped' || r.status === 'queued' ? 'k-wait' : 'k-ok'}`}
                      >
                        {tr(`bc.r.${r.status}`)}
                      </span>
                      {r.reason ? (
                        <span class="bc-sub">{textOr(tr, `bc.skip.${r.reason}`, r.reason)}</span>
                      ) : null}
                      {r.error ? <span class="bc-sub">{r.error}</span> : null}
                    </td>
                    <td>
                      {r.message ? (
                        <div class="bc-msg">{r.message}</div>
                      ) : (
                        <span class="k-muted">{tr('bc.variant', { n: r.variant + 1 })}</span>
                      )}
                      {r.interaction_id ? (
                        <Link to={`/inbox/${r.interaction_id}`} class="bc-sub">
                          {tr('bc.rec.conversation')}
                        </Link>
                      ) : null}
                    </td>
                    <td>{at(r.replied_at ?? r.failed_at ?? r.sent_at, locale)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </ListState>
      {pages > 1 ? (
        <div class="bc-pager">
          <button type="button" class="k-btn" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {tr('bc.prev')}
          </button>
          <span class="k-muted">{tr('bc.page', { n: page, of: pages })}</span>
          <button type="button" class="k-btn" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {tr('bc.next')}
          </button>
        </div>
      ) : null}
    </section>
  )
}
