import { type ApiError, can, defineTexts } from '../kit'
import { me } from '../lib/session'
import { hold, onEvent, topics } from '../lib/socket'
import { texts } from './texts'

/**
 * What the channel pages take beyond the kit (app/src/kit): their texts, and the workspace's
 * channel events.
 */
export { api, failFields, go, got, href, Link, useLocale } from '../kit'
export type Fail = ApiError

/** The translator of the channel pages' texts (texts.ts). */
export const useTr = defineTexts(texts)

/** Managing channels (every page but the list) needs `channels.manage`; the list does not. */
export const canManage = () => can('channels.manage')

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
