import type { PageRoute } from '../routes'

/** The signed-in person's profile: name, avatar, language, time zone, notifications, passkeys, sessions, in the app's route registry (spread into `pages` there). Reached from the account menu and the phone drawer, not the side navigation. */
export const profileRoutes: readonly PageRoute[] = [{ path: '/profile', load: () => import('./ProfilePage') }]
