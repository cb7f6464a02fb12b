import { useEffect, useState } from 'preact/hooks'
import { ConfirmButton, Field, TextAreaField, TextField } from '../kit/ui'
import { me } from '../lib/session'
import { EditorForm, ListTable, NewBar, Page, RowActions, Told, useList } from './common'
import { api, got, useCall, useTr } from './kit'
import type { Template } from './types'

const VARS = '{{contact_name}}, {{contact_phone}}, {{contact_email}}, {{agent_name}}, {{workspace_name}}'

/** The example customer the preview fills a template for (as the server does for a conversation). */
const render = (body: string, vars: Readonly<Record<string, string>>) =>
  body.replace(/\{\{\s*([a-z_]+)\s*\}\}/gi, (m, name: string) => vars[name.toLowerCase()] ?? m)

const exampleVars = () => {
  const who = me.get()
  return {
    contact_name: 'Budi Santoso',
    contact_phone: '+62 812 3456 7890',
    contact_email: 'budi@example.com',
    agent_name: who ? who.user.name : '',
    workspace_name: who ? who.workspace.name : '',
  }
}

const size = (n: number) =>
  n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(n / 1024))} KB`

/** `/app/settings/templates`: reply templates, each with the `/` preview agents get. */
const TemplatesPage = () => (
  <Page title="is.tpl.title" permission="templates.manage" testId="templates-page">
    <Templates />
  </Page>
)
export default TemplatesPage

const Templates = () => {
  const tr = useTr()
  const [list, setList] = useState<readonly Template[] | null>(null)
  const [categories, setCategories] = useState<readonly string[]>([])
  const [q, setQ] = useState('')
  const load = (): Promise<void> =>
    got<Template[]>(api.get('/v1/templates')).then((r) => {
      setList(r.data)
      setCategories((r.meta.categories as string[] | undefined) ?? [])
    }, ui.setFailed)
  const ui = useList<Template>(load)
  useEffect(() => {
    void load()
  }, [])
  const remove = (t: Template) =>
    ui.act(async () => {
      await api.delete('/v1/templates/{id}', { path: { id: t.id } })
      return tr('is.deleted', { name: t.name })
    }, t.id)

  const needle = q.trim().toLowerCase()
  const shown = (list ?? []).filter(
    (t) => !needle || `${t.shortcut} ${t.name} ${t.category} ${t.body}`.toLowerCase().includes(needle),
  )
  return (
    <div class="k-stack is-stack">
      <Told failed={ui.failed} note={ui.note} />
      {ui.editing ? (
        <TemplateEditor
          key={ui.editing === 'new' ? 'new' : ui.editing.id}
          template={ui.editing === 'new' ? null : ui.editing}
          categories={categories}
          onDone={ui.done}
        />
      ) : (
        <NewBar label={tr('is.tpl.new')} onNew={() => ui.open('new')}>
          {list && list.length > 0 ? (
            <input
              type="search"
              class="is-search"
              aria-label={tr('is.tpl.search')}
              placeholder={tr('is.tpl.search')}
              value={q}
              onInput={(e) => setQ(e.currentTarget.value)}
            />
          ) : null}
        </NewBar>
      )}
      {list && list.length === 0 ? (
        <p class="k-muted" data-testid="templates-empty">
          {tr('is.tpl.empty')}
        </p>
      ) : null}
      {list && list.length > 0 && shown.length === 0 ? <p class="k-muted">{tr('is.tpl.no_match')}</p> : null}
      {shown.length > 0 ? (
        <ListTable
          label={tr('is.tpl.title')}
          columns={[
            [tr('is.tpl.shortcut')],
            [tr('is.tpl.name')],
            [tr('is.tpl.category'), 'wide'],
            [tr('is.tpl.attachment'), 'wide'],
          ]}
        >
          {shown.map((t) => (
            <tr key={t.id} data-template-id={t.id}>
              <td class="is-mono">{t.shortcut ? `/${t.shortcut}` : ''}</td>
              <td>
                <strong>{t.name}</strong>
                <div class="k-muted">{t.body.slice(0, 90)}</div>
                {t.category ? <div class="k-muted is-narrow">{t.category}</div> : null}
              </td>
              <td class="is-wide">{t.category}</td>
              <td class="is-wide">{t.attachment ? t.attachment.name : ''}</td>
              <RowActions
                name={t.name}
                question={tr('is.tpl.delete_q', { name: t.name })}
                onEdit={() => ui.open(t)}
                onDelete={() => remove(t)}
              />
            </tr>
          ))}
        </ListTable>
      ) : null}
    </div>
  )
}

/** Creating or changing one template, its attachment, and beside it what agents will see. */
const TemplateEditor = (props: {
  template: Template | null
  categories: readonly string[]
  onDone: (told: string | null) => void
}) => {
  const tr = useTr()
  const t = props.template
  const [name, setName] = useState(t?.name ?? '')
  const [shortcut, setShortcut] = useState(t?.shortcut ?? '')
  const [category, setCategory] = useState(t?.category ?? '')
  const [body, setBody] = useState(t?.body ?? '')
  const [file, setFile] = useState<File | null>(null)
  const [attachment, setAttachment] = useState(t?.attachment ?? null)
  const call = useCall()
  const fields = { name, shortcut: shortcut.trim().replace(/^\//, ''), category, body }
  const withFile = (extra: Readonly<Record<string, string>>) => {
    const form = new FormData()
    for (const [k, v] of Object.entries(extra)) form.append(k, v)
    form.append('file', file!)
    return form
  }
  const save = async () => {
    if (!t) return api.post('/v1/templates', { body: file ? withFile(fields) : fields })
    await api.patch('/v1/templates/{id}', { path: { id: t.id }, body: fields })
    if (file) await api.post('/v1/templates/{id}/attachment', { path: { id: t.id }, body: withFile({}) })
  }
  const detach = async () => {
    if (!t) return
    await call.run(async () => {
      const r = await got<Template>(api.delete('/v1/templates/{id}/attachment', { path: { id: t.id } }))
      setAttachment(r.data.attachment)
    })
  }

  return (
    <div class="is-edit">
      <EditorForm
        id="tpl-edit"
        testId="template-form"
        title={t ? tr('is.edit_of', { name: t.name }) : tr('is.tpl.new')}
        creating={!t}
        call={call}
        save={save}
        told={tr(t ? 'is.saved' : 'is.created', { name: name.trim() })}
        onDone={props.onDone}
      >
        <div class="is-two">
          <TextField
            label={tr('is.tpl.name')}
            name="name"
            value={name}
            onValue={setName}
            error={call.fields.name}
            maxLength={100}
            required
          />
          <TextField
            label={tr('is.tpl.shortcut')}
            name="shortcut"
            value={shortcut}
            onValue={setShortcut}
            error={call.fields.shortcut}
            hint={tr('is.tpl.shortcut_hint')}
            maxLength={31}
          />
        </div>
        <Field label={tr('is.tpl.category')} error={call.fields.category} hint={tr('is.tpl.category_hint')}>
          {(id, described) => (
            <>
              <input
                id={id}
                name="category"
                list={`${id}-list`}
                maxLength={50}
                value={category}
                aria-invalid={call.fields.category ? 'true' : undefined}
                aria-describedby={described}
                onInput={(e) => setCategory(e.currentTarget.value)}
              />
              <datalist id={`${id}-list`}>
                {props.categories.map((c) => (
                  <option key={c} value={c} />
                ))}
              </datalist>
            </>
          )}
        </Field>
        <TextAreaField
          label={tr('is.tpl.body')}
          name="body"
          rows={6}
          maxLength={4096}
          value={body}
          onValue={setBody}
          error={call.fields.body}
          hint={tr('is.tpl.body_hint', { vars: VARS })}
          required
        />
        {attachment ? (
          <div class="is-file" data-testid="template-attachment">
            <span>
              {tr('is.tpl.attachment')}:{' '}
              <a href={attachment.url} download={attachment.name}>
                {attachment.name}
              </a>{' '}
              <span class="k-muted">({size(attachment.size)})</span>
            </span>
            <ConfirmButton
              label={tr('is.tpl.attachment_remove')}
              question={tr('is.tpl.attachment_remove_q')}
              onConfirm={detach}
            />
          </div>
        ) : null}
        <Field
          label={attachment ? tr('is.tpl.attachment_replace') : tr('is.tpl.attachment')}
          error={call.fields.file}
          hint={tr('is.tpl.attachment_hint')}
        >
          {(id, described) => (
            <input
              id={id}
              type="file"
              name="file"
              aria-describedby={described}
              onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
            />
          )}
        </Field>
      </EditorForm>
      <Preview name={name} shortcut={shortcut.trim().replace(/^\//, '')} body={body} />
    </div>
  )
}

/**
 * What an agent sees on typing `/` and the shortcut in the reply box: the suggestion as the inbox's
 * composer draws it (components/composer.tsx, the `templates` list), then the text it puts in.
 */
const Preview = (props: { name: string; shortcut: string; body: string }) => {
  const tr = useTr()
  const filled = render(props.body, exampleVars())
  const typed = props.shortcut || props.name.trim().split(/\s+/)[0]?.toLowerCase() || ''
  return (
    <section class="k-panel is-preview" aria-labelledby="tpl-preview" data-testid="template-preview">
      <h2 id="tpl-preview">{tr('is.tpl.preview')}</h2>
      <p class="k-muted">
        {props.shortcut
          ? tr('is.tpl.preview_hint', { shortcut: props.shortcut })
          : tr('is.tpl.preview_hint_noshortcut')}
      </p>
      <div class="is-composer">
        <div class="templates" aria-hidden="true">
          <div class="on">
            <strong>/{props.shortcut}</strong> {props.name}
            <div class="muted small">{filled.slice(0, 90)}</div>
          </div>
        </div>
        <div class="is-typed">
          <span class="sr-only">{tr('is.tpl.preview_box')}: </span>/{typed}
          <span class="is-caret" aria-hidden="true" />
        </div>
      </div>
      <h3 class="is-inserted">{tr('is.tpl.preview_inserted')}</h3>
      <div class="is-result" data-testid="template-rendered">
        {filled}
      </div>
    </section>
  )
}
