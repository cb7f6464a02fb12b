import { usePopover } from '../lib/popover'
import type * as Session from '../lib/session'
import { PasskeysLink } from './passkeys'
import { SignOutEverywhere } from './signOutEverywhere'

/**
 * The signed-in person in the top bar (wide screens; on a phone the drawer's NavAccount has the
 * same controls): their name opens who they are and signing out of every device, for a session
 * left open on a lost phone or a shared computer.
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
            <PasskeysLink onGo={() => setOpen(false)} />
            <SignOutEverywhere testId="signout-all" />
          </div>
        </div>
      )}
    </div>
  )
}
