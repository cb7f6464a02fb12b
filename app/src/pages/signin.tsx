import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { PasskeySignIn } from '../components/passkeys'
import { ApiError, api } from '../lib/api'
import { meaningful } from '../lib/format'
import { type Locale, locale, t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { use } from '../lib/state'
import './signinTexts'

/** The language of a page for someone not signed in (their browser's, or their pick here). */
export const LanguagePick = () => {
  const lang = use(locale)
  return (
    <select
      class="lang"
      value={lang}
      aria-label={t('language')}
      onChange={(e) => Inv.setGuestLocale(e.currentTarget.value as Locale)}
    >
      <option value="en">EN</option>
      <option value="id">ID</option>
    </select>
  )
}

/**
 * "E-mail me a sign-in link" (POST /auth/link): the answer is the same whether or not the address
 * has an account, so the page says the link is on its way only if there is one.
 */
export const EmailLinkForm = ({ returnTo, email }: { returnTo: string; email?: string | undefined }) => {
  const [address, setAddress] = useState(email ?? '')
  const [state, setState] = useState<'idle' | 'sending' | 'sent'>('idle')
  const [error, setError] = useState<{ readonly text: string; readonly field: boolean } | null>(null)
  const send = async (e: Event) => {
    e.preventDefault()
    setState('sending')
    setError(null)
    try {
      await api.post('/auth/link', { body: { email: address.trim(), return_to: returnTo } })
      setState('sent')
    } catch (err) {
      setState('idle')
      const field = err instanceof ApiError ? err.fields.email : undefined
      setError({
        text: field ?? (err instanceof Error ? err.message : String(err)),
        field: field !== undefined,
      })
    }
  }
  if (state === 'sent')
    return (
      <div class="signin-email" role="status" data-testid="signin-email-sent">
        <p>{t('signin.email_sent', { email: address.trim() })}</p>
        <button type="button" class="link" onClick={() => setState('idle')}>
          {t('signin.email_again')}
        </button>
      </div>
    )
  return (
    <form class="signin-email" onSubmit={(e) => void send(e)} data-testid="signin-email">
      <label for="signin-email-address">{t('signin.email_label')}</label>
      <input
        id="signin-email-address"
        type="email"
        autocomplete="email"
        required
        value={address}
        aria-invalid={error?.field ? true : undefined}
        aria-describedby="signin-email-help"
        onInput={(e) => setAddress(e.currentTarget.value)}
      />
      <p id="signin-email-help" class="muted small">
        {t('signin.email_help')}
      </p>
      {error && (
        <p class="error" role="alert">
          {error.text}
        </p>
      )}
      <button type="submit" class="primary" disabled={state === 'sending'}>
        {state === 'sending' ? t('signin.email_sending') : t('signin.email_send')}
      </button>
    </form>
  )
}

interface Ways {
  readonly oidc: boolean
  readonly login_path: string | null
  readonly email: boolean
}

/**
 * The ways to sign in on this server (GET /v1/public/config `sign_in`): the OpenID Connect
 * provider's button, a link by e-mail when the server can send mail, or else how to get a one-time
 * link from the operator CLI. `returnTo` is the app path to come back to (an invitation's page, say).
 */
export const SignInWays = ({ returnTo = '/app', email }: { returnTo?: string; email?: string }) => {
  const [signIn, setSignIn] = useState<Ways | null>(null)
  useEffect(() => {
    void api.get('/v1/public/config').then((r) => {
      setSignIn(r.data.sign_in)
      meaningful()
    })
  }, [])
  if (signIn === null) return <p class="muted">{t('list.loading')}</p>
  const oidc = signIn.oidc && signIn.login_path
  return (
    <>
      {oidc && (
        <>
          <p>{t('signin.oidc_help')}</p>
          <a class="button primary" href={`${signIn.login_path}?return_to=${encodeURIComponent(returnTo)}`}>
            {t('signin.oidc')}
          </a>
        </>
      )}
      {oidc && signIn.email && <p class="signin-or muted">{t('signin.or')}</p>}
      {signIn.email && <EmailLinkForm returnTo={returnTo} email={email} />}
      {!oidc && !signIn.email && (
        <>
          <p>{t('signin.link_help')}</p>
          <pre>
            <code>npm run kotak -- login-link --email {email ?? 'you@example.com'}</code>
          </pre>
          <p>{t('signin.link_open')}</p>
        </>
      )}
      <PasskeySignIn returnTo={returnTo} />
    </>
  )
}

/**
 * The card of a page for someone signed out (or without a workspace): the brand and the language
 * pick on top (`top: false` leaves both out, `language: false` the pick; `extra` goes beside
 * them), the page, then its error if any.
 */
export const GuestCard = ({
  kind,
  top = true,
  language = true,
  extra,
  error,
  errorId,
  testid,
  children,
}: {
  readonly kind?: string
  readonly top?: boolean
  readonly language?: boolean
  readonly extra?: ComponentChildren
  readonly error?: string | null
  readonly errorId?: string
  readonly testid?: string
  readonly children: ComponentChildren
}) => (
  <main class={kind ? `signin ${kind}` : 'signin'} data-testid={testid}>
    <div class="card">
      {top && (
        <div class="card-top">
          <span class="brand">Kotak</span>
          {language && <LanguagePick />}
          {extra}
        </div>
      )}
      {children}
      {error && (
        <p class="error" role="alert" data-testid={errorId}>
          {error}
        </p>
      )}
    </div>
  </main>
)

export const SignIn = () => {
  use(locale)
  useEffect(() => Inv.applyGuestLocale(), [])
  return (
    <GuestCard>
      <h1>{t('signin.title')}</h1>
      <SignInWays />
    </GuestCard>
  )
}
