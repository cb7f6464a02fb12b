import { useEffect, useRef, useState } from 'preact/hooks'
import {
  api,
  can,
  failFields,
  failText,
  got,
  Link,
  me,
  useKitTr,
  useLocale,
  useWorkspaceEvents,
} from '../kit'
import { CheckField, ConfirmButton, FailNotice, Notice, Panel, SelectField, TextField, when } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { IncomingNotice, NameAndZone, refreshSession, type Transfer, useTransferNotices } from './common'
import { useTr, type WsKey } from './texts'

/**
 * `/app/settings/workspace` (`settings.workspace`): the workspace's name and General settings
 * (`GET /v1/settings` with `meta.choices`), its business hours, and for the Owner the ownership
 * transfer. Another person's change (`settings.updated`, `workspace.updated`) reloads the page.
 */

interface Day {
  readonly day: number
  readonly open: boolean
  readonly from: string
  readonly to: string
}
interface Hours {
  readonly enabled: boolean
  readonly days: readonly Day[]
}
interface Settings {
  readonly name: string
  readonly timezone: string
  readonly response_target_minutes: number
  readonly response_warn_percent: number
  readonly business_hours: Hours
  readonly open_now: boolean
}
interface Choices {
  readonly timezone: readonly string[]
  readonly response_target_minutes: readonly number[]
  readonly response_warn_percent: readonly number[]
  readonly day: readonly number[]
}

type Tr = ReturnType<typeof useTr>

/** The data of `settings.updated` or `workspace.updated`. */
type Change = Readonly<Record<string, unknown>>

/** A form's save told to the page, which tells its own saves' events from someone else's. */
interface Saves {
  readonly start: () => void
  readonly done: (now: Partial<Settings> | null) => void
}

const minutesLabel = (tr: Tr, n: number) =>
  n === 1440
    ? tr('ws.day_1')
    : n === 60
      ? tr('ws.hour_1')
      : n % 60 === 0
        ? tr('ws.hours_n', { n: n / 60 })
        : tr('ws.minutes', { n })

export const WorkspaceSettingsPage = () => {
  const tr = useTr()
  const kt = useKitTr()
  const who = me.get() || null
  useLocale()
  const [settings, setSettings] = useState<Settings | null>(null)
  const [choices, setChoices] = useState<Choices | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [outside, setOutside] = useState(false)
  const [version, setVersion] = useState(0)

  /** What this page last knew the server holds: an event carrying the same is its own save. */
  const known = useRef<Settings | null>(null)
  const saving = useRef(0)
  const held = useRef<Change[]>([])
  const load = (fromElsewhere = false) =>
    got<Settings>(api.get('/v1/settings')).then(
      (r) => {
        known.current = r.data
        setSettings(r.data)
        setChoices(r.meta.choices as Choices)
        setVersion((v) => v + 1)
        if (fromElsewhere) setOutside(true)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  /** `settings.updated` carries the settings, `workspace.updated` the name (and slug). */
  const foreign = (e: Change) =>
    'settings' in e
      ? JSON.stringify(e.settings) !== JSON.stringify(known.current)
      : e.name !== known.current?.name
  useWorkspaceEvents(['settings.updated', 'workspace.updated'], (e) => {
    // Empty: the server could not replay what was missed.
    if (!('settings' in e) && !('name' in e)) return void load()
    if (!('settings' in e)) void refreshSession()
    // While this page saves, the event may be its own: decided once the answer is in.
    if (saving.current > 0) held.current.push(e)
    else if (foreign(e)) void load(true)
  })
  const saves = {
    start: () => {
      saving.current++
      setOutside(false)
    },
    /** The server's settings after this page's change (`null`: it failed). */
    done: (now: Partial<Settings> | null) => {
      saving.current--
      if (now && known.current) {
        known.current = { ...known.current, ...now }
        setSettings(known.current)
      }
      if (saving.current > 0) return
      const events = held.current
      held.current = []
      if (events.some(foreign)) void load(true)
    },
  }

  return (
    <SettingsPage title={tr('ws.title')} testId="workspace-settings">
      {error ? (
        <Notice kind="bad">{failText(error)}</Notice>
      ) : !settings || !choices ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <div class="k-stack">
          <IncomingNotice />
          {outside ? <Notice kind="info">{tr('ws.changed_elsewhere')}</Notice> : null}
          <General key={`g${version}`} settings={settings} choices={choices} saves={saves} />
          <BusinessHours key={`h${version}`} settings={settings} saves={saves} />
          {who?.is_owner ? <Ownership name={settings.name} /> : null}
          <p class="k-row">
            <Link to="/workspaces">{tr('ws.your_workspaces')}</Link>
            <span class="k-muted">{tr('ws.your_workspaces_hint')}</span>
          </p>
        </div>
      )}
    </SettingsPage>
  )
}

const General = (props: { settings: Settings; choices: Choices; saves: Saves }) => {
  const tr = useTr()
  const kt = useKitTr()
  const s = props.settings
  const [name, setName] = useState(s.name)
  const [zone, setZone] = useState(s.timezone)
  const [target, setTarget] = useState(String(s.response_target_minutes))
  const [warn, setWarn] = useState(String(s.response_warn_percent))
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    setSaved(false)
    let problems: Record<string, string> = {}
    let failed: unknown = null
    let now: Partial<Settings> = {}
    props.saves.start()
    // Both calls are tried, so one form tells every field's problem at once.
    if (name !== s.name)
      try {
        const r = await got<{ name: string }>(api.patch('/v1/workspace', { body: { name } }))
        now = { name: r.data.name }
        void refreshSession()
      } catch (err) {
        failed = err
        problems = { ...problems, ...failFields(err) }
      }
    try {
      const r = await got<Settings>(
        api.patch('/v1/settings', {
          body: {
            timezone: zone,
            response_target_minutes: Number(target) as 5,
            response_warn_percent: Number(warn) as 50,
          },
        }),
      )
      now = { ...r.data, ...now }
    } catch (err) {
      failed = err
      problems = { ...problems, ...failFields(err) }
    }
    props.saves.done(now)
    setBusy(false)
    setFields(problems)
    setError(failed)
    if (!failed) setSaved(true)
  }

  return (
    <form class="k-form k-panel" onSubmit={submit} aria-labelledby="ws-general" data-testid="ws-general">
      <h2 id="ws-general">{tr('ws.general')}</h2>
      <NameAndZone
        name={name}
        onName={setName}
        zone={zone}
        onZone={setZone}
        zones={props.choices.timezone}
        fields={fields}
      />
      <small class="k-hint">{tr('ws.timezone_hint')}</small>
      <div class="k-grid3eq">
        <SelectField
          label={tr('ws.target')}
          name="response_target_minutes"
          value={target}
          options={props.choices.response_target_minutes.map(
            (n) => [String(n), minutesLabel(tr, n)] as const,
          )}
          onValue={setTarget}
          error={fields.response_target_minutes}
        />
        <SelectField
          label={tr('ws.warn')}
          name="response_warn_percent"
          value={warn}
          options={props.choices.response_warn_percent.map(
            (n) => [String(n), tr('ws.warn_value', { n })] as const,
          )}
          onValue={setWarn}
          error={fields.response_warn_percent}
        />
      </div>
      <small class="k-hint">
        {tr('ws.target_hint')} {tr('ws.warn_hint')}
      </small>
      <FailNotice error={error} />
      {saved ? <Notice kind="ok">{kt('k.saved')}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy}>
        {kt('k.save')}
      </button>
    </form>
  )
}

const DAYS = [1, 2, 3, 4, 5, 6, 7] as const

/** A day's opening (`from`) or closing (`to`) time, named with the day; off while the day is closed. */
const TimeInput = (props: {
  which: 'from' | 'to'
  day: Day
  dayName: string
  errId: string | undefined
  onValue: (v: string) => void
}) => {
  const tr = useTr()
  return (
    <input
      type="time"
      name={`${props.which}-${props.day.day}`}
      aria-label={tr(props.which === 'from' ? 'ws.from_on' : 'ws.to_on', { day: props.dayName })}
      value={props.day[props.which]}
      disabled={!props.day.open}
      aria-invalid={props.errId ? 'true' : undefined}
      aria-describedby={props.errId}
      onInput={(e) => props.onValue(e.currentTarget.value)}
    />
  )
}

const BusinessHours = (props: { settings: Settings; saves: Saves }) => {
  const tr = useTr()
  const kt = useKitTr()
  const [enabled, setEnabled] = useState(props.settings.business_hours.enabled)
  const [days, setDays] = useState<readonly Day[]>(
    DAYS.map(
      (day) =>
        props.settings.business_hours.days.find((d) => d.day === day) ?? {
          day,
          open: false,
          from: '08:00',
          to: '17:00',
        },
    ),
  )
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const set = (i: number, change: Partial<Day>) =>
    setDays((all) => all.map((d, j) => (j === i ? { ...d, ...change } : d)))

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    setSaved(false)
    props.saves.start()
    try {
      const r = await got<Settings>(
        api.patch('/v1/settings', { body: { business_hours: { enabled, days: [...days] } } }),
      )
      props.saves.done(r.data)
      setSaved(true)
    } catch (err) {
      props.saves.done(null)
      setError(err)
      setFields(failFields(err))
    } finally {
      setBusy(false)
    }
  }
  /** The message of a day's row: the day itself, or one of its times. */
  const dayError = (i: number) =>
    fields[`business_hours.days.${i}`] ??
    fields[`business_hours.days.${i}.from`] ??
    fields[`business_hours.days.${i}.to`]
  // A day's message is beside the day; the whole object's ("is invalid") only when nothing nearer says why.
  const other = Object.entries(fields).filter(
    ([k]) => !/^business_hours\.days\.\d/.test(k) && !Object.keys(fields).some((x) => x.startsWith(`${k}.`)),
  )

  return (
    <form class="k-form k-panel" onSubmit={submit} aria-labelledby="ws-hours" data-testid="ws-hours">
      <div class="k-row">
        <h2 id="ws-hours">{tr('ws.hours')}</h2>
        <span class={`k-badge ${props.settings.open_now ? 'k-ok' : 'k-wait'}`} data-testid="open-now">
          <span class="k-dot" aria-hidden="true" />
          {tr(props.settings.open_now ? 'ws.open_now' : 'ws.closed_now')}
        </span>
      </div>
      <CheckField name="enabled" label={tr('ws.hours_enabled')} checked={enabled} onValue={setEnabled} />
      <small class="k-hint">{tr('ws.hours_hint')}</small>
      <div class="k-table-wrap">
        <table class="k-table wsx-hours">
          <thead>
            <tr>
              <th scope="col">{tr('ws.day')}</th>
              <th scope="col">{tr('ws.open')}</th>
              <th scope="col">{tr('ws.from')}</th>
              <th scope="col">{tr('ws.to')}</th>
            </tr>
          </thead>
          <tbody>
            {days.map((d, i) => {
              const dayName = tr(`ws.d${d.day}` as WsKey)
              const err = dayError(i)
              const errId = `ws-day-${d.day}-err`
              return (
                <tr key={d.day} data-day={d.day} class={err ? 'k-invalid' : undefined}>
                  <th scope="row">{dayName}</th>
                  <td>
                    <label class="wsx-open">
                      <input
                        type="checkbox"
                        name={`open-${d.day}`}
                        aria-label={tr('ws.open_on', { day: dayName })}
                        checked={d.open}
                        onChange={(e) => set(i, { open: (e.currentTarget as HTMLInputElement).checked })}
                      />
                      <span class="wsx-phone" aria-hidden="true">
                        {tr('ws.open')}
                      </span>
                    </label>
                  </td>
                  <td>
                    <TimeInput
                      which="from"
                      day={d}
                      dayName={dayName}
                      errId={err ? errId : undefined}
                      onValue={(v) => set(i, { from: v })}
                    />
                  </td>
                  <td>
                    <TimeInput
                      which="to"
                      day={d}
                      dayName={dayName}
                      errId={err ? errId : undefined}
                      onValue={(v) => set(i, { to: v })}
                    />
                    {err ? (
                      <small id={errId} class="k-error" role="alert">
                        {err}
                      </small>
                    ) : null}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {other.map(([k, v]) => (
        <small key={k} class="k-error" role="alert">
          {v}
        </small>
      ))}
      <FailNotice error={error} />
      {saved ? <Notice kind="ok">{kt('k.saved')}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy}>
        {tr('ws.save_hours')}
      </button>
    </form>
  )
}

interface Overview {
  readonly pending: Transfer | null
  readonly recipients: readonly {
    readonly user: { readonly id: number; readonly name: string; readonly email: string }
    readonly role: { readonly id: number; readonly name: string }
    readonly eligible: boolean
    readonly reason: 'not_member' | 'owns_workspace' | null
  }[]
  readonly becomes_free: boolean
}
interface Named {
  readonly id: number
  readonly name: string
  readonly is_owner?: boolean
}

/** The Owner hands the workspace over: ask a member (confirming with the name), or cancel the ask. */
const Ownership = ({ name }: { name: string }) => {
  const tr = useTr()
  const locale = useLocale()
  const [view, setView] = useState<Overview | null>(null)
  const [roles, setRoles] = useState<readonly Named[]>([])
  const [teams, setTeams] = useState<readonly Named[]>([])
  const [to, setTo] = useState('')
  const [confirmName, setConfirmName] = useState('')
  const [stay, setStay] = useState(false)
  const [role, setRole] = useState('')
  const [teamIds, setTeamIds] = useState<readonly number[]>([])
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const [error, setError] = useState<unknown>(null)
  const [note, setNote] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const load = () =>
    got<Overview>(api.get('/v1/workspace/transfer')).then(
      (r) => setView(r.data),
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
    // Roles and teams for staying on: the Owner holds every permission.
    if (can('settings.members')) {
      got<Named[]>(api.get('/v1/roles')).then(
        (r) => {
          const list = r.data.filter((x) => !x.is_owner)
          setRoles(list)
          setRole((cur) => cur || String(list[0]?.id ?? ''))
        },
        () => undefined,
      )
      got<Named[]>(api.get('/v1/teams')).then(
        (r) => setTeams(r.data),
        () => undefined,
      )
    }
  }, [])
  useWorkspaceEvents(['members.changed'], () => void load())
  // The recipient's answer (declined) reaches the Owner as a notification.
  useTransferNotices(() => void load())

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    setNote(null)
    try {
      const r = await got<Transfer>(
        api.post('/v1/workspace/transfer', {
          body: {
            to_user_id: Number(to),
            confirm_name: confirmName,
            stay,
            ...(stay ? { stay_role_id: role ? Number(role) : null, stay_team_ids: [...teamIds] } : {}),
          },
        }),
      )
      setNote(tr('ws.asked', { name: r.data.to.name }))
      setConfirmName('')
      await load()
    } catch (err) {
      setError(err)
      setFields(failFields(err))
    } finally {
      setBusy(false)
    }
  }
  const cancel = async () => {
    setError(null)
    setNote(null)
    try {
      await api.delete('/v1/workspace/transfer')
      setNote(tr('ws.cancelled'))
      await load()
    } catch (err) {
      setError(err)
    }
  }

  const eligible = view?.recipients ?? []
  return (
    <Panel title={tr('ws.owner')} id="ws-owner">
      <div class="k-form" data-testid="ws-ownership">
        <p class="k-muted">{tr('ws.owner_intro')}</p>
        {view?.becomes_free ? <Notice kind="info">{tr('ws.becomes_free')}</Notice> : null}
        {note ? <Notice kind="ok">{note}</Notice> : null}
        {!view ? null : view.pending ? (
          <>
            <p data-testid="transfer-pending">
              {tr('ws.pending', {
                name: view.pending.to.name,
                email: view.pending.to.email,
                at: when(view.pending.created_at, locale),
              })}{' '}
              {view.pending.stay
                ? tr('ws.pending_stay', { role: view.pending.stay_role?.name ?? '' })
                : tr('ws.pending_leave')}
            </p>
            <ConfirmButton
              label={tr('ws.cancel_transfer')}
              question={tr('ws.cancel_question')}
              onConfirm={cancel}
            />
          </>
        ) : eligible.length === 0 ? (
          <p>{tr('ws.no_recipients')}</p>
        ) : (
          <form class="k-form" onSubmit={submit}>
            <SelectField
              label={tr('ws.recipient')}
              name="to_user_id"
              value={to}
              options={[
                ['', tr('ws.pick')] as const,
                ...eligible.map(
                  (r) =>
                    [
                      String(r.user.id),
                      r.eligible
                        ? `${r.user.name} (${r.user.email})`
                        : tr('ws.not_eligible', {
                            name: r.user.name,
                            reason: tr(`ws.reason.${r.reason ?? 'not_member'}` as WsKey),
                          }),
                    ] as const,
                ),
              ]}
              onValue={setTo}
              error={fields.to_user_id}
            />
            <CheckField name="stay" label={tr('ws.stay')} checked={stay} onValue={setStay} />
            {stay ? (
              <>
                <SelectField
                  label={tr('ws.stay_role')}
                  name="stay_role_id"
                  value={role}
                  options={roles.map((r) => [String(r.id), r.name] as const)}
                  onValue={setRole}
                  error={fields.stay_role_id}
                />
                {teams.length > 0 ? (
                  <fieldset class="k-fieldset">
                    <legend>{tr('ws.stay_teams')}</legend>
                    {teams.map((t) => (
                      <CheckField
                        key={t.id}
                        name={`team-${t.id}`}
                        label={t.name}
                        checked={teamIds.includes(t.id)}
                        onValue={(on) =>
                          setTeamIds((ids) => (on ? [...ids, t.id] : ids.filter((x) => x !== t.id)))
                        }
                      />
                    ))}
                  </fieldset>
                ) : null}
                {fields.stay_team_ids ? (
                  <small class="k-error" role="alert">
                    {fields.stay_team_ids}
                  </small>
                ) : null}
              </>
            ) : (
              <small class="k-hint">{tr('ws.stay_hint')}</small>
            )}
            <TextField
              label={tr('ws.confirm_name')}
              name="confirm_name"
              value={confirmName}
              onValue={setConfirmName}
              hint={tr('ws.confirm_hint', { name })}
              error={fields.confirm_name}
              autoComplete="off"
            />
            <button class="k-btn k-btn-danger" type="submit" disabled={busy}>
              {tr('ws.ask')}
            </button>
          </form>
        )}
        <FailNotice error={error} />
      </div>
    </Panel>
  )
}
