import { useEffect, useState } from 'preact/hooks'
import { api, failFields, failText, got, Link, me, useKitTr, useLocale } from '../kit'
import { ensureKitStyles } from '../kit/styles'
import { ConfirmButton, FailNotice, Notice, Panel, when } from '../kit/ui'
import * as Session from '../lib/session'
import { type Incoming, NameAndZone, ScrollTable, useIncoming } from './common'
import { useTr, type WsKey } from './texts'

/**
 * `/app/workspaces`, for every member: the ownership requests waiting for their answer (accept or
 * decline), the workspaces they belong to (switch), creating one (`meta.create`; a refusal in
 * words) and leaving the active one (not as its Owner, who is sent to the transfer instead).
 */

interface Listed {
  readonly id: number
  readonly name: string
  readonly plan: string
  readonly timezone: string
  readonly role: { readonly id: number; readonly name: string }
  readonly is_owner: boolean
  readonly is_active: boolean
  readonly frozen: boolean
}
interface CreateMeta {
  readonly create?: boolean
  readonly create_limit?: { readonly owned: number; readonly limit: number; readonly reason: string | null }
}

/** A fresh start in the workspace the person now works in (as switching does). */
const restart = () => {
  location.href = '/app'
}

export const WorkspacesPage = () => {
  ensureKitStyles()
  const tr = useTr()
  const kt = useKitTr()
  useLocale()
  const [list, setList] = useState<readonly Listed[] | null>(null)
  const [meta, setMeta] = useState<CreateMeta>({})
  const [error, setError] = useState<unknown>(null)
  const incoming = useIncoming()
  const [declined, setDeclined] = useState(false)
  const load = () =>
    got<Listed[]>(api.get('/v1/workspaces')).then(
      (r) => {
        setList(r.data)
        setMeta(r.meta as CreateMeta)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  const active = list?.find((w) => w.is_active)

  return (
    <div class="k-page" data-testid="workspaces">
      <div class="k-head">
        <h1>{tr('ws.list_title')}</h1>
      </div>
      <div class="k-stack">
        {incoming.list.length > 0 ? (
          <Panel title={tr('ws.requests')} id="ws-requests">
            <ul class="wsx-list">
              {incoming.list.map((r) => (
                <Request
                  key={r.id}
                  request={r}
                  onDeclined={() => {
                    setDeclined(true)
                    void incoming.reload()
                  }}
                />
              ))}
            </ul>
          </Panel>
        ) : null}
        {declined ? <Notice kind="ok">{tr('ws.declined')}</Notice> : null}
        {error ? <Notice kind="bad">{failText(error)}</Notice> : null}
        {!list ? (
          error ? null : (
            <p class="k-muted">{kt('k.loading')}</p>
          )
        ) : (
          <>
            <ScrollTable label={tr('ws.list_title')}>
              <table class="k-table" data-testid="workspace-list">
                <thead>
                  <tr>
                    <th scope="col">{tr('ws.col.name')}</th>
                    <th scope="col">{tr('ws.col.role')}</th>
                    <th scope="col">{tr('ws.col.plan')}</th>
                    <th scope="col">{tr('ws.col.action')}</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((w) => (
                    <tr key={w.id} data-workspace={w.id}>
                      <th scope="row">
                        {w.name} {w.frozen ? <span class="k-badge k-bad">{tr('ws.frozen')}</span> : null}
                      </th>
                      <td>{w.is_owner ? tr('ws.owner_badge') : w.role.name}</td>
                      <td>{tr(`ws.plan.${w.plan}` as WsKey)}</td>
                      <td>
                        {w.is_active ? (
                          <span class="k-badge k-ok">{tr('ws.current')}</span>
                        ) : (
                          <button
                            type="button"
                            class="k-btn"
                            aria-label={tr('ws.switch_to', { name: w.name })}
                            onClick={() => void Session.switchWorkspace(w.id)}
                          >
                            {tr('ws.switch')}
                          </button>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
            <Create meta={meta} onRefused={() => void load()} />
            {active ? <Leave workspace={active} /> : null}
          </>
        )}
      </div>
    </div>
  )
}

const Request = ({ request: r, onDeclined }: { request: Incoming; onDeclined: () => void }) => {
  const tr = useTr()
  const locale = useLocale()
  const [error, setError] = useState<unknown>(null)
  const accept = async () => {
    setError(null)
    try {
      await api.post('/v1/me/transfers/{id}/accept', { path: { id: r.id } })
      restart()
    } catch (e) {
      setError(e)
    }
  }
  const decline = async () => {
    setError(null)
    try {
      await api.post('/v1/me/transfers/{id}/decline', { path: { id: r.id } })
      onDeclined()
    } catch (e) {
      setError(e)
    }
  }
  return (
    <li class="k-stack wsx-request" data-testid={`transfer-${r.id}`}>
      <p>
        <strong>{tr('ws.request_text', { name: r.from.name, workspace: r.workspace.name })}</strong>
        <br />
        <span class="k-muted">{tr('ws.request_when', { at: when(r.created_at, locale) })}</span>
      </p>
      <p>{tr(r.stay ? 'ws.request_stay' : 'ws.request_leaves', { name: r.from.name })}</p>
      {r.becomes_free ? <Notice kind="info">{tr('ws.becomes_free')}</Notice> : null}
      {r.can_accept ? null : (
        <Notice kind="bad">
          {tr('ws.cannot_accept', { reason: tr(`ws.reason_you.${r.reason ?? 'not_member'}` as WsKey) })}
        </Notice>
      )}
      <div class="k-row">
        {r.can_accept ? (
          <ConfirmButton
            label={tr('ws.accept')}
            question={tr('ws.accept_question', { workspace: r.workspace.name })}
            onConfirm={accept}
            danger={false}
          />
        ) : null}
        <button type="button" class="k-btn" onClick={() => void decline()}>
          {tr('ws.decline')}
        </button>
      </div>
      {error ? <Notice kind="bad">{failText(error)}</Notice> : null}
    </li>
  )
}

const zones = (): readonly string[] => {
  const f = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf
  return f ? f('timeZone') : []
}

const Create = ({ meta, onRefused }: { meta: CreateMeta; onRefused: () => void }) => {
  const tr = useTr()
  const kt = useKitTr()
  const who = me.get()
  const first = who ? who.workspace.timezone : Intl.DateTimeFormat().resolvedOptions().timeZone
  const [name, setName] = useState('')
  const [zone, setZone] = useState(first)
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const list = zones()

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    try {
      await api.post('/v1/workspaces', { body: { name, timezone: zone } })
      restart()
    } catch (err) {
      setError(err)
      setFields(failFields(err))
      if (Object.keys(failFields(err)).length === 0) onRefused()
    } finally {
      setBusy(false)
    }
  }
  const limit = meta.create_limit
  return (
    <Panel title={tr('ws.create')} id="ws-create">
      {meta.create === false && !error ? (
        <p data-testid="create-limit">
          {limit && limit.limit > 0
            ? tr('ws.create_limit', { owned: limit.owned, limit: limit.limit })
            : tr('ws.create_limit_any')}
        </p>
      ) : (
        <form class="k-form" onSubmit={submit} data-testid="create-workspace">
          <p class="k-muted">{tr('ws.create_intro')}</p>
          <NameAndZone
            name={name}
            onName={setName}
            zone={zone}
            onZone={setZone}
            zones={list.includes(zone) ? list : [zone, ...list]}
            fields={fields}
          />
          {error && Object.keys(fields).length === 0 ? (
            <Notice kind="bad">{tr('ws.create_refused', { message: failText(error) })}</Notice>
          ) : (
            <FailNotice error={error} />
          )}
          <button class="k-btn k-primary" type="submit" disabled={busy}>
            {kt('k.create')}
          </button>
        </form>
      )}
    </Panel>
  )
}

const Leave = ({ workspace }: { workspace: Listed }) => {
  const tr = useTr()
  const [error, setError] = useState<unknown>(null)
  const leave = async () => {
    setError(null)
    try {
      await api.post('/v1/workspace/leave')
      restart()
    } catch (e) {
      setError(e)
    }
  }
  return (
    <Panel title={tr('ws.leave')} id="ws-leave">
      {workspace.is_owner ? (
        <p data-testid="owner-cannot-leave">
          {tr('ws.owner_cannot_leave', { name: workspace.name })}{' '}
          <Link to="/settings/workspace">{tr('ws.to_ownership')}</Link>
        </p>
      ) : (
        <div class="k-form">
          <p>{tr('ws.leave_intro', { name: workspace.name })}</p>
          <ConfirmButton
            name="leave"
            label={tr('ws.leave_button', { name: workspace.name })}
            question={tr('ws.leave_question', { name: workspace.name })}
            onConfirm={leave}
          />
          {error ? <Notice kind="bad">{failText(error)}</Notice> : null}
        </div>
      )}
    </Panel>
  )
}
