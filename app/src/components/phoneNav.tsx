import { useEffect } from 'preact/hooks'
import { signOut } from '../lib/api'
import { type Locale, locale, t } from '../lib/i18n'
import { here } from '../lib/router'
import * as Session from '../lib/session'
import { store, use } from '../lib/state'

/**
 * The navigation on a phone (≤ 640 px, styles.css): the side navigation becomes a drawer opened by
 * the top bar's menu button, and the account's controls the top bar has no room for there
 * (workspace, language, who is signed in, sign out) move into it. Going to a page, Escape, a tap
 * beside the drawer or a wider window closes it.
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
      <svg
        aria-hidden="true"
        width="20"
        height="20"
        viewBox="0 0 24 24"
        fill="none"
        stroke="currentColor"
        stroke-width="2"
      >
        <path d="M4 6h16M4 12h16M4 18h16" />
      </svg>
    </button>
  )
}

/** The account's controls inside the open drawer. */
export const NavAccount = ({ me }: { me: Session.Me }) => {
  const list = use(Session.workspaces)
  const lang = use(locale)
  return (
    <div class="nav-account">
      <div class="who-full" title={me.user.email}>
        {me.user.name}
        <div class="muted small">{me.user.email}</div>
      </div>
      <label class="nav-field">
        <span>{t('workspace.switch')}</span>
        <select
          value={me.workspace.id}
          onChange={(e) => void Session.switchWorkspace(Number(e.currentTarget.value))}
        >
          {(list.length ? list : [me.workspace]).map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </select>
      </label>
      <label class="nav-field">
        <span>{t('language')}</span>
        <select value={lang} onChange={(e) => void Session.setLanguage(e.currentTarget.value as Locale)}>
          <option value="en">English</option>
          <option value="id">Bahasa Indonesia</option>
        </select>
      </label>
      <button type="button" onClick={() => void signOut()}>
        {t('signout')}
      </button>
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
