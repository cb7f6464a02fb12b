import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import { Effect, Schema } from 'effect'
import { Config } from '../../engine/config'
import { disconnectSession } from '../../engine/events'
import { Log } from '../../engine/log'
import { iso } from '../../engine/time'
import * as Passkeys from '../../store/passkeys'
import type { UserRow } from '../../store/users'
import { spend } from '../budget'
import { ApiError, conflict, invalid, notFound } from '../errors'
import { Text } from '../fields'
import { addMessages, t } from '../i18n'
import * as Mailer from './Mailer'
import { Timestamp } from './presenters'

/**
 * Passkeys (WebAuthn): a signed-in person registers, names, renames and deletes their own; anyone
 * signs in with one without typing an address (a discoverable credential names its account).
 * Each ceremony takes a challenge issued for it, once, within five minutes (store/passkeys.ts).
 * The relying party is this server's public address: its host name is the RP ID, its origin the
 * only origin accepted.
 */

addMessages({
  'passkey.added_mail.subject': {
    en: 'A passkey was added to your Kotak account',
    id: 'Passkey ditambahkan ke akun Kotak Anda',
  },
  'passkey.added_mail.body': {
    en: 'Hello {name},\n\nA passkey named "{passkey}" was added to your Kotak account. It signs you in without a link.\n\nIf this was not you, open Kotak, delete it on the Passkeys page ({url}) and sign out of every device.',
    id: 'Halo {name},\n\nPasskey bernama "{passkey}" ditambahkan ke akun Kotak Anda. Passkey ini memasukkan Anda tanpa tautan.\n\nJika ini bukan Anda, buka Kotak, hapus passkey itu di halaman Passkey ({url}) lalu keluar dari semua perangkat.',
  },
  'passkey.challenge_expired': {
    en: 'This passkey request expired or was already used; please start again.',
    id: 'Permintaan passkey ini kedaluwarsa atau sudah dipakai; silakan mulai lagi.',
  },
  'passkey.wrong_origin': {
    en: 'This passkey answer was made for another site.',
    id: 'Jawaban passkey ini dibuat untuk situs lain.',
  },
  'passkey.unreadable': {
    en: 'This is not a passkey answer this server can read.',
    id: 'Ini bukan jawaban passkey yang dapat dibaca server ini.',
  },
  'passkey.verification_failed': {
    en: 'The passkey could not be verified; please try again.',
    id: 'Passkey tidak dapat diverifikasi; silakan coba lagi.',
  },
  'passkey.unknown': {
    en: 'This passkey is not registered here (it may have been deleted). Sign in another way.',
    id: 'Passkey ini tidak terdaftar di sini (mungkin sudah dihapus). Masuk dengan cara lain.',
  },
  'passkey.exists': {
    en: 'This passkey is registered already.',
    id: 'Passkey ini sudah terdaftar.',
  },
})

/** The library, loaded with the first passkey ceremony rather than at start (test/startup.test.ts). */
const library = Effect.promise(() => import('@simplewebauthn/server'))

/** The relying party: this server as its public address names it. */
const relyingParty = Effect.map(Config, (cfg) => {
  const url = new URL(cfg.publicUrl)
  return { rpID: url.hostname, origin: url.origin }
})

const B64Url = Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]*={0,2}$/), Schema.maxLength(16_384))
// Any name: a browser may know transports this server does not yet (it only hands them back).
const Transport = Schema.String.pipe(Schema.maxLength(32))
const Attachment = Schema.Literal('platform', 'cross-platform')
const Extensions = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** What `navigator.credentials.create()` answered, as @simplewebauthn/browser sends it. */
export const RegistrationResponse = Schema.Struct({
  id: B64Url,
  rawId: B64Url,
  type: Schema.Literal('public-key'),
  response: Schema.Struct({
    clientDataJSON: B64Url,
    attestationObject: B64Url,
    authenticatorData: Schema.optional(B64Url),
    transports: Schema.optional(Schema.Array(Transport).pipe(Schema.maxItems(10))),
    publicKeyAlgorithm: Schema.optional(Schema.Number),
    publicKey: Schema.optional(B64Url),
  }),
  authenticatorAttachment: Schema.optional(Attachment),
  clientExtensionResults: Schema.optionalWith(Extensions, { default: () => ({}) }),
})

/** What `navigator.credentials.get()` answered, as @simplewebauthn/browser sends it. */
export const AuthenticationResponse = Schema.Struct({
  id: B64Url,
  rawId: B64Url,
  type: Schema.Literal('public-key'),
  response: Schema.Struct({
    clientDataJSON: B64Url,
    authenticatorData: B64Url,
    signature: B64Url,
    userHandle: Schema.optional(B64Url),
  }),
  authenticatorAttachment: Schema.optional(Attachment),
  clientExtensionResults: Schema.optionalWith(Extensions, { default: () => ({}) }),
})

export const PasskeyName = Text(1, 80)

export const PasskeySchema = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  /** Synced to the person's other devices (a platform account, a password manager). */
  backed_up: Schema.Boolean,
  transports: Schema.Array(Schema.String),
  created_at: Timestamp,
  last_used_at: Schema.NullOr(Timestamp),
})

const present = (p: Passkeys.PasskeyRow): typeof PasskeySchema.Type => ({
  id: p.id,
  name: p.name,
  backed_up: p.backed_up,
  transports: [...p.transports],
  created_at: iso(p.created_at)!,
  last_used_at: iso(p.last_used_at),
})

/** The options as the browser takes them (`PublicKeyCredential*OptionsJSON`), for the OpenAPI document. */
const Descriptor = Schema.Struct({
  id: Schema.String,
  type: Schema.Literal('public-key'),
  transports: Schema.optional(Schema.Array(Schema.String)),
})
export const CreationOptionsSchema = Schema.Struct({
  rp: Schema.Struct({ name: Schema.String, id: Schema.optional(Schema.String) }),
  user: Schema.Struct({ id: Schema.String, name: Schema.String, displayName: Schema.String }),
  challenge: Schema.String,
  pubKeyCredParams: Schema.Array(Schema.Struct({ alg: Schema.Number, type: Schema.Literal('public-key') })),
  timeout: Schema.optional(Schema.Number),
  excludeCredentials: Schema.optional(Schema.Array(Descriptor)),
  authenticatorSelection: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  attestation: Schema.optional(Schema.String),
  extensions: Schema.optional(Extensions),
})
export const RequestOptionsSchema = Schema.Struct({
  challenge: Schema.String,
  timeout: Schema.optional(Schema.Number),
  rpId: Schema.optional(Schema.String),
  allowCredentials: Schema.optional(Schema.Array(Descriptor)),
  userVerification: Schema.optional(Schema.String),
  extensions: Schema.optional(Extensions),
})

const unreadable = () => invalid({ response: { key: 'passkey.unreadable' } })
const expired = () => invalid({ challenge: { key: 'passkey.challenge_expired' } })
const wrongOrigin = () => invalid({ origin: { key: 'passkey.wrong_origin' } })
const signInFailed = (message: string) => new ApiError({ code: 'unauthorized', message })

/**
 * The challenge and origin the browser signed (its `clientDataJSON`), read before the library
 * verifies anything: which challenge to take, and a clear answer for a foreign origin.
 */
const clientData = (encoded: string) => {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'))
    if (typeof parsed !== 'object' || parsed === null) return null
    const { challenge, origin } = parsed as { challenge?: unknown; origin?: unknown }
    return typeof challenge === 'string' && typeof origin === 'string' && challenge.length <= 512
      ? { challenge, origin }
      : null
  } catch {
    return null
  }
}

/** Takes the challenge the response signed, for this ceremony, after checking its origin. */
const takeSigned = (encoded: string, purpose: Passkeys.Purpose, userId: number | null, origin: string) =>
  Effect.gen(function* () {
    const data = clientData(encoded)
    if (!data) return yield* Effect.fail(unreadable())
    if (data.origin !== origin) return yield* Effect.fail(wrongOrigin())
    if (!(yield* Passkeys.takeChallenge(data.challenge, purpose, userId)))
      return yield* Effect.fail(expired())
    return data.challenge
  })

/** The WebAuthn user handle of an account: its id, so one authenticator keeps one passkey per account. */
const userHandle = (userId: number) => new TextEncoder().encode(String(userId))

export const list = (user: UserRow) => Effect.map(Passkeys.listOf(user.id), (rows) => rows.map(present))

/**
 * Options for `navigator.credentials.create()`: a discoverable credential (so signing in needs no
 * address) that verifies the person (a passkey is the only factor), none of theirs twice.
 */
export const registrationOptions = (user: UserRow) =>
  Effect.gen(function* () {
    const { generateRegistrationOptions } = yield* library
    const { rpID } = yield* relyingParty
    const mine = yield* Passkeys.listOf(user.id)
    const options: PublicKeyCredentialCreationOptionsJSON = yield* Effect.promise(() =>
      generateRegistrationOptions({
        rpName: 'Kotak',
        rpID,
        userName: user.email,
        userDisplayName: user.name,
        userID: userHandle(user.id),
        attestationType: 'none',
        excludeCredentials: mine.map((p) => ({ id: p.credential_id, transports: [...p.transports] })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      }),
    )
    yield* Passkeys.putChallenge(options.challenge, 'register', user.id)
    return options
  })

/**
 * Tells the person by e-mail (when the server can send mail) that a passkey was added: one added
 * from a stolen session would outlive signing out of every device, so its owner should hear of
 * it. In the background; a failure is logged.
 */
const noticeAdded = (user: UserRow, passkey: string) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    const mailer = yield* Mailer.current
    const log = yield* Log
    const params = { name: user.name, passkey, url: `${cfg.publicUrl}/app/passkeys` }
    yield* Effect.forkDaemon(
      mailer
        .send({
          to: user.email,
          subject: t(user.locale, 'passkey.added_mail.subject'),
          text: t(user.locale, 'passkey.added_mail.body', params),
        })
        .pipe(
          Effect.catchAll((e) =>
            Effect.sync(() => log.warn('passkey notice mail failed', { error: e.reason })),
          ),
        ),
    )
  })

/** Verifies what the authenticator made for the challenge this person was given, and keeps it. */
export const register = (user: UserRow, name: string, response: typeof RegistrationResponse.Type) =>
  Effect.gen(function* () {
    const { origin, rpID } = yield* relyingParty
    const challenge = yield* takeSigned(response.response.clientDataJSON, 'register', user.id, origin)
    const { verifyRegistrationResponse } = yield* library
    const failed = () => invalid({ response: { key: 'passkey.verification_failed' } })
    const verified = yield* Effect.tryPromise({
      try: () =>
        verifyRegistrationResponse({
          response: response as RegistrationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          requireUserVerification: true,
        }),
      catch: failed,
    })
    if (!verified.verified) return yield* Effect.fail(failed())
    const { credential, credentialBackedUp } = verified.registrationInfo
    const made = yield* Passkeys.create({
      userId: user.id,
      credentialId: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports ?? response.response.transports ?? [],
      name: name.trim(),
      backedUp: credentialBackedUp,
    })
    if (!made) return yield* Effect.fail(conflict('passkey.exists'))
    yield* noticeAdded(user, made.name)
    return present(made)
  })

export const rename = (user: UserRow, id: number, name: string) =>
  Effect.flatMap(Passkeys.rename(user.id, id, name.trim()), (row) =>
    row ? Effect.succeed(present(row)) : Effect.fail(notFound()),
  )

/**
 * Deletes one of the caller's passkeys: it signs nobody in from then on, and the sessions it began
 * end, their sockets closed on every node; the person's other sessions keep theirs.
 */
export const remove = (user: UserRow, id: number) =>
  Effect.flatMap(Passkeys.remove(user.id, id), (ended) =>
    ended === null
      ? Effect.fail(notFound())
      : Effect.forEach(ended, (sessionId) => disconnectSession(user.id, sessionId), { discard: true }),
  )

/**
 * Options for `navigator.credentials.get()` with no credentials listed: the browser offers the
 * passkeys it holds for this server, and the one chosen names its account.
 */
export const signInOptions = Effect.gen(function* () {
  const { generateAuthenticationOptions } = yield* library
  const { rpID } = yield* relyingParty
  const options: PublicKeyCredentialRequestOptionsJSON = yield* Effect.promise(() =>
    generateAuthenticationOptions({ rpID, userVerification: 'required' }),
  )
  yield* Passkeys.putChallenge(options.challenge, 'sign_in', null)
  return options
})

/**
 * The account a sign-in's answer proves and the passkey that proved it (its sessions end with it),
 * after taking its challenge and moving the counter.
 */
export const signIn = (response: typeof AuthenticationResponse.Type) =>
  Effect.gen(function* () {
    const { origin, rpID } = yield* relyingParty
    const challenge = yield* takeSigned(response.response.clientDataJSON, 'sign_in', null, origin)
    const passkey = yield* Passkeys.byCredentialId(response.id)
    if (!passkey) return yield* Effect.fail(signInFailed('passkey.unknown'))
    // The authenticator says whose credential it is; it must be the account the row belongs to.
    if (
      response.response.userHandle !== undefined &&
      response.response.userHandle !== Buffer.from(userHandle(passkey.user_id)).toString('base64url')
    )
      return yield* Effect.fail(signInFailed('passkey.unknown'))
    const { verifyAuthenticationResponse } = yield* library
    const failed = () => signInFailed('passkey.verification_failed')
    const verified = yield* Effect.tryPromise({
      try: () =>
        verifyAuthenticationResponse({
          response: response as AuthenticationResponseJSON,
          expectedChallenge: challenge,
          expectedOrigin: origin,
          expectedRPID: rpID,
          credential: {
            id: passkey.credential_id,
            publicKey: new Uint8Array(passkey.public_key),
            counter: passkey.counter,
            transports: passkey.transports as NonNullable<RegistrationResponseJSON['response']['transports']>,
          },
          requireUserVerification: true,
        }),
      catch: failed,
    })
    if (!verified.verified) return yield* Effect.fail(failed())
    if (!(yield* Passkeys.used(passkey.id, passkey.counter, verified.authenticationInfo.newCounter)))
      return yield* Effect.fail(failed())
    return { userId: passkey.user_id, passkeyId: passkey.id }
  })

/**
 * Signing in with a passkey, per address and minute, beside the public budget: each attempt
 * costs a signature check, and guessing gets nowhere faster than a person would try.
 */
export const SIGN_IN_PER_MINUTE = 20
export const signInBudget = (ip: string) => spend(`passkey:${ip}`, SIGN_IN_PER_MINUTE)
