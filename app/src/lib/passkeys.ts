import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from '@simplewebauthn/browser'
import type { paths } from '../api/schema'
import { ApiError, api } from './api'
import { t } from './i18n'

/**
 * Passkeys in the browser: the two WebAuthn ceremonies against the server's options. The
 * WebAuthn helper library is fetched only when a ceremony starts, so the sign-in page's first
 * load carries just the button.
 */

export type Passkey =
  paths['/v1/me/passkeys']['get']['responses'][200]['content']['application/json']['data'][number]

/** Whether this browser can make and use passkeys at all (the button shows only then). */
export const supported = (): boolean =>
  typeof window !== 'undefined' &&
  typeof window.PublicKeyCredential === 'function' &&
  typeof navigator.credentials?.create === 'function'

const library = () => import('@simplewebauthn/browser')

/** A failure as the person should read it: cancelled, already on this device, or the server's words. */
export const problem = (e: unknown): string => {
  if (e instanceof ApiError) return e.fields.challenge ?? e.fields.origin ?? e.fields.response ?? e.message
  const { name, code } = (e ?? {}) as { name?: string; code?: string }
  if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return t('pk.duplicate')
  if (name === 'NotAllowedError' || name === 'AbortError' || code === 'ERROR_CEREMONY_ABORTED')
    return t('pk.cancelled')
  return t('pk.failed', { message: e instanceof Error ? e.message : String(e) })
}

/** Adds a passkey to the signed-in account, made by this device (or a security key) and named. */
export const add = async (name: string): Promise<Passkey> => {
  const [{ startRegistration }, options] = await Promise.all([
    library(),
    api.post('/v1/me/passkeys/options', {}),
  ])
  const response = await startRegistration({
    optionsJSON: options.data as PublicKeyCredentialCreationOptionsJSON,
  })
  // The server asks for no extension, so none of their outputs is sent.
  const made = await api.post('/v1/me/passkeys', {
    body: { name, response: { ...response, clientExtensionResults: {} } },
  })
  return made.data as Passkey
}

/**
 * Signs in with a passkey this browser offers (any of this server's: the chosen one names the
 * account); the server sets the session cookies.
 */
export const signIn = async (): Promise<void> => {
  const [{ startAuthentication }, options] = await Promise.all([
    library(),
    api.post('/auth/passkey/options', {}),
  ])
  const response = await startAuthentication({
    optionsJSON: options.data as PublicKeyCredentialRequestOptionsJSON,
  })
  await api.post('/auth/passkey', { body: { response: { ...response, clientExtensionResults: {} } } })
}
