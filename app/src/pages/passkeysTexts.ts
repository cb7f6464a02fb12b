import { extend } from '../lib/i18n'

/**
 * The texts of passkeys the first load needs (the sign-in button, the account menu's link, what a
 * failed ceremony says), in English and Indonesian; the account page brings its own with it
 * (pages/passkeys.tsx).
 */
extend({
  en: {
    'pk.nav': 'Passkeys',
    'pk.cancelled': 'The passkey request was cancelled or timed out.',
    'pk.duplicate': 'This device already holds a passkey for your account.',
    'pk.failed': 'The passkey did not work: {message}',
    'pk.signin': 'Sign in with a passkey',
    'pk.signing': 'Waiting for your passkey…',
    'pk.signin_or': 'or',
  },
  id: {
    'pk.nav': 'Passkey',
    'pk.cancelled': 'Permintaan passkey dibatalkan atau waktunya habis.',
    'pk.duplicate': 'Perangkat ini sudah menyimpan passkey untuk akun Anda.',
    'pk.failed': 'Passkey tidak berhasil: {message}',
    'pk.signin': 'Masuk dengan passkey',
    'pk.signing': 'Menunggu passkey Anda…',
    'pk.signin_or': 'atau',
  },
})
