import { useEffect, useState } from 'preact/hooks'
import type { paths } from '../api/schema'
import { ApiError, api } from '../lib/api'
import { meaningful } from '../lib/format'
import { locale, t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { returnPath } from '../lib/returnPath'
import { use } from '../lib/state'
import { GuestCard, SignInWays } from './signin'
import './signinTexts'

type LinkState =
  paths['/auth/link/{token}/status']['get']['responses'][200]['content']['application/json']['data']

/**
 * A one-time sign-in link's page (`/auth/link/{token}` redirects here). Opening it uses nothing, so
 * a chat app's link preview cannot burn the link: the person presses Sign in (POST
 * /auth/link/{token}). A used, expired or mangled link says so and offers a new one (the e-mail
 * form when the server can send mail, else how to ask the operator).
 */
export default function LinkPage({ token, returnTo }: { token: string; returnTo: string }) {
  use(locale)
  const [link, setLink] = useState<LinkState | null>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => Inv.applyGuestLocale(), [])
  const check = () =>
    api
      .get('/auth/link/{token}/status', { path: { token } })
      .then((r) => setLink(r.data))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(meaningful)
  useEffect(() => {
    void check()
  }, [token])

  const signIn = async () => {
    setBusy(true)
    setError(null)
    try {
      const r = await api.post('/auth/link/{token}', { path: { token }, body: { return_to: returnTo } })
      // The server checked it already; the app follows nothing it would not send itself.
      location.href = returnPath(r.data.return_to)
    } catch (e) {
      setBusy(false)
      // Used in another tab or expired while the page was open: the page says which.
      if (e instanceof ApiError && e.status === 401) await check()
      else setError(e instanceof Error ? e.message : String(e))
    }
  }

  let body: preact.ComponentChildren = null
  if (link === null) body = error ? null : <p class="muted">{t('list.loading')}</p>
  else if (link.status === 'valid')
    body = (
      <>
        <h1>{t('signin.title')}</h1>
        <p data-testid="link-for">{t('link.for', { email: link.email ?? '' })}</p>
        <button
          type="button"
          class="primary big"
          data-testid="link-signin"
          disabled={busy}
          onClick={() => void signIn()}
        >
          {busy ? t('link.signing') : t('link.button')}
        </button>
        <p class="muted small">{t('link.once')}</p>
      </>
    )
  else
    body = (
      <>
        <h1>{t(`link.${link.status}_title`)}</h1>
        <p data-testid="link-help" data-status={link.status}>
          {t(`link.${link.status}`)}
        </p>
        <section class="signin-ways" aria-labelledby="link-new">
          <h2 id="link-new">{t('link.new')}</h2>
          <SignInWays returnTo={returnTo} />
        </section>
      </>
    )
  return (
    <GuestCard kind="link" error={error} errorId="link-error">
      {body}
    </GuestCard>
  )
}
