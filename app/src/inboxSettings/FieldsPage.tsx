import { useEffect, useState } from 'preact/hooks'
import { SelectField, TextAreaField, TextField } from '../kit/ui'
import { EditorForm, ListTable, MoveButtons, NewBar, Page, RowActions, Told, useList } from './common'
import { api, got, useCall, useTr, useWorkspaceEvents } from './kit'
import type { TextKey } from './texts'
import { type CustomField, ENTITIES, type Entity, FIELD_TYPES, type FieldType } from './types'

/**
 * `/app/settings/fields`: the custom fields of contacts, conversations, tickets, leads and
 * clients (`/custom-fields`; `/contact-fields` is the same contact fields, so no page of its own).
 */
const FieldsPage = () => (
  <Page title="is.fld.title" permission="contacts.manage" testId="fields-page">
    <Fields />
  </Page>
)
export default FieldsPage

const Fields = () => {
  const tr = useTr()
  const [entity, setEntity] = useState<Entity>('contact')
  const [all, setAll] = useState<readonly CustomField[] | null>(null)
  const [max, setMax] = useState(30)
  const load = (): Promise<void> =>
    got<CustomField[]>(api.get('/v1/custom-fields')).then((r) => {
      setAll(r.data)
      setMax(Number(r.meta.max_per_entity ?? 30))
    }, ui.setFailed)
  const ui = useList<CustomField>(load)
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['contacts.settings'], (d) => {
    if (d.kind === undefined || d.kind === 'custom_fields') void load()
  })

  const list = (all ?? []).filter((f) => f.entity === entity)
  const entityName = tr(`is.fld.entity.${entity}` as TextKey)
  const move = (f: CustomField, i: number, by: -1 | 1) =>
    ui.act(() => api.patch('/v1/custom-fields/{id}', { path: { id: f.id }, body: { position: i + by } }))
  const remove = (f: CustomField) =>
    ui.act(async () => {
      await api.delete('/v1/custom-fields/{id}', { path: { id: f.id } })
      return tr('is.deleted', { name: f.label })
    }, f.id)

  return (
    <div class="k-stack is-stack">
      <p class="k-muted">{tr('is.fld.intro', { max })}</p>
      <fieldset class="is-tabs">
        <legend class="sr-only">{tr('is.fld.entities')}</legend>
        {ENTITIES.map((e) => (
          <button
            key={e}
            type="button"
            class="k-btn"
            aria-pressed={e === entity}
            onClick={() => {
              setEntity(e)
              ui.open(null)
            }}
          >
            {tr(`is.fld.entity.${e}` as TextKey)}
            {all ? ` (${all.filter((f) => f.entity === e).length})` : ''}
          </button>
        ))}
      </fieldset>
      <Told failed={ui.failed} note={ui.note} />
      {ui.editing ? (
        <FieldEditor
          key={ui.editing === 'new' ? `new-${entity}` : ui.editing.id}
          field={ui.editing === 'new' ? null : ui.editing}
          entity={entity}
          onDone={ui.done}
        />
      ) : (
        <NewBar label={tr('is.fld.new')} disabled={list.length >= max} onNew={() => ui.open('new')}>
          <span class="k-muted">{tr('is.fld.count', { n: list.length, max })}</span>
        </NewBar>
      )}
      <h2 class="k-sub is-sub">{entityName}</h2>
      {all && list.length === 0 ? (
        <p class="k-muted" data-testid="fields-empty">
          {tr('is.fld.empty', { entity: entityName.toLowerCase() })}
        </p>
      ) : null}
      {list.length > 0 ? (
        <ListTable
          label={entityName}
          columns={[
            [tr('is.fld.label')],
            [tr('is.fld.type'), 'wide'],
            [tr('is.fld.options'), 'wide'],
            [tr('is.order')],
          ]}
        >
          {list.map((f, i) => (
            <tr key={f.id} data-field-id={f.id}>
              <td>
                <strong>{f.label}</strong>
                <div class="k-muted is-mono">{f.key}</div>
                <div class="k-muted is-narrow">
                  {tr(`is.fld.type.${f.type}` as TextKey)}
                  {f.options.length > 0 ? `: ${f.options.join(', ')}` : ''}
                </div>
              </td>
              <td class="is-wide">{tr(`is.fld.type.${f.type}` as TextKey)}</td>
              <td class="is-wide">{f.options.join(', ')}</td>
              <td>
                <MoveButtons
                  name={f.label}
                  first={i === 0}
                  last={i === list.length - 1}
                  busy={ui.busy}
                  onMove={(by) => move(f, i, by)}
                />
              </td>
              <RowActions
                name={f.label}
                question={tr('is.fld.delete_q', { name: f.label })}
                onEdit={() => ui.open(f)}
                onDelete={() => remove(f)}
              />
            </tr>
          ))}
        </ListTable>
      ) : null}
    </div>
  )
}

const lines = (s: string) =>
  s
    .split('\n')
    .map((x) => x.trim())
    .filter(Boolean)

/** The field's message for `options` or for one of them (`options.1`). */
const optionsError = (fields: Readonly<Record<string, string>>) =>
  fields.options ?? Object.entries(fields).find(([k]) => k.startsWith('options'))?.[1]

const FieldEditor = (props: {
  field: CustomField | null
  entity: Entity
  onDone: (told: string | null) => void
}) => {
  const tr = useTr()
  const f = props.field
  const [label, setLabel] = useState(f?.label ?? '')
  const [type, setType] = useState<FieldType>((f?.type as FieldType | undefined) ?? 'text')
  const [key, setKey] = useState('')
  const [options, setOptions] = useState(f?.options.join('\n') ?? '')
  const call = useCall()
  const opts = type === 'select' ? { options: lines(options) } : {}
  return (
    <EditorForm
      id="field-edit"
      level={3}
      testId="field-form"
      title={
        f
          ? tr('is.edit_of', { name: f.label })
          : `${tr('is.fld.new')}: ${tr(`is.fld.entity.${props.entity}` as TextKey)}`
      }
      creating={!f}
      call={call}
      save={() =>
        f
          ? api.patch('/v1/custom-fields/{id}', { path: { id: f.id }, body: { label, ...opts } })
          : api.post('/v1/custom-fields', {
              body: {
                entity: props.entity,
                label,
                type,
                ...(key.trim() ? { key: key.trim() } : {}),
                ...opts,
              },
            })
      }
      told={tr(f ? 'is.saved' : 'is.created', { name: label.trim() })}
      onDone={props.onDone}
    >
      <div class="is-two">
        <TextField
          label={tr('is.fld.label')}
          name="label"
          value={label}
          onValue={setLabel}
          error={call.fields.label}
          maxLength={100}
          required
        />
        {f ? (
          <dl class="k-dl">
            <dt>{tr('is.fld.type')}</dt>
            <dd>{tr(`is.fld.type.${f.type}` as TextKey)}</dd>
            <dt>{tr('is.fld.key')}</dt>
            <dd class="is-mono">{f.key}</dd>
          </dl>
        ) : (
          <SelectField
            label={tr('is.fld.type')}
            name="type"
            value={type}
            onValue={(v) => setType(v as FieldType)}
            error={call.fields.type}
            options={FIELD_TYPES.map((t) => [t, tr(`is.fld.type.${t}` as TextKey)] as const)}
          />
        )}
      </div>
      {f ? (
        <p class="k-muted">{tr('is.fld.fixed')}</p>
      ) : (
        <TextField
          label={tr('is.fld.key')}
          name="key"
          value={key}
          onValue={setKey}
          error={call.fields.key ?? call.fields.entity}
          hint={tr('is.fld.key_hint')}
          maxLength={50}
        />
      )}
      {type === 'select' ? (
        <TextAreaField
          label={tr('is.fld.options')}
          name="options"
          value={options}
          onValue={setOptions}
          error={optionsError(call.fields)}
          hint={tr('is.fld.options_hint')}
          rows={5}
        />
      ) : null}
    </EditorForm>
  )
}
