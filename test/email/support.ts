import { expect } from 'vitest'
import * as F from '../support/fixtures'
import { startTestServer, type TestServer, type TestServerOptions } from '../support/server'
import { type Dovecot, type Mailbox, type Smtp, startDovecot, startSmtp } from './dovecot'

/** A test server that may reach the private test mail servers, with quick polls and back-off. */
export const EMAIL_ENV = {
  EMAIL_ALLOW_INSECURE: '1',
  SECRETS_KEY: Buffer.alloc(32, 42).toString('base64'),
  EMAIL_POLL_MS: '200',
  EMAIL_BACKOFF_BASE_MS: '300',
}

export interface MailWorld {
  readonly s: TestServer
  readonly dovecot: Dovecot
  readonly smtp: Smtp
  readonly stop: () => Promise<void>
}

export const startMailWorld = async (
  env: Record<string, string> = {},
  opts: TestServerOptions = {},
): Promise<MailWorld> => {
  const started = await Promise.allSettled([
    startDovecot(),
    startSmtp(),
    startTestServer({ ...EMAIL_ENV, ...env }, opts),
  ])
  // A failed start (no database, say) must not leave a Dovecot running behind the test run.
  if (started.some((r) => r.status === 'rejected')) {
    for (const r of started) if (r.status === 'fulfilled') await r.value.stop()
    throw (started.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason
  }
  const [dovecot, smtp, s] = started.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [
    Dovecot,
    Smtp,
    TestServer,
  ]
  return {
    s,
    dovecot,
    smtp,
    stop: async () => {
      await s.stop()
      await smtp.stop()
      await dovecot.stop()
    },
  }
}

let n = 0
/** A new mailbox on both servers: same address and password for IMAP and SMTP. */
export const mailbox = (w: Pick<MailWorld, 'dovecot' | 'smtp'>, prefix = 'box'): Mailbox => {
  n += 1
  const address = `${prefix}${n}-${Math.random().toString(36).slice(2, 7)}@example.test`
  const password = `pw-${Math.random().toString(36).slice(2)}`
  w.smtp.accounts.set(address, password)
  return w.dovecot.addUser(address, password)
}

export const servers = (w: Pick<MailWorld, 'dovecot' | 'smtp'>) => ({
  imap_host: w.dovecot.host,
  imap_port: w.dovecot.port,
  imap_security: 'starttls',
  smtp_host: w.smtp.host,
  smtp_port: w.smtp.port,
  smtp_security: 'starttls',
})

export const body = async (res: Response) => (await res.json()) as Record<string, any>

export const connectMailbox = async (
  w: MailWorld,
  owner: F.Session,
  box: Mailbox,
  extra: Record<string, unknown> = {},
) => {
  const res = await w.s.fetch(
    '/v1/channels/email',
    F.json({ address: box.address, password: box.password, ...servers(w), ...extra }, owner.headers()),
  )
  const b = await body(res)
  expect(res.status, JSON.stringify(b)).toBe(201)
  return b.data as Record<string, any>
}

export const until = async <A>(f: () => Promise<A | null | undefined | false>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs
  for (;;) {
    const v = await f()
    if (v) return v
    if (Date.now() > end) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** A small RFC 822 message: plain text, or text and HTML alternatives. */
export const rfc822 = (h: Record<string, string>, text: string, html?: string) => {
  const head = Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')
  if (!html) return `${head}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n`
  return `${head}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary="b1"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n--b1\r\nContent-Type: text/html; charset=utf-8\r\n\r\n${html}\r\n--b1--\r\n`
}
