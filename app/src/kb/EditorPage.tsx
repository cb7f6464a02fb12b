import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, failFields, Link, me, useKitTr } from '../kit'
import { ConfirmButton, FailNotice, Notice, SelectField, TextAreaField, TextField } from '../kit/ui'
import { navigate } from '../lib/router'
import { CheckList } from '../people/common'
import type { PageProps } from '../routes'
import { EmbeddingBadge, StatusBadge, useKbChanged } from './common'
import { type Article, articlePath, type Category, ensureStyles, type Tr, useTr } from './kit'
import { Markdown } from './markdown'

interface Draft {
  readonly title: string
  readonly body: string
  readonly category: string
  readonly tags: string
  readonly visibility: Article['visibility']
  readonly team_ids: readonly number[]
}

const EMPTY: Draft = { title: '', body: '', category: '', tags: '', visibility: 'internal', team_ids: [] }

const draftOf = (a: Article): Draft => ({
  title: a.title,
  body: a.body,
  category: a.category_id === null ? '' : String(a.category_id),
  tags: a.tags.join(', '),
  visibility: a.visibility,
  team_ids: a.team_ids,
})

const bodyOf = (d: Draft, status: Article['status']) => ({
  title: d.title,
  body: d.body,
  category_id: d.category === '' ? null : Number(d.category),
  tags: d.tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean),
  visibility: d.visibility,
  team_ids: [...d.team_ids],
  status,
})

/** What the last save said, kept across the step from "new" to the article's own editor. */
let saved: Article['status'] | null = null

/** Where the article's processing for search by meaning is, in words. */
const embeddingText = (a: Article, tr: Tr) => {
  switch (a.embedding_status) {
    case 'done':
      return tr('kb.emb.done', { chunks: a.chunk_count, when: a.embedded_at_text ?? '' })
    case 'failed':
      return tr('kb.emb.failed', { reason: a.embedding_error ?? '' })
    default:
      return tr(`kb.emb.${a.embedding_status}`)
  }
}

/**
 * `/app/kb/articles/new` and `/app/kb/articles/:id/edit`: title, Markdown body with a live preview
 * (rendered to elements, never as HTML), category, tags, visibility, the teams who see it; save as
 * a draft or publish; and, once published, where its processing for search by meaning is (live,
 * through `kb.changed`) with a button to process it again.
 */
export const EditorPage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const id = params.id === undefined ? null : Number(params.id)
  const [article, setArticle] = useState<Article | null>(null)
  const [draft, setDraft] = useState<Draft | null>(id === null ? EMPTY : null)
  const [categories, setCategories] = useState<readonly Category[]>([])
  const [teams, setTeams] = useState<readonly (readonly [number, string])[]>([])
  const [error, setError] = useState<unknown>(null)
  const [loadError, setLoadError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const [notice, setNotice] = useState<Article['status'] | null>(null)

  const reload = (fill: boolean) =>
    id === null
      ? Promise.resolve()
      : api.get('/v1/kb/articles/{id}', { path: { id } }).then(
          (r) => {
            setArticle(r.data)
            if (fill) setDraft(draftOf(r.data))
          },
          (e) => setLoadError(e),
        )
  useEffect(() => {
    setNotice(saved)
    saved = null
    setError(null)
    if (id === null) {
      setArticle(null)
      setDraft(EMPTY)
    } else void reload(true)
  }, [id])
  useEffect(() => {
    void api.get('/v1/kb/categories').then(
      (r) => setCategories(r.data),
      () => null,
    )
    void api.get('/v1/teams').then(
      (r) => setTeams(r.data.map((t) => [t.id, t.name] as const)),
      () => null,
    )
  }, [])
  // Processing for search by meaning ends in the background: its state follows, the text typed stays.
  useKbChanged((d) => {
    if (id !== null && (d.article_id === undefined || d.article_id === id)) void reload(false)
  })

  if (loadError) {
    return (
      <div class="k-page" data-testid="kb-editor">
        <Link class="k-back" to="/kb">
          {tr('kb.back')}
        </Link>
        {loadError instanceof ApiError && loadError.status === 404 ? (
          <Notice kind="info">{tr('kb.not_found')}</Notice>
        ) : (
          <FailNotice error={loadError} />
        )}
      </div>
    )
  }
  if (!draft) {
    return (
      <div class="k-page" data-testid="kb-editor">
        <p class="k-muted">{kt('k.loading')}</p>
      </div>
    )
  }

  const fields = failFields(error)
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch })
  const save = async (status: Article['status']) => {
    setBusy(true)
    setError(null)
    setNotice(null)
    try {
      if (id === null) {
        const r = await api.post('/v1/kb/articles', { body: bodyOf(draft, status) })
        saved = status
        navigate(`/kb/articles/${r.data.id}/edit`, true)
      } else {
        const r = await api.patch('/v1/kb/articles/{id}', { path: { id }, body: bodyOf(draft, status) })
        setArticle(r.data)
        setNotice(status)
      }
    } catch (e) {
      setError(e)
    } finally {
      setBusy(false)
    }
  }
  const status = article?.status ?? 'draft'
  const title = id === null ? tr('kb.editor.new') : tr('kb.editor.edit', { title: article?.title ?? '' })
  const who = me.get()
  const aiPlan = who ? who.workspace.limits.ai : false

  return (
    <div class="k-page" data-testid="kb-editor">
      <Link class="k-back" to={id === null ? '/kb' : articlePath(id)}>
        {id === null ? tr('kb.back') : (article?.title ?? tr('kb.back'))}
      </Link>
      <div class="k-head">
        <h1>{title}</h1>
        {article ? <StatusBadge a={article} /> : null}
      </div>
      <form
        class="k-stack"
        onSubmit={(e) => {
          e.preventDefault()
          void save(status)
        }}
      >
        {notice ? (
          <Notice kind="ok">
            {notice === 'published' ? tr('kb.saved_published') : tr('kb.saved_draft')}
          </Notice>
        ) : null}
        <FailNotice error={error} />
        {status === 'draft' ? <p class="k-muted">{tr('kb.is_draft')}</p> : null}
        <TextField
          label={tr('kb.f.title')}
          name="title"
          value={draft.title}
          onValue={(v) => set({ title: v })}
          error={fields.title}
          maxLength={200}
          required
        />
        <div class="kb-edit">
          <TextAreaField
            label={tr('kb.f.body')}
            name="body"
            value={draft.body}
            onValue={(v) => set({ body: v })}
            error={fields.body}
            hint={tr('kb.f.body_hint')}
            maxLength={50_000}
            rows={14}
          />
          <section class="kb-preview" aria-labelledby="kb-preview-h">
            <h2 id="kb-preview-h" class="kb-ph">
              {tr('kb.preview')}
            </h2>
            <Markdown source={draft.body} testId="kb-preview" />
          </section>
        </div>
        <div class="kb-fields">
          <SelectField
            label={tr('kb.f.category')}
            name="category_id"
            value={draft.category}
            onValue={(v) => set({ category: v })}
            error={fields.category_id}
            options={[
              ['', tr('kb.f.no_category')],
              ...categories.map((c) => [String(c.id), c.name] as const),
            ]}
          />
          <SelectField
            label={tr('kb.f.visibility')}
            name="visibility"
            value={draft.visibility}
            onValue={(v) => set({ visibility: v === 'public' ? 'public' : 'internal' })}
            error={fields.visibility}
            options={[
              ['internal', tr('kb.vis.internal')],
              ['public', tr('kb.vis.public')],
            ]}
          />
          <TextField
            label={tr('kb.f.tags')}
            name="tags"
            value={draft.tags}
            onValue={(v) => set({ tags: v })}
            error={fields.tags}
            hint={tr('kb.f.tags_hint')}
          />
        </div>
        <CheckList
          legend={tr('kb.f.teams')}
          name="team_ids"
          options={teams}
          chosen={draft.team_ids}
          onChosen={(ids) => set({ team_ids: ids })}
          error={fields.team_ids}
          hint={tr('kb.f.teams_hint')}
          empty={tr('kb.f.no_teams')}
        />
        <div class="k-row">
          {status === 'draft' ? (
            <>
              <button type="button" class="k-btn" disabled={busy} onClick={() => void save('draft')}>
                {tr('kb.save_draft')}
              </button>
              <button
                type="button"
                class="k-btn k-primary"
                disabled={busy}
                onClick={() => void save('published')}
              >
                {tr('kb.publish')}
              </button>
            </>
          ) : (
            <>
              <button
                type="button"
                class="k-btn k-primary"
                disabled={busy}
                onClick={() => void save('published')}
              >
                {tr('kb.save_published')}
              </button>
              <button type="button" class="k-btn" disabled={busy} onClick={() => void save('draft')}>
                {tr('kb.unpublish')}
              </button>
            </>
          )}
        </div>
      </form>
      {article && article.status === 'published' ? (
        <section
          class="k-panel"
          aria-labelledby="kb-emb"
          style={{ marginTop: '16px' }}
          data-testid="kb-embedding"
        >
          <h2 id="kb-emb">{tr('kb.emb.title')}</h2>
          <p class="k-row">
            <EmbeddingBadge a={article} />
            <span>{embeddingText(article, tr)}</span>
          </p>
          {aiPlan ? (
            <button
              type="button"
              class="k-btn"
              disabled={
                busy || article.embedding_status === 'pending' || article.embedding_status === 'processing'
              }
              onClick={() =>
                void api.post('/v1/kb/articles/{id}/embed', { path: { id: article.id } }).then(
                  () => reload(false),
                  (e) => setError(e),
                )
              }
            >
              {tr('kb.emb.again')}
            </button>
          ) : null}
        </section>
      ) : null}
      {article ? (
        <div class="k-danger">
          <ConfirmButton
            label={tr('kb.delete')}
            question={tr('kb.delete_q')}
            onConfirm={async () => {
              try {
                await api.delete('/v1/kb/articles/{id}', { path: { id: article.id } })
                navigate('/kb')
              } catch (e) {
                setError(e)
              }
            }}
          />
        </div>
      ) : null}
    </div>
  )
}
