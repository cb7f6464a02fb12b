import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, can, failText, go, got, Link, useWorkspaceEvents } from '../kit'
import { CheckField, ConfirmButton, FailNotice, Notice, Panel, TextField } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { callerIsAdmin, FormEnd, Loaded, useSubmit } from './common'
import { ensureStyles, permissionHint, useTr } from './kit'
import type { PermissionGroup, Role } from './types'

/** `/app/settings/roles`: every role with what it is and who uses it; a new role by name. */
export const RolesPage = () => {
  ensureStyles()
  const tr = useTr()
  const [roles, setRoles] = useState<readonly Role[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    got<Role[]>(api.get('/v1/roles')).then(
      (r) => setRoles(r.data),
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['members.changed'], load)
  const manage = can('settings.roles')
  return (
    <SettingsPage title={tr('pp.roles.title')} testId="people-roles">
      <Loaded error={error} ready={roles !== null}>
        {() => (
          <div class="k-stack">
            <div class="k-table-wrap">
              <table class="k-table" aria-label={tr('pp.roles.list')} data-testid="roles">
                <thead>
                  <tr>
                    <th scope="col">{tr('pp.roles.col.name')}</th>
                    <th scope="col">{tr('pp.roles.col.kind')}</th>
                    <th scope="col">{tr('pp.roles.col.usage')}</th>
                  </tr>
                </thead>
                <tbody>
                  {roles!.map((r) => (
                    <tr key={r.id} data-role-id={r.id}>
                      <td>
                        <Link to={`/settings/roles/${r.id}`}>{r.name}</Link>
                      </td>
                      <td>
                        {r.is_owner
                          ? tr('pp.roles.kind.owner')
                          : r.is_admin
                            ? tr('pp.roles.kind.admin')
                            : tr('pp.roles.kind.custom', { count: r.permissions.length })}
                      </td>
                      <td data-col="usage">
                        {tr('pp.roles.usage', { members: r.usage.members, invitations: r.usage.invitations })}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {manage ? <NewRole /> : null}
          </div>
        )}
      </Loaded>
    </SettingsPage>
  )
}

/** A role's name (new or renamed); the server says when another role has it. */
const RoleName = (props: { value: string; onValue: (v: string) => void; error: string | undefined }) => {
  const tr = useTr()
  return (
    <TextField
      label={tr('pp.roles.name')}
      name="name"
      value={props.value}
      onValue={props.onValue}
      error={props.error}
      maxLength={60}
      required
    />
  )
}

const NewRole = () => {
  const tr = useTr()
  const [name, setName] = useState('')
  const { fail, busy, run, fields } = useSubmit()
  const submit = async (e: Event) => {
    e.preventDefault()
    return run(async () => {
      const r = await got<Role>(api.post('/v1/roles', { body: { name: name.trim(), permissions: [] } }))
      go(`/settings/roles/${r.data.id}`)
    })
  }
  return (
    <form class="k-form k-panel" onSubmit={submit} aria-labelledby="pp-new-role">
      <h2 id="pp-new-role">{tr('pp.roles.new')}</h2>
      <RoleName value={name} onValue={setName} error={fields.name} />
      <FormEnd fail={fail} busy={busy} label={tr('pp.roles.create')} />
    </form>
  )
}

interface RoleData {
  readonly role: Role
  readonly groups: readonly PermissionGroup[]
  readonly grantable: readonly string[]
  readonly callerAdmin: boolean
}

const loadRole = async (id: number): Promise<RoleData> => {
  const [role, cat, roles] = await Promise.all([
    got<Role>(api.get('/v1/roles/{id}', { path: { id } })),
    got<PermissionGroup[]>(api.get('/v1/permissions')),
    got<Role[]>(api.get('/v1/roles')),
  ])
  return {
    role: role.data,
    groups: cat.data,
    grantable: (cat.meta.grantable as string[] | undefined) ?? [],
    callerAdmin: callerIsAdmin(roles.data),
  }
}

/**
 * `/app/settings/roles/:id`: a role's name and permissions, grouped as the catalogue groups them,
 * each with what it allows. Read-only when the server says the role is not `editable` (the
 * Owner's role always; an admin role for non-admins); `is_admin` only for callers who may set it.
 */
export const RolePage = ({ id }: { id: number }) => {
  ensureStyles()
  const tr = useTr()
  const [data, setData] = useState<RoleData | null>(null)
  const [error, setError] = useState<unknown>(null)
  const load = () =>
    loadRole(id).then(
      (d) => {
        setData(d)
        setError(null)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    setData(null)
    void load()
  }, [id])
  return (
    <SettingsPage title={data?.role.name ?? tr('pp.roles.title')} testId="people-role">
      <Link class="k-back" to="/settings/roles">
        ← {tr('pp.roles.back')}
      </Link>
      <Loaded error={error} ready={data !== null}>
        {() => <RoleForm key={`${data!.role.id}`} data={data!} onSaved={load} />}
      </Loaded>
    </SettingsPage>
  )
}

const RoleForm = ({ data, onSaved }: { data: RoleData; onSaved: () => void }) => {
  const tr = useTr()
  const { role } = data
  const [name, setName] = useState(role.name)
  const [perms, setPerms] = useState<readonly string[]>(role.permissions)
  const [isAdmin, setIsAdmin] = useState(role.is_admin)
  const { fail, busy, run, fields } = useSubmit()
  const [note, setNote] = useState<{ kind: 'ok' | 'bad'; text: string } | null>(null)
  const editable = role.editable
  const grantable = new Set(data.grantable)

  const save = async (e: Event) => {
    e.preventDefault()
    setNote(null)
    return run(async () => {
      await api.patch('/v1/roles/{id}', {
        path: { id: role.id },
        body: {
          name: name.trim(),
          ...(isAdmin ? {} : { permissions: perms as never }),
          ...(data.callerAdmin && isAdmin !== role.is_admin ? { is_admin: isAdmin } : {}),
        },
      })
      setNote({ kind: 'ok', text: tr('pp.saved') })
      onSaved()
    })
  }
  const duplicate = async () => {
    setNote(null)
    try {
      const r = await got<Role>(api.post('/v1/roles/{id}/duplicate', { path: { id: role.id } }))
      go(`/settings/roles/${r.data.id}`)
    } catch (err) {
      setNote({ kind: 'bad', text: failText(err) })
    }
  }
  const remove = async () => {
    setNote(null)
    try {
      await api.delete('/v1/roles/{id}', { path: { id: role.id } })
      go('/settings/roles')
    } catch (err) {
      const inUse = err instanceof ApiError && err.status === 409
      setNote({
        kind: 'bad',
        text: inUse
          ? `${failText(err)} ${tr('pp.role.in_use', { members: role.usage.members, invitations: role.usage.invitations })}`
          : failText(err),
      })
    }
  }

  const toggle = (key: string, on: boolean) =>
    setPerms((ps) => (on ? [...ps, key] : ps.filter((p) => p !== key)))
  return (
    <form class="k-stack" onSubmit={save} data-testid="role-form">
      {role.is_owner ? (
        <Notice kind="info">{tr('pp.role.readonly_owner')}</Notice>
      ) : !editable ? (
        <Notice kind="info">{tr('pp.role.readonly')}</Notice>
      ) : null}
      {editable ? (
        <div class="k-form">
          <RoleName value={name} onValue={setName} error={fields.name} />
          {data.callerAdmin ? (
            <div class="k-field">
              <CheckField
                name="is_admin"
                label={tr('pp.role.is_admin')}
                checked={isAdmin}
                onValue={setIsAdmin}
              />
              <small class="k-hint">{tr('pp.role.is_admin_hint')}</small>
            </div>
          ) : null}
        </div>
      ) : null}
      {isAdmin && !role.is_owner ? <Notice kind="info">{tr('pp.role.admin_note')}</Notice> : null}
      <Panel title={tr('pp.role.permissions')} id="pp-perms">
        <div class="pp-perms">
          {data.groups.map((g) => (
            <fieldset key={g.menu} class="k-fieldset" data-menu={g.menu}>
              <legend>{g.label}</legend>
              {g.permissions.map((p) => {
                const hint = permissionHint(p.key)
                const allowed = editable && !isAdmin && grantable.has(p.key)
                const inputId = `pp-perm-${p.key.replace('.', '-')}`
                return (
                  <div key={p.key} class={`pp-perm${allowed ? '' : ' pp-perm-off'}`}>
                    <input
                      type="checkbox"
                      id={inputId}
                      name="permissions"
                      value={p.key}
                      checked={isAdmin || perms.includes(p.key)}
                      disabled={!allowed}
                      aria-describedby={hint ? `${inputId}-hint` : undefined}
                      onChange={(e) => toggle(p.key, (e.currentTarget as HTMLInputElement).checked)}
                    />
                    <label for={inputId}>{p.label}</label>
                    <small id={`${inputId}-hint`}>
                      {hint ? tr(hint) : ''}
                      {editable && !isAdmin && !grantable.has(p.key)
                        ? ` (${tr('pp.role.not_grantable')})`
                        : ''}
                    </small>
                  </div>
                )
              })}
            </fieldset>
          ))}
        </div>
      </Panel>
      {note ? <Notice kind={note.kind}>{note.text}</Notice> : null}
      <FailNotice error={fail} />
      <div class="k-row">
        {editable ? (
          <button type="submit" class="k-btn k-primary" disabled={busy}>
            {tr('pp.save')}
          </button>
        ) : null}
        {can('settings.roles') && !role.is_owner ? (
          <button type="button" class="k-btn" onClick={duplicate}>
            {tr('pp.role.duplicate')}
          </button>
        ) : null}
        {editable ? (
          <ConfirmButton
            label={tr('pp.role.delete')}
            question={tr('pp.role.delete_q', { name: role.name })}
            onConfirm={remove}
          />
        ) : null}
      </div>
    </form>
  )
}
