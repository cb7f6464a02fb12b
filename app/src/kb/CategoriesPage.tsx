import { useEffect, useState } from 'preact/hooks'
import { api, can, failFields, Link, useKitTr } from '../kit'
import { ConfirmButton, FailNotice, Notice, Panel, TextField } from '../kit/ui'
import { useKbChanged } from './common'
import { type Category, ensureStyles, useTr } from './kit'

/**
 * `/app/kb/categories`: the knowledge base's categories by position, each with its published
 * articles; who manages the knowledge base creates, renames (name and description), reorders
 * (up and down swap positions) and deletes them (articles stay, uncategorized).
 */
export const CategoriesPage = () => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const manage = can('kb.manage')
  const [list, setList] = useState<readonly Category[] | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [editing, setEditing] = useState<number | null>(null)
  const load = () =>
    api.get('/v1/kb/categories').then(
      (r) => {
        setList(r.data)
      },
      (e) => setError(e),
    )
  useEffect(() => {
    void load()
  }, [])
  useKbChanged((d) => {
    if (d.article_id === undefined) void load()
  })

  /**
   * Swaps two neighbours' places. Positions may repeat (then the name orders them): the pair
   * gets distinct ones, the lower first, so the move shows whatever they held before.
   */
  const move = async (i: number, by: -1 | 1) => {
    if (!list) return
    const a = list[i]!
    const b = list[i + by]!
    const lo = Math.min(a.position, b.position)
    const hi = Math.max(a.position, b.position, lo + 1)
    const [first, second] = by === -1 ? [a, b] : [b, a]
    setError(null)
    try {
      await api.patch('/v1/kb/categories/{id}', { path: { id: first.id }, body: { position: lo } })
      await api.patch('/v1/kb/categories/{id}', { path: { id: second.id }, body: { position: hi } })
    } catch (e) {
      setError(e)
    }
    await load()
  }

  return (
    <div class="k-page" data-testid="kb-categories">
      <Link class="k-back" to="/kb">
        {tr('kb.back')}
      </Link>
      <div class="k-head">
        <h1>{tr('kb.cat.title')}</h1>
      </div>
      <div class="k-stack">
        <FailNotice error={error} />
        {manage ? (
          <NewCategory
            next={list && list.length > 0 ? Math.max(...list.map((c) => c.position)) + 1 : 0}
            onDone={load}
          />
        ) : null}
        {list === null ? (
          error ? null : (
            <p class="k-muted">{kt('k.loading')}</p>
          )
        ) : list.length === 0 ? (
          <p class="k-muted">{tr('kb.cat.empty')}</p>
        ) : (
          <div class="k-table-wrap">
            <table class="k-table kb-cats" aria-label={tr('kb.categories')}>
              <thead>
                <tr>
                  <th scope="col">{tr('kb.cat.name')}</th>
                  <th scope="col">{tr('kb.cat.description')}</th>
                  <th scope="col">{tr('kb.cat.articles')}</th>
                  {manage ? <th scope="col">{tr('kb.cat.actions')}</th> : null}
                </tr>
              </thead>
              <tbody>
                {list.map((c, i) =>
                  editing === c.id ? (
                    <EditRow
                      key={c.id}
                      c={c}
                      onDone={() => {
                        setEditing(null)
                        void load()
                      }}
                    />
                  ) : (
                    <tr key={c.id} data-category-id={c.id}>
                      <td>
                        <strong>{c.name}</strong>
                      </td>
                      <td data-label={tr('kb.cat.description')}>{c.description || '—'}</td>
                      <td data-label={tr('kb.cat.articles')}>{c.articles_count}</td>
                      {manage ? (
                        <td>
                          <div class="k-row">
                            <button
                              type="button"
                              class="k-btn kb-icon"
                              disabled={i === 0}
                              aria-label={tr('kb.cat.up', { name: c.name })}
                              onClick={() => void move(i, -1)}
                            >
                              ↑
                            </button>
                            <button
                              type="button"
                              class="k-btn kb-icon"
                              disabled={i === list.length - 1}
                              aria-label={tr('kb.cat.down', { name: c.name })}
                              onClick={() => void move(i, 1)}
                            >
                              ↓
                            </button>
                            <button
                              type="button"
                              class="k-btn"
                              aria-label={tr('kb.cat.edit_of', { name: c.name })}
                              onClick={() => setEditing(c.id)}
                            >
                              {tr('kb.cat.rename')}
                            </button>
                            <ConfirmButton
                              label={kt('k.delete')}
                              question={tr('kb.cat.delete_q', { name: c.name })}
                              onConfirm={async () => {
                                try {
                                  await api.delete('/v1/kb/categories/{id}', { path: { id: c.id } })
                                } catch (e) {
                                  setError(e)
                                }
                                await load()
                              }}
                            />
                          </div>
                        </td>
                      ) : null}
                    </tr>
                  ),
                )}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </div>
  )
}

const NewCategory = (props: { next: number; onDone: () => Promise<unknown> }) => {
  const tr = useTr()
  const kt = useKitTr()
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const [error, setError] = useState<unknown>(null)
  const [done, setDone] = useState(false)
  const fields = failFields(error)
  return (
    <Panel title={tr('kb.cat.new')} id="kb-cat-new">
      <form
        class="k-form"
        onSubmit={async (e) => {
          e.preventDefault()
          setError(null)
          setDone(false)
          try {
            await api.post('/v1/kb/categories', { body: { name, description, position: props.next } })
            setName('')
            setDescription('')
            setDone(true)
            await props.onDone()
          } catch (x) {
            setError(x)
          }
        }}
      >
        <TextField
          label={tr('kb.cat.name')}
          name="name"
          value={name}
          onValue={setName}
          error={fields.name}
          maxLength={100}
          required
        />
        <TextField
          label={tr('kb.cat.description')}
          name="description"
          value={description}
          onValue={setDescription}
          error={fields.description}
          maxLength={1000}
        />
        {done ? <Notice kind="ok">{kt('k.saved')}</Notice> : null}
        <FailNotice error={error} />
        <button type="submit" class="k-btn k-primary">
          {kt('k.create')}
        </button>
      </form>
    </Panel>
  )
}

/** A category's row as a small form: name and description. */
const EditRow = (props: { c: Category; onDone: () => void }) => {
  const tr = useTr()
  const kt = useKitTr()
  const [name, setName] = useState(props.c.name)
  const [description, setDescription] = useState(props.c.description)
  const [error, setError] = useState<unknown>(null)
  const fields = failFields(error)
  const save = async () => {
    setError(null)
    try {
      await api.patch('/v1/kb/categories/{id}', { path: { id: props.c.id }, body: { name, description } })
      props.onDone()
    } catch (e) {
      setError(e)
    }
  }
  return (
    <tr data-category-id={props.c.id} data-editing="true">
      <td>
        <input
          aria-label={tr('kb.cat.name')}
          name="name"
          value={name}
          maxLength={100}
          aria-invalid={fields.name ? 'true' : undefined}
          onInput={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && void save()}
        />
        {fields.name ? (
          <small class="k-error" role="alert">
            {fields.name}
          </small>
        ) : null}
      </td>
      <td>
        <input
          aria-label={tr('kb.cat.description')}
          name="description"
          value={description}
          maxLength={1000}
          onInput={(e) => setDescription(e.currentTarget.value)}
          onKeyDown={(e) => e.key === 'Enter' && void save()}
        />
      </td>
      <td>{props.c.articles_count}</td>
      <td>
        <div class="k-row">
          <button type="button" class="k-btn k-primary" onClick={() => void save()}>
            {kt('k.save')}
          </button>
          <button type="button" class="k-btn" onClick={props.onDone}>
            {kt('k.cancel')}
          </button>
        </div>
        {Object.keys(fields).length === 0 ? <FailNotice error={error} /> : null}
      </td>
    </tr>
  )
}
