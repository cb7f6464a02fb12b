import { useKitTr } from '.'
import { CheckField, Field, SelectField, TextAreaField, TextField } from './ui'

/**
 * A workspace's custom fields (spec 2 §2: text, textarea, number, date, select, checkbox) as
 * controls and as words, for any entity that carries them (`custom` in a body, `custom_fields`
 * with their values in a detail). The server checks each value and names the field it refuses
 * (`custom.<key>`); the caller passes that message as `error`.
 */
export interface CustomDef {
  readonly id: number
  readonly key: string
  readonly label: string
  readonly type: string
  readonly options: readonly string[]
}

export interface CustomValue extends CustomDef {
  readonly value: unknown
}

/** What a form holds for one field: text for the typed ones, a boolean for a checkbox. */
export type CustomInputValue = string | boolean

/** The form's starting value of a stored one. */
export const customInput = (def: Pick<CustomDef, 'type'>, v: unknown): CustomInputValue =>
  def.type === 'checkbox' ? v === true : v === null || v === undefined ? '' : String(v)

/** The value a body sends for what the form holds: `null` clears, numbers as numbers. */
export const customBodyValue = (def: Pick<CustomDef, 'type'>, v: CustomInputValue | undefined) => {
  if (def.type === 'checkbox') return v === true
  const s = typeof v === 'string' ? v.trim() : ''
  if (s === '') return null
  return def.type === 'number' ? Number(s) : s
}

/** A stored value in words (Yes/No for a checkbox); empty when there is none. */
export const useCustomText = () => {
  const tr = useKitTr()
  return (v: unknown) =>
    v === true ? tr('k.yes') : v === false ? tr('k.no') : v === null || v === undefined ? '' : String(v)
}

/** One custom field's control, by its type; `name` is `cf-<key>`. */
export const CustomFieldInput = (p: {
  def: CustomDef
  value: CustomInputValue | undefined
  error?: string | undefined
  onValue: (v: CustomInputValue) => void
}) => {
  const tr = useKitTr()
  const d = p.def
  const name = `cf-${d.key}`
  const s = typeof p.value === 'string' ? p.value : ''
  switch (d.type) {
    case 'checkbox':
      return <CheckField label={d.label} name={name} checked={p.value === true} onValue={p.onValue} />
    case 'select':
      return (
        <SelectField
          label={d.label}
          name={name}
          value={s}
          options={[['', tr('k.unset')], ...d.options.map((o) => [o, o] as const)]}
          onValue={p.onValue}
          error={p.error}
        />
      )
    case 'textarea':
      return (
        <TextAreaField label={d.label} name={name} value={s} rows={3} onValue={p.onValue} error={p.error} />
      )
    case 'date':
      return (
        <Field label={d.label} error={p.error}>
          {(id, described) => (
            <input
              id={id}
              name={name}
              type="date"
              value={s}
              aria-invalid={p.error ? 'true' : undefined}
              aria-describedby={described}
              onInput={(e) => p.onValue(e.currentTarget.value)}
            />
          )}
        </Field>
      )
    default:
      return (
        <TextField
          label={d.label}
          name={name}
          type={d.type === 'number' ? 'number' : 'text'}
          value={s}
          onValue={p.onValue}
          error={p.error}
        />
      )
  }
}
