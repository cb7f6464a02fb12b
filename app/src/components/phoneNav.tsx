import { useEffect } from 'preact/hooks'
import { signOut } from '../lib/api'
import { type Locale, locale, t } from '../lib/i18n'
import { here } from '../lib/router'
import * as Session from '../lib/session'
import { store, use } from '../lib/state'
import { AccountLinks } from './accountMenu'
import { MenuLines } from './icons'
import { SignOutEverywhere } from './signOutEverywhere'

/**
 * The navigation on a phone (≤ 640 px, styles.css): the side navigation becomes a drawer opened by
 * the top bar's menu button, and the account's controls the top bar has no room for there
 * (workspace, language, who is signed in, sign out here or everywhere) move into it. Going to a
 * page, Escape, a tap beside the drawer or a wider window closes it.
 */
export const PHONE = '(max-width: 640px)'
export const navOpen = store(false)

export const MenuButton = () => {
  const open = use(navOpen)
  useEffect(() => {
    const wide = window.matchMedia(PHONE)
    const onWide = () => !wide.matches && navOpen.set(false)
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && navOpen.set(false)
    const offPath = here.subscribe(() => navOpen.set(false))
    wide.addEventListener('change', onWide)
    document.addEventListener('keydown', onKey)
    return () => {
      offPath()
      wide.removeEventListener('change', onWide)
      document.removeEventListener('keydown', onKey)
    }
  }, [])
  return (
    <button
      type="button"
      class="menu-button"
      aria-label={t('nav.menu')}
      aria-expanded={open}
      aria-controls="sidenav"
      onClick={() => navOpen.set(!open)}
    >
      <MenuLines />
    </button>
  )
}

/** The workspace switch, in the top bar (labelled for screen readers) and in the drawer. */
export const WorkspaceSelect = ({ me, place }: { me: Session.Me; place: 'topbar' | 'drawer' }) => {
  const list = use(Session.workspaces)
  const top = place === 'topbar'
  return (
    <label class={top ? 'inline wide-only' : 'nav-field'}>
      <span class={top ? 'sr-only' : undefined}>{t('workspace.switch')}</span>
      <select
        value={me.workspace.id}
        aria-label={top ? t('workspace.switch') : undefined}
        onChange={(e) => void Session.switchWorkspace(Number(e.currentTarget.value))}
      >
        {(list.length ? list : [me.workspace]).map((w) => (
          <option key={w.id} value={w.id}>
            {w.name}
          </option>
        ))}
      </select>
    </label>
  )
}

/** The account's controls inside the open drawer. */
export const NavAccount = ({ me }: { me: Session.Me }) => {
  const lang = use(locale)
  return (
    <div class="nav-account">
      <div class="who-full" title={me.user.email}>
        {me.user.name}
        <div class="muted small">{me.user.email}</div>
      </div>
      <WorkspaceSelect me={me} place="drawer" />
      <label class="nav-field">
        <span>{t('language')}</span>
        <select value={lang} onChange={(e) => void Session.setLanguage(e.currentTarget.value as Locale)}>
          <option value="en">English</option>
          <option value="id">Bahasa Indonesia</option>
        </select>
      </label>
      <AccountLinks />
      <button type="button" onClick={() => void signOut()}>
        {t('signout')}
      </button>
      <SignOutEverywhere />
    </div>
  )
}

/** The dimmed page beside the open drawer: a tap there closes it. */
export const NavBackdrop = () =>
  use(navOpen) ? (
    <button
      type="button"
      class="nav-backdrop"
      aria-label={t('nav.close')}
      onClick={() => navOpen.set(false)}
    />
  ) : null
