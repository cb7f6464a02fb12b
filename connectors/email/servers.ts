import { Effect, Layer } from 'effect'
import { MailServers, type MailServersShape, type Refusal } from '../../actors/channels/MailServers'
import { Config } from '../../engine/config'
import { accessOf } from './access'
import { EmailNudge } from './nudge'
import { detect } from './providers'

/**
 * The mail servers as the e-mail channel's operations see them (actors/channels/MailServers.ts),
 * nudging this node's mailbox sessions.
 */
export const layer = Layer.effect(
  MailServers,
  Effect.map(
    EmailNudge,
    (nudge): MailServersShape => ({
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
      nudge: nudge.fire,
    }),
  ),
)
