import { useEffect, useRef, useState } from 'preact/hooks'
import { api, can, failText, got, useLocale, useWorkspaceEvents } from '../kit'
import { ConfirmButton, Notice, Panel, TextField, when } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { type Access, AccessFields, FormEnd, givableRoles, Loaded, useSubmit } from './common'
import { ensureStyles, useTr } from './kit'
import type { Channel, Invitation, Member, Role, Team, UsersQuota } from './types'

interface Data {
  readonly members: readonly Member[]
  readonly quota: UsersQuota | null
  readonly invitations: readonly Invitation[]
  readonly roles: readonly Role[]
  readonly teams: readonly Team[]
  readonly channels: readonly Channel[]
}

type Note = { kind: 'ok' | 'bad'; text: string } | null

const loadAll = async (): Promise<Data> => {
  const [m, inv, roles, teams, channels] = await Promise.all([
    got<Member[]>(api.get('/v1/members')),
    got<Invitation[]>(api.get('/v1/invitations')),
    got<Role[]>(api.get('/v1/roles')),
    got<Team[]>(api.get('/v1/teams')),
    got<Channel[]>(api.get('/v1/channels')),
  ])
  return {
    members: m.data,
    quota: (m.meta.users as UsersQuota | undefined) ?? null,
    invitations: inv.data,
    roles: roles.data,
    teams: teams.data,
    channels: channels.data,
  }
}

/**
 * `/app/settings/members`: everyone in the workspace with role, teams and status; inviting; the
 * open invitations (resend, revoke); changing a member where the server says `editable`. A
 * member is never deleted: disabling is removal (spec 1 §3), and enabling brings them back.
 */
export const MembersPage = () => {
  ensureStyles()
  const tr = useTr()
  const [data, setData] = useState<Data | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState<number | null>(null)
  const [inviting, setInviting] = useState(false)
  const [note, setNote] = useState<Note>(null)
  const load = () =>
    loadAll().then(
      (d) => {
        setData(d)
        setError(null)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['members.changed', 'teams.changed'], load)
  const manage = can('settings.members')
  const editingMember = data?.members.find((m) => m.id === editing) ?? null

  return (
    <SettingsPage
      title={tr('pp.members.title')}
      testId="people-members"
      actions={
        <>
          {data?.quota ? (
            <span class="k-muted" data-testid="users-quota">
              {data.quota.limit > 0
                ? tr('pp.members.quota', { used: data.quota.used, limit: data.quota.limit })
                : tr('pp.members.quota_unlimited', { used: data.quota.used })}
            </span>
          ) : null}
          {data && manage && !inviting ? (
            <button type="button" class="k-btn k-primary" onClick={() => setInviting(true)}>
              {tr('pp.invite')}
            </button>
          ) : null}
        </>
      }
    >
      <Loaded error={error} ready={data !== null}>
        {() => {
          const d = data!
          return (
            <div class="k-stack">
              {note ? <Notice kind={note.kind}>{note.text}</Notice> : null}
              {inviting ? (
                <InviteForm
                  data={d}
                  onClose={() => setInviting(false)}
                  onSent={(email) => {
                    setInviting(false)
                    setNote({ kind: 'ok', text: tr('pp.invite.sent', { email }) })
                    void load()
                  }}
                />
              ) : null}
              <MemberTable data={d} onEdit={(id) => setEditing(id)} />
              <p class="k-muted">{tr('pp.member.removal')}</p>
              {editingMember ? (
                <MemberEditor
                  key={editingMember.id}
                  member={editingMember}
                  data={d}
                  onClose={() => setEditing(null)}
                  onDone={(text) => {
                    setNote({ kind: 'ok', text })
                    void load()
                  }}
                />
              ) : null}
              <Invitations data={d} onNote={setNote} onChanged={load} />
            </div>
          )
        }}
      </Loaded>
    </SettingsPage>
  )
}

const teamNames = (ids: readonly number[], teams: readonly Team[]) =>
  ids
    .map((id) => teams.find((t) => t.id === id)?.name)
    .filter(Boolean)
    .join(', ')

const MemberTable = ({ data, onEdit }: { data: Data; onEdit: (id: number) => void }) => {
  const tr = useTr()
  return (
    <div class="k-table-wrap">
      <table class="k-table pp-rows" aria-label={tr('pp.members.list')} data-testid="members">
        <thead>
          <tr>
            <th scope="col">{tr('pp.col.member')}</th>
            <th scope="col">{tr('pp.col.role')}</th>
            <th scope="col">{tr('pp.col.teams')}</th>
            <th scope="col">{tr('pp.col.status')}</th>
            <th scope="col">
              <span class="sr-only">{tr('pp.col.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data.members.map((m) => (
            <tr key={m.id} data-member-id={m.id} data-email={m.user.email}>
              <td>
                <strong>{m.user.name}</strong>
                {m.is_owner || m.is_me ? (
                  <span class="pp-marks">
                    {m.is_owner ? <span class="k-badge pp-mark">{tr('pp.owner')}</span> : null}
                    {m.is_me ? <span class="k-badge pp-mark">{tr('pp.me')}</span> : null}
                  </span>
                ) : null}
                <span class="pp-email">{m.user.email}</span>
              </td>
              <td data-col="role" data-label={tr('pp.col.role')}>
                {m.role.name}
              </td>
              <td data-col="teams" data-label={tr('pp.col.teams')}>
                {teamNames(m.team_ids, data.teams) || '—'}
              </td>
              <td data-col="status">
                <span class={`k-badge k-${m.status === 'active' ? 'ok' : 'bad'}`}>
                  <span class="k-dot" aria-hidden="true" />
                  {tr(`pp.status.${m.status}`)}
                </span>
                {m.status === 'disabled' && m.disabled_reason ? (
                  <span class="pp-email">
                    {m.disabled_reason === 'by_admin' || m.disabled_reason === 'plan_limit'
                      ? tr(`pp.reason.${m.disabled_reason}`)
                      : m.disabled_reason}
                  </span>
                ) : null}
              </td>
              <td>
                {m.editable ? (
                  <button
                    type="button"
                    class="k-btn"
                    aria-label={tr('pp.edit_member', { name: m.user.name })}
                    onClick={() => onEdit(m.id)}
                  >
                    {tr('pp.edit')}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

const defaultRole = (roles: readonly Role[]) => {
  const givable = givableRoles(roles)
  return (givable.find((r) => r.name === 'Agent' && !r.is_admin) ?? givable[0])?.id ?? 0
}

const InviteForm = (props: { data: Data; onClose: () => void; onSent: (email: string) => void }) => {
  const tr = useTr()
  const [email, setEmail] = useState('')
  const [access, setAccess] = useState<Access>({
    role_id: defaultRole(props.data.roles),
    team_ids: [],
    view_all: false,
    channel_access: 'all',
    channel_ids: [],
  })
  const { fail, busy, run, fields } = useSubmit()
  const submit = async (e: Event) => {
    e.preventDefault()
    return run(async () => {
      await api.post('/v1/invitations', {
        body: {
          email: email.trim(),
          role_id: access.role_id,
          team_ids: access.team_ids,
          view_all: access.view_all,
          channel_access: access.channel_access,
          channel_ids: access.channel_access === 'selected' ? access.channel_ids : [],
        },
      })
      props.onSent(email.trim())
    })
  }
  return (
    <form class="k-form k-panel" onSubmit={submit} aria-labelledby="pp-invite" data-testid="invite-form">
      <h2 id="pp-invite">{tr('pp.invite.title')}</h2>
      <TextField
        label={tr('pp.email')}
        name="email"
        type="email"
        autoComplete="off"
        value={email}
        onValue={setEmail}
        error={fields.email}
        required
      />
      <AccessFields
        value={access}
        onValue={setAccess}
        roles={props.data.roles}
        teams={props.data.teams}
        channels={props.data.channels}
        fields={fields}
        callerViewAll={props.data.members.some((x) => x.is_me && x.view_all)}
      />
      <FormEnd fail={fail} busy={busy} label={tr('pp.invite.send')} onCancel={props.onClose} />
    </form>
  )
}

const sameIds = (a: readonly number[], b: readonly number[]) =>
  a.length === b.length && [...a].sort().join() === [...b].sort().join()

/** One member's role, teams, access and reply initial; disable or enable. */
const MemberEditor = (props: {
  member: Member
  data: Data
  onClose: () => void
  onDone: (text: string) => void
}) => {
  const tr = useTr()
  const m = props.member
  const [access, setAccess] = useState<Access>({
    role_id: m.role.id,
    team_ids: [...m.team_ids],
    view_all: m.view_all,
    channel_access: m.channel_access,
    channel_ids: [...m.channel_ids],
  })
  const [initial, setInitial] = useState(m.reply_initial)
  const { fail, busy, run, fields } = useSubmit()
  const heading = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    heading.current?.scrollIntoView({ block: 'nearest' })
    heading.current?.focus()
  }, [])
  const name = m.user.name

  const patch = async (body: Record<string, unknown>, done: string) => {
    return run(async () => {
      await api.patch('/v1/members/{id}', { path: { id: m.id }, body })
      props.onDone(done)
    })
  }
  const save = (e: Event) => {
    e.preventDefault()
    const body: Record<string, unknown> = {}
    if (!m.is_owner && !m.is_me && access.role_id !== m.role.id) body.role_id = access.role_id
    if (!sameIds(access.team_ids, m.team_ids)) body.team_ids = access.team_ids
    if (!m.is_owner) {
      if (access.view_all !== m.view_all) body.view_all = access.view_all
      if (access.channel_access !== m.channel_access || !sameIds(access.channel_ids, m.channel_ids)) {
        body.channel_access = access.channel_access
        if (access.channel_access === 'selected') body.channel_ids = access.channel_ids
      }
    }
    if (initial.trim() !== m.reply_initial) body.reply_initial = initial.trim()
    return patch(body, tr('pp.saved'))
  }
  return (
    <form class="k-form k-panel" onSubmit={save} aria-labelledby="pp-member" data-testid="member-editor">
      <h2 id="pp-member" ref={heading} tabIndex={-1}>
        {tr('pp.member.title', { name })}
      </h2>
      {m.is_owner ? <p class="k-muted">{tr('pp.member.owner_note')}</p> : null}
      {m.is_me && !m.is_owner ? <p class="k-muted">{tr('pp.member.self_note')}</p> : null}
      <AccessFields
        value={access}
        onValue={setAccess}
        roles={props.data.roles}
        teams={props.data.teams}
        channels={props.data.channels}
        fields={fields}
        roleFixed={m.is_owner || m.is_me ? m.role.name : undefined}
        accessFixed={m.is_owner}
        callerViewAll={props.data.members.some((x) => x.is_me && x.view_all)}
      />
      <TextField
        label={tr('pp.reply_initial')}
        name="reply_initial"
        value={initial}
        onValue={setInitial}
        maxLength={20}
        hint={tr('pp.reply_initial_hint')}
        error={fields.reply_initial}
      />
      <FormEnd
        fail={fail}
        busy={busy}
        label={tr('pp.save')}
        onCancel={props.onClose}
        cancelLabel={tr('pp.close')}
      >
        {m.is_owner || m.is_me ? null : m.status === 'active' ? (
          <ConfirmButton
            label={tr('pp.member.disable')}
            question={tr('pp.member.disable_q', { name })}
            onConfirm={() => patch({ status: 'disabled' }, tr('pp.member.disabled_done', { name }))}
          />
        ) : (
          <ConfirmButton
            danger={false}
            label={tr('pp.member.enable')}
            question={tr('pp.member.enable_q', { name })}
            onConfirm={() => patch({ status: 'active' }, tr('pp.member.enabled_done', { name }))}
          />
        )}
      </FormEnd>
    </form>
  )
}

const Invitations = (props: { data: Data; onNote: (n: Note) => void; onChanged: () => void }) => {
  const tr = useTr()
  const locale = useLocale()
  const open = props.data.invitations.filter((i) => i.status === 'pending' || i.status === 'expired')
  const act = async (f: () => Promise<unknown>, ok: string) => {
    props.onNote(null)
    try {
      await f()
      props.onNote({ kind: 'ok', text: ok })
      props.onChanged()
    } catch (e) {
      props.onNote({ kind: 'bad', text: failText(e) })
    }
  }
  return (
    <Panel title={tr('pp.inv.title')} id="pp-invitations">
      {open.length === 0 ? (
        <p class="k-muted">{tr('pp.inv.empty')}</p>
      ) : (
        <div class="k-table-wrap">
          <table class="k-table pp-rows" aria-labelledby="pp-invitations" data-testid="invitations">
            <thead>
              <tr>
                <th scope="col">{tr('pp.inv.col.email')}</th>
                <th scope="col">{tr('pp.col.role')}</th>
                <th scope="col">{tr('pp.col.status')}</th>
                <th scope="col">{tr('pp.inv.col.expires')}</th>
                <th scope="col">
                  <span class="sr-only">{tr('pp.col.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {open.map((i) => (
                <tr key={i.id} data-invitation-id={i.id} data-email={i.email}>
                  <td>
                    <strong>{i.email}</strong>
                    {i.invited_by ? (
                      <span class="pp-email">{tr('pp.inv.by', { name: i.invited_by.name })}</span>
                    ) : null}
                  </td>
                  <td data-label={tr('pp.col.role')}>{i.role.name}</td>
                  <td data-col="status">
                    <span class={`k-badge k-${i.status === 'pending' ? 'wait' : 'bad'}`}>
                      <span class="k-dot" aria-hidden="true" />
                      {tr(i.status === 'pending' ? 'pp.inv.pending' : 'pp.inv.expired')}
                    </span>
                    {i.mail === 'failed' || i.mail === 'off' ? (
                      <span class="pp-email">
                        {tr(i.mail === 'failed' ? 'pp.inv.mail_failed' : 'pp.inv.mail_off')}
                      </span>
                    ) : null}
                  </td>
                  <td data-col="expires" data-label={tr('pp.inv.col.expires')}>
                    {when(i.expires_at, locale)}
                  </td>
                  <td>
                    <span class="pp-actions">
                      <button
                        type="button"
                        class="k-btn"
                        aria-label={tr('pp.inv.resend_label', { email: i.email })}
                        onClick={() =>
                          act(
                            () => api.post('/v1/invitations/{id}/resend', { path: { id: i.id } }),
                            tr('pp.inv.resent', { email: i.email }),
                          )
                        }
                      >
                        {tr('pp.inv.resend')}
                      </button>
                      <ConfirmButton
                        label={tr('pp.inv.revoke')}
                        question={tr('pp.inv.revoke_q', { email: i.email })}
                        onConfirm={() =>
                          act(
                            () => api.delete('/v1/invitations/{id}', { path: { id: i.id } }),
                            tr('pp.inv.revoked', { email: i.email }),
                          )
                        }
                      />
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Panel>
  )
}
