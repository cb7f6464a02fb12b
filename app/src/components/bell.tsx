import { useEffect, useState } from 'preact/hooks'
import * as Alerts from '../lib/alerts'
import { api } from '../lib/api'
import { when } from '../lib/format'
import { t } from '../lib/i18n'
import { usePopover } from '../lib/popover'
import { match, navigate } from '../lib/router'
import * as Socket from '../lib/socket'
import { use } from '../lib/state'
import { pages } from '../routes'
import { BellOutline } from './icons'

interface Notification {
  readonly id: number
  readonly kind?: string
  readonly data?: Readonly<Record<string, unknown>>
  readonly title: string
  readonly body: string
  readonly link: string | null
  readonly read: boolean
  readonly created_at: string
}

/** The title in the reader's language where the app knows the kind (the server stores English). */
const titleOf = (n: Notification) =>
  n.kind === 'interaction.assigned' && typeof n.data?.by_name === 'string'
    ? t('alerts.assigned', { name: n.data.by_name })
    : n.title

/** Whether the app has a page at `path`. */
const hasPage = (path: string) => pages.some((p) => match(p.path, path) !== null)

/**
 * The notifications bell: the latest 20 and the unread count, live from `user:{id}`; an item opens
 * its target (marked read). It also starts the alerts (lib/alerts: title count, sound, browser
 * notifications) and holds their switches.
 */
export const Bell = ({ userId }: { userId: number }) => {
  const [items, setItems] = useState<readonly Notification[]>([])
  const [unread, setUnread] = useState(0)
  const { open, setOpen, box } = usePopover()
  const fresh = use(Alerts.fresh)
  const sound = use(Alerts.sound)
  const permission = use(Alerts.permission)
  useEffect(() => Alerts.start(), [])
  useEffect(() => Alerts.unread.set(unread), [unread])
  useEffect(() => {
    const reload = () =>
      void api.get('/v1/notifications').then((r) => {
        setItems(r.data as readonly Notification[])
        setUnread(Number(r.meta.unread ?? 0))
      })
    const release = Socket.hold(Socket.topics.user(userId), reload)
    const off = Socket.onEvent((e) => {
      if (e.event !== 'notification.created') return
      const n = e.data as unknown as Notification
      setItems((list) => (list.some((x) => x.id === n.id) ? list : [n, ...list].slice(0, 20)))
      setUnread((u) => u + 1)
      Alerts.notified({ ...n, title: titleOf(n) }, Alerts.pathOf(n.link, hasPage) ?? '/')
    })
    reload()
    return () => {
      release()
      off()
    }
  }, [userId])
  const readAll = async () => {
    const r = await api.post('/v1/notifications/read', { body: {} })
    setUnread(Number(r.meta.unread ?? 0))
    setItems((list) => list.map((n) => ({ ...n, read: true })))
    Alerts.clearFresh()
  }
  const openItem = async (n: Notification, path: string | null) => {
    if (path) {
      setOpen(false)
      navigate(path)
    }
    if (n.read) return
    const r = await api.post('/v1/notifications/read', { body: { id: n.id } })
    setUnread(Number(r.meta.unread ?? 0))
    setItems((list) => list.map((x) => (x.id === n.id ? { ...x, read: true } : x)))
  }
  return (
    <div class="bell" ref={box}>
      <button
        type="button"
        class="ghost"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        {/* The name is the words and the visible count ("Notifications 2"), so a voice command
            naming what is seen reaches it (axe: label-content-name-mismatch). */}
        <span class="sr-only">{t('bell')} </span>
        <BellOutline />
        {unread + fresh.size > 0 && (
          <span class="badge" data-testid="bell-count">
            {unread + fresh.size}
          </span>
        )}
      </button>
      {open && (
        <div class="popover" role="dialog" aria-label={t('bell')}>
          <div class="popover-head">
            <strong>{t('bell')}</strong>
            {(unread > 0 || fresh.size > 0) && (
              <button type="button" class="link" onClick={() => void readAll()}>
                {t('bell.read_all')}
              </button>
            )}
          </div>
          {fresh.size > 0 && (
            <a
              href="/app/inbox"
              class="fresh"
              data-testid="bell-fresh"
              onClick={(e) => {
                e.preventDefault()
                setOpen(false)
                navigate('/inbox')
              }}
            >
              {t(fresh.size === 1 ? 'alerts.fresh_one' : 'alerts.fresh', { n: fresh.size })}
            </a>
          )}
          {items.length === 0 ? (
            <p class="muted pad">{t('bell.none')}</p>
          ) : (
            <ul class="notes">
              {items.map((n) => {
                const path = Alerts.pathOf(n.link, hasPage)
                const content = (
                  <>
                    <div class="title">
                      {titleOf(n)}
                      {!n.read && <span class="sr-only"> ({t('alerts.unread')})</span>}
                    </div>
                    {n.body && <div class="muted small">{n.body}</div>}
                    <div class="muted small">{when(n.created_at)}</div>
                  </>
                )
                return (
                  <li key={n.id} class={n.read ? '' : 'unread'}>
                    {path ? (
                      <a
                        href={`/app${path}`}
                        class="note-open"
                        onClick={(e) => {
                          e.preventDefault()
                          void openItem(n, path)
                        }}
                      >
                        {content}
                      </a>
                    ) : n.read ? (
                      <div class="note-open">{content}</div>
                    ) : (
                      // No page of the app for it (yet): opening it marks it read.
                      <button type="button" class="note-open" onClick={() => void openItem(n, null)}>
                        {content}
                      </button>
                    )}
                  </li>
                )
              })}
            </ul>
          )}
          <div class="popover-foot">
            <label class="inline">
              <input
                type="checkbox"
                checked={sound}
                data-testid="alert-sound"
                onChange={(e) => {
                  const on = e.currentTarget.checked
                  void Alerts.setSound(on).catch(() => Alerts.sound.set(!on))
                  if (on) Alerts.playSound()
                }}
              />{' '}
              {t('alerts.sound')}
            </label>
            {permission === 'default' && (
              <button type="button" class="link" onClick={() => void Alerts.askPermission()}>
                {t('alerts.desktop_ask')}
              </button>
            )}
            {permission === 'granted' && <span class="muted small">{t('alerts.desktop_on')}</span>}
            {permission === 'denied' && <span class="muted small">{t('alerts.desktop_denied')}</span>}
          </div>
        </div>
      )}
    </div>
  )
}
