import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The reports pages, in the app's route registry (spread into `pages` there): the overview
 * (cards, charts, breakdowns), the agents' table and one person's KPIs, one chunk loaded on first
 * use (its charts are SVG of our own, in that chunk). Only the navigation label is here, so it
 * reads in both languages before the chunk arrives.
 */
extend({ en: { 'nav.reports': 'Reports' }, id: { 'nav.reports': 'Laporan' } })

const page = () => import('./page')
const overview = () => page().then((m) => ({ default: m.OverviewPage }))
const agents = () => page().then((m) => ({ default: m.AgentsPage }))
const person = () => page().then((m) => ({ default: m.PersonPage }))

export const reportRoutes: readonly PageRoute[] = [
  { path: '/reports', load: overview, nav: { label: 'nav.reports', icon: '▤', permission: 'reports.view' } },
  { path: '/reports/agents', load: agents },
  { path: '/reports/agents/:id', load: person },
]
