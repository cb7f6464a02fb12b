import { useEffect, useRef, useState } from 'preact/hooks'
import { api } from '../lib/api'
import { when } from '../lib/format'
import { t } from '../lib/i18n'
import * as Socket from '../lib/socket'

interface Notification {
  readonly id: number
  readonly title: string
  readonly body: string
  readonly link: string | null
  readonly read: boolean
  readonly created_at: string
}

/** The notifications bell: the latest 20 and the unread count, live from `user:{id}`. */
export const Bell = ({ userId }: { userId: number }) => {
  const [items, setItems] = useState<readonly Notification[]>([])
  const [unread, setUnread] = useState(0)
  const [open, setOpen] = useState(false)
  const box = useRef<HTMLDivElement>(null)
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
    })
    reload()
    return () => {
      release()
      off()
    }
  }, [userId])
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [open])
  const readAll = async () => {
    const r = await api.post('/v1/notifications/read', { body: {} })
    setUnread(Number(r.meta.unread ?? 0))
    setItems((list) => list.map((n) => ({ ...n, read: true })))
  }
  return (
    <div class="bell" ref={box}>
      <button
        type="button"
        class="ghost"
        aria-label={`${t('bell')}${unread ? ` (${unread})` : ''}`}
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}
      >
        <svg
          aria-hidden="true"
          width="18"
          height="18"
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          stroke-width="2"
        >
          <path d="M6 8a6 6 0 1 1 12 0c0 7 3 9 3 9H3s3-2 3-9" />
          <path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
        </svg>
        {unread > 0 && (
          <span class="badge" data-testid="bell-count">
            {unread}
          </span>
        )}
      </button>
      {open && (
        <div class="popover" role="dialog" aria-label={t('bell')}>
          <div class="popover-head">
            <strong>{t('bell')}</strong>
            {unread > 0 && (
              <button type="button" class="link" onClick={() => void readAll()}>
                {t('bell.read_all')}
              </button>
            )}
          </div>
          {items.length === 0 ? (
            <p class="muted pad">{t('bell.none')}</p>
          ) : (
            <ul class="notes">
              {items.map((n) => (
                <li key={n.id} class={n.read ? '' : 'unread'}>
                  <div class="title">{n.title}</div>
                  {n.body && <div class="muted small">{n.body}</div>}
                  <div class="muted small">{when(n.created_at)}</div>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  )
}
