import type { ComponentType } from 'preact'
import { channelRoutes } from './channels/routes'
import type { Key } from './lib/i18n'

/**
 * Every page of the app, one line each. `load` keeps a page's code out of the first load; `nav`
 * puts it in the side navigation (in this order); `permission` hides the nav entry from people
 * without it (the API refuses them anyway).
 */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}

export interface PageRoute {
  readonly path: string
  readonly load: () => Promise<{ default: ComponentType<PageProps> }>
  readonly nav?: { readonly label: Key | (string & {}); readonly icon: string; readonly permission?: string }
}

/** One loader for both inbox paths: opening a conversation keeps the list (and its focus) mounted. */
const inbox = () => import('./pages/inbox')

export const pages: readonly PageRoute[] = [
  { path: '/inbox', load: inbox, nav: { label: 'nav.inbox', icon: '✉' } },
  { path: '/inbox/:id', load: inbox },
  ...channelRoutes,
  // The account's passkeys: reached from the account menu and the drawer, not the side navigation.
  { path: '/passkeys', load: () => import('./pages/passkeys') },
]

/** Where `/app` itself leads. */
export const HOME = '/inbox'
