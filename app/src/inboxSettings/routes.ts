import type { PageRoute } from '../routes'

/**
 * The inbox settings: reply templates, conversation categories, labels and label rules, custom
 * fields, in the app's route registry (spread into `pages` there). Settings' index links them
 * (settings/sections.ts); each page is its own chunk, loaded on first use.
 */
export const inboxSettingsRoutes: readonly PageRoute[] = [
  { path: '/settings/templates', load: () => import('./TemplatesPage') },
  { path: '/settings/categories', load: () => import('./CategoriesPage') },
  { path: '/settings/labels', load: () => import('./LabelsPage') },
  { path: '/settings/fields', load: () => import('./FieldsPage') },
]
