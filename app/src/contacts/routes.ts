import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The contacts pages (list, profile, new, merge, CSV import), in the app's route registry (spread
 * into `pages` there), each loaded on first use; only the navigation label is here, so it reads
 * in both languages before a chunk arrives. `/contacts/new` and `/contacts/import` come before
 * `/contacts/:id`, which would take them otherwise.
 */
extend({ en: { 'nav.contacts': 'Contacts' }, id: { 'nav.contacts': 'Kontak' } })

const edits = () => import('./EditPages')
const newContact = () => edits().then((m) => ({ default: m.NewContactPage }))
const merge = () => edits().then((m) => ({ default: m.MergePage }))

export const contactRoutes: readonly PageRoute[] = [
  {
    path: '/contacts',
    load: () => import('./ListPage'),
    nav: { label: 'nav.contacts', icon: '☺', permission: 'contacts.view' },
  },
  { path: '/contacts/new', load: newContact },
  { path: '/contacts/import', load: () => import('./ImportPage') },
  { path: '/contacts/:id', load: () => import('./ProfilePage') },
  { path: '/contacts/:id/merge', load: merge },
]
