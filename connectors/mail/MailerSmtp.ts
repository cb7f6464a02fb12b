import { Effect } from 'effect'
import nodemailer from 'nodemailer'
import { MailError, type MailerShape, type MailMessage } from '../../actors/admin/Mailer'

/**
 * SMTP through nodemailer: `smtp://user:pass@host:587` (STARTTLS when offered) or
 * `smtps://…:465`; nodemailer's options may ride in the query string. An API request waits for
 * the server at most ~10 s to connect and greet unless the URL says otherwise.
 */
const withTimeouts = (url: string) => {
  const u = new URL(url)
  for (const [k, v] of [
    ['connectionTimeout', '10000'],
    ['greetingTimeout', '10000'],
    ['socketTimeout', '30000'],
  ] as const)
    if (!u.searchParams.has(k)) u.searchParams.set(k, v)
  return u.href
}

export const make = (url: string, from: string): MailerShape => {
  const transport = nodemailer.createTransport(withTimeouts(url), { from })
  return {
    send: (m: MailMessage) =>
      Effect.tryPromise({
        try: () =>
          transport.sendMail({
            to: m.to,
            subject: m.subject,
            text: m.text,
            ...(m.html ? { html: m.html } : {}),
          }),
        catch: (e) => new MailError({ reason: e instanceof Error ? e.message : String(e) }),
      }).pipe(Effect.as('sent' as const)),
  }
}
