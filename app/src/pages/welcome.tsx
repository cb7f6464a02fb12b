import { useEffect } from 'preact/hooks'
import { InvitationItem } from '../components/invitations'
import { signOut } from '../lib/api'
import { meaningful } from '../lib/format'
import { locale, t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { use } from '../lib/state'
import { GuestCard } from './signin'

/**
 * A signed-in person who belongs to no workspace yet (`GET /v1/me` answers 409
 * `workspace_required`): their pending invitations with Accept and "Not now", or what to do when
 * there are none. Without a workspace there is no socket, so the list is polled.
 */
export default function Welcome() {
  use(locale)
  const list = use(Inv.mine)
  const hidden = use(Inv.hidden)
  useEffect(() => {
    Inv.applyGuestLocale()
    void Inv.load()
      .catch(() => Inv.mine.set([]))
      .finally(meaningful)
    return Inv.poll()
  }, [])
  const visible = (list ?? []).filter((i) => !hidden.includes(i.id))
  const hiddenCount = (list ?? []).length - visible.length
  return (
    <GuestCard
      kind="welcome"
      testid="welcome"
      extra={
        <button type="button" class="ghost" onClick={() => void signOut()}>
          {t('signout')}
        </button>
      }
    >
      {list === null ? (
        <p class="muted">{t('list.loading')}</p>
      ) : visible.length === 0 ? (
        <>
          <h1>{t('inv.none_title')}</h1>
          <p data-testid="welcome-none">{t('inv.none')}</p>
          <p class="muted small">{t('inv.live_hint')}</p>
        </>
      ) : (
        <>
          <h1>{t('inv.pending_title')}</h1>
          <p>{t('inv.pending_help')}</p>
          <ul class="invitations">
            {visible.map((i) => (
              <InvitationItem key={i.id} inv={i} />
            ))}
          </ul>
          <p class="muted small">{t('inv.hide_help')}</p>
        </>
      )}
      {hiddenCount > 0 && (
        <button type="button" class="link" onClick={Inv.unhideAll}>
          {t('inv.show_hidden', { n: hiddenCount })}
        </button>
      )}
    </GuestCard>
  )
}
