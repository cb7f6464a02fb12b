import { Effect, Schema } from 'effect'
import type * as OpenIdClient from 'openid-client'
import { ApiError } from '../../actors/errors'
import { Config } from '../../engine/config'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { clearedSessionCookies } from '../auth'
import { ok, type Route, redirect, route } from '../route'
import { startSession as startSessionOf } from '../signIn'

/**
 * Sign-in to the app: OpenID Connect (authorization code + PKCE) against `OIDC_ISSUER`, one-time
 * links issued by the operator CLI, and sign-out. Users are matched by e-mail; nobody is created
 * here (accounts come from workspaces and invitations).
 */

/** The provider's client (openid-client, loaded with the first sign-in, not at start) and its discovered configuration. */
interface Provider {
  readonly client: typeof OpenIdClient
  readonly config: OpenIdClient.Configuration
}
const discovered = new Map<string, Promise<Provider>>()

const oidcConfiguration = Effect.gen(function* () {
  const cfg = yield* Config
  const oidc = cfg.oidc
  if (!oidc) return yield* Effect.fail(new ApiError({ code: 'not_found', message: 'auth.oidc_unconfigured' }))
  const key = `${oidc.issuer}|${oidc.clientId}`
  let pending = discovered.get(key)
  if (!pending) {
    // client_secret_basic is the OpenID Connect default client authentication.
    pending = import('openid-client').then(async (client) => ({
      client,
      config: await client.discovery(
        new URL(oidc.issuer),
        oidc.clientId,
        { client_secret: oidc.clientSecret },
        client.ClientSecretBasic(oidc.clientSecret),
        oidc.allowInsecure ? { execute: [client.allowInsecureRequests] } : undefined,
      ),
    }))
    discovered.set(key, pending)
    // A failed discovery is retried on the next sign-in instead of being cached forever.
    pending.catch(() => discovered.delete(key))
  }
  const found = pending
  return yield* Effect.tryPromise({
    try: () => found,
    catch: () => new ApiError({ code: 'server_error', message: 'auth.sign_in_failed' }),
  })
})

/** Only same-site paths are followed after sign-in, never another origin. */
const safeReturnTo = (v: string | undefined) => (v && /^\/(?!\/)[\x21-\x7e]*$/.test(v) ? v : '/')

const startSession = (userId: number, via: 'oidc' | 'link', returnTo: string) =>
  Effect.map(startSessionOf(userId, via), (cookies) => redirect(returnTo, cookies))

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/auth/login',
    access: 'P',
    tag: 'Sign-in',
    summary: 'Start signing in with the configured OpenID Connect provider',
    query: Schema.Struct({ return_to: Schema.optional(Schema.String) }),
    handler: ({ query }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const { client, config } = yield* oidcConfiguration
        const code_verifier = client.randomPKCECodeVerifier()
        const code_challenge = yield* Effect.promise(() => client.calculatePKCECodeChallenge(code_verifier))
        const state = client.randomState()
        const nonce = client.randomNonce()
        yield* Sessions.putAuthRequest({
          state,
          code_verifier,
          nonce,
          return_to: safeReturnTo(query.return_to),
        })
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: `${cfg.publicUrl}/auth/callback`,
          scope: 'openid email profile',
          code_challenge,
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        return redirect(url.href)
      }),
  }),
  route({
    method: 'GET',
    path: '/auth/callback',
    access: 'P',
    tag: 'Sign-in',
    summary: 'Return from the identity provider; sets the session and CSRF cookies',
    query: Schema.Struct({ state: Schema.String }),
    handler: ({ query, path, rawQuery }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const { client, config } = yield* oidcConfiguration
        const pending = yield* Sessions.takeAuthRequest(query.state)
        const failed = new ApiError({ code: 'unauthorized', message: 'auth.sign_in_failed' })
        if (!pending) return yield* Effect.fail(failed)
        const current = new URL(`${cfg.publicUrl}${path}?${rawQuery}`)
        const tokens = yield* Effect.tryPromise({
          try: () =>
            client.authorizationCodeGrant(config, current, {
              pkceCodeVerifier: pending.code_verifier,
              expectedState: pending.state,
              expectedNonce: pending.nonce,
            }),
          catch: () => failed,
        })
        const claims = tokens.claims()
        const email = typeof claims?.email === 'string' ? claims.email : undefined
        if (!email || claims?.email_verified === false) return yield* Effect.fail(failed)
        const user = yield* Users.byEmail(email)
        if (!user) return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'auth.no_account' }))
        return yield* startSession(user.id, 'oidc', pending.return_to)
      }),
  }),
  route({
    method: 'GET',
    path: '/auth/link/{token}',
    access: 'P',
    tag: 'Sign-in',
    summary: 'Sign in with a one-time link issued by the operator CLI',
    params: Schema.Struct({ token: Schema.String }),
    handler: ({ params }) =>
      Effect.gen(function* () {
        const userId = yield* Sessions.consumeLoginLink(params.token)
        if (userId === null)
          return yield* Effect.fail(new ApiError({ code: 'unauthorized', message: 'auth.link_invalid' }))
        return yield* startSession(userId, 'link', '/app')
      }),
  }),
  route({
    method: 'POST',
    path: '/auth/logout',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Sign-in',
    summary: 'End the current session (needs X-CSRF-Token)',
    handler: ({ caller }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        if (caller.via === 'session') yield* Sessions.end(caller.session.id)
        return {
          ...ok({ signed_out: true }),
          cookies: clearedSessionCookies(cfg.publicUrl.startsWith('https:')),
        }
      }),
  }),
]
