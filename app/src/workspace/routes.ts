import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The workspace pages (settings and business hours, ownership, switching, creating and leaving
 * workspaces, ownership requests) and the dashboard, in the app's route registry (spread into
 * `pages` there). One chunk, loaded on first use; only the navigation labels are here (the side
 * navigation's and the account menu's link to /workspaces), so they read in both languages before
 * the chunk arrives.
 */
extend({
  en: { 'nav.dashboard': 'Dashboard', 'nav.workspaces': 'Your workspaces' },
  id: { 'nav.dashboard': 'Dasbor', 'nav.workspaces': 'Ruang kerja Anda' },
})

const page = () => import('./page')
const dashboard = () => page().then((m) => ({ default: m.DashboardPage }))
const settings = () => page().then((m) => ({ default: m.WorkspaceSettingsPage }))
const workspaces = () => page().then((m) => ({ default: m.WorkspacesPage }))
const nav = { label: 'nav.dashboard', icon: '◧', permission: 'dashboard.view' }

export const workspaceRoutes: readonly PageRoute[] = [
  { path: '/dashboard', load: dashboard, nav },
  { path: '/settings/workspace', load: settings },
  { path: '/workspaces', load: workspaces },
]
