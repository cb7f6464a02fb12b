import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The broadcasts pages (spec 2 §4.8): the list, the dashboard, the segments with their builder,
 * and one broadcast (its draft editor with the estimate, preview, test send and schedule; then
 * its live progress, actions and per-recipient outcomes), in the app's route registry (spread
 * into `pages` there), each loaded on first use. `/broadcasts/dashboard` and
 * `/broadcasts/segments…` come before `/broadcasts/:id`, which would take them otherwise. Only the navigation label is here, so it reads in both languages
 * before a chunk arrives.
 */
extend({ en: { 'nav.broadcasts': 'Broadcasts' }, id: { 'nav.broadcasts': 'Siaran' } })

const segments = () => import('./SegmentsPage')
const segmentList = () => segments().then((m) => ({ default: m.SegmentListPage }))
const segmentEdit = () => segments().then((m) => ({ default: m.SegmentEditPage }))

export const broadcastRoutes: readonly PageRoute[] = [
  {
    path: '/broadcasts',
    load: () => import('./ListPage'),
    nav: { label: 'nav.broadcasts', icon: '◎', permission: ['broadcasts.view', 'broadcasts.manage'] },
  },
  { path: '/broadcasts/dashboard', load: () => import('./DashboardPage') },
  { path: '/broadcasts/segments', load: segmentList },
  { path: '/broadcasts/segments/:id', load: segmentEdit },
  { path: '/broadcasts/:id', load: () => import('./BroadcastPage') },
]
