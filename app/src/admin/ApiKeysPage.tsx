import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, can, failFields, failText, got, Link, me, useKitTr, useLocale } from '../kit'
import { ConfirmButton, CopyBox, Notice, Panel, SelectField, TextField, when } from '../kit/ui'
import { SettingsPage } from '../settings/frame'
import { Failure } from './common'
import { useTr } from './kit'
import { ensureStyles } from './styles'

interface Key {
  readonly id: number
  readonly name: string
  readonly scope: 'read' | 'write'
  readonly prefix: string
  readonly last_used_at: string | null
  readonly created_at: string
  readonly created_by: { readonly id: number; readonly name: string }
}

/** Why a key cannot be made on this plan, with the way to billing (or who to ask). */
const PlanNotice = ({ text }: { text: string }) => {
  const tr = useTr()
  return (
    <p class="k-notice k-notice-bad" role="alert" data-testid="keys-plan">
      {text}{' '}
      {can('settings.billing') ? (
        <Link to="/settings/billing">{tr('adm.keys.plan_link')}</Link>
      ) : (
        tr('adm.keys.plan_ask')
      )}
    </p>
  )
}

/**
 * `/app/settings/api-keys`: the workspace's active keys (name, access, prefix, last use), a new
 * key shown in full this once, revoking. The server refuses keys off Pro (402) and past ten (409);
 * its message says so in the reader's language.
 */
const ApiKeysPage = () => {
  ensureStyles()
  const tr = useTr()
  const kit = useKitTr()
  const locale = useLocale()
  const [keys, setKeys] = useState<readonly Key[] | null>(null)
  const [count, setCount] = useState<{ active: number; limit: number } | null>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [name, setName] = useState('')
  const [scope, setScope] = useState<'read' | 'write'>('read')
  const [busy, setBusy] = useState(false)
  const [fail, setFail] = useState<unknown>(null)
  const [made, setMade] = useState<{ name: string; key: string } | null>(null)
  const [note, setNote] = useState<string | null>(null)
  const who = me.get()
  const onFree = who ? !who.workspace.limits.api : false

  const load = async () => {
    try {
      const r = await got<Key[]>(api.get('/v1/api-keys'))
      setKeys(r.data)
      setCount(r.meta as { active: number; limit: number })
      setLoadError(null)
    } catch (e) {
      setLoadError(e)
    }
  }
  useEffect(() => {
    void load()
  }, [])

  const create = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setFail(null)
    setNote(null)
    try {
      const r = await got<Key & { key: string }>(api.post('/v1/api-keys', { body: { name, scope } }))
      setMade({ name: r.data.name, key: r.data.key })
      setName('')
      await load()
    } catch (err) {
      setFail(err)
    } finally {
      setBusy(false)
    }
  }

  const revoke = async (k: Key) => {
    setNote(null)
    setFail(null)
    try {
      await api.delete('/v1/api-keys/{id}', { path: { id: k.id } })
      setNote(tr('adm.keys.revoked', { name: k.name }))
      await load()
    } catch (err) {
      setFail(err)
    }
  }

  const fields = failFields(fail)
  const planRefused = fail instanceof ApiError && fail.status === 402
  return (
    <SettingsPage title={tr('adm.keys.title')} testId="admin-keys">
      {loadError ? (
        <Failure error={loadError} />
      ) : (
        <div class="k-stack">
          <p class="k-muted">{tr('adm.keys.intro')}</p>
          {onFree && !planRefused ? <PlanNotice text={tr('adm.keys.plan')} /> : null}
          {made ? (
            <section class="k-panel adm-once" aria-labelledby="adm-once" data-testid="new-key">
              <h2 id="adm-once">{tr('adm.keys.once_title', { name: made.name })}</h2>
              <Notice kind="info">{tr('adm.keys.once_text')}</Notice>
              <CopyBox label={tr('adm.keys.the_key')} name="api_key" value={made.key} />
              <button class="k-btn k-primary" type="button" onClick={() => setMade(null)}>
                {tr('adm.keys.done')}
              </button>
            </section>
          ) : null}
          {note ? <Notice kind="ok">{note}</Notice> : null}
          {planRefused ? <PlanNotice text={failText(fail)} /> : <Failure error={fail} />}
          {keys === null ? <p class="k-muted">{kit('k.loading')}</p> : null}
          {count ? (
            <p class="k-muted" data-testid="keys-count">
              {tr('adm.keys.count', { active: count.active, limit: count.limit })}
            </p>
          ) : null}
          {keys && keys.length === 0 ? <p class="k-muted">{tr('adm.keys.none')}</p> : null}
          {keys && keys.length > 0 ? (
            <div class="k-table-wrap">
              <table class="k-table" aria-label={tr('adm.keys.title')}>
                <thead>
                  <tr>
                    <th scope="col">{tr('adm.keys.col.name')}</th>
                    <th scope="col">{tr('adm.keys.col.scope')}</th>
                    <th scope="col">{tr('adm.keys.col.prefix')}</th>
                    <th scope="col">{tr('adm.keys.col.used')}</th>
                    <th scope="col">{tr('adm.keys.col.created')}</th>
                    <th scope="col">{tr('adm.keys.col.actions')}</th>
                  </tr>
                </thead>
                <tbody>
                  {keys.map((k) => (
                    <tr key={k.id} data-key-id={k.id}>
                      <td>{k.name}</td>
                      <td>{tr(`adm.keys.scope.${k.scope}`)}</td>
                      <td>
                        <code>{k.prefix}…</code>
                      </td>
                      <td>{k.last_used_at ? when(k.last_used_at, locale) : tr('adm.keys.never')}</td>
                      <td>
                        {tr('adm.keys.by', { when: when(k.created_at, locale), name: k.created_by.name })}
                      </td>
                      <td>
                        <ConfirmButton
                          label={tr('adm.keys.revoke')}
                          question={tr('adm.keys.revoke_q', { name: k.name })}
                          onConfirm={() => revoke(k)}
                        />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          <Panel title={tr('adm.keys.new')} id="adm-new-key">
            <form class="k-form" noValidate onSubmit={create}>
              <TextField
                label={tr('adm.keys.name')}
                name="name"
                value={name}
                onValue={setName}
                hint={tr('adm.keys.name_hint')}
                error={fields.name}
                maxLength={100}
                required
              />
              <SelectField
                label={tr('adm.keys.scope')}
                name="scope"
                value={scope}
                options={[
                  ['read', tr('adm.keys.scope.read')],
                  ['write', tr('adm.keys.scope.write')],
                ]}
                onValue={(v) => setScope(v === 'write' ? 'write' : 'read')}
                error={fields.scope}
              />
              <button class="k-btn k-primary" type="submit" disabled={busy}>
                {tr('adm.keys.create')}
              </button>
            </form>
          </Panel>
        </div>
      )}
    </SettingsPage>
  )
}

export default ApiKeysPage
