import { Effect } from 'effect'
import type { MailServersShape, Refusal } from '../../actors/channels/MailServers'
import { Config } from '../../engine/config'
import { accessOf } from './access'
import { nudge } from './nudge'
import { detect } from './providers'

/** The mail servers as the e-mail channel's operations see them (actors/channels/MailServers.ts). */
export const mailServers: MailServersShape = {
  detect: (address) => Effect.promise(() => detect(address)),
  signIn: (access, smtpOwnPassword) =>
    Effect.flatMap(Config, (cfg) =>
      // The mail libraries (imapflow, nodemailer) load with the first mailbox, not at start.
      Effect.flatMap(
        Effect.promise(() => import('./mailbox')),
        ({ probe, SignInRefused }) =>
          Effect.tryPromise({
            try: () =>
              probe(
                access,
                { allowInsecure: cfg.emailAllowInsecure },
                smtpOwnPassword ? 'smtp_password' : 'password',
              ),
            catch: (e): Refusal =>
              e instanceof SignInRefused ? e.refusal : { field: 'imap_host', reason: 'unreachable' },
          }),
      ),
    ),
  accessOf,
  nudge,
}
