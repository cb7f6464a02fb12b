import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The tickets pages, in the app's route registry (spread into `pages` there): the list and one
 * ticket, one chunk loaded on first use. Only the navigation label is here, so it reads in both
 * languages before the chunk arrives.
 */
extend({ en: { 'nav.tickets': 'Tickets' }, id: { 'nav.tickets': 'Tiket' } })

const page = () => import('./page')
const list = () => page().then((m) => ({ default: m.TicketsListPage }))
const detail = () => page().then((m) => ({ default: m.TicketDetailPage }))

export const ticketRoutes: readonly PageRoute[] = [
  { path: '/tickets', load: list, nav: { label: 'nav.tickets', icon: '▣', permission: 'tickets.view' } },
  { path: '/tickets/:id', load: detail },
]
