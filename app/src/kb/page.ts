/** The knowledge base's chunk (app/src/kb/routes.ts picks a page from it). */
export { ArticlePage } from './ArticlePage'
export { CategoriesPage } from './CategoriesPage'
export { EditorPage } from './EditorPage'
export { KbPage } from './ListPage'
