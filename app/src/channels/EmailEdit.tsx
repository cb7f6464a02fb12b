import { Fragment } from 'preact'
import { useState } from 'preact/hooks'
import { CheckField, FailNotice, Notice, SelectField, TextAreaField, TextField } from './common'
import { api, failFields, got, useTr } from './kit'
import { useSynced } from './SettingsPanels'
import { type Channel, type EmailSettings, SECURITY, type Security, security } from './types'

/**
 * A mailbox's settings after it is connected (`PATCH /channels/{id}/email`, spec 1 §4.4): the
 * address, sign-in and servers (re-tested by the server before saving, its refusal shown under
 * the field to correct), the folders read (listed by signing in again), and how replies go out.
 * Passwords are never shown back: a blank one keeps the saved one. Only what changed is sent, so
 * a new signature does not sign in to the servers again.
 */

interface Form {
  readonly address: string
  readonly password: string
  readonly username: string
  readonly imap_host: string
  readonly imap_port: string
  readonly imap_security: Security
  readonly smtp_host: string
  readonly smtp_port: string
  readonly smtp_security: Security
  readonly smtp_username: string
  readonly smtp_password: string
  /** Drop the separate SMTP password: send with the mailbox's own. */
  readonly smtp_own_off: boolean
  readonly folders: readonly string[]
  readonly sent_folder: string
  readonly read_sent: boolean
  readonly save_sent: boolean
  readonly sender_name: string
  readonly sender_with_agent: boolean
  readonly signature_html: string
  readonly ignore: string
}

const toForm = (e: EmailSettings): Form => ({
  address: e.address,
  password: '',
  username: e.username,
  imap_host: e.imap_host,
  imap_port: String(e.imap_port),
  imap_security: security(e.imap_security),
  smtp_host: e.smtp_host,
  smtp_port: String(e.smtp_port),
  smtp_security: security(e.smtp_security),
  smtp_username: e.smtp_username ?? '',
  smtp_password: '',
  smtp_own_off: false,
  folders: e.folders,
  sent_folder: e.sent_folder ?? '',
  read_sent: e.read_sent,
  save_sent: e.save_sent,
  sender_name: e.sender_name,
  sender_with_agent: e.sender_with_agent,
  signature_html: e.signature_html,
  ignore: e.ignore.join('\n'),
})

const port = (s: string) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : s)
const lines = (s: string) =>
  s
    .split(/[\n,]+/)
    .map((l) => l.trim())
    .filter(Boolean)

/** The fields that differ from what is saved, as the PATCH body names them. */
const changes = (f: Form, e: EmailSettings): Record<string, unknown> => {
  const body: Record<string, unknown> = {}
  const put = (k: string, v: unknown, was: unknown) => {
    if (JSON.stringify(v) !== JSON.stringify(was)) body[k] = v
  }
  put('address', f.address.trim(), e.address)
  if (f.password !== '') body.password = f.password
  put('username', f.username.trim(), e.username)
  put('imap_host', f.imap_host.trim(), e.imap_host)
  put('imap_port', port(f.imap_port), e.imap_port)
  put('imap_security', f.imap_security, e.imap_security)
  put('smtp_host', f.smtp_host.trim(), e.smtp_host)
  put('smtp_port', port(f.smtp_port), e.smtp_port)
  put('smtp_security', f.smtp_security, e.smtp_security)
  put('smtp_username', f.smtp_username.trim() || null, e.smtp_username)
  if (f.smtp_password !== '') body.smtp_password = f.smtp_password
  else if (f.smtp_own_off && e.smtp_password_set) body.smtp_password = null
  put('folders', [...f.folders].sort(), [...e.folders].sort())
  put('sent_folder', f.sent_folder || null, e.sent_folder)
  put('read_sent', f.read_sent, e.read_sent)
  put('save_sent', f.save_sent, e.save_sent)
  put('sender_name', f.sender_name, e.sender_name)
  put('sender_with_agent', f.sender_with_agent, e.sender_with_agent)
  put('signature_html', f.signature_html, e.signature_html)
  put('ignore', lines(f.ignore), e.ignore)
  return body
}

type ServerKey = `${'imap' | 'smtp'}_${'host' | 'port' | 'security'}`

/** The IMAP and SMTP server, port and security of a mailbox, new or connected. */
export const ServerFields = (props: {
  values: Readonly<Record<ServerKey, string>>
  fields: Readonly<Record<string, string>>
  onValue: (k: ServerKey, v: string) => void
}) => {
  const tr = useTr()
  return (
    <div class="k-grid3">
      {(['imap', 'smtp'] as const).map((side) => (
        <Fragment key={side}>
          <TextField
            label={tr(`em.${side}_host`)}
            name={`${side}_host`}
            value={props.values[`${side}_host`]}
            onValue={(v) => props.onValue(`${side}_host`, v)}
            error={props.fields[`${side}_host`]}
            required
          />
          <TextField
            label={tr(`em.${side}_port`)}
            name={`${side}_port`}
            inputMode="numeric"
            value={props.values[`${side}_port`]}
            onValue={(v) => props.onValue(`${side}_port`, v)}
            error={props.fields[`${side}_port`]}
            required
          />
          <SelectField
            label={tr(`em.${side}_security`)}
            name={`${side}_security`}
            value={props.values[`${side}_security`]}
            options={SECURITY}
            onValue={(v) => props.onValue(`${side}_security`, v)}
            error={props.fields[`${side}_security`]}
          />
        </Fragment>
      ))}
    </div>
  )
}

interface Folders {
  readonly folders: readonly { readonly name: string; readonly selected: boolean }[]
  readonly sent_folder: string | null
  readonly detected_sent_folder: string | null
}

export const EmailEdit = (props: {
  channel: Channel
  email: EmailSettings
  onSaved: (c: Channel) => void
}) => {
  const tr = useTr()
  const [form, setForm, reset] = useSynced(toForm(props.email))
  const [listed, setListed] = useState<readonly string[] | null>(null)
  const [busy, setBusy] = useState<'save' | 'folders' | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  const fields = failFields(error)
  const set =
    <K extends keyof Form>(k: K) =>
    (v: Form[K]) =>
      setForm((f) => ({ ...f, [k]: v }))
  const text = (k: keyof Form) => (v: string) => setForm((f) => ({ ...f, [k]: v }))

  const listFolders = async () => {
    setBusy('folders')
    setError(null)
    try {
      const r = await got<Folders>(
        api.get('/v1/channels/{id}/email/folders', { path: { id: props.channel.id } }),
      )
      setListed(r.data.folders.map((f) => f.name))
    } catch (e) {
      setError(e)
    } finally {
      setBusy(null)
    }
  }

  const save = async (ev: Event) => {
    ev.preventDefault()
    setBusy('save')
    setError(null)
    setDone(false)
    try {
      const r = await got<Channel>(
        api.patch('/v1/channels/{id}/email', {
          path: { id: props.channel.id },
          body: changes(form, props.email),
        }),
      )
      props.onSaved(r.data)
      if (r.data.email) setForm(toForm(r.data.email))
      else reset()
      setDone(true)
    } catch (e) {
      setError(e)
    } finally {
      setBusy(null)
    }
  }

  // Before the folders are listed, the ones read and the Sent folder are the choices.
  const known = listed ?? [...new Set([...props.email.folders, ...form.folders])]
  const choosable = known.filter((f) => f !== form.sent_folder)
  const sentChoices = [...new Set([...known, ...(form.sent_folder ? [form.sent_folder] : [])])]

  return (
    <form class="k-form k-panel chs-email-edit" aria-labelledby="em-edit" onSubmit={save}>
      <h2 id="em-edit">{tr('em.edit_title')}</h2>
      <p class="k-muted">{tr('em.edit_hint')}</p>
      <fieldset class="k-fieldset">
        <legend>{tr('em.edit_signin')}</legend>
        <TextField
          label={tr('em.address')}
          name="address"
          type="email"
          value={form.address}
          onValue={text('address')}
          error={fields.address}
          required
        />
        <TextField
          label={tr('em.password')}
          name="password"
          type="password"
          autoComplete="new-password"
          value={form.password}
          onValue={text('password')}
          error={fields.password}
          hint={tr('em.keep_password')}
        />
        <TextField
          label={tr('em.username_edit')}
          name="username"
          autoComplete="off"
          value={form.username}
          onValue={text('username')}
          error={fields.username}
        />
        <ServerFields
          values={form}
          fields={fields}
          onValue={(k, v) => setForm((f) => ({ ...f, [k]: k.endsWith('_security') ? security(v) : v }))}
        />
        <TextField
          label={tr('em.smtp_username')}
          name="smtp_username"
          autoComplete="off"
          value={form.smtp_username}
          onValue={text('smtp_username')}
          error={fields.smtp_username}
          hint={tr('em.smtp_username_hint')}
        />
        <TextField
          label={tr('em.smtp_password')}
          name="smtp_password"
          type="password"
          autoComplete="new-password"
          value={form.smtp_password}
          onValue={text('smtp_password')}
          error={fields.smtp_password}
          hint={tr(props.email.smtp_password_set ? 'em.smtp_password_set' : 'em.smtp_password_unset')}
        />
        {props.email.smtp_password_set && form.smtp_password === '' ? (
          <CheckField
            name="smtp_own_off"
            label={tr('em.smtp_own_off')}
            checked={form.smtp_own_off}
            onValue={set('smtp_own_off')}
          />
        ) : null}
      </fieldset>

      <fieldset class="k-fieldset" data-testid="email-folders">
        <legend>{tr('em.edit_folders')}</legend>
        <p class="k-hint">{choosable.length === 0 ? tr('em.folders_none') : tr('em.folders')}</p>
        {choosable.map((f) => (
          <CheckField
            key={f}
            name="folders"
            label={f}
            checked={form.folders.includes(f)}
            onValue={(on) =>
              setForm((x) => ({ ...x, folders: on ? [...x.folders, f] : x.folders.filter((y) => y !== f) }))
            }
          />
        ))}
        {fields.folders ? <small class="k-error">{fields.folders}</small> : null}
        {listed === null ? (
          <button class="k-btn" type="button" disabled={busy !== null} onClick={listFolders}>
            {busy === 'folders' ? tr('em.listing') : tr('em.list_folders')}
          </button>
        ) : null}
        <SelectField
          label={tr('em.sent_folder')}
          name="sent_folder"
          value={form.sent_folder}
          options={[['', tr('em.none')], ...sentChoices.map((f) => [f, f] as const)]}
          onValue={text('sent_folder')}
          error={fields.sent_folder}
        />
        <CheckField
          name="read_sent"
          label={tr('em.read_sent')}
          checked={form.read_sent}
          onValue={set('read_sent')}
        />
        <CheckField
          name="save_sent"
          label={tr('em.save_sent')}
          checked={form.save_sent}
          onValue={set('save_sent')}
        />
      </fieldset>

      <fieldset class="k-fieldset">
        <legend>{tr('em.edit_sending')}</legend>
        <TextField
          label={tr('em.sender_name')}
          name="sender_name"
          maxLength={100}
          value={form.sender_name}
          onValue={text('sender_name')}
          error={fields.sender_name}
        />
        <CheckField
          name="sender_with_agent"
          label={tr('em.sender_with_agent')}
          checked={form.sender_with_agent}
          onValue={set('sender_with_agent')}
        />
        <TextAreaField
          label={tr('em.signature')}
          name="signature_html"
          rows={4}
          maxLength={20000}
          value={form.signature_html}
          onValue={text('signature_html')}
          error={fields.signature_html}
          hint={tr('em.signature_hint')}
        />
        <TextAreaField
          label={tr('em.ignore')}
          name="ignore"
          rows={3}
          value={form.ignore}
          onValue={text('ignore')}
          error={Object.entries(fields).find(([k]) => k === 'ignore' || k.startsWith('ignore.'))?.[1]}
          hint={tr('em.ignore_hint')}
        />
      </fieldset>
      <FailNotice error={error} />
      {busy === 'save' ? <p role="status">{tr('em.saving')}</p> : null}
      {done ? <Notice kind="ok">{tr('ch.saved')}</Notice> : null}
      <button class="k-btn k-primary" type="submit" disabled={busy !== null}>
        {tr('em.save')}
      </button>
    </form>
  )
}
