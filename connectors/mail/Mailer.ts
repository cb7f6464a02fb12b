import { Context, Data, Effect, Option } from 'effect'
import { Config } from '../../engine/config'
import * as MailerSmtp from './MailerSmtp'

/**
 * The service's own outgoing mail (invitations), not a channel's mailbox. One message per `send`,
 * at most once: a failure is reported and not retried here (the caller records it; resending an
 * invitation sends again).
 *
 * Adapters: `MailerSmtp` (nodemailer, `SMTP_URL`), and `off` when no SMTP server is configured:
 * nothing is sent and `send` answers `off`. A deployment may provide its own adapter with
 * `Layer.succeed(Mailer, …)`; without one, `current` picks from the configuration.
 */
export class MailError extends Data.TaggedError('MailError')<{ readonly reason: string }> {}

export interface MailMessage {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string
}

export interface MailerShape {
  /** `sent` once the SMTP server accepted it, `off` when mail is not configured. */
  readonly send: (m: MailMessage) => Effect.Effect<'sent' | 'off', MailError>
}

export class Mailer extends Context.Tag('kotak/Mailer')<Mailer, MailerShape>() {}

export const off: MailerShape = { send: () => Effect.succeed('off' as const) }

/** The provided adapter, else SMTP when `SMTP_URL` is set, else `off`. */
export const current = Effect.gen(function* () {
  const provided = yield* Effect.serviceOption(Mailer)
  if (Option.isSome(provided)) return provided.value
  const cfg = yield* Config
  return cfg.smtpUrl ? MailerSmtp.cached(cfg.smtpUrl, cfg.mailFrom) : off
})
