import { useEffect, useRef } from 'preact/hooks'
import type { InteractionDetail } from '../api/types'
import { initials } from '../lib/format'
import { t } from '../lib/i18n'

/**
 * Who the customer is: name, phone, e-mail, labels, the channel, custom fields (contacts.view).
 * A column beside the conversation on wide screens; where there is no room for it (styles.css),
 * a sheet over the conversation, opened by its Contact button (`sheet`) and closed by Close,
 * Escape or a tap beside it.
 */
export const ContactPanel = ({
  detail,
  sheet = false,
  close,
}: {
  detail: InteractionDetail
  sheet?: boolean
  close?: () => void
}) => {
  const closer = useRef<HTMLButtonElement>(null)
  useEffect(() => {
    if (!sheet || !close) return
    closer.current?.focus()
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && close()
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [sheet, close])
  const c = detail.contact
  const fields = [...(c?.custom_fields ?? []), ...detail.custom_fields].filter(
    (f) => f.value !== null && f.value !== '',
  )
  const content = (
    <>
      {sheet && close && (
        <button type="button" class="sheet-close" ref={closer} onClick={close}>
          {t('panel.close')}
        </button>
      )}
      <div class="avatar" aria-hidden="true">
        {initials(c?.name || detail.group?.name || '?')}
      </div>
      <h3>{c?.name || detail.group?.name}</h3>
      <dl>
        {c?.details?.phone && (
          <>
            <dt>{t('panel.phone')}</dt>
            <dd>{c.details.phone}</dd>
          </>
        )}
        {c?.details?.email && (
          <>
            <dt>{t('panel.email')}</dt>
            <dd>{c.details.email}</dd>
          </>
        )}
        <dt>{t('panel.channel')}</dt>
        <dd>{detail.channel?.name}</dd>
        {c?.details && c.details.labels.length > 0 && (
          <>
            <dt>{t('panel.labels')}</dt>
            <dd>
              {c.details.labels.map((l) => (
                <span key={l.id} class="label" style={{ borderColor: l.color }}>
                  {l.name}
                </span>
              ))}
            </dd>
          </>
        )}
        {fields.map((f) => (
          <>
            <dt key={`k${f.id}`}>{f.label}</dt>
            <dd key={`v${f.id}`}>{String(f.value)}</dd>
          </>
        ))}
      </dl>
      {detail.ai_summary && <p class="small muted">{detail.ai_summary}</p>}
    </>
  )
  if (!sheet || !close)
    return (
      <aside class="panel" aria-label={t('panel.contact')}>
        {content}
      </aside>
    )
  return (
    <>
      {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: a tap beside the sheet; Escape and Close serve the keyboard */}
      <div class="sheet-backdrop" onClick={close} />
      <div class="panel" role="dialog" aria-modal="true" aria-label={t('panel.contact')}>
        {content}
      </div>
    </>
  )
}
