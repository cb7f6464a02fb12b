import type { PageRoute } from '../routes'

/**
 * Members, invitations, roles and teams, in the app's route registry (spread into `pages` there).
 * One chunk for the three, loaded on first use; Settings' index links to them (settings/sections.ts).
 */
const page = () => import('./page')

export const peopleRoutes: readonly PageRoute[] = [
  { path: '/settings/members', load: () => page().then((m) => ({ default: m.Members })) },
  { path: '/settings/roles', load: () => page().then((m) => ({ default: m.Roles })) },
  { path: '/settings/roles/:id', load: () => page().then((m) => ({ default: m.Roles })) },
  { path: '/settings/teams', load: () => page().then((m) => ({ default: m.Teams })) },
  { path: '/settings/teams/:id', load: () => page().then((m) => ({ default: m.Teams })) },
]
