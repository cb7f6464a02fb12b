import { Effect, Layer } from 'effect'
import { Mailer, type MailerShape } from '../../actors/admin/Mailer'
import { Config } from '../../engine/config'
import { lazyLayer } from '../../engine/lazyLayer'

/**
 * The adapters of the service's own mail port (actors/admin/Mailer.ts): SMTP when `SMTP_URL` is
 * set, else `off` (nothing is sent; `send` answers `off`).
 */

export const off: MailerShape = { send: () => Effect.succeed('off' as const) }

/** SMTP when `SMTP_URL` is set (nodemailer is loaded only then), else `off`. */
export const layer = Layer.unwrapEffect(
  Effect.map(Config, (cfg) => {
    const url = cfg.smtpUrl
    if (!url) return Layer.succeed(Mailer, off)
    return lazyLayer(
      () => import('./MailerSmtp'),
      (MailerSmtp) => Layer.succeed(Mailer, MailerSmtp.make(url, cfg.mailFrom)),
    )
  }),
)
