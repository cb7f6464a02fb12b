import type { PageRoute } from '../routes'

/**
 * API keys, the audit log, billing and plan, in the app's route registry (spread into `pages`
 * there). One chunk for the three, loaded on first use; Settings' index links to them.
 */
const page = () => import('./page')

export const adminRoutes: readonly PageRoute[] = [
  { path: '/settings/api-keys', load: () => page().then((m) => ({ default: m.ApiKeysPage })) },
  { path: '/settings/audit', load: () => page().then((m) => ({ default: m.AuditPage })) },
  { path: '/settings/billing', load: () => page().then((m) => ({ default: m.BillingPage })) },
]
