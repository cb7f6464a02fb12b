import { useState } from 'preact/hooks'
import type { Message } from '../api/types'
import { bytes, fullTime, when } from '../lib/format'
import { t } from '../lib/i18n'
import { Paperclip } from './icons'

/** One message of any type (spec 2 §2): text, media, sticker, location, shared contact, e-mail, note. */
const EDIT_WINDOW_MS = 15 * 60 * 1000
const UNSEND_WINDOW_MS = 2 * 24 * 3600 * 1000
/**
 * How long the server gives a delivery before a reply still `pending` may be sent again (the
 * ConversationActor's DELIVERY_MS): past it, the reply's delivery was never answered (its node
 * stopped, the channel's service did not answer) and the agent is offered Retry, as for a failure.
 */
const DELIVERY_MS = 60 * 1000
const REACTIONS = ['👍', '❤️', '😂', '🙏']

export interface MessageActions {
  readonly retry: (m: Message) => void
  readonly edit: (m: Message, text: string) => void
  readonly unsend: (m: Message) => void
  readonly react: (m: Message, emoji: string) => void
  readonly quote: (m: Message) => void
}

const EmailBody = ({ m }: { m: Message }) => {
  const [images, setImages] = useState(false)
  return (
    <div class="email">
      {m.email?.subject && <div class="email-subject">{m.email.subject}</div>}
      {m.email?.html ? (
        <>
          {/* No scripts, no same-origin access: the mail cannot act as the app. */}
          <iframe
            sandbox=""
            title={m.email.subject ?? 'E-mail'}
            src={`/v1/messages/${m.id}/email${images ? '?images=1' : ''}`}
            referrerpolicy="no-referrer"
          />
          {!images && (
            <button type="button" class="link small" onClick={() => setImages(true)}>
              {t('conv.show_images')}
            </button>
          )}
        </>
      ) : (
        <div class="text">{m.body}</div>
      )}
      {m.email?.attachments.map((a) => (
        <a key={a.index} class="attachment" href={`${a.url}?download=1`}>
          <Paperclip /> {a.name} <span class="muted">({bytes(a.size)})</span>
        </a>
      ))}
    </div>
  )
}

const Media = ({ m }: { m: Message }) => {
  const media = m.media!
  const mime = media.mime ?? ''
  if (m.type === 'sticker') return <img class="sticker" src={media.url} alt="Sticker" loading="lazy" />
  if (mime.startsWith('image/'))
    return (
      <a href={media.url} target="_blank" rel="noreferrer">
        <img class="preview" src={media.url} alt={media.name ?? 'Image'} loading="lazy" />
      </a>
    )
  // Customers' clips come without captions; there is no track to offer.
  // biome-ignore lint/a11y/useMediaCaption: no captions exist for customer media
  if (mime.startsWith('video/')) return <video class="preview" src={media.url} controls preload="metadata" />
  // biome-ignore lint/a11y/useMediaCaption: no captions exist for customer media (voice notes)
  if (mime.startsWith('audio/')) return <audio src={media.url} controls preload="metadata" />
  return (
    <a class="attachment" href={`${media.url}?download=1`}>
      <Paperclip /> {media.name ?? t('conv.download')} <span class="muted">({bytes(media.size)})</span>
    </a>
  )
}

const Body = ({ m }: { m: Message }) => {
  if (m.deleted_at) return <div class="text muted">{t('conv.unsent')}</div>
  if (m.email) return <EmailBody m={m} />
  if (m.type === 'location' && m.location) {
    const { latitude, longitude, name, address } = m.location
    return (
      <div class="location">
        <strong>{name || t('conv.location')}</strong>
        {address && <div class="muted small">{address}</div>}
        {latitude != null && longitude != null && (
          <a
            href={`https://www.openstreetmap.org/?mlat=${latitude}&mlon=${longitude}#map=16/${latitude}/${longitude}`}
            target="_blank"
            rel="noreferrer"
          >
            {latitude.toFixed(5)}, {longitude.toFixed(5)}
          </a>
        )}
      </div>
    )
  }
  if (m.type === 'contact' && m.shared_contact) {
    const c = m.shared_contact
    return (
      <div class="vcard">
        <div class="muted small">{t('conv.contact_card')}</div>
        <strong>{c.name}</strong>
        {(c.phone ? [c.phone] : []).map((p) => (
          <div key={p}>{p}</div>
        ))}
      </div>
    )
  }
  return (
    <>
      {m.media && <Media m={m} />}
      {m.body && <div class="text">{m.body}</div>}
    </>
  )
}

export const MessageView = ({
  m,
  mine,
  now,
  actions,
}: {
  m: Message
  mine: boolean
  now: number
  actions: MessageActions
}) => {
  const [editing, setEditing] = useState<string | null>(null)
  const note = m.type === 'note'
  const sentAt = new Date(m.sent_at ?? m.created_at).getTime()
  const canEdit = mine && m.type === 'text' && !m.deleted_at && now - sentAt < EDIT_WINDOW_MS
  const canUnsend = mine && !note && !m.deleted_at && m.direction === 'out' && now - sentAt < UNSEND_WINDOW_MS
  const stuck =
    !note && !m.deleted_at && m.direction === 'out' && m.status === 'pending' && now - sentAt > DELIVERY_MS
  const cls = note ? 'msg note' : m.direction === 'in' ? 'msg in' : 'msg out'
  return (
    <li class={cls} data-testid="message" data-id={m.id} data-type={m.type}>
      <div class="bubble">
        <div class="msg-head">
          <span class="sender">
            {note ? `${t('conv.note')} · ` : ''}
            {m.sender.name ?? ''}
          </span>
          <time dateTime={m.created_at} title={fullTime(m.created_at)}>
            {when(m.created_at)}
          </time>
        </div>
        {m.reply_to && (
          <blockquote class="quote">
            <span class="muted small">{m.reply_to.sender.name}</span>
            <div>{m.reply_to.body}</div>
          </blockquote>
        )}
        {editing !== null ? (
          <form
            class="edit"
            onSubmit={(e) => {
              e.preventDefault()
              actions.edit(m, editing)
              setEditing(null)
            }}
          >
            <textarea
              aria-label={t('conv.edit')}
              value={editing}
              onInput={(e) => setEditing(e.currentTarget.value)}
            />
            <button type="submit" class="primary">
              {t('conv.save')}
            </button>
            <button type="button" onClick={() => setEditing(null)}>
              {t('conv.cancel')}
            </button>
          </form>
        ) : (
          <Body m={m} />
        )}
        {m.reactions.length > 0 && (
          <div class="reactions">
            {m.reactions.map((r, i) => (
              <span key={i} title={r.name ?? r.from}>
                {r.emoji}
              </span>
            ))}
          </div>
        )}
        <div class="msg-foot">
          {m.edited_at && !m.deleted_at && <span class="muted small">{t('conv.edited')}</span>}
          {m.direction === 'out' && !note && (
            <span class={`status status-${m.status}`} data-testid="delivery">
              {t(`delivery.${m.status}`)}
            </span>
          )}
        </div>
        {m.status === 'failed' && (
          <div class="failed" role="alert">
            {t('conv.failed', { reason: m.error ?? '?' })}{' '}
            <button type="button" class="link" onClick={() => actions.retry(m)}>
              {t('conv.retry')}
            </button>
          </div>
        )}
        {stuck && (
          <div class="failed" role="alert">
            {t('conv.stuck')}{' '}
            <button type="button" class="link" onClick={() => actions.retry(m)}>
              {t('conv.retry')}
            </button>
          </div>
        )}
      </div>
      {!m.deleted_at && !note && (
        <div class="msg-actions">
          <button type="button" class="link small" onClick={() => actions.quote(m)}>
            {t('conv.quote')}
          </button>
          {REACTIONS.map((e) => (
            <button
              key={e}
              type="button"
              class="link small"
              aria-label={`${t('conv.react')} ${e}`}
              onClick={() => actions.react(m, e)}
            >
              {e}
            </button>
          ))}
          {canEdit && (
            <button type="button" class="link small" onClick={() => setEditing(m.body)}>
              {t('conv.edit')}
            </button>
          )}
          {canUnsend && (
            <button type="button" class="link small" onClick={() => actions.unsend(m)}>
              {t('conv.unsend')}
            </button>
          )}
        </div>
      )}
    </li>
  )
}
