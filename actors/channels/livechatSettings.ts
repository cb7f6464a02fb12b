import { type Prechat, prechatOf } from './livechatPrechat'

/**
 * The live chat widget's look and texts (spec 1 §4.4 `PATCH /channels/{id}/livechat`), with the
 * defaults a new channel starts from. Stored as `livechat_channels.widget`; whatever is missing
 * there reads as its default, so adding a field needs no migration.
 */
export const FONTS = ['system', 'sans-serif', 'serif', 'monospace', 'rounded'] as const
export const POSITIONS = ['right', 'left'] as const
export const LAUNCHER_ICONS = ['chat', 'message', 'help', 'logo'] as const
export const ATTACHMENTS = ['off', 'images', 'files'] as const
export const MAX_ALLOWED_DOMAINS = 20
/** The widget's own texts: the visitor's browser language (`auto`), or always one. */
export const WIDGET_LOCALES = ['auto', 'en', 'id'] as const

export interface Widget {
  readonly title: string
  readonly subtitle: string
  readonly color: string
  readonly font: (typeof FONTS)[number]
  readonly radius: number
  readonly position: (typeof POSITIONS)[number]
  readonly launcher_icon: (typeof LAUNCHER_ICONS)[number]
  readonly intro: string
  /** Empty: no consent checkbox. Otherwise its text, and the visitor must tick it. */
  readonly consent: string
  readonly start_label: string
  readonly attachments: (typeof ATTACHMENTS)[number]
  /** Outside business hours the widget says replies come by e-mail, and they do while the visitor is away. */
  readonly email_fallback: boolean
  /** Host names (`shop.example.com`) or wildcards (`*.example.com`); empty = any site. */
  readonly allowed_domains: readonly string[]
  /** Each start-form field required (the spec's default), optional or hidden. */
  readonly prechat: Prechat
  readonly locale: (typeof WIDGET_LOCALES)[number]
}

export const defaults: Widget = {
  title: 'Chat with us',
  subtitle: 'We usually reply within minutes',
  color: '#2563eb',
  font: 'system',
  radius: 12,
  position: 'right',
  launcher_icon: 'chat',
  intro: 'Hi! Leave your details and we will be right with you.',
  consent: '',
  start_label: 'Start chat',
  attachments: 'images',
  email_fallback: true,
  allowed_domains: [],
  prechat: prechatOf(null),
  locale: 'auto',
}

export const widgetOf = (stored: unknown): Widget => {
  const s = stored !== null && typeof stored === 'object' ? (stored as Partial<Widget>) : {}
  return { ...defaults, ...s, prechat: prechatOf(s.prechat) }
}

/** A page's host against `allowed_domains`: exact host, or any subdomain of a `*.` entry. */
export const hostAllowed = (allowed: readonly string[], host: string | null): boolean => {
  if (allowed.length === 0) return true
  if (!host) return false
  const h = host.toLowerCase().replace(/\.$/, '')
  return allowed.some((d) => {
    const p = d.toLowerCase()
    return p.startsWith('*.') ? h === p.slice(2) || h.endsWith(p.slice(1)) : h === p
  })
}

/** The host of a URL (page URL, Origin or Referer), or null. */
export const hostOf = (url: string | null | undefined): string | null => {
  if (!url) return null
  try {
    const u = new URL(url)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.hostname : null
  } catch {
    return null
  }
}

/** `frame-ancestors` sources for the widget frame: the allowed hosts on http and https, or any. */
export const frameAncestors = (allowed: readonly string[]): string =>
  allowed.length === 0 ? '*' : allowed.map((d) => `http://${d}:* https://${d}:*`).join(' ')
