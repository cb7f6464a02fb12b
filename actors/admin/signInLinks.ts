import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import { Config } from '../../engine/config'
import { disconnectUser } from '../../engine/events'
import { Log } from '../../engine/log'
import * as Invitations from '../../store/invitations'
import * as Members from '../../store/members'
import * as Sessions from '../../store/sessions'
import * as Users from '../../store/users'
import { spend } from '../budget'
import { ApiError } from '../errors'
import { addMessages, t } from '../i18n'
import * as Mailer from './Mailer'

/**
 * One-time sign-in links: their state for the link's page (nothing is used by looking), their use
 * (one press of the page's button), links e-mailed on request when the server can send mail, and
 * signing out of every device. A request for a link answers the same whether or not the address
 * has an account; the lookup and the mail happen after the answer, so its timing says nothing
 * either.
 */

addMessages({
  'auth.mail_unconfigured': {
    en: 'This server cannot send e-mail, so it cannot e-mail sign-in links. Ask your administrator for a link.',
    id: 'Server ini tidak dapat mengirim e-mail, jadi tidak dapat mengirim tautan masuk. Minta tautan kepada administrator Anda.',
  },
  'auth.cross_site': {
    en: 'A sign-in link is used from its own page, with its Sign in button.',
    id: 'Tautan masuk dipakai dari halamannya sendiri, dengan tombol Masuk.',
  },
  'auth.link_mail.subject': { en: 'Your sign-in link for Kotak', id: 'Tautan masuk Kotak Anda' },
  'auth.link_mail.body': {
    en: 'Hello {name},\n\nOpen this link to sign in to Kotak. It works once, for {minutes} minutes:\n{link}\n\nThe page it opens has a "Sign in" button: press it to finish.\n\nIf you did not ask for this, ignore this e-mail; nobody can sign in without the link.',
    id: 'Halo {name},\n\nBuka tautan ini untuk masuk ke Kotak. Tautan hanya berlaku sekali, selama {minutes} menit:\n{link}\n\nHalaman yang terbuka memiliki tombol "Masuk": tekan tombol itu untuk menyelesaikan.\n\nJika Anda tidak memintanya, abaikan e-mail ini; tidak ada yang bisa masuk tanpa tautan ini.',
  },
})

/** How long an e-mailed link works. */
export const LINK_MINUTES = 30

/**
 * Requests for e-mailed links (our figures, docs/decisions.md): per address and per caller's
 * address a minute (429, counted whether or not the address has an account, so the refusal tells
 * nothing), and an hour's links per person and caller's address, under a ceiling per person
 * (further requests still answer 202 but send nothing, so a mailbox cannot be flooded). Counted
 * per caller's address, a stranger asking all hour uses up their own share, not the person's.
 */
export const LINK_LIMITS = {
  perAddressPerMinute: 3,
  perIpPerMinute: 10,
  perUserAndIpPerHour: 5,
  perUserPerHour: 20,
} as const

export const LinkStatusSchema = Schema.Struct({
  status: Schema.Literal('valid', 'used', 'expired', 'invalid'),
  /** Whose link it is, masked (`s***@toko.id`), only while it can still be used. */
  email: Schema.NullOr(Schema.String),
})

/** `sari@toko.id` → `s***@toko.id`: enough for its owner to recognise, little for anyone else. */
export const maskEmail = (email: string) => {
  const at = email.lastIndexOf('@')
  return at <= 0 ? '***' : `${email[0]}***${email.slice(at)}`
}

export const linkStatus = (token: string) =>
  Effect.map(Sessions.loginLinkStatus(token), ({ status, email }): typeof LinkStatusSchema.Type => ({
    status,
    email: status === 'valid' && email ? maskEmail(email) : null,
  }))

/** Uses a link once: the user it signs in, or 401 for a used, expired or unknown one. */
export const useLink = (token: string) =>
  Effect.flatMap(Sessions.consumeLoginLink(token), (userId) =>
    userId === null
      ? Effect.fail(new ApiError({ code: 'unauthorized', message: 'auth.link_invalid' }))
      : Effect.succeed(userId),
  )

/** The e-mailed URL: the link's page; `returnTo` (an app path, already checked) only when it is not the app's start. */
export const linkUrl = (publicUrl: string, token: string, returnTo: string) =>
  `${publicUrl}/auth/link/${token}${returnTo === '/app' ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`

/**
 * An account that may get a link by e-mail: active in some workspace, invited to one (it signs in
 * to accept), or a platform administrator. Someone disabled everywhere gets nothing.
 */
const mayReceive = (user: Users.UserRow) =>
  Effect.gen(function* () {
    if (user.is_platform_admin) return true
    if ((yield* Members.firstActiveWorkspaceId(user.id)) !== null) return true
    return (yield* Invitations.validFor(user.email, yield* currentTime)).length > 0
  })

const sendLink = (email: string, returnTo: string, ip: string) =>
  Effect.gen(function* () {
    const user = yield* Users.byEmail(email)
    if (!user || !(yield* mayReceive(user))) return 'nobody' as const
    const recent = yield* Sessions.recentLoginLinks(user.id, 60, ip)
    if (recent.total >= LINK_LIMITS.perUserPerHour || recent.fromAddress >= LINK_LIMITS.perUserAndIpPerHour)
      return 'capped' as const
    const cfg = yield* Config
    const mailer = yield* Mailer.current
    const token = yield* Sessions.createLoginLink(user.id, LINK_MINUTES, ip)
    const params = { name: user.name, link: linkUrl(cfg.publicUrl, token, returnTo), minutes: LINK_MINUTES }
    return yield* mailer.send({
      to: user.email,
      subject: t(user.locale, 'auth.link_mail.subject'),
      text: t(user.locale, 'auth.link_mail.body', params),
    })
  })

/**
 * Asks for a link by e-mail: 404 when the server cannot send mail, 429 past the limits, else the
 * request is taken (the caller answers 202 whatever follows). The mail goes in the background, in
 * the account's language; a failure is logged without the link.
 */
export const requestLink = (email: string, returnTo: string, ip: string) =>
  Effect.gen(function* () {
    const cfg = yield* Config
    if (!cfg.smtpUrl)
      return yield* Effect.fail(new ApiError({ code: 'not_found', message: 'auth.mail_unconfigured' }))
    const address = email.trim().toLowerCase()
    yield* spend(`signin-link-ip:${ip}`, LINK_LIMITS.perIpPerMinute)
    yield* spend(`signin-link-to:${address}`, LINK_LIMITS.perAddressPerMinute)
    const log = yield* Log
    yield* Effect.forkDaemon(
      sendLink(address, returnTo, ip).pipe(
        Effect.catchAll((e) =>
          Effect.sync(() =>
            log.warn('sign-in link mail failed', {
              error: e._tag === 'MailError' ? e.reason : String(e),
            }),
          ),
        ),
      ),
    )
  })

/**
 * Ends every session of the user, and every sign-in link of theirs not yet used (store/sessions.ts
 * endAllOf), and closes their sockets on every node (they reconnect signed out).
 */
export const signOutEverywhere = (userId: number) =>
  Effect.flatMap(Sessions.endAllOf(userId), (ended) => Effect.as(disconnectUser(userId), ended))
