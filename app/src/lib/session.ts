import type { paths } from '../api/schema'
import { ApiError, api } from './api'
import type { Locale } from './i18n'
import { setGuestLocale } from './invitations'
import { store } from './state'

export type Me = paths['/v1/me']['get']['responses'][200]['content']['application/json']['data']

export interface WorkspaceBrief {
  readonly id: number
  readonly name: string
}

/** Who is signed in (GET /v1/me) and their workspaces; `null` until known, `false` when signed out. */
export const me = store<Me | null | false>(null)
export const workspaces = store<readonly WorkspaceBrief[]>([])

/** The person's language; kept in this browser too, so its pages for guests (sign-in) speak it. */
const applyLocale = (l: string) => setGuestLocale(l === 'id' ? 'id' : 'en')

export const load = async () => {
  const got = await api.get('/v1/me')
  applyLocale(got.data.user.locale)
  me.set(got.data)
  const list = await api.get('/v1/workspaces')
  workspaces.set((list.data as readonly WorkspaceBrief[]) ?? [])
}

export const switchWorkspace = async (id: number) => {
  await api.post('/v1/me/workspace', { body: { workspace_id: id } })
  // Every page's data belongs to the workspace: start afresh.
  location.href = '/app'
}

export const setLanguage = async (l: Locale) => {
  const got = await api.patch('/v1/me', { body: { locale: l } })
  applyLocale(got.data.user.locale)
  me.set(got.data)
}

export const can = (permission: string) => {
  const m = me.get()
  return m ? m.permissions.includes(permission) : false
}

/** Holds `permission`, or any of a list of them; nothing asked = yes. */
export const canAny = (permission: string | readonly string[] | undefined) =>
  permission === undefined || (typeof permission === 'string' ? can(permission) : permission.some(can))

/**
 * Ends every session of this person, on every device (POST /auth/logout `all`); their other
 * browsers lose their socket at once and show the sign-in page. Then this one does too. It
 * rejects when the sessions may still be going (the server refused or could not be reached), so
 * the person sees it instead of a sign-in page that suggests it worked; a 401 means this browser
 * was signed out already, and it goes to the sign-in page as after success.
 */
export const signOutEverywhere = async () => {
  try {
    await api.post('/auth/logout', { body: { all: true } })
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 401)) throw e
  }
  location.href = '/app'
}
