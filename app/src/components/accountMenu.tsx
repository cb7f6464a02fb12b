import { extend, t } from '../lib/i18n'
import { usePopover } from '../lib/popover'
import { linkClick } from '../lib/router'
import type * as Session from '../lib/session'
import '../pages/passkeysTexts'
import { SignOutEverywhere } from './signOutEverywhere'

extend({ en: { 'profile.nav': 'Your profile' }, id: { 'profile.nav': 'Profil Anda' } })

/**
 * The person's own pages, as links in the account menu and the phone drawer: their profile, their
 * passkeys, and their workspaces (requests to take one over, creating and leaving one), which
 * every member may open whatever their role.
 */
const accountPages = [
  { path: '/profile', label: 'profile.nav', testId: 'profile-link' },
  { path: '/passkeys', label: 'pk.nav', testId: 'passkeys-link' },
  { path: '/workspaces', label: 'nav.workspaces', testId: 'workspaces-link' },
] as const

export const AccountLinks = ({ onGo }: { onGo?: () => void }) => (
  <>
    {accountPages.map((p) => (
      <a
        key={p.path}
        href={`/app${p.path}`}
        class="button"
        data-testid={p.testId}
        onClick={(e) => {
          onGo?.()
          linkClick(p.path)(e)
        }}
      >
        {t(p.label)}
      </a>
    ))}
  </>
)

/**
 * The signed-in person in the top bar (wide screens; on a phone the drawer's NavAccount has the
 * same controls): their name opens who they are, their profile, their passkeys and signing out of
 * every device, for a session left open on a lost phone or a shared computer.
 */
export const AccountMenu = ({ me }: { me: Session.Me }) => {
  const { open, setOpen, box } = usePopover()
  return (
    <div class="account wide-only" ref={box}>
      <button
        type="button"
        class="ghost who"
        title={me.user.email}
        aria-expanded={open}
        aria-haspopup="true"
        data-testid="account-button"
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        {/* Decorative beside the name it shows (which names the button). */}
        {me.user.avatar_url ? (
          <img class="who-photo" src={me.user.avatar_url} alt="" width={22} height={22} />
        ) : null}
        {me.user.name} <span aria-hidden="true">▾</span>
      </button>
      {open && (
        <div class="popover account-menu" role="dialog" aria-label={me.user.name}>
          <div class="popover-head">
            <div>
              <strong>{me.user.name}</strong>
              <div class="muted small">{me.user.email}</div>
            </div>
          </div>
          <div class="popover-foot">
            <AccountLinks onGo={() => setOpen(false)} />
            <SignOutEverywhere testId="signout-all" />
          </div>
        </div>
      )}
    </div>
  )
}
