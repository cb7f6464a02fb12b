import { Context, Data, Effect } from 'effect'

/**
 * The service's own outgoing mail (invitations), not a channel's mailbox. One message per `send`,
 * at most once: a failure is reported and not retried here (the caller records it; resending an
 * invitation sends again).
 *
 * Adapters: `MailerSmtp` (nodemailer, `SMTP_URL`), and `off` when no SMTP server is configured:
 * nothing is sent and `send` answers `off`. `MailerSmtp.layerConfig` picks one from the
 * configuration (the adapter builds the layer, so this port imports no adapter); the server's
 * services (`servicesLayer` in http/app.ts, option `mailer`) take another layer in its place.
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

/** The node's mailer. */
export const current = Mailer
