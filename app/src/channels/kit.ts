import type { AnchorHTMLAttributes, ComponentChildren } from 'preact'
import { createElement } from 'preact'
import { type ApiError, api } from '../lib/api'
import { extend, locale, t } from '../lib/i18n'
import { linkClick, navigate } from '../lib/router'
import { can, me } from '../lib/session'
import { hold, onEvent, topics } from '../lib/socket'
import { use } from '../lib/state'
import { type TextKey, texts } from './texts'

/**
 * What the channel pages take from the app's shared library (lib/): the typed API client, the
 * real-time connection, the language and navigation, bound once here so the pages read the same.
 */
export { api }
export type Fail = ApiError

const byLocale = { en: {} as Record<string, string>, id: {} as Record<string, string> }
for (const [k, v] of Object.entries(texts)) {
  byLocale.en[k] = v.en
  byLocale.id[k] = v.id
}
extend(byLocale)

/** The envelope with its data typed as the page reads it (the channel answers have no schema). */
export const got = async <T>(
  p: Promise<{ readonly data: unknown; readonly meta: Readonly<Record<string, unknown>> }>,
) => {
  const e = await p
  return { data: e.data as T, meta: e.meta }
}

export const useLocale = () => use(locale)

/** The translator, re-rendering the page when the language changes. */
export const useTr = () => {
  use(locale)
  return (key: TextKey, params: Readonly<Record<string, string | number>> = {}) => t(key, params)
}

/** Managing channels (every page but the list) needs `channels.manage`; the list does not. */
export const canManage = () => can('channels.manage')

export const href = (path: string) => `/app${path}`
export const go = (path: string) => navigate(path)

/** A link inside the app: navigates without reloading, opens in a new tab as usual. */
export const Link = (
  props: Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children: ComponentChildren },
) => {
  const { to, ...rest } = props
  return createElement('a', { ...rest, href: href(to), onClick: linkClick(to) })
}

export interface ChannelEvent {
  readonly channel_id: number
  readonly status?: unknown
}

/**
 * `ws:{id}` is held from the first channel page on and kept (the socket counts holders, so the
 * inbox holding it too costs nothing): moving from one channel page to the next would otherwise
 * unsubscribe and subscribe again, and an event in between would be lost.
 */
const held = new Set<number>()
const reloaders = new Set<() => void>()
const holdWorkspace = () => {
  const who = me.get()
  if (!who || held.has(who.workspace.id)) return
  held.add(who.workspace.id)
  hold(topics.workspace(who.workspace.id), () => {
    for (const f of reloaders) f()
  })
}

/**
 * `channel.updated` of the signed-in workspace while the caller listens. After a gap the server
 * could not replay, `onReload` runs so the page reloads through the API.
 */
export const onChannelUpdated = (f: (e: ChannelEvent) => void, onReload: () => void = () => undefined) => {
  holdWorkspace()
  reloaders.add(onReload)
  const off = onEvent((e) => {
    if (e.event === 'channel.updated' && typeof e.data.channel_id === 'number')
      f(e.data as unknown as ChannelEvent)
  })
  return () => {
    off()
    reloaders.delete(onReload)
  }
}
