import { Effect, Layer } from 'effect'
import { Mailer, type MailerShape } from '../../actors/admin/Mailer'
import { Config } from '../../engine/config'
import * as MailerSmtp from './MailerSmtp'

/**
 * The adapters of the service's own mail port (actors/admin/Mailer.ts): SMTP when `SMTP_URL` is
 * set, else `off` (nothing is sent; `send` answers `off`).
 */

export const off: MailerShape = { send: () => Effect.succeed('off' as const) }

/** SMTP when `SMTP_URL` is set, else `off`. */
export const layer = Layer.effect(
  Mailer,
  Effect.map(Config, (cfg) => (cfg.smtpUrl ? MailerSmtp.make(cfg.smtpUrl, cfg.mailFrom) : off)),
)
