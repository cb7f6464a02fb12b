import { useEffect, useState } from 'preact/hooks'
import type { paths } from '../api/schema'
import { SignOutEverywhere } from '../components/signOutEverywhere'
import { api, failFields, me, useKitTr, useLocale } from '../kit'
import { addStyles, ensureKitStyles } from '../kit/styles'
import { ConfirmButton, FailNotice, Notice, Panel, SelectField, TextField, when } from '../kit/ui'
import * as Alerts from '../lib/alerts'
import { t } from '../lib/i18n'
import { setGuestLocale } from '../lib/invitations'
import type * as Session from '../lib/session'
import { use } from '../lib/state'
import { PasskeysSection } from '../pages/passkeys'
import { deviceOf } from './device'
import { useTr } from './texts'

/**
 * `/profile`, every member's own page: their photo (chosen, previewed, then uploaded; or
 * removed), name, language and time zone (their own, or the workspace's), the alerts this app
 * gives them (a sound, kept on the server; desktop notifications, allowed per browser), their
 * passkeys, and the sessions they are signed in with (this device marked; any other ended at
 * once; or all of them).
 */

type Me = Session.Me
type SessionItem =
  paths['/v1/me/sessions']['get']['responses'][200]['content']['application/json']['data'][number]

addStyles(
  'pf',
  `
.pf-avatar{width:72px;height:72px;border-radius:50%;object-fit:cover;background:var(--accent-soft,#e3f2ef);color:var(--accent,#0f6e5f);display:flex;align-items:center;justify-content:center;font-size:26px;font-weight:600;flex:none}
.pf-photo{display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap}
.pf-photo-side{display:flex;flex-direction:column;gap:8px;min-width:0;flex:1}
.pf-photo .k-field{position:relative;align-items:flex-start}
.pf-file{position:absolute;width:1px;height:1px;opacity:0;overflow:hidden}
.pf-photo label.pf-pick{font-size:14px;font-weight:500;color:#1f2937}
.pf-file:focus-visible+.pf-pick{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
@media (max-width:640px){.pf-pick{min-height:44px;box-sizing:border-box;display:inline-flex;align-items:center}}
.pf-sessions{list-style:none;margin:0;padding:0}
.pf-session{display:flex;gap:12px;align-items:center;flex-wrap:wrap;padding:10px 0;border-bottom:1px solid var(--line,#e2e5ea)}
.pf-session:last-child{border-bottom:0}
.pf-session-text{flex:1;min-width:200px}
.pf-session-name{font-weight:600;overflow-wrap:anywhere}
.pf-passkeys .pk-heading{font-size:14px;margin:14px 0 8px}
.pf-passkeys .pk-intro{margin:0}
.pf-h3{font-size:14px;margin:0 0 6px}
.pf-desktop{margin:0 0 8px}
.pf-everywhere{margin-top:14px;padding-top:12px;border-top:1px solid var(--line,#e2e5ea);display:flex;flex-direction:column;gap:8px;align-items:flex-start}
.pf-everywhere p{margin:0}
@media (max-width:640px){.pf-everywhere button{min-height:44px}}
/* The kit's .k-btn:hover would paint a primary button light grey under its white text (a tap leaves :hover on). */
`,
)

const initials = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join('')

const Avatar = ({ url, name, alt }: { url: string | null; name: string; alt: string }) =>
  url ? (
    <img class="pf-avatar" src={url} alt={alt} data-testid="pf-avatar" />
  ) : (
    <span class="pf-avatar" aria-hidden="true" data-testid="pf-initials">
      {initials(name)}
    </span>
  )

/** What changes `me` answers with, taken as the app's `me` (names and menus follow). */
const adopt = (next: Me) => {
  setGuestLocale(next.user.locale === 'id' ? 'id' : 'en')
  me.set(next)
}

const PhotoPanel = ({ m }: { m: Me }) => {
  const tr = useTr()
  const kt = useKitTr()
  const [file, setFile] = useState<File | null>(null)
  const [preview, setPreview] = useState<string | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState<'uploaded' | 'removed' | null>(null)
  const [busy, setBusy] = useState(false)
  const [inputKey, setInputKey] = useState(0)
  useEffect(() => () => (preview ? URL.revokeObjectURL(preview) : undefined), [preview])
  const choose = (f: File | null) => {
    setError(null)
    setDone(null)
    setFile(f)
    setPreview(f ? URL.createObjectURL(f) : null)
  }
  const reset = () => {
    choose(null)
    setInputKey((k) => k + 1)
  }
  const avatarError = failFields(error).avatar
  const reload = async () => adopt((await api.get('/v1/me')).data)
  const upload = async () => {
    if (!file) return
    setBusy(true)
    setError(null)
    try {
      const body = new FormData()
      body.append('avatar', file)
      await api.post('/v1/me/avatar', { body })
      await reload()
      reset()
      setDone('uploaded')
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const remove = async () => {
    setError(null)
    setDone(null)
    try {
      await api.delete('/v1/me/avatar')
      await reload()
      setDone('removed')
    } catch (e) {
      setError(e)
    }
  }
  return (
    <Panel title={tr('pf.photo')} id="pf-photo">
      <div class="pf-photo">
        {preview ? (
          <img class="pf-avatar" src={preview} alt={tr('pf.photo_new')} data-testid="pf-preview" />
        ) : (
          <Avatar url={m.user.avatar_url} name={m.user.name} alt={tr('pf.photo_of', { name: m.user.name })} />
        )}
        <div class="pf-photo-side">
          {!m.user.avatar_url && !preview && <p class="k-muted">{tr('pf.photo_none')}</p>}
          <div class={`k-field${avatarError ? ' k-invalid' : ''}`}>
            {/* The browser's own file button speaks the browser's language: this one, the page's. */}
            <input
              key={inputKey}
              id="pf-file"
              class="pf-file"
              type="file"
              name="avatar"
              accept="image/png,image/jpeg,image/webp"
              aria-describedby={avatarError ? 'pf-file-hint pf-file-err' : 'pf-file-hint'}
              aria-invalid={avatarError ? 'true' : undefined}
              onChange={(e) => choose(e.currentTarget.files?.[0] ?? null)}
            />
            <label for="pf-file" class="k-btn pf-pick">
              {tr('pf.photo_choose')}
            </label>
            <small id="pf-file-hint" class="k-hint">
              {file ? file.name : tr('pf.photo_hint')}
            </small>
            {avatarError ? (
              <small id="pf-file-err" class="k-error" role="alert">
                {avatarError}
              </small>
            ) : null}
          </div>
          <div class="k-row">
            {file && (
              <>
                <button
                  type="button"
                  class="k-btn k-primary"
                  disabled={busy}
                  onClick={() => void upload()}
                  data-testid="pf-upload"
                >
                  {tr('pf.photo_upload')}
                </button>
                <button type="button" class="k-btn" onClick={reset}>
                  {kt('k.cancel')}
                </button>
              </>
            )}
            {!file && m.user.avatar_url && (
              <ConfirmButton
                label={tr('pf.photo_remove')}
                question={tr('pf.photo_remove_q')}
                onConfirm={remove}
                name="remove-photo"
              />
            )}
          </div>
          {error && !avatarError ? <FailNotice error={error} /> : null}
          {done && (
            <Notice kind="ok">{tr(done === 'uploaded' ? 'pf.photo_uploaded' : 'pf.photo_removed')}</Notice>
          )}
        </div>
      </div>
    </Panel>
  )
}

const zones = (): readonly string[] => {
  const list = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? []
  return list.includes('UTC') ? list : ['UTC', ...list]
}

const DetailsPanel = ({ m }: { m: Me }) => {
  const tr = useTr()
  const kt = useKitTr()
  const [name, setName] = useState(m.user.name)
  const [lang, setLang] = useState<'en' | 'id'>(m.user.locale)
  const [zone, setZone] = useState(m.user.timezone ?? '')
  const [error, setError] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const fields = failFields(error)
  /** A change after a refusal: the old messages no longer describe what is in the form. */
  const edit =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      setError(null)
      setSaved(false)
      set(v)
    }
  const workspaceZone = m.workspace.timezone
  const all = zones()
  const options: (readonly [string, string])[] = [
    ['', tr('pf.timezone_follow', { zone: workspaceZone })],
    ...(zone && !all.includes(zone) ? [zone] : []).concat(all).map((z) => [z, z.replace(/_/g, ' ')] as const),
  ]
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    setSaved(false)
    try {
      const got = await api.patch('/v1/me', { body: { name, locale: lang, timezone: zone } })
      adopt(got.data)
      setName(got.data.user.name)
      setSaved(true)
    } catch (err) {
      setError(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <form
      class="k-panel k-form"
      onSubmit={(e) => void save(e)}
      aria-labelledby="pf-details"
      data-testid="pf-details"
    >
      <h2 id="pf-details">{tr('pf.details')}</h2>
      <TextField
        label={tr('pf.name')}
        name="name"
        value={name}
        onValue={edit(setName)}
        required
        maxLength={100}
        autoComplete="name"
        hint={tr('pf.name_hint')}
        error={fields.name}
      />
      <dl class="k-dl">
        <dt>{tr('pf.email')}</dt>
        <dd>{m.user.email}</dd>
      </dl>
      <SelectField
        label={tr('pf.language')}
        name="locale"
        value={lang}
        options={[
          ['en', 'English'],
          ['id', 'Bahasa Indonesia'],
        ]}
        onValue={edit((v: string) => setLang(v === 'id' ? 'id' : 'en'))}
        error={fields.locale}
      />
      <SelectField
        label={tr('pf.timezone')}
        name="timezone"
        value={zone}
        options={options}
        onValue={edit(setZone)}
        error={fields.timezone}
      />
      <small class="k-hint">{tr('pf.timezone_hint')}</small>
      <FailNotice error={error} />
      {saved && <Notice kind="ok">{tr('pf.saved')}</Notice>}
      <button type="submit" class="k-btn k-primary" disabled={busy}>
        {kt('k.save')}
      </button>
    </form>
  )
}

const AlertsPanel = () => {
  const tr = useTr()
  const sound = use(Alerts.sound)
  const permission = use(Alerts.permission)
  const [error, setError] = useState<unknown>(null)
  const [changed, setChanged] = useState(false)
  const toggle = async (on: boolean) => {
    setError(null)
    setChanged(false)
    try {
      await Alerts.setSound(on)
      setChanged(true)
    } catch (e) {
      Alerts.sound.set(!on)
      setError(e)
    }
  }
  return (
    <Panel title={tr('pf.alerts')} id="pf-alerts">
      <div class="k-stack">
        <label class="k-check">
          <input
            type="checkbox"
            name="livechat_alert"
            checked={sound}
            onChange={(e) => void toggle(e.currentTarget.checked)}
          />
          {tr('pf.sound')}
        </label>
        {changed && <Notice kind="ok">{tr(sound ? 'pf.sound_on' : 'pf.sound_off')}</Notice>}
        <FailNotice error={error} />
        <div>
          <h3 class="pf-h3">{tr('pf.desktop')}</h3>
          <p class="pf-desktop" data-testid="pf-desktop">
            {tr(
              permission === 'granted'
                ? 'pf.desktop_granted'
                : permission === 'denied'
                  ? 'pf.desktop_denied'
                  : permission === 'unsupported'
                    ? 'pf.desktop_unsupported'
                    : 'pf.desktop_default',
            )}{' '}
            <span class="k-muted">{tr('pf.desktop_per_browser')}</span>
          </p>
          {permission === 'default' && (
            <button type="button" class="k-btn" onClick={() => void Alerts.askPermission()}>
              {tr('pf.desktop_allow')}
            </button>
          )}
        </div>
      </div>
    </Panel>
  )
}

const SessionRow = ({ s, onEnd }: { s: SessionItem; onEnd: (id: number) => Promise<void> }) => {
  const tr = useTr()
  const lang = useLocale()
  const d = deviceOf(s.user_agent)
  const label = !d
    ? tr('pf.unknown_device')
    : d.browser && d.os
      ? tr('pf.browser_on', { browser: d.browser, os: d.os })
      : (d.browser ?? d.os ?? tr('pf.unknown_device'))
  return (
    <li class="pf-session" data-testid="pf-session" data-session-id={s.id}>
      <div class="pf-session-text">
        <div class="pf-session-name">
          {label}{' '}
          {s.current && (
            <span class="k-badge k-ok" data-testid="pf-current">
              {tr('pf.this_device')}
            </span>
          )}
        </div>
        <div class="k-muted">
          {tr('pf.session_started', { date: when(s.created_at, lang) })} {tr(`pf.via.${s.via}`)}
          {s.ip ? ` ${tr('pf.session_from', { ip: s.ip })}` : ''}
        </div>
      </div>
      {!s.current && (
        <ConfirmButton
          label={tr('pf.end')}
          question={tr('pf.end_q')}
          onConfirm={() => onEnd(s.id)}
          name="end-session"
        />
      )}
    </li>
  )
}

const SessionsPanel = () => {
  const tr = useTr()
  const kt = useKitTr()
  const [list, setList] = useState<readonly SessionItem[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [ended, setEnded] = useState(false)
  const load = () =>
    api
      .get('/v1/me/sessions')
      .then((r) => setList(r.data))
      .catch(setError)
  useEffect(() => {
    void load()
  }, [])
  const end = async (id: number) => {
    setError(null)
    setEnded(false)
    try {
      await api.delete('/v1/me/sessions/{id}', { path: { id } })
      setEnded(true)
    } catch (e) {
      setError(e)
    }
    await load()
  }
  return (
    <Panel title={tr('pf.sessions')} id="pf-sessions">
      <p class="k-muted">{tr('pf.sessions_intro')}</p>
      {list === null && !error ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <ul class="pf-sessions" data-testid="pf-sessions">
          {(list ?? []).map((s) => (
            <SessionRow key={s.id} s={s} onEnd={end} />
          ))}
        </ul>
      )}
      {ended && <Notice kind="ok">{tr('pf.ended')}</Notice>}
      <FailNotice error={error} />
      <div class="pf-everywhere">
        <p class="k-muted">{tr('pf.everywhere')}</p>
        <SignOutEverywhere testId="pf-signout-all" />
      </div>
    </Panel>
  )
}

export default function ProfilePage() {
  ensureKitStyles()
  const tr = useTr()
  const m = use(me)
  if (!m) return null
  return (
    <div class="k-page k-narrow pf-page" data-testid="profile-page">
      <div class="k-head">
        <h1>{tr('pf.title')}</h1>
      </div>
      <div class="k-stack">
        <p class="k-muted">{tr('pf.intro')}</p>
        <PhotoPanel m={m} />
        <DetailsPanel m={m} />
        <AlertsPanel />
        <section class="k-panel pf-passkeys" aria-labelledby="pf-passkeys">
          <h2 id="pf-passkeys">{tr('pf.passkeys')}</h2>
          <p class="k-muted pk-intro">{t('pk.intro')}</p>
          <PasskeysSection level={3} />
        </section>
        <SessionsPanel />
      </div>
    </div>
  )
}
