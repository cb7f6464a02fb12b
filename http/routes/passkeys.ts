import { Effect, Schema } from 'effect'
import * as Passkeys from '../../actors/admin/passkeys'
import { IdFromString } from '../../actors/fields'
import { sameSiteJson } from '../auth'
import { created, ok, type Route, route } from '../route'
import { deviceOf, startSession } from '../signIn'

/**
 * Passkeys: a signed-in person's own (register, list, rename, delete) and signing in with one.
 * The rules are in actors/admin/passkeys.ts.
 */

const IdParam = Schema.Struct({ id: IdFromString })

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/me/passkeys',
    access: 'A',
    workspace: 'optional',
    tag: 'Identity',
    summary: 'Your passkeys',
    response: Schema.Array(Passkeys.PasskeySchema),
    handler: ({ caller }) => Effect.map(Passkeys.list(caller.user), (rows) => ok(rows)),
  }),
  route({
    method: 'POST',
    path: '/v1/me/passkeys/options',
    access: 'A',
    workspace: 'optional',
    // The caller's own account: a frozen active workspace blocks none of it.
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Start adding a passkey: options for navigator.credentials.create() (valid 5 minutes, once)',
    response: Passkeys.CreationOptionsSchema,
    handler: ({ caller }) => Effect.map(Passkeys.registrationOptions(caller.user), (o) => ok(o)),
  }),
  route({
    method: 'POST',
    path: '/v1/me/passkeys',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Finish adding a passkey: the authenticator’s answer to the options, and a name for it',
    body: Schema.Struct({ name: Passkeys.PasskeyName, response: Passkeys.RegistrationResponse }),
    response: Passkeys.PasskeySchema,
    handler: ({ caller, body }) =>
      Effect.map(Passkeys.register(caller.user, body.name, body.response), (p) => created(p)),
  }),
  route({
    method: 'PATCH',
    path: '/v1/me/passkeys/{id}',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Rename one of your passkeys',
    params: IdParam,
    body: Schema.Struct({ name: Passkeys.PasskeyName }),
    response: Passkeys.PasskeySchema,
    handler: ({ caller, params, body }) =>
      Effect.map(Passkeys.rename(caller.user, params.id, body.name), (p) => ok(p)),
  }),
  route({
    method: 'DELETE',
    path: '/v1/me/passkeys/{id}',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Identity',
    summary: 'Delete one of your passkeys; it signs nobody in from then on',
    params: IdParam,
    handler: ({ caller, params }) =>
      Effect.as(Passkeys.remove(caller.user, params.id), ok({ id: params.id, deleted: true })),
  }),
  route({
    method: 'POST',
    path: '/auth/passkey/options',
    access: 'P',
    tag: 'Sign-in',
    summary:
      'Start signing in with a passkey: options for navigator.credentials.get() (valid 5 minutes, once)',
    response: Passkeys.RequestOptionsSchema,
    handler: () => Effect.map(Passkeys.signInOptions, (o) => ok(o)),
  }),
  route({
    method: 'POST',
    path: '/auth/passkey',
    access: 'P',
    tag: 'Sign-in',
    summary:
      'Sign in with a passkey: the authenticator’s answer to the options; sets the session and CSRF cookies',
    body: Schema.Struct({ response: Passkeys.AuthenticationResponse }),
    response: Schema.Struct({ signed_in: Schema.Literal(true) }),
    handler: ({ ip, body, header, cookie }) =>
      Effect.gen(function* () {
        yield* sameSiteJson(header)
        yield* Passkeys.signInBudget(ip())
        const { userId, passkeyId } = yield* Passkeys.signIn(body.response)
        const cookies = yield* startSession(userId, 'passkey', {
          cookie,
          passkeyId,
          device: deviceOf(ip(), header),
        })
        return { ...ok({ signed_in: true }), cookies }
      }),
  }),
]
