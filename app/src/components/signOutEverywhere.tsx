import { useState } from 'preact/hooks'
import { ApiError } from '../lib/api'
import { extend, t } from '../lib/i18n'
import * as Session from '../lib/session'
import '../pages/signinTexts'

extend({
  en: {
    'signout.all_failed': 'You are still signed in on your devices: {message}',
    'signout.all_unreachable': 'the server could not be reached. Check the connection and try again.',
  },
  id: {
    'signout.all_failed': 'Anda masih masuk di perangkat Anda: {message}',
    'signout.all_unreachable': 'server tidak dapat dihubungi. Periksa koneksi lalu coba lagi.',
  },
})

/**
 * "Sign out of every device" (account menu, phone drawer): it leaves the page only once the
 * sessions have ended, and says so when they may not have, so nobody walks away from a lost
 * phone's session believing it closed.
 */
export const SignOutEverywhere = ({ testId }: { readonly testId?: string }) => {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const go = async () => {
    setBusy(true)
    setProblem(null)
    try {
      await Session.signOutEverywhere()
    } catch (e) {
      setProblem(e instanceof ApiError ? e.message : t('signout.all_unreachable'))
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" data-testid={testId} disabled={busy} onClick={() => void go()}>
        {t('signout.all')}
      </button>
      {problem && (
        <p class="error" role="alert" data-testid="signout-all-error">
          {t('signout.all_failed', { message: problem })}
        </p>
      )}
    </>
  )
}
