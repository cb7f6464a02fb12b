import * as dns from 'node:dns/promises'
import type { Detected, Hint, Server } from '../../actors/channels/MailServers'

/**
 * `POST /channels/email/detect`: the provider of an address and the servers to suggest. A small
 * table of the common providers; work domains are recognised by their MX records (Google
 * Workspace, and Microsoft 365, whose mailboxes refuse IMAP passwords: the unsupported suite);
 * anything else gets `imap.<domain>` / `smtp.<domain>`.
 */
export type { Detected, Hint, Server }

interface Provider {
  readonly provider: string
  readonly domains: readonly string[]
  /** MX hosts (suffixes) that reveal the provider behind a work domain. */
  readonly mx: readonly string[]
  readonly imap: Server
  readonly smtp: Server
  readonly hint: Hint
  readonly supported: boolean
}

const ssl = (host: string, port = 993): Server => ({ host, port, security: 'ssl' })
const starttls = (host: string, port = 587): Server => ({ host, port, security: 'starttls' })

const PROVIDERS: readonly Provider[] = [
  {
    provider: 'gmail',
    domains: ['gmail.com', 'googlemail.com'],
    mx: ['google.com', 'googlemail.com'],
    imap: ssl('imap.gmail.com'),
    smtp: ssl('smtp.gmail.com', 465),
    hint: 'app_password',
    supported: true,
  },
  {
    provider: 'outlook',
    domains: ['outlook.com', 'hotmail.com', 'live.com', 'msn.com'],
    mx: [],
    imap: ssl('outlook.office365.com'),
    smtp: starttls('smtp-mail.outlook.com'),
    hint: 'app_password',
    supported: true,
  },
  {
    provider: 'office365',
    domains: [],
    mx: ['mail.protection.outlook.com'],
    imap: ssl('outlook.office365.com'),
    smtp: starttls('smtp.office365.com'),
    hint: 'enterprise_unsupported',
    supported: false,
  },
  {
    provider: 'yahoo',
    domains: ['yahoo.com', 'ymail.com', 'yahoo.co.id', 'rocketmail.com'],
    mx: ['yahoodns.net'],
    imap: ssl('imap.mail.yahoo.com'),
    smtp: ssl('smtp.mail.yahoo.com', 465),
    hint: 'app_password',
    supported: true,
  },
  {
    provider: 'icloud',
    domains: ['icloud.com', 'me.com', 'mac.com'],
    mx: ['mail.icloud.com'],
    imap: ssl('imap.mail.me.com'),
    smtp: starttls('smtp.mail.me.com'),
    hint: 'app_password',
    supported: true,
  },
  {
    provider: 'zoho',
    domains: ['zoho.com', 'zohomail.com'],
    mx: ['zoho.com', 'zohomail.com'],
    imap: ssl('imap.zoho.com'),
    smtp: ssl('smtp.zoho.com', 465),
    hint: 'imap_enable',
    supported: true,
  },
  {
    provider: 'fastmail',
    domains: ['fastmail.com', 'fastmail.fm'],
    mx: ['messagingengine.com'],
    imap: ssl('imap.fastmail.com'),
    smtp: ssl('smtp.fastmail.com', 465),
    hint: 'app_password',
    supported: true,
  },
]

const present = (p: Provider): Detected => ({
  provider: p.provider,
  supported: p.supported,
  imap: p.imap,
  smtp: p.smtp,
  hint: p.hint,
})

const mxHosts = async (domain: string, timeoutMs: number): Promise<string[]> => {
  let timer: NodeJS.Timeout | undefined
  try {
    const records = await Promise.race([
      dns.resolveMx(domain),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)
      }),
    ])
    return records.map((r) => r.exchange.toLowerCase().replace(/\.$/, ''))
  } catch {
    return []
  } finally {
    clearTimeout(timer)
  }
}

const endsWith = (host: string, suffix: string) => host === suffix || host.endsWith(`.${suffix}`)

export const detect = async (address: string, mxTimeoutMs = 2500): Promise<Detected> => {
  const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase()
  const byDomain = PROVIDERS.find((p) => p.domains.includes(domain))
  if (byDomain) return present(byDomain)
  const mx = await mxHosts(domain, mxTimeoutMs)
  const byMx = PROVIDERS.find((p) => p.mx.some((s) => mx.some((h) => endsWith(h, s))))
  if (byMx) return present(byMx)
  return {
    provider: 'other',
    supported: true,
    imap: ssl(`imap.${domain}`),
    smtp: ssl(`smtp.${domain}`, 465),
    hint: null,
  }
}
