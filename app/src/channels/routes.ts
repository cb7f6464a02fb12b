import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The channel pages in the app's route registry (spread into `pages` there). One chunk, loaded on
 * first use; only the navigation label is here, so the side navigation names it in both languages
 * before the chunk arrives.
 */
extend({ en: { 'nav.channels': 'Channels' }, id: { 'nav.channels': 'Kanal' } })

const load = () => import('./page')

export const channelRoutes: readonly PageRoute[] = [
  { path: '/channels', load, nav: { label: 'nav.channels', icon: '⇄', permission: 'channels.manage' } },
  { path: '/channels/new/:type', load },
  { path: '/channels/:id', load },
]
