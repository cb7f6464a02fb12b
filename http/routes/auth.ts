import { Effect, Schema } from 'effect'
import type * as OpenIdClient from 'openid-client'
import * as SignInLinks from '../../actors/admin/signInLinks'
import { ApiError } from '../../actors/errors'
import { Email, LinkToken } from '../../actors/fields'
import { Config } from '../../engine/config'
import { safeEqual } from '../../engine/tokens'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { clearedSessionCookies, sameSiteJson } from '../auth'
import { ok, type Reply, type Route, redirect, route } from '../route'
import { deviceOf, type SignInFrom, startSession as startSessionOf } from '../signIn'

/**
 * Sign-in to the app: OpenID Connect (authorization code + PKCE) against `OIDC_ISSUER`, one-time
 * links (issued by the operator CLI, or e-mailed on request when the server can send mail; used
 * by a button on their page, never by opening them), and sign-out of this or every device. Users
 * are matched by e-mail; nobody is created here (accounts come from workspaces and invitations).
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

/**
 * Where a sign-in may send the browser afterwards: a path of this server's app (`/app…`) or an
 * invitation (`/invite/…`), read as the browser will read it, so anything else becomes `/app`.
 * Printable ASCII without a backslash, because a browser reads `/\evil.example` as
 * `//evil.example` and drops tabs and newlines; then resolved against `PUBLIC_URL`, which must
 * keep its origin, and its path (dot segments resolved) must still be the app's or an invitation's.
 * The app checks the same before it follows one (app/src/lib/returnPath.ts).
 */
const safeReturnTo = (v: string | undefined, publicUrl: string): string => {
  if (!v || !/^\/(?!\/)[\x21-\x5b\x5d-\x7e]*$/.test(v)) return '/app'
  const base = new URL(publicUrl)
  const url = new URL(v, base)
  if (url.origin !== base.origin) return '/app'
  const p = url.pathname
  return p === '/app' || p.startsWith('/app/') || p.startsWith('/invite/')
    ? `${p}${url.search}${url.hash}`
    : '/app'
}

/** The sign-in a browser started with the provider: its `state`, for 10 minutes, on `/auth` only. */
const OIDC_STATE_COOKIE = 'kotak_oidc_state'
const oidcStateCookie = (state: string, maxAgeSeconds: number, secure: boolean) =>
  `${OIDC_STATE_COOKIE}=${state}; HttpOnly; Path=/auth; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`

const startSession = (userId: number, via: 'oidc' | 'link', returnTo: string, from: SignInFrom) =>
  Effect.map(startSessionOf(userId, via, from), (cookies) => redirect(returnTo, cookies))

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
          return_to: safeReturnTo(query.return_to, cfg.publicUrl),
        })
        const url = client.buildAuthorizationUrl(config, {
          redirect_uri: `${cfg.publicUrl}/auth/callback`,
          scope: 'openid email profile',
          code_challenge,
          code_challenge_method: 'S256',
          state,
          nonce,
        })
        // The browser that starts a sign-in is the one that finishes it: the state goes with it as
        // a cookie, so a callback URL someone else started signs nobody in here (login CSRF).
        return redirect(url.href, [oidcStateCookie(state, 600, cfg.publicUrl.startsWith('https:'))])
      }),
  }),
  route({
    method: 'GET',
    path: '/auth/callback',
    access: 'P',
    tag: 'Sign-in',
    summary: 'Return from the identity provider; sets the session and CSRF cookies',
    query: Schema.Struct({ state: Schema.String }),
    handler: ({ query, path, rawQuery, cookie, ip, header }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        const { client, config } = yield* oidcConfiguration
        const failed = new ApiError({ code: 'unauthorized', message: 'auth.sign_in_failed' })
        const started = cookie(OIDC_STATE_COOKIE)
        if (!started || !safeEqual(started, query.state)) return yield* Effect.fail(failed)
        const pending = yield* Sessions.takeAuthRequest(query.state)
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
        // An address the provider does not say it verified names nobody here: anyone may put a
        // colleague's address on an account at some providers. `OIDC_TRUST_EMAIL` is for one that
        // only issues its people's own addresses and omits the claim.
        const verified = claims?.email_verified === true || claims?.email_verified === 'true'
        if (!email || !(verified || (cfg.oidc?.trustEmail ?? false))) return yield* Effect.fail(failed)
        const user = yield* Users.byEmail(email)
        if (!user) return yield* Effect.fail(new ApiError({ code: 'forbidden', message: 'auth.no_account' }))
        // Checked again: a request stored before the rule last changed follows today's rule.
        const signedIn = yield* startSession(
          user.id,
          'oidc',
          safeReturnTo(pending.return_to, cfg.publicUrl),
          {
            cookie,
            device: deviceOf(ip(), header),
          },
        )
        return {
          ...signedIn,
          cookies: [...(signedIn.cookies ?? []), oidcStateCookie('', 0, cfg.publicUrl.startsWith('https:'))],
        }
      }),
  }),
  route({
    method: 'GET',
    path: '/auth/link/{token}',
    access: 'P',
    tag: 'Sign-in',
    summary:
      "A one-time sign-in link (operator CLI or e-mail): redirects to the app's page for it, which signs in with a button; opening it uses nothing (link previews)",
    params: Schema.Struct({ token: LinkToken }),
    query: Schema.Struct({ return_to: Schema.optional(Schema.String) }),
    handler: ({ params, query }) =>
      Effect.map(Config, (cfg) => {
        const back = safeReturnTo(query.return_to, cfg.publicUrl)
        const search = back === '/app' ? '' : `?return_to=${encodeURIComponent(back)}`
        return redirect(`/app/link/${encodeURIComponent(params.token)}${search}`)
      }),
  }),
  route({
    method: 'GET',
    path: '/auth/link/{token}/status',
    access: 'P',
    tag: 'Sign-in',
    summary: 'Whether a sign-in link can still be used (valid, used, expired, invalid), without using it',
    params: Schema.Struct({ token: LinkToken }),
    response: SignInLinks.LinkStatusSchema,
    handler: ({ params }) => Effect.map(SignInLinks.linkStatus(params.token), (s) => ok(s)),
  }),
  route({
    method: 'POST',
    path: '/auth/link/{token}',
    access: 'P',
    tag: 'Sign-in',
    summary:
      "Use a one-time sign-in link (its page's button; a JSON body from the same site): sets the session and CSRF cookies",
    params: Schema.Struct({ token: LinkToken }),
    body: Schema.Struct({ return_to: Schema.optional(Schema.String) }),
    response: Schema.Struct({ return_to: Schema.String }),
    handler: ({ params, body, header, cookie, ip }) =>
      Effect.gen(function* () {
        yield* sameSiteJson(header, 'auth.cross_site')
        const cfg = yield* Config
        const userId = yield* SignInLinks.useLink(params.token)
        const back = safeReturnTo(body.return_to, cfg.publicUrl)
        return {
          ...ok({ return_to: back }),
          cookies: yield* startSessionOf(userId, 'link', { cookie, device: deviceOf(ip(), header) }),
        }
      }),
  }),
  route({
    method: 'POST',
    path: '/auth/link',
    access: 'P',
    tag: 'Sign-in',
    summary:
      'E-mail a one-time sign-in link (30 minutes) to an account; 202 whether or not the address has one; 404 when the server cannot send mail',
    body: Schema.Struct({ email: Email, return_to: Schema.optional(Schema.String) }),
    response: Schema.Struct({ requested: Schema.Literal(true) }),
    handler: ({ body, ip }) =>
      Effect.flatMap(Config, (cfg) =>
        Effect.map(
          SignInLinks.requestLink(body.email, safeReturnTo(body.return_to, cfg.publicUrl), ip()),
          (): Reply => ({ _tag: 'Json', status: 202, data: { requested: true } }),
        ),
      ),
  }),
  route({
    method: 'POST',
    path: '/auth/logout',
    access: 'A',
    workspace: 'optional',
    whileFrozen: true,
    tag: 'Sign-in',
    summary:
      'End the current session, or with `all: true` every session of the user on every device (needs X-CSRF-Token)',
    body: Schema.Struct({ all: Schema.optional(Schema.Boolean) }),
    response: Schema.Struct({ signed_out: Schema.Literal(true), sessions_ended: Schema.Number }),
    handler: ({ caller, body }) =>
      Effect.gen(function* () {
        const cfg = yield* Config
        let ended = 0
        if (body.all) ended = yield* SignInLinks.signOutEverywhere(caller.user.id)
        else if (caller.via === 'session') {
          yield* Sessions.end(caller.session.id)
          ended = 1
        }
        return {
          ...ok({ signed_out: true, sessions_ended: ended }),
          cookies: clearedSessionCookies(cfg.publicUrl.startsWith('https:')),
        }
      }),
  }),
]
