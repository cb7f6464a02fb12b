import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'
import { anySettings } from './sections'

/**
 * Settings' index in the app's route registry. Each section's pages are in its area's routes.ts
 * (workspace, people, inboxSettings, admin); this is only the index the navigation leads to,
 * shown to a member whose role opens at least one section.
 */
extend({ en: { 'nav.settings': 'Settings' }, id: { 'nav.settings': 'Pengaturan' } })

export const settingsRoutes: readonly PageRoute[] = [
  {
    path: '/settings',
    load: () => import('./page'),
    nav: { label: 'nav.settings', icon: '⚙', permission: anySettings },
  },
]
