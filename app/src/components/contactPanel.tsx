import type { ComponentType } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import type { InteractionDetail } from '../api/types'
import type { Contact } from '../contacts/kit'
import { initials } from '../lib/format'
import { extend, t } from '../lib/i18n'
import { linkClick } from '../lib/router'
import { can } from '../lib/session'

extend({
  en: { 'panel.profile': 'Open profile', 'panel.edit': 'Edit contact' },
  id: { 'panel.profile': 'Buka profil', 'panel.edit': 'Ubah kontak' },
})

type Editor = ComponentType<{ id: number; onSaved: (c: Contact) => void; onCancel: () => void }>
/** The editor's code (contacts' chunk), loaded when someone first presses Edit. */
let editor: Editor | null = null

/**
 * Who the customer is: name, phone, e-mail, labels, the channel, custom fields (contacts.view).
 * A column beside the conversation on wide screens; where there is no room for it (styles.css),
 * a sheet over the conversation, opened by its Contact button (`sheet`) and closed by Close,
 * Escape or a tap beside it. Links to the contact's profile (/contacts/:id); with
 * `contacts.manage`, Edit changes the name, phone, e-mail and labels in place (the contacts
 * chunk's form, loaded on first use), and the panel shows what was saved.
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
  const [editing, setEditing] = useState(false)
  const [, setLoaded] = useState(0)
  const [saved, setSaved] = useState<Contact | null>(null)
  const contactId = detail.contact?.id ?? null
  useEffect(() => {
    setSaved(null)
    setEditing(false)
  }, [contactId])
  const edit = () => {
    setEditing(true)
    if (!editor)
      void import('../contacts/PanelEditor').then((m) => {
        editor = m.default
        setLoaded((n) => n + 1)
      })
  }
  const base = detail.contact
  const c = base && {
    ...base,
    ...(saved && saved.id === base.id
      ? {
          name: saved.name,
          details: { phone: saved.phone, email: saved.email, labels: saved.labels },
        }
      : {}),
  }
  const Edit = editor
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
      {c && (can('contacts.view') || can('contacts.manage')) && (
        <p class="panel-actions">
          <a href={`/app/contacts/${c.id}`} onClick={linkClick(`/contacts/${c.id}`)}>
            {t('panel.profile')}
          </a>
          {can('contacts.manage') && !editing && (
            <button type="button" class="button" onClick={edit}>
              {t('panel.edit')}
            </button>
          )}
        </p>
      )}
      {c && editing && Edit && (
        <Edit
          id={c.id}
          onSaved={(x) => {
            setSaved(x)
            setEditing(false)
          }}
          onCancel={() => setEditing(false)}
        />
      )}
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
