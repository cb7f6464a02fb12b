import type { InteractionDetail } from '../api/types'
import { initials } from '../lib/format'
import { t } from '../lib/i18n'

/** Who the customer is: name, phone, e-mail, labels, the channel, custom fields (contacts.view). */
export const ContactPanel = ({ detail }: { detail: InteractionDetail }) => {
  const c = detail.contact
  const fields = [...(c?.custom_fields ?? []), ...detail.custom_fields].filter(
    (f) => f.value !== null && f.value !== '',
  )
  return (
    <aside class="panel" aria-label={t('panel.contact')}>
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
    </aside>
  )
}
