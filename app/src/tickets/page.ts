/** The tickets area's one chunk (app/src/tickets/routes.ts): the list and one ticket. */
export { default as TicketDetailPage } from './DetailPage'
export { default as TicketsListPage } from './ListPage'
