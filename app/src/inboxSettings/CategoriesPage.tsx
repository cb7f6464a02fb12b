import { useEffect, useState } from 'preact/hooks'
import { SelectField, TextField } from '../kit/ui'
import {
  Chip,
  ColorPick,
  EditorForm,
  ListTable,
  MoveButtons,
  NewBar,
  PALETTE,
  Page,
  RowActions,
  Told,
  useList,
} from './common'
import { api, got, useCall, useTr, useWorkspaceEvents } from './kit'
import type { Category } from './types'

/** `/app/settings/categories`: the conversation categories' tree (3 levels), in order. */
const CategoriesPage = () => (
  <Page title="is.cat.title" permission="contacts.manage" testId="categories-page">
    <Categories />
  </Page>
)
export default CategoriesPage

interface Meta {
  readonly total: number
  readonly limit: number
  readonly max_depth: number
}

const Categories = () => {
  const tr = useTr()
  const [list, setList] = useState<readonly Category[] | null>(null)
  const [meta, setMeta] = useState<Meta>({ total: 0, limit: 200, max_depth: 3 })
  const load = (): Promise<void> =>
    got<Category[]>(api.get('/v1/conversation-categories')).then((r) => {
      setList(r.data)
      setMeta(r.meta as unknown as Meta)
    }, ui.setFailed)
  const ui = useList<Category>(load)
  useEffect(() => {
    void load()
  }, [])
  // A category deleted elsewhere moves conversations (the only event about categories).
  useWorkspaceEvents(['inbox.changed'], (d) => {
    if (d.reason === undefined || d.reason === 'category_deleted') void load()
  })

  const siblingsOf = (c: Category) => (list ?? []).filter((x) => x.parent_id === c.parent_id)
  // Positions are numbers among siblings: swap the two, then renumber the ones that change.
  const move = (c: Category, by: -1 | 1) =>
    ui.act(async () => {
      const order = [...siblingsOf(c)]
      const i = order.findIndex((x) => x.id === c.id)
      ;[order[i], order[i + by]] = [order[i + by]!, order[i]!]
      for (const [k, x] of order.entries())
        if (x.position !== k)
          await api.patch('/v1/conversation-categories/{id}', { path: { id: x.id }, body: { position: k } })
    })
  const parentName = (c: Category) =>
    c.parent_id === null
      ? tr('is.cat.uncategorized')
      : ((list ?? []).find((x) => x.id === c.parent_id)?.path_text ?? '')
  const remove = (c: Category) =>
    ui.act(async () => {
      const r = await got<{ conversations_moved: number }>(
        api.delete('/v1/conversation-categories/{id}', { path: { id: c.id } }),
      )
      const n = r.data.conversations_moved
      return n > 0 ? tr('is.cat.deleted_moved', { name: c.name, n }) : tr('is.deleted', { name: c.name })
    }, c.id)

  return (
    <div class="k-stack is-stack">
      <Told failed={ui.failed} note={ui.note} />
      {ui.editing ? (
        <CategoryEditor
          key={ui.editing === 'new' ? 'new' : ui.editing.id}
          category={ui.editing === 'new' ? null : ui.editing}
          list={list ?? []}
          maxDepth={meta.max_depth}
          onDone={ui.done}
        />
      ) : (
        <NewBar label={tr('is.cat.new')} onNew={() => ui.open('new')}>
          {list && list.length > 0 ? (
            <span class="k-muted">{tr('is.cat.count', { total: meta.total, limit: meta.limit })}</span>
          ) : null}
        </NewBar>
      )}
      {list && list.length === 0 ? (
        <p class="k-muted" data-testid="categories-empty">
          {tr('is.cat.empty')}
        </p>
      ) : null}
      {list && list.length > 0 ? (
        <ListTable label={tr('is.cat.title')} columns={[[tr('is.cat.name')], [tr('is.order')]]}>
          {list.map((c) => {
            const sibs = siblingsOf(c)
            return (
              <tr key={c.id} data-category-id={c.id}>
                <td class={c.depth > 0 ? `is-tree-${Math.min(c.depth, 2)}` : undefined}>
                  {c.depth > 0 ? <span aria-hidden="true">↳ </span> : null}
                  <Chip color={c.color} />
                  <strong>{c.name}</strong>
                  {c.depth > 0 ? <span class="sr-only"> ({c.path_text})</span> : null}
                  {c.children_count > 0 ? (
                    <div class="k-muted">{tr('is.cat.sub', { n: c.children_count })}</div>
                  ) : null}
                </td>
                <td>
                  <MoveButtons
                    name={c.name}
                    first={sibs[0]?.id === c.id}
                    last={sibs[sibs.length - 1]?.id === c.id}
                    busy={ui.busy}
                    onMove={(by) => move(c, by)}
                  />
                </td>
                <RowActions
                  name={c.name}
                  question={tr('is.cat.delete_q', { name: c.name, parent: parentName(c) })}
                  onEdit={() => ui.open(c)}
                  onDelete={() => remove(c)}
                />
              </tr>
            )
          })}
        </ListTable>
      ) : null}
    </div>
  )
}

/** The ids of `id` and everything below it, which a category cannot move into. */
const below = (list: readonly Category[], id: number) => {
  const out = [id]
  for (let i = 0; i < out.length; i++) for (const c of list) if (c.parent_id === out[i]) out.push(c.id)
  return new Set(out)
}

const CategoryEditor = (props: {
  category: Category | null
  list: readonly Category[]
  maxDepth: number
  onDone: (told: string | null) => void
}) => {
  const tr = useTr()
  const c = props.category
  const [name, setName] = useState(c?.name ?? '')
  const [color, setColor] = useState(c?.color ?? '')
  const [parent, setParent] = useState(c?.parent_id ? String(c.parent_id) : '')
  const call = useCall()
  // Parents that keep the tree within its depth; never the category itself or below it.
  const excluded = c ? below(props.list, c.id) : new Set<number>()
  const parents = props.list.filter((x) => x.depth < props.maxDepth - 1 && !excluded.has(x.id))
  const body = { name, color, parent_id: parent ? Number(parent) : null }
  return (
    <EditorForm
      id="cat-edit"
      testId="category-form"
      title={c ? tr('is.edit_of', { name: c.name }) : tr('is.cat.new')}
      creating={!c}
      call={call}
      save={() =>
        c
          ? api.patch('/v1/conversation-categories/{id}', { path: { id: c.id }, body })
          : api.post('/v1/conversation-categories', { body })
      }
      told={tr(c ? 'is.saved' : 'is.created', { name: name.trim() })}
      onDone={props.onDone}
    >
      <div class="is-two">
        <TextField
          label={tr('is.cat.name')}
          name="name"
          value={name}
          onValue={setName}
          error={call.fields.name}
          maxLength={100}
          required
        />
        <SelectField
          label={tr('is.cat.parent')}
          name="parent_id"
          value={parent}
          onValue={setParent}
          error={call.fields.parent_id}
          options={[['', tr('is.cat.top')], ...parents.map((x) => [String(x.id), x.path_text] as const)]}
        />
      </div>
      <ColorPick
        name="color"
        value={color}
        onValue={setColor}
        colors={PALETTE}
        none
        error={call.fields.color}
      />
    </EditorForm>
  )
}
