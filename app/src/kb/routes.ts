import { extend } from '../lib/i18n'
import type { PageRoute } from '../routes'

/**
 * The knowledge base pages, in the app's route registry (spread into `pages` there): articles
 * and search, an article, its editor, the categories. One chunk, loaded on first use; only the
 * navigation label is here, so it reads in both languages before the chunk arrives. The
 * conversation's panel (./panel) is a chunk of its own, loaded by the reply composer.
 */
extend({
  en: { 'nav.kb': 'Knowledge base' },
  id: { 'nav.kb': 'Basis pengetahuan' },
})

const page = () => import('./page')
const list = () => page().then((m) => ({ default: m.KbPage }))
const article = () => page().then((m) => ({ default: m.ArticlePage }))
const editor = () => page().then((m) => ({ default: m.EditorPage }))
const categories = () => page().then((m) => ({ default: m.CategoriesPage }))

export const kbRoutes: readonly PageRoute[] = [
  { path: '/kb', load: list, nav: { label: 'nav.kb', icon: '❖', permission: 'kb.view' } },
  { path: '/kb/categories', load: categories },
  // Before `/kb/articles/:id`: the registry takes the first path that matches.
  { path: '/kb/articles/new', load: editor },
  { path: '/kb/articles/:id', load: article },
  { path: '/kb/articles/:id/edit', load: editor },
]
