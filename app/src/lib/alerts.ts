import { api } from './api'
import { t } from './i18n'
import { here, navigate } from './router'
import * as Session from './session'
import * as Socket from './socket'
import { store } from './state'

/**
 * Alerts (docs/decisions.md, "Alerts"): a new conversation someone can see, and the caller's
 * notifications (assignment to them, mentions…). They count in the tab title as `(n) Kotak`, play
 * a short sound when the person turned it on (the `livechat_alert` preference, off by default),
 * and show a browser notification while the tab is hidden, once the person allowed it from the
 * bell. The bell owns the notification list and sets `unread`.
 */

/** Unread notifications (the bell's count). */
export const unread = store(0)
/** New conversations, by id, not opened yet. */
export const fresh = store<ReadonlySet<number>>(new Set())
/** The `livechat_alert` preference. */
export const sound = store(false)
/** What the browser says of notifications ('unsupported' without the API). */
export const permission = store<NotificationPermission | 'unsupported'>(
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
)

const setTitle = () => {
  const n = unread.get() + fresh.get().size
  const name = t('app.name')
  document.title = n > 0 ? `(${n}) ${name}` : name
}

/** A short two-note chime as a WAV, made here (the page's CSP allows `blob:` media only). */
let chime: string | null = null
const chimeUrl = () => {
  if (chime) return chime
  const rate = 8000
  const samples = Math.floor(rate * 0.3)
  const bytes = new Uint8Array(44 + samples)
  const view = new DataView(bytes.buffer)
  const text = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) bytes[at + i] = s.charCodeAt(i)
  }
  text(0, 'RIFF')
  view.setUint32(4, 36 + samples, true)
  text(8, 'WAVEfmt ')
  view.setUint32(16, 16, true)
  view.setUint16(20, 1, true) // PCM
  view.setUint16(22, 1, true) // mono
  view.setUint32(24, rate, true)
  view.setUint32(28, rate, true)
  view.setUint16(32, 1, true)
  view.setUint16(34, 8, true) // 8-bit unsigned
  text(36, 'data')
  view.setUint32(40, samples, true)
  for (let i = 0; i < samples; i++) {
    const s = i / rate
    const f = s < 0.15 ? 880 : 1320
    const fade = Math.max(0, 1 - (s % 0.15) / 0.15)
    bytes[44 + i] = 128 + Math.round(60 * fade * Math.sin(2 * Math.PI * f * s))
  }
  chime = URL.createObjectURL(new Blob([bytes], { type: 'audio/wav' }))
  return chime
}

export const playSound = () => {
  if (!sound.get()) return
  // A browser that refuses to play before the first click says so in a rejected promise: no sound then.
  void new Audio(chimeUrl()).play().catch(() => undefined)
}

/** A browser notification while the tab is hidden and the person allowed them. */
const show = (title: string, body: string, path: string, tag: string) => {
  if (permission.get() !== 'granted' || !document.hidden) return
  try {
    const n = new Notification(title, { body, tag })
    n.onclick = () => {
      window.focus()
      navigate(path)
      n.close()
    }
  } catch {
    // Some browsers (Android Chrome) only show notifications through a service worker.
  }
}

/** Asks for permission: call from a click (browsers ignore it otherwise). */
export const askPermission = async () => {
  if (typeof Notification === 'undefined') return
  permission.set(await Notification.requestPermission())
}

export const setSound = async (on: boolean) => {
  sound.set(on)
  await api.post('/v1/me/preferences', { body: { livechat_alert: on ? 1 : 0 } })
  const me = Session.me.get()
  if (me)
    Session.me.set({
      ...me,
      preferences: [
        ...me.preferences.filter((p) => p.key !== 'livechat_alert'),
        { key: 'livechat_alert', value: on ? 1 : 0 },
      ],
    })
}

/** The app's path for a notification's `link`, or null when the app has no page for it. */
export const pathOf = (link: string | null, has: (path: string) => boolean): string | null => {
  if (!link) return null
  const conversation = /^\/interactions\/(\d+)$/.exec(link)
  if (conversation) return `/inbox/${conversation[1]}`
  return link.startsWith('/') && has(link) ? link : null
}

/** Called by the bell for each `notification.created`. */
export const notified = (
  n: { readonly title: string; readonly body: string; readonly id: number },
  path: string,
) => {
  playSound()
  show(n.title, n.body, path, `notification-${n.id}`)
}

export const clearFresh = () => fresh.set(new Set())

let running: (() => void) | null = null

/** Starts following the workspace's new conversations (once per signed-in page). */
export const start = () => {
  const me = Session.me.get()
  if (!me || running) return running ?? (() => undefined)
  sound.set(me.preferences.some((p) => p.key === 'livechat_alert' && Number(p.value) === 1))
  const offTitle = [unread.subscribe(setTitle), fresh.subscribe(setTitle)]
  setTitle()
  const release = Socket.hold(Socket.topics.workspace(me.workspace.id), () => undefined)
  const off = Socket.onEvent((e) => {
    if (e.event !== 'inbox.changed') return
    const id = e.data.interaction_id
    if (id === null || (e.data.reason !== 'conversation.created' && e.data.reason !== 'created')) return
    if (fresh.get().has(id)) return
    void api
      .get('/v1/interactions/{id}', { path: { id } })
      .then((r) => {
        const c = r.data as { assignee_id?: number | null; contact?: { name?: string } | null }
        // A conversation the caller started themselves is no news to them.
        if (c.assignee_id === me.user.id && e.data.reason === 'created') return
        if (here.get().path === `/inbox/${id}` && !document.hidden) return
        fresh.update((s) => new Set([...s, id]))
        playSound()
        show(t('alerts.new_conversation'), c.contact?.name ?? '', `/inbox/${id}`, `interaction-${id}`)
      })
      .catch(() => undefined) // not visible to the caller (404): no alert
  })
  // Opening a conversation is seeing it.
  const offHere = here.subscribe(({ path }) => {
    const id = /^\/inbox\/(\d+)$/.exec(path)?.[1]
    if (id && fresh.get().has(Number(id)))
      fresh.update((s) => new Set([...s].filter((x) => x !== Number(id))))
  })
  running = () => {
    release()
    off()
    offHere()
    for (const f of offTitle) f()
    running = null
  }
  return running
}
