import type { paths } from '../api/schema'
import { ApiError, api, setApiLocale } from './api'
import { extend, type Locale, locale } from './i18n'
import { sameSitePath } from './returnPath'
import { BASE } from './router'
import * as Socket from './socket'
import { store } from './state'

/**
 * Invitations for the signed-in user's e-mail address (spec 1 §4.1 `GET /v1/me/invitations`,
 * `POST /v1/me/invitations/{id}/accept`) and the e-mailed link's page (§4.5 `GET /v1/invite/{token}`).
 * The spec has no decline: "Not now" hides an invitation in this browser only (docs/decisions.md);
 * it stays valid until it expires or an owner cancels it.
 */

export type MyInvitation =
  paths['/v1/me/invitations']['get']['responses'][200]['content']['application/json']['data'][number]
export type InviteLink =
  paths['/v1/invite/{token}']['get']['responses'][200]['content']['application/json']['data']

extend({
  en: {
    'inv.title': 'Invitations',
    'inv.count_one': '1 invitation',
    'inv.count': '{n} invitations',
    'inv.from': '{inviter} invited you to {workspace} as {role}.',
    'inv.from_unknown': 'You are invited to {workspace} as {role}.',
    'inv.expires': 'Valid until {date}',
    'inv.accept': 'Accept',
    'inv.accepting': 'Joining…',
    'inv.hide': 'Not now',
    'inv.hide_help': '“Not now” hides it in this browser; the invitation stays valid until it expires.',
    'inv.show_hidden': 'Show hidden invitations ({n})',
    'inv.none_title': 'You are not in any workspace yet',
    'inv.none':
      'There is no invitation for your e-mail address. Ask an owner or administrator of your team’s workspace to invite you; the invitation arrives by e-mail and appears here.',
    'inv.pending_title': 'Join a workspace',
    'inv.pending_help': 'Accept an invitation to start working in that workspace.',
    'inv.live_hint': 'This list updates by itself.',
    'inv.page_title': 'Invitation to {workspace}',
    'inv.workspace': 'Workspace',
    'inv.role': 'Role',
    'inv.inviter': 'Invited by',
    'inv.for': 'For',
    'inv.expiry': 'Valid until',
    'inv.status': 'Status',
    'inv.status.pending': 'Waiting for you',
    'inv.status.expired': 'Expired',
    'inv.status.accepted': 'Accepted',
    'inv.status.cancelled': 'Cancelled',
    'inv.expired_help':
      'This invitation expired on {date}. Ask {inviter} or another owner of the workspace to send a new one.',
    'inv.accepted_help': 'This invitation has already been accepted.',
    'inv.cancelled_help':
      'This invitation was cancelled by the workspace. Ask its owner if you still need access.',
    'inv.unknown_title': 'This invitation link does not work',
    'inv.unknown':
      'The link is not valid any more: the invitation may have been sent again (only the newest link works) or removed. Look for a newer e-mail, or ask the workspace owner to invite you again.',
    'inv.signin_first': 'Sign in as {email} to accept this invitation.',
    'inv.wrong_account':
      'This invitation is for {email}, but you are signed in as {me}. Sign out and sign in as {email} to accept it.',
    'inv.not_yours':
      'This invitation could not be accepted with your account: only {email} can accept it, and only while it is valid.',
    'inv.open_app': 'Open Kotak',
    'inv.someone': 'a workspace owner',
  },
  id: {
    'inv.title': 'Undangan',
    'inv.count_one': '1 undangan',
    'inv.count': '{n} undangan',
    'inv.from': '{inviter} mengundang Anda ke {workspace} sebagai {role}.',
    'inv.from_unknown': 'Anda diundang ke {workspace} sebagai {role}.',
    'inv.expires': 'Berlaku sampai {date}',
    'inv.accept': 'Terima',
    'inv.accepting': 'Bergabung…',
    'inv.hide': 'Nanti saja',
    'inv.hide_help':
      '“Nanti saja” menyembunyikannya di peramban ini; undangan tetap berlaku sampai kedaluwarsa.',
    'inv.show_hidden': 'Tampilkan undangan tersembunyi ({n})',
    'inv.none_title': 'Anda belum bergabung dengan workspace mana pun',
    'inv.none':
      'Belum ada undangan untuk alamat e-mail Anda. Minta pemilik atau administrator workspace tim Anda untuk mengundang Anda; undangan dikirim lewat e-mail dan muncul di sini.',
    'inv.pending_title': 'Bergabung dengan workspace',
    'inv.pending_help': 'Terima undangan untuk mulai bekerja di workspace tersebut.',
    'inv.live_hint': 'Daftar ini diperbarui otomatis.',
    'inv.page_title': 'Undangan ke {workspace}',
    'inv.workspace': 'Workspace',
    'inv.role': 'Peran',
    'inv.inviter': 'Diundang oleh',
    'inv.for': 'Untuk',
    'inv.expiry': 'Berlaku sampai',
    'inv.status': 'Status',
    'inv.status.pending': 'Menunggu Anda',
    'inv.status.expired': 'Kedaluwarsa',
    'inv.status.accepted': 'Sudah diterima',
    'inv.status.cancelled': 'Dibatalkan',
    'inv.expired_help':
      'Undangan ini kedaluwarsa pada {date}. Minta {inviter} atau pemilik workspace lainnya untuk mengirim undangan baru.',
    'inv.accepted_help': 'Undangan ini sudah diterima.',
    'inv.cancelled_help':
      'Undangan ini dibatalkan oleh workspace. Hubungi pemiliknya jika Anda masih memerlukan akses.',
    'inv.unknown_title': 'Tautan undangan ini tidak berlaku',
    'inv.unknown':
      'Tautan ini sudah tidak berlaku: undangan mungkin sudah dikirim ulang (hanya tautan terbaru yang berlaku) atau dihapus. Cari e-mail yang lebih baru, atau minta pemilik workspace mengundang Anda lagi.',
    'inv.signin_first': 'Masuk sebagai {email} untuk menerima undangan ini.',
    'inv.wrong_account':
      'Undangan ini untuk {email}, tetapi Anda masuk sebagai {me}. Keluar, lalu masuk sebagai {email} untuk menerimanya.',
    'inv.not_yours':
      'Undangan ini tidak dapat diterima dengan akun Anda: hanya {email} yang dapat menerimanya, dan hanya selama masih berlaku.',
    'inv.open_app': 'Buka Kotak',
    'inv.someone': 'pemilik workspace',
  },
})

/** Pending invitations for the signed-in user; `null` until loaded. */
export const mine = store<readonly MyInvitation[] | null>(null)

const HIDDEN = 'kotak.invitations.hidden'
const readHidden = (): readonly number[] => {
  try {
    const v = JSON.parse(localStorage.getItem(HIDDEN) ?? '[]') as unknown
    return Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []
  } catch {
    return []
  }
}
/** Ids hidden with "Not now" in this browser. */
export const hidden = store<readonly number[]>(readHidden())
export const hide = (id: number) => {
  const next = [...new Set([...hidden.get(), id])]
  localStorage.setItem(HIDDEN, JSON.stringify(next))
  hidden.set(next)
}
export const unhideAll = () => {
  localStorage.removeItem(HIDDEN)
  hidden.set([])
}

export const load = async () => {
  const r = await api.get('/v1/me/invitations')
  mine.set(r.data)
}

/** Accepts; the workspace becomes the active one, so the app starts afresh in its inbox. */
export const accept = async (id: number) => {
  await api.post('/v1/me/invitations/{id}/accept', { path: { id }, body: {} })
  location.href = '/app/inbox'
}

/** An accept refusal as the person should read it. */
export const refusal = (e: unknown): { readonly code: string; readonly message: string } =>
  e instanceof ApiError ? { code: e.code, message: e.message } : { code: 'error', message: String(e) }

/** Reloads the list when the server says an invitation to this user changed (`user:{id}`). */
export const follow = (userId: number) => {
  const release = Socket.hold(Socket.topics.user(userId), () => void load())
  const off = Socket.onEvent((e) => {
    if (e.event === 'invitations.changed') void load()
  })
  return () => {
    release()
    off()
  }
}

/**
 * Without a workspace there is no socket (the realtime token needs one), so the list is asked for
 * again every 15 seconds and whenever the tab comes back into view.
 */
export const poll = () => {
  const again = () => {
    if (document.visibilityState === 'visible') void load().catch(() => undefined)
  }
  const timer = setInterval(again, 15000)
  document.addEventListener('visibilitychange', again)
  return () => {
    clearInterval(timer)
    document.removeEventListener('visibilitychange', again)
  }
}

/**
 * Where to come back after signing in: sign-in links and the identity provider land on `/app`,
 * so the invitation page leaves its path here (kept for an hour) and the app opens it again.
 */
const RETURN = 'kotak.return'
/** A stored path (under /app, without it) that the sign-in rule would follow (lib/returnPath.ts). */
const appPath = (path: string): string | null => {
  const full = sameSitePath(BASE + path)
  return full?.startsWith(`${BASE}/`) ? full.slice(BASE.length) : null
}
export const rememberReturn = (path: string) =>
  localStorage.setItem(RETURN, JSON.stringify({ path, at: Date.now() }))
export const takeReturn = (): string | null => {
  try {
    const v = JSON.parse(localStorage.getItem(RETURN) ?? 'null') as { path?: unknown; at?: unknown } | null
    localStorage.removeItem(RETURN)
    if (v && typeof v.path === 'string' && typeof v.at === 'number' && Date.now() - v.at < 3600_000)
      return appPath(v.path)
  } catch {
    localStorage.removeItem(RETURN)
  }
  return null
}

/** Someone not signed in (or without a workspace, so no `/me`): the browser's language or their pick. */
const GUEST_LOCALE = 'kotak.locale'
export const applyGuestLocale = () => {
  const saved = localStorage.getItem(GUEST_LOCALE)
  const l: Locale =
    saved === 'id' || saved === 'en' ? saved : navigator.language.startsWith('id') ? 'id' : 'en'
  setGuestLocale(l, false)
}
export const setGuestLocale = (l: Locale, save = true) => {
  if (save) localStorage.setItem(GUEST_LOCALE, l)
  setApiLocale(l)
  document.documentElement.lang = l
  locale.set(l)
}
