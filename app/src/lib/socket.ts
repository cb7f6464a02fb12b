import type { ChannelKind, Delivered, Topic } from '../../../actors/eventCatalogue'
import { api } from './api'
import { store } from './state'

/** Topics are spelled by the catalogue only (`topics.conversation(id)`…). */
export { topics } from '../../../actors/eventTopics'

/**
 * The real-time connection (spec 1 §6, protocol in http/realtime/protocol.ts). One WebSocket per
 * tab: it asks for a short-lived token, subscribes the channels the pages want, and reconnects
 * with growing waits when dropped. Resuming: the server numbers events with one increasing
 * cursor per node, and a socket receives its topics' events in that order, so the last cursor
 * seen is the `since` of every channel on reconnect: what was missed arrives, nothing twice. A
 * channel the server cannot resume gets `reload`, and its listeners reload through the API.
 */

export type ConnectionState = 'connecting' | 'open' | 'down'
export const connection = store<ConnectionState>('connecting')
/**
 * Channels the server has confirmed (`subscribed`) on the current connection: from then on it
 * delivers every event of the channel, so a page can say it is live (and tests can wait for it).
 */
export const live = store<ReadonlySet<string>>(new Set())
const setLive = (channel: string, on: boolean) =>
  live.update((old) => {
    if (old.has(channel) === on) return old
    const next = new Set(old)
    if (on) next.add(channel)
    else next.delete(channel)
    return next
  })
/**
 * Subscriptions sent on this connection and not answered yet; `settled` is true when there are
 * none (until the server confirms a channel, its events may not arrive). The badge carries it as
 * `data-settled`, which browser tests wait for before making something happen.
 */
const pending = new Set<string>()
export const settled = store(true)
const settle = (channel: string) => {
  pending.delete(channel)
  if (pending.size === 0) settled.set(true)
}

/**
 * An event of a channel the app holds, typed by the server's event catalogue
 * (actors/eventCatalogue.ts): checking `event` narrows `data` to that event's payload. The
 * `visitor:` channel is the live chat widget's, never the app's.
 */
export type RealtimeEvent = Delivered<Exclude<ChannelKind, 'visitor'>> & { readonly cursor: string }

type Listener = (e: RealtimeEvent) => void

const wanted = new Map<string, number>() // channel -> holders
const listeners = new Set<Listener>()
const reloaders = new Map<string, Set<() => void>>()
let ws: WebSocket | null = null
let cursor: string | undefined
let attempt = 0
let started = false
let timer: ReturnType<typeof setTimeout> | undefined
let pinger: ReturnType<typeof setInterval> | undefined

const sendFrame = (frame: unknown) => {
  if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame))
}

/** `resume`: the channel was held before this connection, so what it missed is asked for. */
const subscribeFrame = (channel: string, resume: boolean) => {
  if (ws?.readyState !== WebSocket.OPEN) return
  pending.add(channel)
  settled.set(false)
  sendFrame(
    resume && cursor !== undefined
      ? { op: 'subscribe', channel, since: cursor }
      : { op: 'subscribe', channel },
  )
}

const reload = (channel: string) => {
  for (const f of reloaders.get(channel) ?? []) f()
}

const schedule = () => {
  connection.set('down')
  clearTimeout(timer)
  // 0.5 s, 1 s, 2 s … at most 15 s, with jitter so that a restarted server is not hit at once.
  const wait = Math.min(15000, 500 * 2 ** attempt) * (0.75 + Math.random() / 2)
  attempt += 1
  timer = setTimeout(open, wait)
}

const open = async () => {
  connection.set(attempt === 0 ? 'connecting' : 'down')
  let url: string
  try {
    url = (await api.post('/v1/realtime/token', { body: {} })).data.url
  } catch {
    schedule()
    return
  }
  const socket = new WebSocket(url)
  ws = socket
  socket.onopen = () => {
    attempt = 0
    pending.clear()
    connection.set('open')
    for (const channel of wanted.keys()) subscribeFrame(channel, true)
    clearInterval(pinger)
    pinger = setInterval(() => sendFrame({ op: 'ping' }), 25000)
  }
  socket.onmessage = (m) => {
    let frame: Record<string, unknown>
    try {
      frame = JSON.parse(String(m.data)) as Record<string, unknown>
    } catch {
      return
    }
    if (typeof frame.event === 'string') {
      if (typeof frame.cursor === 'string') cursor = frame.cursor
      for (const f of listeners) f(frame as unknown as RealtimeEvent)
    } else if (typeof frame.channel === 'string') {
      if (frame.op === 'subscribed') setLive(frame.channel, wanted.has(frame.channel))
      else if (frame.op === 'unsubscribed' || frame.op === 'refused' || frame.op === 'reload')
        setLive(frame.channel, false)
      if (frame.op === 'subscribed' || frame.op === 'refused') settle(frame.channel)
      // Cannot replay, or access to the channel was lost (reassigned away): the holders reload
      // through the API, which tells them what they may still see.
      if (frame.op === 'reload' || (frame.op === 'unsubscribed' && frame.reason === 'access_lost'))
        reload(frame.channel)
    }
  }
  socket.onclose = (e) => {
    if (ws !== socket) return
    ws = null
    live.set(new Set())
    pending.clear()
    settled.set(true)
    clearInterval(pinger)
    // 4500–4999: this socket's access is gone, so it does not simply reconnect. Asking who is
    // signed in decides: a 401 (signed out of every device elsewhere) shows the sign-in page at
    // once; an answer means the browser holds a session still (signed in again in another tab,
    // which ended the one this socket had), and the socket comes back on it, with the usual
    // growing waits should that keep happening.
    if (e.code >= 4500 && e.code < 5000) {
      connection.set('down')
      void api.get('/v1/me').then(
        () => {
          if (ws === null) schedule()
        },
        () => undefined,
      )
      return
    }
    schedule()
  }
}

/** Starts the connection once signed in. */
export const start = () => {
  if (started) return
  started = true
  void open()
}

/** Test hook and the "reconnect now" button: drops the socket; it comes back and resumes. */
export const reconnectNow = () => {
  attempt = 0
  clearTimeout(timer)
  if (ws) ws.close()
  else void open()
}

/**
 * Keeps `channel` subscribed while the caller holds it; `onReload` runs when the server could not
 * replay what was missed (the caller reloads through the API). Returns the release function.
 */
export const hold = (channel: Topic, onReload: () => void): (() => void) => {
  wanted.set(channel, (wanted.get(channel) ?? 0) + 1)
  if (wanted.get(channel) === 1) subscribeFrame(channel, false)
  const set = reloaders.get(channel) ?? new Set()
  reloaders.set(channel, set)
  set.add(onReload)
  return () => {
    set.delete(onReload)
    const n = (wanted.get(channel) ?? 1) - 1
    if (n > 0) wanted.set(channel, n)
    else {
      wanted.delete(channel)
      setLive(channel, false)
      settle(channel)
      sendFrame({ op: 'unsubscribe', channel })
    }
  }
}

export const onEvent = (f: Listener): (() => void) => {
  listeners.add(f)
  return () => listeners.delete(f)
}

// After a drop the pages reload what they show when the server cannot replay (and the
// connection state badge tells the user meanwhile); back online, try again at once.
if (typeof window !== 'undefined') {
  window.addEventListener('online', () => {
    if (connection.get() === 'down') reconnectNow()
  })
}
