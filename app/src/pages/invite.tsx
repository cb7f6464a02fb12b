import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, signOut } from '../lib/api'
import { fullTime, meaningful } from '../lib/format'
import { locale, t } from '../lib/i18n'
import * as Inv from '../lib/invitations'
import { use } from '../lib/state'
import { GuestCard, SignInWays } from './signin'

/** Who opens the page: not signed in, signed in without a workspace, or a member of one. */
export type Visitor =
  | { readonly kind: 'loading' }
  | { readonly kind: 'out' }
  | { readonly kind: 'none' }
  | { readonly kind: 'member'; readonly email: string }

/**
 * The e-mailed link's page (`/invite/{token}`, redirected to `/app/invite/{token}`): what the
 * invitation is (GET /v1/invite/{token}), its status and what to do; signed out, the ways to sign
 * in (and back here afterwards); signed in, Accept, which lands in the workspace's inbox.
 */
export default function InvitePage({ token, visitor }: { token: string; visitor: Visitor }) {
  use(locale)
  const [link, setLink] = useState<Inv.InviteLink | null | 'gone'>(null)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    if (visitor.kind !== 'member') Inv.applyGuestLocale()
  }, [visitor.kind])
  useEffect(() => {
    api
      .get('/v1/invite/{token}', { path: { token } })
      .then((r) => setLink(r.data))
      .catch((e: unknown) => {
        if (e instanceof ApiError && (e.status === 404 || e.status === 400)) setLink('gone')
        else setError(Inv.refusal(e).message)
      })
      .finally(meaningful)
  }, [token])
  useEffect(() => {
    if (visitor.kind === 'out') Inv.rememberReturn(`/invite/${token}`)
  }, [visitor.kind, token])

  const accept = async (id: number) => {
    setBusy(true)
    setError(null)
    try {
      await Inv.accept(id)
    } catch (e) {
      const r = Inv.refusal(e)
      setError(
        r.code === 'not_found' && link && link !== 'gone'
          ? t('inv.not_yours', { email: link.email })
          : r.message,
      )
      setBusy(false)
    }
  }

  let body: preact.ComponentChildren
  if (link === null) body = error ? null : <p class="muted">{t('list.loading')}</p>
  else if (link === 'gone')
    body = (
      <>
        <h1>{t('inv.unknown_title')}</h1>
        <p data-testid="invite-help">{t('inv.unknown')}</p>
        {visitor.kind !== 'out' && (
          <a class="button" href="/app">
            {t('inv.open_app')}
          </a>
        )}
      </>
    )
  else {
    const inviter = link.invited_by?.name ?? t('inv.someone')
    const wrongAccount = visitor.kind === 'member' && visitor.email.toLowerCase() !== link.email.toLowerCase()
    body = (
      <>
        <h1>{t('inv.page_title', { workspace: link.workspace.name })}</h1>
        <dl class="facts" data-testid="invite-facts">
          <dt>{t('inv.workspace')}</dt>
          <dd>{link.workspace.name}</dd>
          <dt>{t('inv.role')}</dt>
          <dd>{link.role.name}</dd>
          <dt>{t('inv.inviter')}</dt>
          <dd>{link.invited_by?.name ?? '—'}</dd>
          <dt>{t('inv.for')}</dt>
          <dd>{link.email}</dd>
          <dt>{t('inv.expiry')}</dt>
          <dd>{fullTime(link.expires_at)}</dd>
          <dt>{t('inv.status')}</dt>
          <dd data-testid="invite-status" data-status={link.status}>
            <span class={`status status-${link.status}`}>{t(`inv.status.${link.status}`)}</span>
          </dd>
        </dl>
        {link.status === 'expired' && (
          <p data-testid="invite-help">
            {t('inv.expired_help', { date: fullTime(link.expires_at), inviter })}
          </p>
        )}
        {link.status === 'cancelled' && <p data-testid="invite-help">{t('inv.cancelled_help')}</p>}
        {link.status === 'accepted' && (
          <>
            <p data-testid="invite-help">{t('inv.accepted_help')}</p>
            <a class="button primary" href="/app">
              {t('inv.open_app')}
            </a>
          </>
        )}
        {link.status === 'pending' &&
          (visitor.kind === 'loading' ? (
            <p class="muted">{t('list.loading')}</p>
          ) : visitor.kind === 'out' ? (
            <section class="signin-ways" data-testid="invite-signin">
              <p>
                <strong>{t('inv.signin_first', { email: link.email })}</strong>
              </p>
              <SignInWays returnTo={`/app/invite/${token}`} email={link.email} />
            </section>
          ) : wrongAccount ? (
            <>
              <p class="error" role="alert">
                {t('inv.wrong_account', { email: link.email, me: visitor.email })}
              </p>
              <button
                type="button"
                onClick={() => {
                  Inv.rememberReturn(`/invite/${token}`)
                  void signOut()
                }}
              >
                {t('signout')}
              </button>
            </>
          ) : (
            <button
              type="button"
              class="primary"
              data-testid="invite-accept"
              disabled={busy}
              onClick={() => void accept(link.id)}
            >
              {busy ? t('inv.accepting') : t('inv.accept')}
            </button>
          ))}
      </>
    )
  }
  return (
    <GuestCard kind="invite" top={visitor.kind !== 'member'} error={error} errorId="invite-error">
      {body}
    </GuestCard>
  )
}
