import * as dns from 'node:dns/promises'
import * as net from 'node:net'
import { ImapFlow, type ListResponse } from 'imapflow'
import nodemailer from 'nodemailer'
import type { Endpoint, Folders, MailboxAccess, Refusal } from '../../actors/channels/MailServers'
import { isPrivateAddress } from '../../engine/net/outbound'

/**
 * Signing in to a mailbox: IMAP through imapflow, SMTP through nodemailer, with the refusals a
 * person can act on told apart (wrong password, server unreachable, server not allowed). Used by
 * `…/email/test`, the PATCH re-test, the folder list, the sessions and the outbound adapter.
 */
export type { Endpoint, Folders, MailboxAccess, Refusal }

export interface Policy {
  /** Plain connections and private addresses allowed (EMAIL_ALLOW_INSECURE). */
  readonly allowInsecure: boolean
}

export class SignInRefused extends Error {
  constructor(
    readonly refusal: Refusal,
    detail: string,
  ) {
    super(detail)
  }
}

const TIMEOUT_MS = 10_000

/**
 * Refuses hosts on private or loopback addresses unless allowed: the service must not probe its
 * own network. Answers the checked address to connect to (the name is not looked up a second
 * time, when it could answer differently), or null when any address is allowed.
 */
const checkHost = async (
  host: string,
  field: 'imap_host' | 'smtp_host',
  policy: Policy,
): Promise<string | null> => {
  if (policy.allowInsecure) return null
  let addresses: string[]
  try {
    addresses = net.isIP(host) ? [host] : (await dns.lookup(host, { all: true })).map((a) => a.address)
  } catch (e) {
    throw new SignInRefused({ field, reason: 'unreachable' }, String(e))
  }
  if (addresses.length === 0 || addresses.some(isPrivateAddress)) {
    throw new SignInRefused({ field, reason: 'not_allowed' }, `${host} is not a public address`)
  }
  return addresses[0]!
}

/** Where a client connects: the checked address, with the name kept for TLS (SNI, certificate). */
const target = (host: string, address: string | null) =>
  address === null || address === host ? { host } : { host: address, servername: host }

export const imapClient = (e: Endpoint, policy: Policy, address: string | null = null) => {
  const client = new ImapFlow({
    ...target(e.host, address),
    port: e.port,
    secure: e.security === 'ssl',
    // STARTTLS is required unless plain connections are allowed (then used when offered).
    ...(e.security === 'starttls' && !policy.allowInsecure ? { doSTARTTLS: true } : {}),
    auth: { user: e.user, pass: e.pass },
    logger: false,
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: 5 * 60_000,
    // IDLE right after each command, so new mail is told within seconds (the default waits 15 s).
    autoIdleDelay: 100,
    disableAutoIdle: false,
  })
  // imapflow emits `error` on a dropped socket; without a listener Node would crash the process.
  client.on('error', () => {})
  return client
}

const isAuthFailure = (e: unknown) => {
  const err = e as { authenticationFailed?: boolean; serverResponseCode?: string; responseText?: string }
  return err?.authenticationFailed === true || err?.serverResponseCode === 'AUTHENTICATIONFAILED'
}

const isTlsFailure = (e: unknown) => /tls|ssl|certificate|STARTTLS/i.test(String((e as Error)?.message ?? e))

/** A signed-in IMAP client; the caller logs out. */
export const connectImap = async (e: Endpoint, policy: Policy): Promise<ImapFlow> => {
  const address = await checkHost(e.host, 'imap_host', policy)
  const client = imapClient(e, policy, address)
  try {
    await client.connect()
    return client
  } catch (err) {
    client.close()
    if (isAuthFailure(err))
      throw new SignInRefused({ field: 'password', reason: 'auth' }, 'authentication failed')
    throw new SignInRefused(
      { field: 'imap_host', reason: isTlsFailure(err) ? 'tls' : 'unreachable' },
      String((err as Error)?.message ?? err),
    )
  }
}

const smtpTransport = (e: Endpoint, policy: Policy, address: string | null) =>
  nodemailer.createTransport({
    ...target(e.host, address),
    port: e.port,
    secure: e.security === 'ssl',
    requireTLS: e.security === 'starttls' && !policy.allowInsecure,
    auth: { user: e.user, pass: e.pass },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: 60_000,
  })

/** An SMTP transport to a checked address (the outbound adapter's: a name may change its answer). */
export const connectSmtp = async (e: Endpoint, policy: Policy) =>
  smtpTransport(e, policy, await checkHost(e.host, 'smtp_host', policy))

/** SMTP sign-in without sending. */
export const verifySmtp = async (
  e: Endpoint,
  policy: Policy,
  passwordField: 'password' | 'smtp_password',
) => {
  const transport = await connectSmtp(e, policy)
  try {
    await transport.verify()
  } catch (err) {
    const code = (err as { code?: string; responseCode?: number }).code
    if (code === 'EAUTH' || (err as { responseCode?: number }).responseCode === 535) {
      throw new SignInRefused({ field: passwordField, reason: 'auth' }, 'authentication failed')
    }
    throw new SignInRefused(
      { field: 'smtp_host', reason: isTlsFailure(err) ? 'tls' : 'unreachable' },
      String((err as Error)?.message ?? err),
    )
  } finally {
    transport.close()
  }
}

export const foldersOf = (list: readonly ListResponse[]): Folders => {
  const usable = list.filter((f) => !f.flags.has('\\Noselect') && !f.flags.has('\\NonExistent'))
  return {
    folders: usable.filter((f) => f.path.toUpperCase() !== 'INBOX').map((f) => f.path),
    sent: usable.find((f) => f.specialUse === '\\Sent')?.path ?? null,
  }
}

/** Signs in to both servers (nothing is sent) and lists the folders. */
export const probe = async (
  access: MailboxAccess,
  policy: Policy,
  smtpPasswordField: 'password' | 'smtp_password',
): Promise<Folders> => {
  const [folders] = await Promise.all([
    (async () => {
      const client = await connectImap(access.imap, policy)
      try {
        return foldersOf(await client.list())
      } finally {
        await client.logout().catch(() => client.close())
      }
    })(),
    verifySmtp(access.smtp, policy, smtpPasswordField),
  ])
  return folders
}
