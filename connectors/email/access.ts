import { Effect } from 'effect'
import { decryptText } from '../../engine/secrets'
import type { EmailRow } from '../../store/email'
import type { MailboxAccess } from './mailbox'

/** A stored mailbox's servers with its passwords unsealed (kept in memory only for the call). */
export const accessOf = (e: EmailRow) =>
  Effect.gen(function* () {
    const pass = yield* Effect.orDie(decryptText(e.password_sealed))
    const smtpPass = e.smtp_password_sealed ? yield* Effect.orDie(decryptText(e.smtp_password_sealed)) : pass
    return {
      address: e.address,
      imap: { host: e.imap_host, port: e.imap_port, security: e.imap_security, user: e.username, pass },
      smtp: {
        host: e.smtp_host,
        port: e.smtp_port,
        security: e.smtp_security,
        user: e.smtp_username ?? e.username,
        pass: smtpPass,
      },
    } satisfies MailboxAccess
  })
