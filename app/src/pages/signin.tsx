import { useEffect, useState } from 'preact/hooks'
import { api } from '../lib/api'
import { meaningful } from '../lib/format'
import { t } from '../lib/i18n'

/**
 * The ways to sign in on this server (GET /v1/public/config `sign_in`): the OpenID Connect
 * provider's button, or how to get a one-time link from the operator CLI. `returnTo` is the app
 * path the provider brings the person back to (an invitation's page, say).
 */
export const SignInWays = ({ returnTo = '/app', email }: { returnTo?: string; email?: string }) => {
  const [signIn, setSignIn] = useState<{ oidc: boolean; login_path: string | null } | null>(null)
  useEffect(() => {
    void api.get('/v1/public/config').then((r) => {
      setSignIn(r.data.sign_in)
      meaningful()
    })
  }, [])
  return signIn === null ? (
    <p class="muted">{t('list.loading')}</p>
  ) : signIn.oidc && signIn.login_path ? (
    <>
      <p>{t('signin.oidc_help')}</p>
      <a class="button primary" href={`${signIn.login_path}?return_to=${encodeURIComponent(returnTo)}`}>
        {t('signin.oidc')}
      </a>
    </>
  ) : (
    <>
      <p>{t('signin.link_help')}</p>
      <pre>
        <code>npm run kotak -- login-link --email {email ?? 'you@example.com'}</code>
      </pre>
      <p>{t('signin.link_open')}</p>
    </>
  )
}

export const SignIn = () => (
  <main class="signin">
    <div class="card">
      <h1>{t('signin.title')}</h1>
      <SignInWays />
    </div>
  </main>
)
