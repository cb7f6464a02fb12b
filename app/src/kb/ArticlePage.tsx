import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, Link, useKitTr, useLocale } from '../kit'
import { FailNotice, Notice, when } from '../kit/ui'
import type { PageProps } from '../routes'
import { EmbeddingBadge, StatusBadge, teamsText, useKbChanged } from './common'
import { type Article, ensureStyles, useTr } from './kit'
import { Markdown } from './markdown'

/**
 * `/app/kb/articles/:id`: an article to read, its body rendered from Markdown to elements (never
 * as HTML). A colleague's change reloads it in place and says so; a deletion says so.
 */
export const ArticlePage = ({ params }: PageProps) => {
  ensureStyles()
  const tr = useTr()
  const kt = useKitTr()
  const locale = useLocale()
  const id = Number(params.id)
  const [article, setArticle] = useState<Article | null>(null)
  const [error, setError] = useState<unknown>(null)
  const [gone, setGone] = useState(false)
  const [changed, setChanged] = useState(false)
  const load = (live = false) =>
    api.get('/v1/kb/articles/{id}', { path: { id } }).then(
      (r) => {
        setArticle(r.data)
        setError(null)
        setGone(false)
        if (live) setChanged(true)
      },
      (e: unknown) => {
        if (live && e instanceof ApiError && e.status === 404) setGone(true)
        else setError(e)
      },
    )
  useEffect(() => {
    setArticle(null)
    setChanged(false)
    void load()
  }, [id])
  useKbChanged((d) => {
    if (d.article_id === undefined || d.article_id === id) void load(true)
  })

  const missing = error instanceof ApiError && error.status === 404
  return (
    <div class="k-page kb-reader" data-testid="kb-article">
      <Link class="k-back" to="/kb">
        {tr('kb.back')}
      </Link>
      {missing ? (
        <Notice kind="info">{tr('kb.not_found')}</Notice>
      ) : error ? (
        <FailNotice error={error} />
      ) : !article ? (
        <p class="k-muted">{kt('k.loading')}</p>
      ) : (
        <article class="k-stack" aria-labelledby="kb-title">
          <div class="k-head" style={{ margin: 0 }}>
            <h1 id="kb-title">{article.title}</h1>
            {article.can.edit && !gone ? (
              <Link class="k-btn" to={`/kb/articles/${article.id}/edit`}>
                {tr('kb.edit')}
              </Link>
            ) : null}
          </div>
          {gone ? <Notice kind="bad">{tr('kb.gone')}</Notice> : null}
          {changed && !gone ? <Notice kind="info">{tr('kb.changed_live')}</Notice> : null}
          <div class="kb-meta">
            {article.can.edit ? <StatusBadge a={article} /> : null}
            {article.can.edit && article.status === 'published' ? <EmbeddingBadge a={article} /> : null}
            <span>{article.category?.name ?? tr('kb.filter.none')}</span>
            <span>{tr(`kb.vis.${article.visibility}`)}</span>
            <span>
              {tr('kb.teams')}: {teamsText(article, tr)}
            </span>
            <span>{tr('kb.updated', { when: when(article.updated_at, locale) })}</span>
          </div>
          {article.tags.length > 0 ? (
            <p class="kb-meta">
              {tr('kb.tags')}:{' '}
              {article.tags.map((t) => (
                <span key={t} class="k-badge kb-badge-n">
                  {t}
                </span>
              ))}
            </p>
          ) : null}
          <div class="k-panel">
            {article.body.trim() === '' ? (
              <p class="k-muted">{tr('kb.empty_body')}</p>
            ) : (
              <Markdown source={article.body} testId="kb-body" />
            )}
          </div>
        </article>
      )}
    </div>
  )
}
