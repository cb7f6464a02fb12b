/** The reports area's one chunk (app/src/reports/routes.ts picks a page from it). */
export { AgentsPage } from './AgentsPage'
export { OverviewPage } from './OverviewPage'
export { PersonPage } from './PersonPage'
