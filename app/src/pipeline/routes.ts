import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The pipeline pages (spec 2 §4.7), in the app's route registry (spread into `pages` there), each
 * loaded on first use; only the navigation label is here, so it reads in both languages before a
 * chunk arrives. `/pipeline/leads/new` comes before `/pipeline/leads/:id`, the path notifications
 * of a lead link to.
 */
extend({ en: { 'nav.pipeline': 'Pipeline' }, id: { 'nav.pipeline': 'Pipeline' } })

const lead = () => import('./LeadPage')
const newLead = () => lead().then((m) => ({ default: m.NewLeadPage }))
const clients = () => import('./ClientsPage')
const client = () => clients().then((m) => ({ default: m.ClientPage }))

export const pipelineRoutes: readonly PageRoute[] = [
  {
    path: '/pipeline',
    load: () => import('./BoardPage'),
    nav: { label: 'nav.pipeline', icon: '⇶', permission: ['leads.view', 'leads.manage'] },
  },
  { path: '/pipeline/leads', load: () => import('./LeadsPage') },
  { path: '/pipeline/leads/new', load: newLead },
  { path: '/pipeline/leads/:id', load: lead },
  { path: '/pipeline/dashboard', load: () => import('./DashboardPage') },
  { path: '/pipeline/clients', load: clients },
  { path: '/pipeline/clients/:id', load: client },
  { path: '/pipeline/import', load: () => import('./ImportPage') },
  { path: '/pipeline/workflows', load: () => import('./WorkflowsPage') },
]
