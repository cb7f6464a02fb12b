import type { ComponentType } from 'preact'
import { adminRoutes } from './admin/routes'
import { broadcastRoutes } from './broadcasts/routes'
import { channelRoutes } from './channels/routes'
import { contactRoutes } from './contacts/routes'
import { inboxSettingsRoutes } from './inboxSettings/routes'
import { kbRoutes } from './kb/routes'
import type { Key } from './lib/i18n'
import { peopleRoutes } from './people/routes'
import { pipelineRoutes } from './pipeline/routes'
import { profileRoutes } from './profile/routes'
import { reportRoutes } from './reports/routes'
import { settingsRoutes } from './settings/routes'
import { ticketRoutes } from './tickets/routes'
import { workspaceRoutes } from './workspace/routes'

/**
 * Every page of the app, one line each. `load` keeps a page's code out of the first load; `nav`
 * puts it in the side navigation (in this order); `permission` hides the nav entry from people
 * without it (or without any of them) (the API refuses them anyway).
 */
export interface PageProps {
  readonly params: Readonly<Record<string, string>>
}

export interface PageRoute {
  readonly path: string
  readonly load: () => Promise<{ default: ComponentType<PageProps> }>
  readonly nav?: {
    readonly label: Key | (string & {})
    readonly icon: string
    /** Shown to members holding this permission (or any of these). */
    readonly permission?: string | readonly string[]
  }
}

/** One loader for both inbox paths: opening a conversation keeps the list (and its focus) mounted. */
const inbox = () => import('./pages/inbox')

export const pages: readonly PageRoute[] = [
  { path: '/inbox', load: inbox, nav: { label: 'nav.inbox', icon: '✉' } },
  { path: '/inbox/:id', load: inbox },
  ...workspaceRoutes,
  ...contactRoutes,
  ...ticketRoutes,
  ...kbRoutes,
  ...reportRoutes,
  ...pipelineRoutes,
  ...broadcastRoutes,
  ...channelRoutes,
  ...settingsRoutes,
  ...peopleRoutes,
  ...inboxSettingsRoutes,
  ...adminRoutes,
  ...profileRoutes,
  // The account's passkeys: reached from the account menu and the drawer, not the side navigation.
  { path: '/passkeys', load: () => import('./pages/passkeys') },
]

/** Where `/app` itself leads. */
export const HOME = '/inbox'
