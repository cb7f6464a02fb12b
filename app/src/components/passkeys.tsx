import { useState } from 'preact/hooks'
import { t } from '../lib/i18n'
import * as Passkeys from '../lib/passkeys'
import { returnPath } from '../lib/returnPath'
import '../pages/passkeysTexts'

/**
 * "Sign in with a passkey", shown only where the browser can use one. No address is asked: the
 * browser offers the passkeys it holds for this server and the chosen one names the account.
 * Signed in, the page goes to `returnTo` (an app path), as the other ways do.
 */
export const PasskeySignIn = ({ returnTo }: { returnTo: string }) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  if (!Passkeys.supported()) return null
  const go = async () => {
    setBusy(true)
    setError(null)
    try {
      await Passkeys.signIn()
      location.href = returnPath(returnTo)
    } catch (e) {
      setError(Passkeys.problem(e))
      setBusy(false)
    }
  }
  return (
    <div class="signin-passkey">
      <p class="signin-or muted">{t('pk.signin_or')}</p>
      <button
        type="button"
        class="primary"
        disabled={busy}
        data-testid="passkey-signin"
        onClick={() => void go()}
      >
        {busy ? t('pk.signing') : t('pk.signin')}
      </button>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  )
}
