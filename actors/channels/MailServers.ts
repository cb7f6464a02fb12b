import { Context, type Effect } from 'effect'
import type { Config } from '../../engine/config'
import type { EmailRow, Security } from '../../store/email'

/**
 * What the e-mail channel's operations (email.ts) need from mail servers, implemented by
 * connectors/email/servers.ts (imapflow, nodemailer, DNS): the provider of an address, signing in
 * to both servers without sending, a stored mailbox's servers with its passwords unsealed, and a
 * nudge that makes this node's mailbox sessions look at once. Sign-in refusals name the field a
 * person would correct; every other failure is the IMAP host being unreachable.
 */
export interface Endpoint {
  readonly host: string
  readonly port: number
  readonly security: Security
  readonly user: string
  readonly pass: string
}

export interface MailboxAccess {
  readonly address: string
  readonly imap: Endpoint
  readonly smtp: Endpoint
}

export interface Folders {
  /** Folders a channel may read besides the inbox. */
  readonly folders: readonly string[]
  /** The folder flagged `\Sent` (special use), or null. */
  readonly sent: string | null
}

/** Why a sign-in failed, by the field a person would correct. */
export type Refusal =
  | { readonly field: 'imap_host' | 'smtp_host'; readonly reason: 'unreachable' | 'not_allowed' | 'tls' }
  | { readonly field: 'password' | 'smtp_password'; readonly reason: 'auth' }

export interface Server {
  readonly host: string
  readonly port: number
  readonly security: Security
}

export type Hint = 'app_password' | 'enterprise_unsupported' | 'imap_enable' | null

export interface Detected {
  readonly provider: string
  readonly supported: boolean
  readonly imap: Server
  readonly smtp: Server
  readonly hint: Hint
}

export interface MailServersShape {
  readonly detect: (address: string) => Effect.Effect<Detected>
  /** `smtpOwnPassword`: the SMTP password differs from the IMAP one, so its refusal names `smtp_password`. */
  readonly signIn: (
    access: MailboxAccess,
    smtpOwnPassword: boolean,
  ) => Effect.Effect<Folders, Refusal, Config>
  readonly accessOf: (mailbox: EmailRow) => Effect.Effect<MailboxAccess, never, Config>
  readonly nudge: () => void
}

/** The mail-servers port; connectors/email/servers.ts is its adapter (http/app.ts provides it). */
export class MailServers extends Context.Tag('kotak/MailServers')<MailServers, MailServersShape>() {}
