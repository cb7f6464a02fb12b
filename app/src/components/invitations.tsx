import { useEffect, useState } from 'preact/hooks'
import { fullTime } from '../lib/format'
import { t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { usePopover } from '../lib/popover'
import { use } from '../lib/state'

/**
 * One pending invitation with Accept and "Not now"; the API's refusal (expired, quota, not this
 * address) is shown under it. Used by the top bar's menu and the page for people without a workspace.
 */
export const InvitationItem = ({ inv }: { inv: Inv.MyInvitation }) => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const accept = async () => {
    setBusy(true)
    setError(null)
    try {
      await Inv.accept(inv.id)
    } catch (e) {
      setError(Inv.refusal(e).message)
      setBusy(false)
    }
  }
  const vars = { inviter: inv.invited_by?.name ?? '', workspace: inv.workspace.name, role: inv.role.name }
  return (
    <li class="invitation" data-testid="invitation" data-id={inv.id}>
      <div>
        <div class="title">{t(inv.invited_by ? 'inv.from' : 'inv.from_unknown', vars)}</div>
        <div class="muted small">{t('inv.expires', { date: fullTime(inv.expires_at) })}</div>
        {error && (
          <p class="error small" role="alert">
            {error}
          </p>
        )}
      </div>
      <div class="invitation-actions">
        <button type="button" class="primary" disabled={busy} onClick={() => void accept()}>
          {busy ? t('inv.accepting') : t('inv.accept')}
        </button>
        <button type="button" class="ghost" disabled={busy} onClick={() => Inv.hide(inv.id)}>
          {t('inv.hide')}
        </button>
      </div>
    </li>
  )
}

/**
 * For a member of a workspace: invitations to other workspaces, as a button in the top bar that
 * shows only while some are pending and not hidden; live from `user:{id}` (`invitations.changed`).
 */
export const InvitationsMenu = ({ userId }: { userId: number }) => {
  const list = use(Inv.mine)
  const hidden = use(Inv.hidden)
  const { open, setOpen, box } = usePopover()
  useEffect(() => {
    void Inv.load().catch(() => undefined)
    return Inv.follow(userId)
  }, [userId])
  const visible = (list ?? []).filter((i) => !hidden.includes(i.id))
  if (visible.length === 0) return null
  return (
    <div class="bell" ref={box}>
      <button
        type="button"
        class="invites-button"
        data-testid="invitations-button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        {visible.length === 1 ? t('inv.count_one') : t('inv.count', { n: visible.length })}
      </button>
      {open && (
        <div class="popover" role="dialog" aria-label={t('inv.title')}>
          <div class="popover-head">
            <strong>{t('inv.title')}</strong>
          </div>
          <ul class="invitations">
            {visible.map((i) => (
              <InvitationItem key={i.id} inv={i} />
            ))}
          </ul>
          <p class="muted small invitations-help">{t('inv.hide_help')}</p>
        </div>
      )}
    </div>
  )
}
