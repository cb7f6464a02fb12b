import { useEffect, useState } from 'preact/hooks'
import { CheckField, Notice, Panel, SelectField, TextField, when } from './common'
import { EmailEdit, ServerFields } from './EmailEdit'
import { api, type Fail, go, got, useLocale, useTr } from './kit'
import {
  type Channel,
  type Detected,
  type EmailSettings,
  type Security,
  security,
  type Tested,
} from './types'

interface Servers {
  username: string
  imap_host: string
  imap_port: string
  imap_security: Security
  smtp_host: string
  smtp_port: string
  smtp_security: Security
}

const HISTORY = [0, 3, 7, 30] as const

/** How people know the providers `detect` names (connectors/email/providers.ts). */
const PROVIDERS: Readonly<Record<string, string>> = {
  gmail: 'Gmail',
  outlook: 'Outlook.com',
  office365: 'Microsoft 365',
  yahoo: 'Yahoo Mail',
  icloud: 'iCloud Mail',
  zoho: 'Zoho Mail',
  fastmail: 'Fastmail',
}

const blank: Servers = {
  username: '',
  imap_host: '',
  imap_port: '993',
  imap_security: 'ssl',
  smtp_host: '',
  smtp_port: '465',
  smtp_security: 'ssl',
}

/**
 * `/app/channels/new/email`: the address first (`POST /channels/email/detect` suggests the servers
 * and a hint), then the password and servers (`POST /channels/email/test`, whose per-field 422
 * shows under each field), then folders and connect (`POST /channels/email`).
 */
export const NewEmail = () => {
  const tr = useTr()
  const [address, setAddress] = useState('')
  const [detected, setDetected] = useState<Detected | null>(null)
  const [password, setPassword] = useState('')
  const [servers, setServers] = useState<Servers>(blank)
  const [tested, setTested] = useState<Tested | null>(null)
  const [name, setName] = useState('')
  // The channel is named after the address until someone names it.
  const [named, setNamed] = useState(false)
  const [folders, setFolders] = useState<readonly string[]>([])
  const [sent, setSent] = useState('')
  const [history, setHistory] = useState('7')
  const [fields, setFields] = useState<Record<string, string>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState<'detect' | 'test' | 'connect' | null>(null)

  const fail = (err: unknown) => {
    const f = err as Fail
    setFields(f.fields ?? {})
    setError(f.fields ? null : f.message)
  }
  const clear = () => {
    setFields({})
    setError(null)
  }
  const set = (k: keyof Servers) => (v: string) => {
    setServers((s) => ({ ...s, [k]: k.endsWith('_security') ? security(v) : v }))
    // A changed server is untested again.
    setTested(null)
  }

  const detect = async (e: Event) => {
    e.preventDefault()
    clear()
    setBusy('detect')
    try {
      const r = await got<Detected>(api.post('/v1/channels/email/detect', { body: { address } }))
      setDetected(r.data)
      setServers((s) => ({
        ...s,
        ...(r.data.imap
          ? {
              imap_host: r.data.imap.host,
              imap_port: String(r.data.imap.port),
              imap_security: security(r.data.imap.security),
            }
          : {}),
        ...(r.data.smtp
          ? {
              smtp_host: r.data.smtp.host,
              smtp_port: String(r.data.smtp.port),
              smtp_security: security(r.data.smtp.security),
            }
          : {}),
      }))
      if (!named) setName(address)
    } catch (err) {
      fail(err)
    } finally {
      setBusy(null)
    }
  }

  const access = () => ({
    address,
    password,
    ...(servers.username ? { username: servers.username } : {}),
    imap_host: servers.imap_host,
    imap_port: Number(servers.imap_port),
    imap_security: servers.imap_security,
    smtp_host: servers.smtp_host,
    smtp_port: Number(servers.smtp_port),
    smtp_security: servers.smtp_security,
  })

  const test = async (e: Event) => {
    e.preventDefault()
    clear()
    setBusy('test')
    try {
      const r = await got<Tested>(api.post('/v1/channels/email/test', { body: access() }))
      setTested(r.data)
      setSent(r.data.sent_folder ?? '')
    } catch (err) {
      fail(err)
    } finally {
      setBusy(null)
    }
  }

  const connect = async (e: Event) => {
    e.preventDefault()
    clear()
    setBusy('connect')
    try {
      const r = await got<Channel>(
        api.post('/v1/channels/email', {
          body: {
            ...access(),
            name: name || address,
            folders: folders.filter((f) => f !== sent),
            sent_folder: sent || null,
            history_days: HISTORY.find((n) => String(n) === history) ?? 7,
          },
        }),
      )
      go(`/channels/${r.data.id}`)
    } catch (err) {
      fail(err)
    } finally {
      setBusy(null)
    }
  }

  return (
    <div class="k-stack">
      <Panel title={tr('em.step1')} id="em-step1">
        <form class="k-form" onSubmit={detect}>
          <TextField
            label={tr('em.address')}
            name="address"
            type="email"
            autoComplete="email"
            value={address}
            onValue={(v) => {
              setAddress(v)
              setDetected(null)
              setTested(null)
            }}
            error={fields.address}
            required
          />
          {!detected ? (
            <button class="k-btn k-primary" type="submit" disabled={busy !== null}>
              {tr('em.detect')}
            </button>
          ) : (
            <p class="k-muted" data-testid="provider">
              {detected.provider && detected.provider !== 'other'
                ? tr('em.provider', { name: PROVIDERS[detected.provider] ?? detected.provider })
                : tr('em.provider_unknown')}
            </p>
          )}
          {detected?.hint_text ? <Notice kind="info">{detected.hint_text}</Notice> : null}
        </form>
      </Panel>
      {detected ? (
        <Panel title={tr('em.step2')} id="em-step2">
          <form class="k-form" onSubmit={test}>
            <TextField
              label={tr('em.password')}
              name="password"
              type="password"
              autoComplete="current-password"
              value={password}
              onValue={(v) => {
                setPassword(v)
                setTested(null)
              }}
              error={fields.password}
              required
            />
            <TextField
              label={tr('em.username')}
              name="username"
              autoComplete="username"
              value={servers.username}
              onValue={set('username')}
              error={fields.username}
            />
            <ServerFields values={servers} fields={fields} onValue={(k, v) => set(k)(v)} />
            {fields.smtp_password ? <Notice kind="bad">{fields.smtp_password}</Notice> : null}
            {busy === 'test' ? <p role="status">{tr('em.testing')}</p> : null}
            {tested ? (
              <Notice kind="ok">{tr('em.test_ok')}</Notice>
            ) : (
              <button class="k-btn k-primary" type="submit" disabled={busy !== null}>
                {tr('em.test')}
              </button>
            )}
          </form>
        </Panel>
      ) : null}
      {tested ? (
        <Panel title={tr('em.step3')} id="em-step3">
          <form class="k-form" onSubmit={connect}>
            <TextField
              label={tr('ch.name')}
              name="name"
              value={name}
              onValue={(v) => {
                setName(v)
                setNamed(true)
              }}
              error={fields.name}
              maxLength={100}
            />
            {tested.folders.some((f) => f !== sent) ? (
              <fieldset class="k-fieldset">
                <legend>{tr('em.folders')}</legend>
                {tested.folders
                  .filter((f) => f !== sent)
                  .map((f) => (
                    <CheckField
                      key={f}
                      name="folders"
                      label={f}
                      checked={folders.includes(f)}
                      onValue={(on) => setFolders((fs) => (on ? [...fs, f] : fs.filter((x) => x !== f)))}
                    />
                  ))}
                {fields.folders ? <small class="k-error">{fields.folders}</small> : null}
              </fieldset>
            ) : null}
            <SelectField
              label={tr('em.sent_folder')}
              name="sent_folder"
              value={sent}
              options={[['', tr('em.none')], ...tested.folders.map((f) => [f, f] as const)]}
              onValue={setSent}
              error={fields.sent_folder}
            />
            <SelectField
              label={tr('em.history')}
              name="history_days"
              value={history}
              options={[
                ['0', tr('em.history_none')],
                ...HISTORY.filter((n) => n > 0).map(
                  (n) => [String(n), tr('em.history_days', { n })] as const,
                ),
              ]}
              onValue={setHistory}
              error={fields.history_days}
            />
            <button class="k-btn k-primary" type="submit" disabled={busy !== null}>
              {tr('em.connect')}
            </button>
          </form>
        </Panel>
      ) : null}
      {error ? <Notice kind="bad">{error}</Notice> : null}
    </div>
  )
}

/** A mailbox's page: its address, servers and folders, the last check and its error, check now. */
export const EmailDetail = ({
  channel,
  onSaved,
}: {
  channel: Channel & { email?: EmailSettings }
  onSaved: (c: Channel) => void
}) => {
  const tr = useTr()
  const locale = useLocale()
  const [email, setEmail] = useState(channel.email)
  // The page reloads the channel on `channel.updated` and after a save.
  useEffect(() => setEmail(channel.email), [channel.email])
  const [error, setError] = useState<string | null>(null)
  const sync = async () => {
    setError(null)
    try {
      const r = await got<{ channel: Channel & { email?: EmailSettings } }>(
        api.post('/v1/channels/{id}/sync', { path: { id: channel.id } }),
      )
      setEmail(r.data.channel.email)
    } catch (e) {
      setError((e as Fail).message)
    }
  }
  return (
    <>
      <Panel title={tr('em.mailbox')} id="em-mailbox">
        {email ? (
          <dl class="k-dl">
            <dt>{tr('em.address')}</dt>
            <dd>{email.address}</dd>
            <dt>{tr('em.imap_host')}</dt>
            <dd>{email.imap_host}</dd>
            <dt>{tr('em.smtp_host')}</dt>
            <dd>{email.smtp_host}</dd>
            <dt>{tr('em.folders_read')}</dt>
            <dd>{['INBOX', ...email.folders].join(', ')}</dd>
            <dt>{tr('em.sent_folder')}</dt>
            <dd>{email.sent_folder ?? tr('em.none')}</dd>
            <dt>{tr('em.last_check')}</dt>
            <dd>{email.sync.last_sync_at ? when(email.sync.last_sync_at, locale) : '—'}</dd>
          </dl>
        ) : null}
        {email?.sync.last_error ? (
          <Notice kind="bad">{tr('em.last_error', { e: email.sync.last_error })}</Notice>
        ) : null}
        {error ? <Notice kind="bad">{error}</Notice> : null}
        <div class="k-row">
          <button class="k-btn" type="button" onClick={sync}>
            {tr('em.sync')}
          </button>
        </div>
      </Panel>
      {email ? <EmailEdit channel={channel} email={email} onSaved={onSaved} /> : null}
    </>
  )
}
