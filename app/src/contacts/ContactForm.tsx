import { useState } from 'preact/hooks'
import { CustomFieldInput, customBodyValue, customInput } from '../kit/customFields'
import { CheckField, FailNotice, TextAreaField, TextField } from '../kit/ui'
import {
  api,
  type Contact,
  type ContactBody,
  type FieldDef,
  type TextField as Key,
  type LabelItem,
  TEXT_FIELDS,
  type TextKey,
  useCall,
  useTr,
} from './kit'

/**
 * A contact's fields as a form, for creating (POST /contacts) and changing (PATCH, only what the
 * form holds): the text fields of spec 2 §2 (or `only` some of them), the workspace's contact
 * custom fields by their type, and, with `labels`, the labels as checkboxes (`label_ids` replaces
 * them all). The server's per-field messages show under each field.
 */
export const ContactForm = (props: {
  contact: Contact | null
  defs?: readonly FieldDef[]
  labels?: readonly LabelItem[]
  only?: readonly Key[]
  onSaved: (c: Contact) => void
  onCancel?: () => void
}) => {
  const tr = useTr()
  const call = useCall()
  const c = props.contact
  const shown = props.only ?? TEXT_FIELDS
  const [text, setText] = useState<Record<string, string>>(() =>
    Object.fromEntries(TEXT_FIELDS.map((k) => [k, (c?.[k] as string | null) ?? ''])),
  )
  const [custom, setCustom] = useState<Record<string, unknown>>(() => ({ ...(c?.custom ?? {}) }))
  const [labelIds, setLabelIds] = useState<readonly number[]>(c?.label_ids ?? [])
  const defs = props.defs ?? []

  const submit = async (e: Event) => {
    e.preventDefault()
    const body: Record<string, unknown> = {}
    for (const k of shown) {
      const v = text[k]!.trim()
      body[k] = k === 'name' ? v : v === '' ? null : v
    }
    if (defs.length > 0)
      body.custom = Object.fromEntries(
        defs.map((d) => [d.key, customBodyValue(d, customInput(d, custom[d.key]))]),
      )
    if (props.labels) body.label_ids = labelIds
    let saved: Contact | null = null
    const ok = await call.run(async () => {
      const b = body as ContactBody
      saved = c
        ? (await api.patch('/v1/contacts/{id}', { path: { id: c.id }, body: b })).data
        : (await api.post('/v1/contacts', { body: b })).data
    })
    if (ok && saved) props.onSaved(saved)
  }

  const err = (k: string) => call.fields[k] ?? call.fields[`custom.${k}`]
  return (
    <form class="k-form" onSubmit={submit} data-testid="contact-form" noValidate>
      <FailNotice error={call.error} />
      {shown.map((k) =>
        k === 'address' ? (
          <TextAreaField
            key={k}
            label={tr(`ct.f.${k}` as TextKey)}
            name={k}
            rows={2}
            value={text[k]!}
            onValue={(v) => setText((t) => ({ ...t, [k]: v }))}
            error={err(k)}
          />
        ) : (
          <TextField
            key={k}
            label={tr(`ct.f.${k}` as TextKey)}
            name={k}
            type={k === 'email' ? 'email' : k === 'phone' ? 'tel' : 'text'}
            value={text[k]!}
            autoComplete="off"
            onValue={(v) => setText((t) => ({ ...t, [k]: v }))}
            error={err(k)}
          />
        ),
      )}
      {defs.map((d) => (
        <CustomFieldInput
          key={d.key}
          def={d}
          value={customInput(d, custom[d.key])}
          error={err(d.key)}
          onValue={(v) => setCustom((x) => ({ ...x, [d.key]: v }))}
        />
      ))}
      {props.labels && props.labels.length > 0 && (
        <fieldset class="k-fieldset">
          <legend>{tr('ct.labels')}</legend>
          {props.labels.map((l) => (
            <CheckField
              key={l.id}
              label={l.name}
              name={`label-${l.id}`}
              checked={labelIds.includes(l.id)}
              onValue={(on) => setLabelIds((ids) => (on ? [...ids, l.id] : ids.filter((x) => x !== l.id)))}
            />
          ))}
        </fieldset>
      )}
      <div class="k-row">
        <button type="submit" class="k-btn k-primary" disabled={call.busy}>
          {c ? tr('ct.save') : tr('ct.create')}
        </button>
        {props.onCancel && (
          <button type="button" class="k-btn" onClick={props.onCancel}>
            {tr('ct.cancel')}
          </button>
        )}
      </div>
    </form>
  )
}
