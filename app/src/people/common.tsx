import type { ComponentChildren } from 'preact'
import { useRef, useState } from 'preact/hooks'
import { failFields, failText, me } from '../kit'
import { CheckField, FailNotice, Notice, SelectField } from '../kit/ui'
import { useTr } from './kit'
import type { Channel, Role, Team } from './types'

/** The people pages' own pieces (the rest: app/src/kit/ui.tsx). */

let groupIds = 0

/** A group of checkboxes (teams, channels, team members) under one legend, with the server's message. */
export const CheckList = (props: {
  legend: string
  name: string
  options: readonly (readonly [number, string])[]
  chosen: readonly number[]
  onChosen: (ids: number[]) => void
  error?: string | undefined
  hint?: string | undefined
  empty?: string
}) => {
  const id = useRef(`pp-g-${++groupIds}`).current
  const toggle = (v: number, on: boolean) =>
    props.onChosen(on ? [...props.chosen, v] : props.chosen.filter((x) => x !== v))
  return (
    <fieldset
      class={`k-fieldset${props.error ? ' k-invalid' : ''}`}
      aria-describedby={props.error ? `${id}-err` : props.hint ? `${id}-hint` : undefined}
      data-field={props.name}
    >
      <legend>{props.legend}</legend>
      {props.options.length === 0 && props.empty ? <span class="k-muted">{props.empty}</span> : null}
      <div class="pp-checks">
        {props.options.map(([v, label]) => (
          <CheckField
            key={v}
            name={props.name}
            label={label}
            checked={props.chosen.includes(v)}
            onValue={(on) => toggle(v, on)}
          />
        ))}
      </div>
      {props.hint ? (
        <small id={`${id}-hint`} class="k-hint">
          {props.hint}
        </small>
      ) : null}
      {props.error ? (
        <small id={`${id}-err`} class="k-error" role="alert">
          {props.error}
        </small>
      ) : null}
    </fieldset>
  )
}

export interface Access {
  role_id: number
  team_ids: number[]
  view_all: boolean
  channel_access: 'all' | 'selected'
  channel_ids: number[]
}

/**
 * Role, teams, "Can view all data" and channel access: what an invitation and a member share.
 * `roleFixed`: the role is shown, not chosen (the Owner, oneself).
 */
export const AccessFields = (props: {
  value: Access
  onValue: (v: Access) => void
  roles: readonly Role[]
  teams: readonly Team[]
  channels: readonly Channel[]
  fields: Readonly<Record<string, string>>
  roleFixed?: string | undefined
  accessFixed?: boolean
  /** The signed-in member has "Can view all data" (and so may give it). */
  callerViewAll?: boolean
}) => {
  const tr = useTr()
  const v = props.value
  const set = (patch: Partial<Access>) => props.onValue({ ...v, ...patch })
  // Admin roles are given only by the Owner and admins; anyone else gives roles within their own
  // permissions and "Can view all data" only if they have it (the server refuses the rest).
  const admin = callerIsAdmin(props.roles)
  const mayGiveViewAll = admin || props.callerViewAll === true
  return (
    <>
      {props.roleFixed ? (
        <p>
          <strong>{tr('pp.role')}:</strong> {props.roleFixed}
        </p>
      ) : (
        <SelectField
          label={tr('pp.role')}
          name="role_id"
          value={String(v.role_id)}
          options={givableRoles(props.roles)
            .concat(props.roles.filter((r) => r.id === v.role_id && !r.is_owner))
            .filter((r, i, all) => all.findIndex((x) => x.id === r.id) === i)
            .map((r) => [String(r.id), r.name] as const)}
          onValue={(x) => set({ role_id: Number(x) })}
          error={props.fields.role_id}
        />
      )}
      <CheckList
        legend={tr('pp.teams')}
        name="team_ids"
        options={props.teams.map((t) => [t.id, t.name] as const)}
        chosen={v.team_ids}
        onChosen={(team_ids) => set({ team_ids })}
        error={props.fields.team_ids}
        hint={tr('pp.teams_hint')}
        empty={tr('pp.no_teams')}
      />
      {props.accessFixed ? null : (
        <>
          <div class="k-field">
            <CheckField
              name="view_all"
              label={tr('pp.view_all')}
              checked={v.view_all}
              onValue={(view_all) => set({ view_all })}
              disabled={!mayGiveViewAll && !v.view_all}
            />
            <small class="k-hint">{tr('pp.view_all_hint')}</small>
          </div>
          <fieldset class="k-fieldset" data-field="channel_access">
            <legend>{tr('pp.channel_access')}</legend>
            {(['all', 'selected'] as const).map((a) => (
              <label key={a} class="pp-radio">
                <input
                  type="radio"
                  name="channel_access"
                  value={a}
                  checked={v.channel_access === a}
                  onChange={() => set({ channel_access: a })}
                />
                {tr(a === 'all' ? 'pp.channels_all' : 'pp.channels_selected')}
              </label>
            ))}
            {props.fields.channel_access ? (
              <small class="k-error" role="alert">
                {props.fields.channel_access}
              </small>
            ) : null}
          </fieldset>
          {v.channel_access === 'selected' ? (
            <CheckList
              legend={tr('pp.channels')}
              name="channel_ids"
              options={props.channels.map((c) => [c.id, c.name] as const)}
              chosen={v.channel_ids}
              onChosen={(channel_ids) => set({ channel_ids })}
              error={props.fields.channel_ids}
              empty={tr('pp.no_channels')}
            />
          ) : null}
        </>
      )}
    </>
  )
}

/** A failed load told in words: the server's message (a refusal says what was refused). */
export const LoadFailed = ({ error }: { error: unknown }) => (
  <Notice kind="bad">
    <span data-testid="refusal">{failText(error)}</span>
  </Notice>
)

/** Loading, failed, or the page. */
export const Loaded = (props: { error: unknown; ready: boolean; children: () => ComponentChildren }) => {
  const tr = useTr()
  if (props.error) return <LoadFailed error={props.error} />
  if (!props.ready) return <p class="k-muted">{tr('pp.loading')}</p>
  return <>{props.children()}</>
}

/** A form's submission: busy while it runs; its failure kept, a 422's messages by field. */
export const useSubmit = () => {
  const [fail, setFail] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setFail(null)
    try {
      await f()
    } catch (e) {
      setFail(e)
    } finally {
      setBusy(false)
    }
  }
  return { fail, busy, run, fields: failFields(fail) }
}

/** Under a form: what the failure was, the submit button, Cancel (or Close), and more buttons. */
export const FormEnd = (props: {
  fail: unknown
  label: string
  busy: boolean
  onCancel?: (() => void) | undefined
  cancelLabel?: string
  children?: ComponentChildren
}) => {
  const tr = useTr()
  return (
    <>
      <FailNotice error={props.fail} />
      <div class="k-row">
        <button type="submit" class="k-btn k-primary" disabled={props.busy}>
          {props.label}
        </button>
        {props.onCancel ? (
          <button type="button" class="k-btn" onClick={props.onCancel}>
            {props.cancelLabel ?? tr('pp.cancel')}
          </button>
        ) : null}
        {props.children}
      </div>
    </>
  )
}

/**
 * The roles the signed-in member may give: any but the Owner's for the Owner and admins; for anyone
 * else the roles without admin rights whose permissions they hold themselves.
 */
export const givableRoles = (roles: readonly Role[]) => {
  const who = me.get()
  const mine = who ? roles.find((r) => r.id === who.role?.id) : undefined
  const held = new Set(mine?.permissions ?? [])
  const admin = callerIsAdmin(roles)
  return roles.filter(
    (r) => !r.is_owner && (admin || (!r.is_admin && r.permissions.every((p) => held.has(p)))),
  )
}

/** Whether the signed-in member is the Owner or holds an admin role (who may set `is_admin`, give admin roles). */
export const callerIsAdmin = (roles: readonly Role[]) => {
  const who = me.get()
  if (!who) return false
  const mine = roles.find((r) => r.id === who.role?.id)
  return who.is_owner || !!mine?.is_admin || !!mine?.is_owner
}
