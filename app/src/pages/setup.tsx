import { useEffect, useState } from 'preact/hooks'
import { ApiError, api } from '../lib/api'
import { meaningful } from '../lib/format'
import { type Locale, locale, t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { use } from '../lib/state'
import { GuestCard } from './signin'
import './setupTexts'

/**
 * The first run's page (`/app/setup/{token}`, the link `npm start` logs on an unclaimed install):
 * the token checked (GET /v1/setup/{token}), then the first workspace and its owner created
 * (POST /v1/setup), which signs the person in and lands them in the inbox. A link that is not the
 * newest, or an install already set up, says so and what to do instead.
 */

type State = 'checking' | 'open' | 'invalid' | 'done' | 'failed'
type FieldName = 'workspace_name' | 'name' | 'email'

const cliCommand =
  'npm run kotak -- workspace create --name "…" --owner-email you@example.com --owner-name "…"'

/** The browser's zone, when it names one the server knows (the server checks it anyway). */
const browserZone = () => {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined
  } catch {
    return undefined
  }
}

const stateOf = (e: unknown): State | null =>
  e instanceof ApiError
    ? e.code === 'setup_done'
      ? 'done'
      : e.code === 'setup_token_invalid'
        ? 'invalid'
        : null
    : null

export default function SetupPage({ token }: { token: string }) {
  const lang = use(locale)
  const [state, setState] = useState<State>('checking')
  const [values, setValues] = useState<Record<FieldName, string>>({ workspace_name: '', name: '', email: '' })
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  useEffect(() => {
    Inv.applyGuestLocale()
    api
      .get('/v1/setup/{token}', { path: { token } })
      .then(() => setState('open'))
      .catch((e: unknown) => {
        const s = stateOf(e)
        setState(s ?? 'failed')
        if (!s) setError(e instanceof Error ? e.message : String(e))
      })
      .finally(meaningful)
  }, [token])

  const submit = async (ev: Event) => {
    ev.preventDefault()
    setBusy(true)
    setError(null)
    setFields({})
    const zone = browserZone()
    try {
      const r = await api.post('/v1/setup', {
        body: { token, ...values, locale: lang, ...(zone ? { timezone: zone } : {}) },
      })
      // A full load: the app starts over signed in, with the new workspace's session.
      location.assign(r.data.redirect_to)
    } catch (e) {
      setBusy(false)
      const s = stateOf(e)
      if (s) return setState(s)
      if (e instanceof ApiError && Object.keys(e.fields).length > 0) {
        setFields(e.fields)
        setError(t('setup.fix_fields'))
        // Where the person fixes the first problem.
        requestAnimationFrame(() => document.querySelector<HTMLInputElement>('input.setup-invalid')?.focus())
      } else setError(e instanceof Error ? e.message : String(e))
    }
  }

  const field = (
    name: FieldName,
    label: string,
    opts: { type?: string; auto?: string; hint?: string } = {},
  ) => {
    const err = fields[name]
    const described = [err ? `setup-${name}-err` : '', opts.hint ? `setup-${name}-hint` : '']
      .filter(Boolean)
      .join(' ')
    return (
      <div class="setup-field">
        <label for={`setup-${name}`}>{label}</label>
        <input
          id={`setup-${name}`}
          class={err ? 'setup-invalid' : undefined}
          name={name}
          type={(opts.type ?? 'text') as 'text'}
          autoComplete={opts.auto}
          maxLength={name === 'email' ? 254 : 120}
          required
          value={values[name]}
          aria-invalid={err ? 'true' : undefined}
          aria-describedby={described || undefined}
          onInput={(e) => {
            const v = e.currentTarget.value
            setValues((old) => ({ ...old, [name]: v }))
          }}
        />
        {opts.hint && (
          <small id={`setup-${name}-hint`} class="muted small">
            {opts.hint}
          </small>
        )}
        {err && (
          <small id={`setup-${name}-err`} class="error small" data-testid={`setup-error-${name}`}>
            {err}
          </small>
        )}
      </div>
    )
  }

  let body: preact.ComponentChildren
  if (state === 'checking') body = <p class="muted">{t('list.loading')}</p>
  else if (state === 'invalid')
    body = (
      <>
        <h1>{t('setup.invalid_title')}</h1>
        <p data-testid="setup-help" data-state="invalid">
          {t('setup.invalid_help')}
        </p>
        <pre>
          <code>{cliCommand}</code>
        </pre>
      </>
    )
  else if (state === 'done')
    body = (
      <>
        <h1>{t('setup.done_title')}</h1>
        <p data-testid="setup-help" data-state="done">
          {t('setup.done_help')}
        </p>
        <a class="button primary" href="/app">
          {t('setup.to_signin')}
        </a>
      </>
    )
  else if (state === 'failed') body = null
  else
    body = (
      <>
        <h1>{t('setup.title')}</h1>
        <p>{t('setup.intro')}</p>
        <form class="setup-form" data-testid="setup-form" noValidate onSubmit={(e) => void submit(e)}>
          {field('workspace_name', t('setup.workspace_name'), {
            auto: 'organization',
            hint: t('setup.workspace_hint'),
          })}
          {field('name', t('setup.name'), { auto: 'name' })}
          {field('email', t('setup.email'), { type: 'email', auto: 'email', hint: t('setup.email_hint') })}
          <div class="setup-field">
            <label for="setup-locale">{t('setup.language')}</label>
            <select
              id="setup-locale"
              name="locale"
              value={lang}
              onChange={(e) => {
                // The server's messages came in the other language: they go, and come back in
                // this one with the next try.
                setFields({})
                setError(null)
                Inv.setGuestLocale(e.currentTarget.value as Locale)
              }}
            >
              <option value="en">English</option>
              <option value="id">Bahasa Indonesia</option>
            </select>
          </div>
          {error && (
            <p class="error" role="alert" data-testid="setup-error">
              {error}
            </p>
          )}
          <button type="submit" class="primary" disabled={busy}>
            {busy ? t('setup.submitting') : t('setup.submit')}
          </button>
          <p class="muted small" data-testid="setup-next-time">
            {t('setup.next_time')}
          </p>
        </form>
      </>
    )
  return (
    // The form has its own language field, which is also the account's; it shows its own error.
    <GuestCard
      kind="setup"
      language={state !== 'open'}
      error={state !== 'open' ? error : null}
      errorId="setup-error"
    >
      {body}
    </GuestCard>
  )
}
