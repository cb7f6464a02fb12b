/**
 * The shapes of spec 1 §4.4 the channel pages read (as actors/channels/presenters.ts answers them).
 * Only the fields the pages use are named.
 */
export type ChannelType = 'msgapp' | 'email' | 'livechat' | 'api'

export interface Quota {
  readonly used: number
  readonly limit: number
}

export const FONTS = ['system', 'sans-serif', 'serif', 'monospace', 'rounded'] as const
export const POSITIONS = ['right', 'left'] as const
export const LAUNCHER_ICONS = ['chat', 'message', 'help', 'logo'] as const
export const ATTACHMENTS = ['off', 'images', 'files'] as const
export const PRECHAT_FIELDS = ['name', 'email', 'phone'] as const
export const PRECHAT_MODES = ['required', 'optional', 'hidden'] as const
export const WIDGET_LOCALES = ['auto', 'en', 'id'] as const
export type PrechatMode = (typeof PRECHAT_MODES)[number]

export interface Widget {
  readonly title: string
  readonly subtitle: string
  readonly color: string
  readonly font: (typeof FONTS)[number]
  readonly radius: number
  readonly position: (typeof POSITIONS)[number]
  readonly launcher_icon: (typeof LAUNCHER_ICONS)[number]
  readonly intro: string
  readonly consent: string
  readonly start_label: string
  readonly attachments: (typeof ATTACHMENTS)[number]
  readonly email_fallback: boolean
  readonly allowed_domains: readonly string[]
  readonly prechat: { readonly [F in (typeof PRECHAT_FIELDS)[number]]: PrechatMode }
  readonly locale: (typeof WIDGET_LOCALES)[number]
}

/** Spec 1 §2 business hours object: day 1 is Monday; `from`/`to` are `HH:MM` (`24:00` is midnight). */
export interface Day {
  readonly day: number
  readonly open: boolean
  readonly from: string
  readonly to: string
}

export interface Hours {
  readonly enabled: boolean
  readonly days: readonly Day[]
}

export interface AutoReply {
  readonly greeting_on: boolean
  readonly greeting: string
  readonly away_on: boolean
  readonly away: string
}

export interface Channel {
  readonly id: number
  readonly type: ChannelType
  readonly name: string
  readonly status: string
  readonly icon_url: string | null
  readonly created_at: string
  /** The channel's own business hours; null: the workspace's. */
  readonly hours: Hours | null
  readonly auto_reply: AutoReply
  readonly livechat?: (Widget & { readonly key: string; readonly embed_code: string }) | null
  readonly api?: { readonly webhook_url: string | null }
  readonly email?: EmailSettings
  readonly msgapp?: NumberSettings
}

/** A messaging-app number's own settings (`PATCH /channels/{id}`). */
export interface NumberSettings {
  readonly groups: boolean
  readonly reject_calls: boolean
  readonly call_reply: string
  readonly agent_initial: boolean
}

export const SECURITY = [
  ['ssl', 'SSL/TLS'],
  ['starttls', 'STARTTLS'],
] as const
export type Security = (typeof SECURITY)[number][0]
export const security = (s: string): Security => (s === 'starttls' ? 'starttls' : 'ssl')

export interface EmailSettings {
  readonly address: string
  readonly username: string
  readonly imap_host: string
  readonly imap_port: number
  readonly imap_security: string
  readonly smtp_host: string
  readonly smtp_port: number
  readonly smtp_security: string
  readonly smtp_username: string | null
  readonly smtp_password_set: boolean
  readonly folders: readonly string[]
  readonly sent_folder: string | null
  readonly read_sent: boolean
  readonly save_sent: boolean
  readonly sender_name: string
  readonly sender_with_agent: boolean
  readonly signature_html: string
  readonly ignore: readonly string[]
  readonly sync: { readonly last_sync_at: string | null; readonly last_error: string | null }
}

export interface NumberStatus {
  readonly channel_id: number
  readonly status: string
  readonly phone: string | null
  readonly linked_at: string | null
  readonly last_connected_at: string | null
  readonly last_close_code: number | null
  readonly qr_available: boolean
  readonly history: {
    readonly days: number
    readonly progress: number | null
    readonly imported: number
  } | null
  readonly health?: {
    readonly sent_24h: number
    readonly failed_24h: number
    readonly warmup: { readonly limit: number; readonly remaining: number; readonly ends_at: string } | null
  }
}

export interface Qr {
  readonly qr: string | null
  readonly lifetime: number
  readonly status: string
}

export interface Delivery {
  readonly id: string
  readonly event: string
  readonly status: 'pending' | 'delivered' | 'failed'
  readonly attempts: number
  readonly http_status: number | null
  readonly duration_ms: number | null
  readonly error: string | null
  readonly created_at: string
}

export interface ApiChannel extends Channel {
  readonly api: {
    readonly webhook_url: string | null
    readonly events: readonly string[]
    readonly retries: number
    readonly inbound_url: string
    readonly key: { readonly prefix: string; readonly last_used_at: string | null }
    readonly deliveries: readonly Delivery[]
  }
  readonly credentials?: { readonly key: string; readonly webhook_secret: string }
}

export interface Detected {
  readonly provider: string | null
  readonly supported: boolean
  readonly imap: { readonly host: string; readonly port: number; readonly security: string } | null
  readonly smtp: { readonly host: string; readonly port: number; readonly security: string } | null
  readonly hint_text: string | null
}

export interface Tested {
  readonly imap_host: string
  readonly imap_port: number
  readonly imap_security: string
  readonly smtp_host: string
  readonly smtp_port: number
  readonly smtp_security: string
  readonly folders: readonly string[]
  readonly sent_folder: string | null
}
